/**
 * One rule for invisible characters around argument text (issue: `classifyArguments` called
 * BOM-prefixed text malformed while the pipeline stripped the BOM and ran the call).
 */
import { describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, classifyArguments, parseOpenAIChatCompletion, parseOpenAIChatStream, toAnthropicAssistantMessage } from '../src'

describe('classifyArguments follows the pipeline', () => {
  test('a byte-order mark, zero-width space or word joiner around the JSON text is removed first', () => {
    expect(classifyArguments('\uFEFF{"q":"a"}')).toBe('complete')
    expect(classifyArguments('{"q":"a"}\u200B')).toBe('complete')
    expect(classifyArguments(' \u2060 {"q":"a"} \uFEFF')).toBe('complete')
    expect(classifyArguments('\uFEFF{"q":"a')).toBe('incomplete')
    expect(classifyArguments('\uFEFF')).toBe('empty')
    // Inside the JSON text it is not an edge: malformed, here and in the pipeline.
    expect(classifyArguments('{\uFEFF"q":"a"}')).toBe('malformed')
  })

  test('a BOM-prefixed call parses complete, runs in the pipeline, and the repair is noted', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry, {})
    await ctx.plugin(NativeExecutor, {})
    ctx.tools.register(defineRawTool({ name: 'echo', description: 'Echo q.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, execute: (args) => String(args.q) }))
    try {
      const parsed = parseOpenAIChatCompletion({ choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'c1', function: { name: 'echo', arguments: '\uFEFF{"q":"a"}' } }] } }] })
      expect(parsed.status).toBe('complete')
      const [result] = await ctx.tools.execute({ calls: parsed.calls })
      expect(result?.isError).toBe(false)
      expect(result?.content).toEqual([{ type: 'text', text: 'a' }])
      expect(result?.meta?.repairs).toEqual(['(root): leading U+FEFF (byte-order mark) removed'])
    } finally {
      await ctx.fiber.dispose()
    }
  })

  test('a BOM before cut arguments is still a cut; a turn that needs an object decodes BOM-prefixed text', () => {
    const cut = parseOpenAIChatStream([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'echo', arguments: '\uFEFF{"q":"a' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ])
    expect(cut.status).toBe('truncated')
    expect(cut.truncated.map((t) => t.reason)).toEqual(['arguments-incomplete'])
    const parsed = parseOpenAIChatCompletion({ choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 't1', function: { name: 'echo', arguments: '\uFEFF{"q":"a"}' } }] } }] })
    expect(toAnthropicAssistantMessage(parsed).content).toEqual([{ type: 'tool_use', id: 't1', name: 'echo', input: { q: 'a' } }])
  })
})
