/**
 * The eager-start section of `docs/benchmarks.md` (workload 12), between its markers: written by
 * a full `pnpm bench` and by `bench:stream` (the workload alone).
 */
import type { Summary } from '../stats'
import type { EagerStreamResult } from '../workloads/eager-stream'
import type { KeptBlock } from './kept'

/** When and where the figures were measured. */
export interface EagerStreamRunInfo {
  readonly date?: string
  readonly commit?: string
  /** Which run wrote it (default `pnpm bench`). */
  readonly by?: string
}

const ms = (s: Summary): string => `${Math.round(s.median).toLocaleString('en-US')} (${Math.round(s.p25).toLocaleString('en-US')}–${Math.round(s.p75).toLocaleString('en-US')})`
const times = (s: Summary, digits = 2): string => `${s.median.toFixed(digits)}× (${s.p25.toFixed(digits)}–${s.p75.toFixed(digits)})`

/** The section, markers included. */
export function renderEagerStreamSection(r: EagerStreamResult, run: EagerStreamRunInfo = {}): KeptBlock {
  const p = r.plan
  const when = run.date === undefined ? '' : ` on ${run.date.slice(0, 16).replace('T', ' ')} UTC`
  const at = run.commit === undefined ? '' : ` at commit ${run.commit}`
  const text = [
    '<!-- eager-stream:start -->',
    '## 12. Eager start from a stream',
    '',
    `Measured by ${run.by ?? '`pnpm bench`'}${when}${at}. A synthetic Chat Completions stream (the chunk shape of DeepSeek and OpenAI) of ${p.streamMs.toLocaleString('en-US')} ms carrying ${p.calls} tool calls — ${r.chunks} chunks on a fixed schedule: per call its id and name, then its arguments in ${p.fragments} fragments; then the finish chunk — and a tool whose body takes ${p.toolMs} ms. Both systems read the same stream in the same process, one after the other, alternating which goes first; ${p.rounds} rounds after ${p.warmup} warm-up. Times are ms from the delivery of the first chunk to the last result, median (p25–p75) over rounds.`,
    '',
    '- **eager**: `executeToolStream` (native executor package): a call starts once its arguments are complete in the stream — for Chat, when the next call\'s first fragment arrives, or at the finish chunk;',
    '- **after stream**: the stream accumulated (`OpenAIChatStreamAccumulator`), then `ctx.tools.execute` of the batch (`settleParsedCalls`), as before eager start;',
    '- **limit**: computed per round from its chunk delivery times: each call starts when its arguments complete at the earliest and runs its duration — parallel-safe calls overlap (the later of the stream\'s end and the last call\'s earliest start plus its duration), exclusive calls run one at a time (each starts at the later of its earliest start and the previous call\'s end).',
    '',
    '| tools | eager | after stream | limit | stream | after ÷ eager (median of per-round ratios) | eager ÷ limit | calls started while the stream was read |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((row) => `| ${row.variant === 'parallel' ? 'parallel-safe' : 'exclusive'} | ${ms(row.eagerMs)} | ${ms(row.afterMs)} | ${ms(row.limitMs)} | ${ms(row.streamMs)} | **${times(row.speedup)}** | ${times(row.eagerOverLimit, 3)} | ${row.startedEarly} of ${p.calls} |`),
    '',
    `What it says. Eager start reaches the limit within timer resolution in both cases. With parallel-safe tools of equal duration, the last call bounds both systems: its arguments complete with the finish chunk, so it starts at the stream's end either way, and eager start saves nothing. With exclusive tools (one at a time), start-after-stream runs the ${p.calls} bodies back to back after the stream (stream + ${p.calls} × ${p.toolMs} ms), while eager start runs the first ${p.calls - 1} while the model still writes, leaving only the last one after the stream. Eager start gains the most for long or serial bodies and for calls written early in a long turn. Reproduce the section alone with \`pnpm --filter @dsh-examples/bench bench:stream\`.`,
    '<!-- eager-stream:end -->',
  ].join('\n')
  return { name: 'eager-stream', text }
}
