/**
 * The agent example: offline by default (bundled replay server), any OpenAI-compatible endpoint
 * with `--base-url`/`--model` and the key from `OPENAI_API_KEY`; exits 0 after an answer.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { startReplayServer, type ReplayResponse } from '@deepseek-ai/dsh-tool-testkit'
import { main } from '../src/main'
import { replyFor } from '../src/offline'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const completion = (message: object, finish: string) => ({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', ...message } }] })

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const lines: string[] = []
  const code = await main(argv, env, (line) => lines.push(line))
  return { code, lines }
}

describe('examples/agent', () => {
  test('offline by default: three recorded steps — parallel calls, calls recovered from DSML text, the answer — and exit 0', async () => {
    const { code, lines } = await run([])
    expect(code).toBe(0)
    expect(lines[0]).toMatch(/^endpoint: offline replay server http:\/\/127\.0\.0\.1:\d+\/v1 \(no network\)$/)
    expect(lines.slice(1)).toEqual([
      'tools: get_weather, math_factorial',
      'user: What is the weather in Oslo and in Lima (in fahrenheit), and what is 5 factorial?',
      'step 1: complete, finish tool_calls, 2 call(s), 2 started while streaming',
      "  assistant: I'll check the weather and compute the factorial.",
      '  call_1 get_weather({"city": "Oslo"}) → Oslo: 4°C',
      '  call_2 math.factorial({"n": 5}) → 5! = 120',
      'step 2: recovered, finish stop, 1 call(s)',
      '  assistant: Now Lima.',
      '  recovered 1 call(s) from dsml markup in the text',
      '  text_call_0 get_weather({"city":"Lima","unit":"fahrenheit"}) → Lima: 66°F',
      'step 3: complete, finish stop, 0 call(s)',
      'answer: Oslo is 4°C, Lima is 66°F, and 5! = 120.',
    ])
  })

  test('--base-url, --model and OPENAI_API_KEY: the requests carry them, the history carries the turn and the results; malformed markup is answered, not taken as the answer', async () => {
    const script = [
      completion({ content: '<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>' }, 'stop'),
      completion({ content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } }] }, 'tool_calls'),
      completion({ content: 'Tokyo is 12°C.' }, 'stop'),
    ]
    // The native loop streams: each completion is served as the chunks of a stream.
    const server = await startReplayServer((request, i) => replyFor(script[i]!, request))
    try {
      const { code, lines } = await run(['--base-url', `${server.origin}/v1`, '--model', 'deepseek-chat', '--prompt', 'Tokyo?'], { OPENAI_API_KEY: 'sk-test' })
      expect(code).toBe(0)
      expect(lines.at(-1)).toBe('answer: Tokyo is 12°C.')
      expect(lines).toContain('step 1: malformed-markup, finish stop, 0 call(s)')
      expect(server.requests.map((r) => [r.path, r.headers.authorization, (r.body as { model: string }).model, (r.body as { stream?: boolean }).stream])).toEqual([
        ['/v1/chat/completions', 'Bearer sk-test', 'deepseek-chat', true],
        ['/v1/chat/completions', 'Bearer sk-test', 'deepseek-chat', true],
        ['/v1/chat/completions', 'Bearer sk-test', 'deepseek-chat', true],
      ])
      const messages = (server.requests[2]?.body as { messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[] }).messages
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool'])
      expect(String(messages[2]?.content).startsWith('Your last message wrote tool calls as text, and they could not be run: <tool_call> block: the body is not complete JSON')).toBe(true)
      expect(messages[3]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } }] })
      expect(messages[4]).toEqual({ role: 'tool', tool_call_id: 'call_a', content: 'Tokyo: 12°C' })
    } finally {
      await server.close()
    }
  })

  test('the step limit ends the run with exit 0; a missing key with --base-url is exit 1 before any request', async () => {
    const server = await startReplayServer((request) => replyFor(completion({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'math_factorial', arguments: '{"n":3}' } }] }, 'tool_calls'), request))
    try {
      const limited = await run(['--base-url', `${server.origin}/v1`, '--max-steps', '2'], { OPENAI_API_KEY: 'k' })
      expect(limited.code).toBe(0)
      expect(limited.lines.at(-1)).toBe('step limit (2) reached without a final answer')
      expect(server.requests).toHaveLength(2)
      const noKey = await run(['--base-url', `${server.origin}/v1`])
      expect(noKey).toEqual({ code: 1, lines: ["error: set OPENAI_API_KEY to the endpoint's API key"] })
      expect(server.requests).toHaveLength(2)
    } finally {
      await server.close()
    }
  })

  test('--executor ptc, offline: one run_code program calls the three tools; the SDK goes in the system message', async () => {
    const { code, lines } = await run(['--executor', 'ptc'])
    expect(code).toBe(0)
    expect(lines.slice(1)).toEqual([
      'tools: run_code',
      expect.stringMatching(/^system: Tool SDK for run_code \(\d+ bytes\)$/),
      'user: What is the weather in Oslo and in Lima (in fahrenheit), and what is 5 factorial?',
      'step 1: complete, finish tool_calls, 1 call(s)',
      '  assistant: One program fetches both cities and the factorial.',
      '  call_1 run_code({"description": "weather in Oslo and Lima, and 5!", "code":…) → { "oslo": "Oslo: 4°C", "lima": "Lima: 66°F", "factorial": 120 }',
      'step 2: complete, finish stop, 0 call(s)',
      'answer: Oslo is 4°C, Lima is 66°F, and 5! = 120.',
    ])
  })

  test('--executor ptc against an endpoint: the request carries run_code and a system message with the SDK naming every tool', async () => {
    const server = await startReplayServer([{ kind: 'json', body: completion({ content: 'Nothing to run.' }, 'stop') }])
    try {
      const { code } = await run(['--executor', 'ptc', '--base-url', `${server.origin}/v1`, '--prompt', 'hi'], { OPENAI_API_KEY: 'k' })
      expect(code).toBe(0)
      const body = server.requests[0]?.body as { tools: { function: { name: string } }[]; messages: { role: string; content: string }[] }
      expect(body.tools.map((t) => t.function.name)).toEqual(['run_code'])
      expect(body.messages.map((m) => m.role)).toEqual(['system', 'user'])
      expect(body.messages[0]?.content.startsWith('## Tool SDK for run_code\n\n')).toBe(true)
      expect(body.messages[0]?.content).toContain('get_weather')
      expect(body.messages[0]?.content).toContain('math.factorial')
    } finally {
      await server.close()
    }
    expect(await run(['--executor', 'python'])).toEqual({ code: 1, lines: ['error: --executor must be native or ptc, got "python"'] })
  })

  test('the README command runs as a process and exits 0', () => {
    const child = spawnSync(`${root}node_modules/.bin/tsx`, ['--conditions=dsh-source', 'examples/agent/src/main.ts'], { cwd: root, encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '' }, timeout: 60_000 })
    expect(child.status).toBe(0)
    expect(child.stdout.trimEnd().split('\n').at(-1)).toBe('answer: Oslo is 4°C, Lima is 66°F, and 5! = 120.')
  })
})
