/**
 * Renders a {@link ConformanceReport} as a readable plain-text table (pure).
 */
import type { CallCounts, ConformanceReport, SchemaCounts } from './conformance'

function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))]
  const widths = headers.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)))
  const line = (r: readonly string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n')
}

const sdkCell = (counts: SchemaCounts) => (counts.sdkTyped === undefined ? 'skipped' : counts.sdkTyped)

function reasons(counts: CallCounts, limit = 8): string[] {
  return counts.reasons.slice(0, limit).map(([reason, n]) => `    ${String(n).padStart(5)}  ${reason}`)
}

/** What the report's words mean, printed before the verdict. */
export const TERMS: readonly (readonly [string, string])[] = [
  ['definitions', 'tool definitions read from the fixture files'],
  ['registered', 'accepted by ctx.tools.register without an error'],
  ['deduplicated', 'a BFCL function declared again identically in one file, which reuses its registration'],
  ['scopes', 'agent scopes used: one per MCP file; a BFCL name declared twice differently needs another'],
  ['projected', 'returned by ctx.tools.schemas() as { name, description, parameters }'],
  ['SDK-typed', 'given a concrete argument type (not `unknown`) in the generated PTC SDK'],
  ['valid', 'passed argument validation and ran'],
  ['invalid', 'rejected as INVALID_ARGS, with the JSON pointer of each violation'],
  ['unknown tool', 'rejected as UNKNOWN_TOOL (the call names a tool that is not registered)'],
  ['agrees', 'an MCP call we accept or reject as the recorded server did'],
  ['dataset error', 'a BFCL ground-truth call that violates its own schema, listed in the fixtures'],
  ['PASS', 'every definition registered, and every rejection is a documented dataset error'],
]

/** `6,353` — thousands separated. */
const n = (value: number): string => value.toLocaleString('en-US')

/**
 * The last line: PASS or FAIL, then what passed of what. FAIL exactly when `npm run conformance`
 * exits 1 (a registration failed, or a documented dataset error was not rejected as expected).
 */
export function verdictLine(report: ConformanceReport): string {
  const definitions = report.mcp.definitions + report.bfcl.definitions
  const failed = report.mcp.failures.length + report.bfcl.failures.length
  const gt = report.bfclGroundTruth
  const rejected = gt.invalid + gt.unknown
  const m = report.mismatches
  const pass = failed === 0 && m.problems.length === 0
  return [
    `Verdict: ${pass ? 'PASS' : 'FAIL'} — ${n(definitions - failed)} of ${n(definitions)} definitions registered`,
    `${n(report.mcpSamples.agree)} of ${n(report.mcpSamples.calls)} MCP calls judged as the server did`,
    `${n(gt.valid)} of ${n(gt.calls)} BFCL ground-truth calls valid (${n(gt.documentedRejections)} of ${n(rejected)} rejections documented dataset errors)`,
    `${n(m.rejectedNamingField)} of ${n(m.applicable)} dataset errors rejected naming the field`,
  ].join('; ')
}

/** The report as text: a schema table, a call table, grouped reasons, any problem, the terms, the verdict. */
export function formatReport(report: ConformanceReport): string {
  const out: string[] = []
  out.push('Schemas (registered through ctx.tools.register, projected with ctx.tools.schemas, SDK from generateSdk)')
  out.push(
    table(
      ['source', 'definitions', 'registered', 'deduplicated', 'scopes', 'projected', 'SDK-typed', 'failed'],
      [
        ['MCP tools/list (15 files)', report.mcp.definitions, report.mcp.registered, report.mcp.deduplicated, report.mcp.scopes, report.mcp.projected, sdkCell(report.mcp), report.mcp.failures.length],
        ['BFCL raw functions (7 files)', report.bfcl.definitions, report.bfcl.registered, report.bfcl.deduplicated, report.bfcl.scopes, report.bfcl.projected, sdkCell(report.bfcl), report.bfcl.failures.length],
      ],
    ),
  )
  out.push('')
  out.push('Calls (through ctx.tools.execute, native executor)')
  out.push(
    table(
      ['calls', 'count', 'valid', 'invalid', 'unknown tool'],
      [
        ['MCP recorded tools/call samples', report.mcpSamples.calls, report.mcpSamples.valid, report.mcpSamples.invalid, report.mcpSamples.unknown],
        [`BFCL ground truth (${report.bfclGroundTruth.entries} entries)`, report.bfclGroundTruth.calls, report.bfclGroundTruth.valid, report.bfclGroundTruth.invalid, report.bfclGroundTruth.unknown],
      ],
    ),
  )
  out.push('')
  out.push(`MCP samples: our verdict equals the server's on ${report.mcpSamples.agree} of ${report.mcpSamples.calls}`)
  for (const d of report.mcpSamples.disagreements) out.push(`  differs: ${d}`)
  out.push('  rejection reasons:')
  out.push(...reasons(report.mcpSamples))
  out.push('')
  const gt = report.bfclGroundTruth
  out.push(`BFCL ground truth: ${gt.documentedRejections} of ${gt.invalid + gt.unknown} rejected calls are documented dataset errors; undocumented: ${gt.undocumentedRejections.join(', ') || 'none'}`)
  out.push('  rejection reasons:')
  out.push(...reasons(report.bfclGroundTruth))
  out.push('  examples:')
  for (const e of report.bfclGroundTruth.examples.slice(0, 5)) out.push(`    ${e}`)
  out.push('')
  const m = report.mismatches
  out.push(`Documented BFCL dataset errors: ${m.rejectedNamingField} of ${m.applicable} applicable rejected as INVALID_ARGS naming the field (${m.documented} documented; not in the copied categories: ${m.notApplicable.join(', ') || 'none'})`)
  for (const p of m.problems) out.push(`  problem: ${p}`)
  for (const f of [...report.mcp.failures, ...report.bfcl.failures]) out.push(`registration failed: ${f.source} ${f.tool}: ${f.message}`)
  out.push('')
  out.push(`PTC SDK column: ${report.sdk}`)
  out.push('')
  out.push('Terms')
  const width = Math.max(...TERMS.map(([term]) => term.length))
  for (const [term, meaning] of TERMS) out.push(`  ${term.padEnd(width)}  ${meaning}`)
  out.push('')
  out.push(verdictLine(report))
  return out.join('\n')
}
