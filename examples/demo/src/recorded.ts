/**
 * Recorded model steps, as provider-native payloads. The payload shapes and their quirks come
 * from real provider responses and bug reports, collected with their sources in
 * `packages/tool-testkit/fixtures/real/model-outputs/provider_emissions.json` and
 * `packages/tool-testkit/fixtures/real/mcp/calls.sample.json` (the demo's README maps each step
 * to its entries); the values (paths, order ids, amounts) are the demo's sample workspace.
 */

/**
 * One step: what the model emitted, in its provider's wire format. `basis` says in plain words
 * which real provider behaviour the payload reproduces.
 */
export type RecordedStep =
  | { readonly title: string; readonly basis: string; readonly provider: 'openai-chat'; readonly payload: OpenAIChatCompletion }
  | { readonly title: string; readonly basis: string; readonly provider: 'anthropic'; readonly payload: AnthropicMessage }

/** The slice of an OpenAI Chat Completions response the demo replays. */
export interface OpenAIChatCompletion {
  readonly id: string
  readonly object: 'chat.completion'
  readonly choices: readonly {
    readonly index: number
    readonly finish_reason: string
    readonly message: {
      readonly role: 'assistant'
      readonly content: string | null
      readonly tool_calls?: readonly { readonly id: string; readonly type: 'function'; readonly function: { readonly name: string; readonly arguments: string } }[]
    }
  }[]
}

/** The slice of an Anthropic Messages response the demo replays. */
export interface AnthropicMessage {
  readonly id: string
  readonly type: 'message'
  readonly role: 'assistant'
  readonly stop_reason: string
  readonly content: readonly (
    | { readonly type: 'text'; readonly text: string }
    | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Record<string, unknown> }
  )[]
}

/** An OpenAI Chat Completions payload with `calls` as `[id, name, arguments]` tool calls. */
export function chat(id: string, finish: string, calls: [string, string, string][]): OpenAIChatCompletion {
  return {
    id,
    object: 'chat.completion',
    choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', content: null, tool_calls: calls.map(([callId, name, args]) => ({ id: callId, type: 'function', function: { name, arguments: args } })) } }],
  }
}

/** The task: "Which orders were refunded, what did they cost, and what is the refund policy?" */
export const TASK = 'Which orders were refunded, what did they cost in total with the open ones, and what does our refund policy say?'

export const RECORDED_STEPS: readonly RecordedStep[] = [
  {
    title: 'Explore the workspace (parallel calls, "" arguments for a zero-argument tool)',
    basis: 'an OpenAI parallel tool_calls response; "" as the arguments of a zero-argument call',
    provider: 'openai-chat',
    payload: chat('chatcmpl-demo-1', 'tool_calls', [
      ['call_01', 'list_allowed_directories', ''],
      ['call_02', 'list_directory', '{"path":"."}'],
      ['call_03', 'search_files', '{"query":"refund"}'],
    ]),
  },
  {
    title: 'Read and look up (parallel tool_use blocks; a hallucinated tool name)',
    basis: 'an Anthropic response with parallel tool_use blocks; a tool name a real model invented',
    provider: 'anthropic',
    payload: {
      id: 'msg_demo_2',
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me read the policy and the orders mentioned in the notes.' },
        { type: 'tool_use', id: 'toolu_04', name: 'read_text_file', input: { path: 'docs/policies.md', head: 3 } },
        { type: 'tool_use', id: 'toolu_05', name: 'lookup_order', input: { id: 'ORD-1002' } },
        { type: 'tool_use', id: 'toolu_06', name: 'lookup_order', input: { id: 'ORD-1003' } },
        { type: 'tool_use', id: 'toolu_07', name: 'get_order_details', input: { order: 'ORD-1004' } },
      ],
    },
  },
  {
    title: 'Numbers sent as strings, a path outside the workspace, a slow report that runs alone',
    basis: 'a number sent as a string; a path traversal recorded against the MCP filesystem server',
    provider: 'openai-chat',
    payload: chat('chatcmpl-demo-3', 'tool_calls', [
      ['call_08', 'get_sum', '{"a":"642.0","b":310.75}'],
      ['call_09', 'read_text_file', '{"path":"/../../etc/passwd"}'],
      ['call_10', 'slow_report', '{"delayMs":120}'],
      ['call_11', 'lookup_order', '{"id":"ORD-1004"}'],
      ['call_12', 'get_sum', '{"a":642.0,"b":310.75}'],
    ]),
  },
  {
    title: 'A write the policy denies, malformed JSON, and a backend that hangs past its timeout',
    basis: 'a write under a read-only policy; malformed JSON (a missing comma); a 250 ms budget',
    provider: 'openai-chat',
    payload: chat('chatcmpl-demo-4', 'tool_calls', [
      ['call_13', 'write_file', '{"path":"docs/summary.md","content":"Refunded: ORD-1002"}'],
      ['call_14', 'read_text_file', '{"path": "docs/notes.txt" "head": 2}'],
      ['call_15', 'slow_report', '{"delayMs":5000}'],
      ['call_16', 'read_text_file', '{"path":"docs/notes.txt","tail":1}'],
    ]),
  },
  {
    title: 'A response cut at the output-token limit: nothing runs, each call is answered',
    basis: 'a response cut by the output-token limit (finish_reason "length") mid-argument',
    provider: 'openai-chat',
    payload: chat('chatcmpl-demo-5', 'length', [
      ['call_17', 'lookup_order', '{"id":"ORD-1001"}'],
      ['call_18', 'read_text_file', '{"path":"docs/intro.md","he'],
    ]),
  },
]
