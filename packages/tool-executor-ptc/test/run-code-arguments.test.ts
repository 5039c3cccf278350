/** `run_code`'s arguments: `code` and `description` are both required (README "The run_code arguments"). */
import { expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '../src'

test('a run_code call without description is INVALID_ARGS naming the field, and its program does not run', async () => {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(PtcExecutor, { warmUp: false })
  try {
    const [schema] = ctx.tools.describe().tools
    expect(schema?.parameters).toMatchObject({ required: ['code', 'description'] })
    const [missing, given] = await ctx.tools.execute({
      calls: [
        { callId: 'c1', name: 'run_code', arguments: JSON.stringify({ code: 'console.log("ran")' }) },
        { callId: 'c2', name: 'run_code', arguments: JSON.stringify({ code: 'console.log("ran")', description: 'print' }) },
      ],
    })
    expect(missing?.isError && missing.error.info.code).toBe('INVALID_ARGS')
    expect(missing?.content).toEqual([{ type: 'text', text: 'Error: Invalid arguments for tool "run_code": /description: is required' }])
    expect(given?.content).toEqual([{ type: 'text', text: 'ran' }])
  } finally {
    await ctx.fiber.dispose()
  }
})
