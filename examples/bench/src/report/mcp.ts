/**
 * The MCP bridge section of `docs/benchmarks.md`, kept between two markers so the main report
 * (`pnpm bench`) and the MCP run (`bench:mcp`) can each rewrite their part.
 */
import type { McpResult, McpRow } from '../workloads/mcp'

export const MCP_START = '<!-- mcp-bridge:start -->'
export const MCP_END = '<!-- mcp-bridge:end -->'

/** The section's markdown, markers included. */
export function renderMcpSection(r: McpResult): string {
  const cell = (s: McpRow['bare']): string => `${s.median.toFixed(1)} | ${s.p25.toFixed(1)}–${s.p75.toFixed(1)}`
  const met = r.rows.every((row) => row.ratio < 1.2)
  return [
    MCP_START,
    '## 8. MCP bridge overhead',
    '',
    `Per-call cost of \`@deepseek-ai/dsh-tool-mcp\` plus the full native pipeline (argument parse and validation against the server's \`inputSchema\`, policy, wrappers, content mapping, ordered frozen results) over the MCP SDK's bare \`client.callTool\`, on the same in-process SDK server (the same server code, one instance per client, on a linked in-memory transport; the server's own work runs on the same thread and is in both figures): ${r.n.toLocaleString('en-US')} calls of an \`add\` tool per run, ${r.rounds} rounds after warm-up, the two systems alternating which goes first, all in one process. Each run is timed in **CPU time** (\`process.cpuUsage()\`, user + system; the machine is shared) after draining the event loop, in µs per call. *sequential*: one call at a time on both sides (a tool without \`readOnlyHint\` is exclusive in a batch); *parallel*: ten at a time on both sides (a \`readOnlyHint\` tool runs in the executor's pool of 10; the bare side runs ten workers). The ratio is median ÷ median; the best round of each side is given beside it.`,
    '',
    '| variant | bare `callTool` median | p25–p75 | bridge + pipeline median | p25–p75 | ratio of medians (target < 1.2×) | ratio of best rounds | bridge body alone (no pipeline) median | p25–p75 | pipeline alone (local tool) median | p25–p75 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) => `| ${row.variant} | ${cell(row.bare)} | ${cell(row.bridge)} | **${row.ratio.toFixed(2)}×**${row.ratio < 1.2 ? '' : ' (not met)'} | ${row.bestRatio.toFixed(2)}× | ${cell(row.body)} | ${cell(row.local)} |`),
    '',
    `Attribution. *Bridge body alone*: the registered tool's \`execute\` called directly (a minimal execution context: the signal and a call token), run like the bare side, so body ÷ bare is what the bridge itself costs over the SDK's own path: ${r.rows.map((row) => `${row.variant} ${(row.body.median / row.bare.median).toFixed(2)}×`).join(', ')}. Bridge + pipeline − body alone is then the pipeline's work for an MCP call: ${r.rows.map((row) => `${row.variant} ${(row.bridge.median - row.body.median).toFixed(1)} µs`).join(', ')}, against ${r.rows.map((row) => `${row.local.median.toFixed(1)} µs`).join(' and ')} for a local tool with the same schema whose body resolves at once (last column): a body that really waits makes the batch runner park and resume per call. Load average ${r.load.toFixed(1)} on ${r.cores} cores at the start of this run.${met ? '' : ' **The < 1.2× target is not met in this run.**'} See the package README ("Performance") for a CPU profile and the figures before this design.`,
    '',
    'Per call the bridge sends `tools/call` with `client.request` and the SDK\'s base `ResultSchema`, then checks the `CallToolResult` shape itself in one pass without copying (`callTool` would parse the whole result with zod and validate `structuredContent` a second time); cancellation goes through one small link object instead of an `AbortController` (Node keeps every `AbortSignal` alive through a few young-generation collections), with one abort listener per caller signal while its calls run; a progress token is sent only when progress has somewhere to go (an `onProgress` callback or a `mcp/progress` or `tools/progress` listener; `progress: \'always\'` sends it on every call). Reproduce with `pnpm --filter @dsh-examples/bench bench:mcp` (runs from the TypeScript sources with tsx).',
    MCP_END,
  ].join('\n')
}

/** `doc` with its MCP section replaced by `section`, or inserted before `## Optimisations` (else appended). */
export function spliceMcpSection(doc: string, section: string): string {
  const start = doc.indexOf(MCP_START)
  const end = doc.indexOf(MCP_END)
  if (start !== -1 && end > start) return doc.slice(0, start) + section + doc.slice(end + MCP_END.length)
  const at = doc.indexOf('## Optimisations')
  return at === -1 ? `${doc.trimEnd()}\n\n${section}\n` : `${doc.slice(0, at)}${section}\n\n${doc.slice(at)}`
}

/** The MCP section already in `doc` (markers included), or `undefined`. */
export function existingMcpSection(doc: string): string | undefined {
  const start = doc.indexOf(MCP_START)
  const end = doc.indexOf(MCP_END)
  return start !== -1 && end > start ? doc.slice(start, end + MCP_END.length) : undefined
}
