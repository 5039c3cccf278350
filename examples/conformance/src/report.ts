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

/** The report as text: a schema table, a call table, grouped reasons, then any problem listed. */
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
  return out.join('\n')
}
