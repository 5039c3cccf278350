/**
 * One call per provider returns everything a request needs (issue: `toOpenAIChatTools(ctx.tools.describe())`
 * under the PTC executor returned only `run_code` and the SDK section silently disappeared).
 */
import { describe, expect, test } from 'vitest'
import {
  renderPromptSections,
  toAnthropicRequest,
  toAnthropicTools,
  toDeepSeekRequest,
  toGeminiRequest,
  toGeminiTools,
  toOpenAIChatRequest,
  toOpenAIChatTools,
  toOpenAICompatibleRequest,
  toOpenAICompatibleTools,
  toOpenAIResponsesRequest,
  toOpenAIResponsesTools,
  withSystemText,
} from '../src/providers'

const runCode = { name: 'run_code', description: 'Run one program.', parameters: { type: 'object', properties: { code: { type: 'string' }, description: { type: 'string' } }, required: ['code', 'description'] } }
const sdk = { id: 'ptc/sdk', title: 'Tool SDK for run_code', text: 'declare const tools: {\n  lookup_order(args: { id: string }): Promise<unknown>\n}\n' }
const ptcDescription = { tools: [runCode], sections: [sdk] }
const system = '## Tool SDK for run_code\n\ndeclare const tools: {\n  lookup_order(args: { id: string }): Promise<unknown>\n}'

describe('request helpers: tools and the system text', () => {
  test('every provider returns the declarations and the sections as system text', () => {
    const requests = [
      toOpenAIChatRequest(ptcDescription),
      toOpenAICompatibleRequest(ptcDescription),
      toDeepSeekRequest(ptcDescription),
      toOpenAIResponsesRequest(ptcDescription),
      toAnthropicRequest(ptcDescription),
      toGeminiRequest(ptcDescription),
    ]
    for (const request of requests) {
      expect(request.system).toBe(system)
      expect(request.sections).toEqual([sdk])
      expect(request.tools).toHaveLength(1)
      expect(request.nameMap.entries).toEqual([{ original: 'run_code', wire: 'run_code' }])
      expect(request.warnings).toEqual([])
      expect(request.errors).toEqual([])
    }
    expect(toOpenAIChatRequest(ptcDescription).tools).toEqual(toOpenAIChatTools({ tools: [runCode] }).tools)
    expect(toAnthropicRequest(ptcDescription).tools).toEqual(toAnthropicTools({ tools: [runCode] }).tools)
    expect(toGeminiRequest(ptcDescription).tools).toEqual(toGeminiTools({ tools: [runCode] }).tools)
  })

  test('no sections (the native executor): system is empty; options (strict, names) pass through', () => {
    const request = toOpenAIChatRequest({ tools: [{ name: 'a.b', description: '', parameters: { type: 'object', properties: {} } }] }, { strict: true, names: [{ original: 'a.b', wire: 'a_b_kept' }] })
    expect(request.system).toBe('')
    expect(request.tools.map((t) => [t.function.name, t.function.strict])).toEqual([['a_b_kept', true]])
  })

  test('renderPromptSections and withSystemText', () => {
    expect(renderPromptSections([])).toBe('')
    expect(renderPromptSections([sdk, { id: 'x', title: 'Notes', text: 'one\n' }])).toBe(`${system}\n\n## Notes\n\none`)
    expect(withSystemText('You are helpful.\n', system)).toBe(`You are helpful.\n\n${system}`)
    expect(withSystemText('You are helpful.', '')).toBe('You are helpful.')
    expect(withSystemText('', system)).toBe(system)
  })
})

describe('the tools-only builders warn when they would drop sections', () => {
  test('each names the section and its own request helper', () => {
    const cases = [
      [toOpenAIChatTools, 'toOpenAIChatRequest()'],
      [toOpenAICompatibleTools, 'toOpenAICompatibleRequest()'],
      [toOpenAIResponsesTools, 'toOpenAIResponsesRequest()'],
      [toAnthropicTools, 'toAnthropicRequest()'],
      [toGeminiTools, 'toGeminiRequest()'],
    ] as const
    for (const [declare, helper] of cases) {
      const declared = declare(ptcDescription)
      expect(declared.tools).toHaveLength(1)
      expect(declared.warnings).toEqual([
        {
          tool: 'ptc/sdk',
          pointer: '/sections/0',
          code: 'SECTIONS_DROPPED',
          message: `prompt section "Tool SDK for run_code" (ptc/sdk) is not part of a tools declaration and was left out: the model needs it in the system prompt. Use ${helper}, whose \`system\` holds it, or put sections[].text in the system prompt yourself`,
        },
      ])
    }
    expect(toOpenAIChatTools({ tools: [runCode], sections: [] }).warnings).toEqual([])
  })
})
