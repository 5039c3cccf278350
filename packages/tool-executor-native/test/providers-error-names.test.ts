/**
 * Error texts name tools by the names the model saw: declare → parse (names mapped back) →
 * `ctx.tools.execute({ calls, nameMap: declared.nameMap })` → the provider's result builder. The
 * pipeline's texts say the provider name; the result builders still answer under the provider
 * name; a cut response's truncation texts quote the name the model emitted. Code-facing names
 * (`call.name`, `meta.toolName`) stay registry names.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '../src'
import {
  parseAnthropicMessage,
  parseGeminiResponse,
  parseOpenAIChatCompletion,
  settleParsedCalls,
  toAnthropicToolResultMessage,
  toAnthropicTools,
  toGeminiFunctionResponses,
  toGeminiTools,
  toOpenAIChatTools,
  truncatedCallResults,
} from '../src/providers'

/** Longer than the 64 characters every provider allows: each declares it under a shortened, hashed name. */
const LONG = `reports.${'quarterly_'.repeat(6)}summary`

let ctx: Context
beforeEach(async () => {
  ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  for (const name of ['math.factorial', LONG]) {
    ctx.tools.register(
      defineRawTool({
        name,
        description: 'n!',
        inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 20 } }, required: ['n'] },
        execute: (args) => Array.from({ length: Number(args.n) }, (_, i) => i + 1).reduce((a, b) => a * b, 1),
      }),
    )
  }
})
afterEach(async () => {
  await ctx.fiber.dispose()
})

const text = (content: readonly { type: string; text?: string }[]) => content.map((b) => b.text ?? `[${b.type}]`).join('')

describe('the pipeline names tools by the provider names it is given', () => {
  test('Anthropic: tool_use input over the maximum → an is_error tool_result naming math_factorial', async () => {
    const declared = toAnthropicTools(ctx.tools.describe())
    expect(declared.nameMap.toWire('math.factorial')).toBe('math_factorial')
    const parsed = parseAnthropicMessage(
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'math_factorial', input: { n: 25 } }], stop_reason: 'tool_use' },
      { nameMap: declared.nameMap },
    )
    const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))
    expect(calls.map((c) => c.name)).toEqual(['math.factorial'])
    expect(results.map((r) => r.meta?.toolName)).toEqual(['math.factorial'])
    expect(toAnthropicToolResultMessage(calls, results)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Error: Invalid arguments for tool "math_factorial": /n: must be <= 20', is_error: true }],
    })
  })

  test('Gemini: the functionResponse goes back under the provider name, and its error names that name too', async () => {
    const declared = toGeminiTools(ctx.tools.describe())
    const wire = declared.nameMap.toWire(LONG)!
    expect([wire.length, wire.startsWith('reports.quarterly_'), wire === LONG]).toEqual([64, true, false])
    // Dotted names are legal for Gemini: math.factorial keeps its name there.
    expect(declared.nameMap.toWire('math.factorial')).toBe('math.factorial')
    const parsed = parseGeminiResponse(
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: wire, args: { n: 'five' } } }, { functionCall: { name: wire, args: { n: 4 } } }] }, finishReason: 'STOP' }] },
      { nameMap: declared.nameMap },
    )
    const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))
    expect(calls.map((c) => c.name)).toEqual([LONG, LONG])
    expect(toGeminiFunctionResponses(calls, results, { nameMap: declared.nameMap })).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: wire, response: { error: `Error: Invalid arguments for tool "${wire}": /n: must be integer (got string)` } } },
        { functionResponse: { name: wire, response: { output: '24' } } },
      ],
    })
    // The same batch without the map names the registered tool, which the model was never shown.
    const [plain] = await ctx.tools.execute({ calls })
    expect(plain!.isError && plain!.error.message).toBe(`Invalid arguments for tool "${LONG}": /n: must be integer (got string)`)
  })
})

describe('a cut response: the truncation texts quote the name the model emitted', () => {
  test('OpenAI Chat Completions, finish_reason length', () => {
    const declared = toOpenAIChatTools(ctx.tools.describe())
    const parsed = parseOpenAIChatCompletion(
      {
        choices: [
          {
            index: 0,
            finish_reason: 'length',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'math_factorial', arguments: '{"n": 5}' } },
                { id: 'call_2', type: 'function', function: { name: 'math_factorial', arguments: '{"n": ' } },
              ],
            },
          },
        ],
      },
      { nameMap: declared.nameMap },
    )
    expect(parsed.status).toBe('truncated')
    if (parsed.status !== 'truncated') return
    expect(parsed.truncated.map((c) => [c.callId, c.name, c.reason])).toEqual([
      ['call_1', 'math.factorial', 'response-cut'],
      ['call_2', 'math.factorial', 'arguments-incomplete'],
    ])
    const results = truncatedCallResults(parsed.truncated)
    expect(results.map((r) => [r.meta?.toolName, text(r.content)])).toEqual([
      [
        'math.factorial',
        'Error: the response was cut at the model\'s output limit (finish_reason "length") before the batch of tool calls was complete, so this call to "math_factorial" was not executed although its arguments were complete. Re-issue the call.',
      ],
      [
        'math.factorial',
        'Error: arguments were truncated at the model\'s output limit: the JSON arguments of "math_factorial" end before the value is complete (finish_reason "length"), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.',
      ],
    ])
  })
})
