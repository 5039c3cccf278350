/**
 * A `run_code` result as the README ("A run's result") documents it, through the registry: the
 * success value `{ logs, value }` (value absent when the program returned nothing) and its text,
 * `CODE_RUN_FAILED` with `code run failed (<kind>): <message>` and the captured lines, and an
 * uncaught `ToolCallError` of an unknown or failing tool (`ToolCallError (<tool>): <message>`)
 * next to the caught one (`String(e)` is `ToolCallError: <message>`).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, ToolError, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

async function run(...programs: string[]): Promise<readonly ToolResult[]> {
  h = await createHarness({ executor: createPtcExecutor({ limits: { wallMs: 10_000, computeMs: 5_000 } }) })
  h.ctx.tools.register(
    defineTool({
      name: 'lookup',
      description: 'Look up.',
      parameters: { id: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: async (args) => {
        if (args.id === 'missing') throw new ToolError('NOT_FOUND', 'no such order')
        return args.id
      },
    }),
  )
  return h.execute(programs.map((code, i) => ({ callId: `r${i}`, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'readme' }) })))
}

const shown = (r: ToolResult) => (r.isError ? { code: r.error.info?.code, message: r.error.message, content: r.content } : { value: r.value, content: r.content })
const text = (t: string) => [{ type: 'text', text: t }]

describe('run_code results as the README documents them', () => {
  test('success: { logs, value }, value absent for nothing and null for null; the text', async () => {
    const results = await run(`console.log('hi', 1); return { n: 2 }`, `const x = 1`, `console.log('a'); return undefined`, `return null`)
    expect(results.map(shown)).toEqual([
      { value: { logs: ['hi 1'], value: { n: 2 } }, content: text('hi 1\n{\n  "n": 2\n}') },
      { value: { logs: [] }, content: text('(run_code completed with no output)') },
      { value: { logs: ['a'] }, content: text('a') },
      { value: { logs: [], value: null }, content: text('null') },
    ])
  })

  test('CODE_RUN_FAILED: the message, Captured output only when something was printed', async () => {
    const results = await run(`throw new TypeError('bad')`, `console.log('before'); await tools.nope({})`, `await tools.lookup({ id: 'missing' })`)
    expect(results.map(shown)).toEqual([
      { code: 'CODE_RUN_FAILED', message: 'code run failed (exception): TypeError: bad (line 1: throw new TypeError(\'bad\'))', content: text('Error: code run failed (exception): TypeError: bad (line 1: throw new TypeError(\'bad\'))') },
      {
        code: 'CODE_RUN_FAILED',
        message: `code run failed (exception): ToolCallError (nope): Unknown tool "nope". Available tools: lookup (line 1: console.log('before'); await tools.nope({}))\nCaptured output:\nbefore`,
        content: text(`Error: code run failed (exception): ToolCallError (nope): Unknown tool "nope". Available tools: lookup (line 1: console.log('before'); await tools.nope({}))\nCaptured output:\nbefore`),
      },
      { code: 'CODE_RUN_FAILED', message: 'code run failed (exception): ToolCallError (lookup): no such order', content: text('Error: code run failed (exception): ToolCallError (lookup): no such order') },
    ])
    expect(results[0]!.isError && results[0]!.error.info).toEqual({ name: 'ToolError', code: 'CODE_RUN_FAILED' })
  })

  test('a caught ToolCallError reads as any error does', async () => {
    const [r] = await run(`try { await tools.nope({}) } catch (e) { console.log(String(e), e.name, e.toolName) }`)
    expect(shown(r!)).toEqual({ value: { logs: ['ToolCallError: Unknown tool "nope". Available tools: lookup ToolCallError nope'] }, content: text('ToolCallError: Unknown tool "nope". Available tools: lookup ToolCallError nope') })
  })
})
