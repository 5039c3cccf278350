/**
 * The MCP bridge section of `docs/benchmarks.md`, kept between two markers so the main report
 * (`pnpm bench`) and the MCP run (`bench:mcp`) can each rewrite their part.
 */
import type { McpResult, McpRow } from '../workloads/mcp'

export const MCP_START = '<!-- mcp-bridge:start -->'
export const MCP_END = '<!-- mcp-bridge:end -->'

/** When and where a `bench:mcp` run measured (shown at the top of its section when given). */
export interface McpRunInfo {
  /** ISO 8601 time the run ended. */
  readonly date?: string
  /** `git rev-parse --short HEAD` of the measured tree (`-dirty` when it had changes). */
  readonly commit?: string
}

/** The section's Markdown, markers included, of a `bench:mcp` result; `run` adds a line saying when and at which commit it was measured. */
export function renderMcpSection(r: McpResult, run: McpRunInfo = {}): string {
  const cell = (s: McpRow['bare']): string => `${s.median.toFixed(1)} | ${s.p25.toFixed(1)}–${s.p75.toFixed(1)}`
  const times = (s: McpRow['ratio']): string => `${s.p25.toFixed(2)}–${s.p75.toFixed(2)}×`
  const met = r.rows.every((row) => row.ratio.median < 1.2)
  const gc = r.singleThreadedGc
    ? "V8 runs with `--single-threaded-gc`, so each side's garbage collection runs on the main thread and is billed to the side that made the garbage"
    : 'V8 ran with its default parallel garbage collector (helper threads)'
  return [
    MCP_START,
    '## 8. MCP bridge overhead',
    '',
    ...(run.date === undefined && run.commit === undefined
      ? []
      : [`Measured by \`bench:mcp\`${run.date === undefined ? '' : ` on ${run.date.slice(0, 16).replace('T', ' ')} UTC`}${run.commit === undefined ? '' : ` at commit ${run.commit}`} (this section is written by its own run; the header of this report describes the main run).`, '']),
    `Per-call cost of \`@deepseek-ai/dsh-tool-mcp\` plus the full native pipeline (argument parse and validation against the server's \`inputSchema\`, policy, wrappers, content mapping, ordered frozen results) over the MCP SDK's bare \`client.callTool\`, on the same in-process SDK server (the same server code, one instance per client, on a linked in-memory transport): ${r.n.toLocaleString('en-US')} calls of an \`add\` tool per batch, all in one process. *sequential*: one call at a time on both sides (a tool without \`readOnlyHint\` is exclusive in a batch); *parallel*: ten at a time on both sides (a \`readOnlyHint\` tool runs in the executor's pool of 10; the bare side runs ten workers).`,
    '',
    `How it is measured. ${r.bundled ? 'The workspace packages run from an esbuild bundle of their sources, built like the published packages (no `keepNames` helpers; tsx would add an `Object.defineProperty` to every named closure the pipeline creates per call). ' : 'The workspace packages ran from their TypeScript sources under tsx (with its `keepNames` helpers). '}Each run is timed in **CPU time** (\`process.cpuUsage()\`, user + system; the machine is shared): the in-memory transport delivers each message synchronously, so both sides' work, the in-process server's included, runs on the main thread; ${gc} (main thread ÷ process CPU time over all measured runs: ${r.rows.map((row) => `${row.variant} ${row.threadShare.toFixed(2)}`).join(', ')}). The event loop is drained before each run. A measured run is ${r.batches === 1 ? 'one batch' : `${r.batches} batches`} of the ${r.n.toLocaleString('en-US')} calls${r.batches === 1 ? '' : ' (the SDK allocates about 24 KB per call, so a batch holds one or two scavenges of 3–8 ms; a single batch per run moved a run by ±15–30 %, and the per-round ratios spread 0.8–1.5)'}. A run pays for the garbage-collection work the run before it left (a marking it started, pages to sweep), so each kind of run is run twice in a row and only the second is measured. Each of the ${r.rounds} rounds (after warm-up) measures the two sides back to back, alternating which goes first; the **headline is the median of the per-round ratios** (bridge ÷ bare of the same round, so drift in the machine's load between rounds cancels), with their p25–p75. Times are µs per call.`,
    '',
    '| variant | bridge + pipeline ÷ bare, median of per-round ratios (target < 1.2×) | p25–p75 of the ratios | bare `callTool` median | p25–p75 | bridge + pipeline median | p25–p75 | bridge body alone (no pipeline) median | p25–p75 | pipeline alone (local tool) median | p25–p75 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) => `| ${row.variant} | **${row.ratio.median.toFixed(2)}×**${row.ratio.median < 1.2 ? '' : ' (not met)'} | ${times(row.ratio)} | ${cell(row.bare)} | ${cell(row.bridge)} | ${cell(row.body)} | ${cell(row.local)} |`),
    '',
    `Attribution. *Bridge body alone*: the registered tool's \`execute\` called directly (a minimal execution context: the signal and a call token), run like the bare side, so body ÷ bare is what the bridge itself costs over the SDK's own path (median of per-round ratios): ${r.rows.map((row) => `${row.variant} ${row.bodyRatio.median.toFixed(2)}× (${times(row.bodyRatio)})`).join(', ')}. Bridge + pipeline − body alone (median of the per-round differences) is then the pipeline's work for an MCP call: ${r.rows.map((row) => `${row.variant} ${row.pipelineOnMcp.median.toFixed(1)} µs (p25–p75 ${row.pipelineOnMcp.p25.toFixed(1)}–${row.pipelineOnMcp.p75.toFixed(1)})`).join(', ')}, against ${r.rows.map((row) => `${row.local.median.toFixed(1)} µs`).join(' and ')} for a local tool with the same schema whose body resolves at once and allocates nothing (last column; its runs are ten times as many batches, to last as long). Load average ${r.load.toFixed(1)} on ${r.cores} cores at the start of this run.${met ? '' : ' **The < 1.2× target is not met in this run.**'} See the package README ("Performance") for a CPU profile.`,
    '',
    "Per call the bridge sends `tools/call` over the transport itself, beside the SDK client on the same connection (string ids `dsh-<n>`; responses and progress for them are routed to the bridge, everything else to the SDK): none of `Protocol.request`'s per-request promise, closures, `Map`s and `setTimeout`, and no zod check (and copy) of the JSON-RPC envelope on receipt; the result is checked by the bridge's own one-pass `CallToolResult` check (`callTool` would parse the whole result again with zod, copying it, and validate `structuredContent` a second time); one timer per connection watches the calls' deadlines; cancellation goes through the connection's one abort listener per caller signal while its calls run (no `AbortController` per call: Node keeps every `AbortSignal` alive through a few young-generation collections); a progress token is sent only when progress has somewhere to go (an `onProgress` callback or a `mcp/progress` or `tools/progress` listener; `progress: 'always'` sends it on every call). Reproduce with `pnpm --filter @dsh-examples/bench bench:mcp` (bundles `src/mcp-main.ts` with `build.mjs` and runs the bundle with `--single-threaded-gc`).",
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
