/**
 * The README's "Result budgets" example: a 200,000-character tool result reaches the model as
 * 2,000 characters and a marker; the model pages on with `read_result`; the caller keeps the
 * whole value. Run by test/readme-result-budget.test.ts, which compares what it prints with the
 * comments at the end (the random handle printed as `<handle>`).
 */
import { Context } from 'cordis'
import { ToolRegistry, createMemoryResultStore, defineTool, readResultTool, estimateTokens } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const store = createMemoryResultStore({ maxBytes: 16 * 1024 * 1024 })
const ctx = new Context()
await ctx.plugin(ToolRegistry, { resultBudget: { store, readTool: 'read_result', batchMaxChars: 20_000 } })
await ctx.plugin(NativeExecutor)

// 4,000 lines of 49 characters: 199,999 characters with the line breaks.
const buildLog = (): string => Array.from({ length: 4_000 }, (_, i) => `step ${String(i).padStart(4, '0')}: compiled ok`.padEnd(49, '.')).join('\n')

ctx.tools.register(
  defineTool({
    name: 'build_log',
    description: 'The full log of the last build.',
    parameters: {},
    execute: () => buildLog(),
    resultBudget: { maxChars: 2_000 },
  }),
)
ctx.tools.register(readResultTool(store))

const [result] = await ctx.tools.execute({ calls: [{ callId: 'c1', name: 'build_log', arguments: '{}' }] })
if (result === undefined || result.isError) throw new Error('build_log failed')
const { handle, shownChars, totalChars } = result.meta!.cut!
const shown = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')
console.log(`model sees ${shown.length} characters (≈${estimateTokens(shown.length)} tokens) of ${totalChars}`)
const marker = result.content.at(-1)
console.log(marker?.type === 'text' ? marker.text.replaceAll(handle, '<handle>') : '')

// The model follows the marker: read_result from where the cut ended.
const [page] = await ctx.tools.execute({ calls: [{ callId: 'c2', name: 'read_result', arguments: JSON.stringify({ handle, offset: shownChars, length: 100 }) }] })
console.log(page?.content[0]?.type === 'text' ? page.content[0].text : page?.content)

// The caller keeps the whole value; the store keeps the whole text.
console.log(result.value === buildLog(), store.get(handle)?.text === buildLog())
await ctx.fiber.dispose()
// model sees 2252 characters (≈563 tokens) of 199999
// [Result cut by its budget: showing characters 0–2,000 of 199,999 (≈500 of ≈50,000 tokens). The full result is stored under handle "<handle>". To read on, call read_result with {"handle":"<handle>","offset":2000,"length":2000}.]
// step 0040: compiled ok...........................
// step 0041: compiled ok...........................
// 
// [characters 2,000–2,100 of 199,999; call read_result with offset 2100 to read on]
// true true
