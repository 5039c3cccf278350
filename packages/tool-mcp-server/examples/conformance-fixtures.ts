/**
 * The MCP conformance suite's fixture tools (server mode), written as ordinary dsh-tools tools:
 * each runs through the registry's pipeline when the suite calls it. Input from the client's
 * user (elicitation, sampling, roots) goes through `mcpInput(exec)`, which serves both protocol
 * lines (an `input_required` result for 2026-07-28, real requests for 2025-11-25).
 */
import { defineRawTool, ToolError, type JsonObject, type JsonSchemaNode, type JsonValue, type ToolDefinition, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { defineMcpContentTool, mcpInput, type McpCallInput, type McpInputRequest } from '@deepseek-ai/dsh-tool-mcp-server'

/** A 1×1 PNG. */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** A 10 ms mono 8 kHz 8-bit WAV of silence, base64. */
export function silentWav(): string {
  const samples = 80
  const b = Buffer.alloc(44 + samples, 0x80)
  b.write('RIFF', 0)
  b.writeUInt32LE(36 + samples, 4)
  b.write('WAVEfmt ', 8)
  b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20)
  b.writeUInt16LE(1, 22)
  b.writeUInt32LE(8000, 24)
  b.writeUInt32LE(8000, 28)
  b.writeUInt16LE(1, 32)
  b.writeUInt16LE(8, 34)
  b.write('data', 36)
  b.writeUInt32LE(samples, 40)
  return b.toString('base64')
}

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true })
  })

/** The call's MCP input view; a fixture called outside an MCP server fails plainly. */
function input(exec: ToolExecution): McpCallInput {
  const found = mcpInput(exec)
  if (found === undefined) throw new ToolError('MCP_CLIENT_REQUIRED', `${exec.name} needs an MCP client`)
  return found
}

const nameForm = (message: string): McpInputRequest => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
})
const greeting: McpInputRequest = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } }
const roots: McpInputRequest = { method: 'roots/list', params: {} }

/** The accepted `name` of an elicitation answer, if any. */
function acceptedName(mcp: McpCallInput, key: string): string | undefined {
  const a = mcp.answer(key)
  return a?.kind === 'elicit' && a.action === 'accept' && typeof a.content?.name === 'string' ? a.content.name : undefined
}

/** Asks one form; returns the answer as text. */
function elicitText(exec: ToolExecution, key: string, params: McpInputRequest['params']): string {
  const mcp: McpCallInput = input(exec)
  const answer = mcp.answer(key)
  if (answer?.kind !== 'elicit') mcp.require({ [key]: { method: 'elicitation/create', params: params ?? {} } })
  return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`
}

const text = (name: string, description: string, body: (args: JsonObject, exec: ToolExecution) => JsonValue | Promise<JsonValue>, inputSchema: JsonSchemaNode = NO_ARGS): ToolDefinition<JsonObject, JsonValue> =>
  defineRawTool({ name, description, inputSchema, outputSchema: { type: 'string' }, execute: body })

/** Every fixture tool, in the order `tools/list` lists them. */
export function conformanceTools(onTriggerChange?: () => void): ToolDefinition<JsonObject, JsonValue>[] {
  return [
    text('test_simple_text', 'Returns a fixed text', () => 'This is a simple text response for testing.'),
    defineMcpContentTool({ name: 'test_image_content', description: 'Returns an image', inputSchema: NO_ARGS, execute: () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }) }),
    defineMcpContentTool({ name: 'test_audio_content', description: 'Returns audio', inputSchema: NO_ARGS, execute: () => ({ content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }] }) }),
    defineMcpContentTool({
      name: 'test_embedded_resource',
      description: 'Returns an embedded resource',
      inputSchema: NO_ARGS,
      execute: () => ({ content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }),
    }),
    defineMcpContentTool({
      name: 'test_multiple_content_types',
      description: 'Returns text, an image and a resource',
      inputSchema: NO_ARGS,
      execute: () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
        ],
      }),
    }),
    text('test_error_handling', 'Always fails', () => {
      throw new ToolError('FIXTURE_ERROR', 'This tool intentionally returns an error for testing')
    }),
    text('test_tool_with_progress', 'Reports progress 0, 50, 100 of 100', async (_args, exec) => {
      for (const progress of [0, 50, 100]) {
        exec.reportProgress({ progress, total: 100 })
        if (progress < 100) await sleep(50, exec.signal)
      }
      return 'Progress test completed'
    }),
    text(
      'test_elicitation',
      "Asks the client's user for a user name and email",
      (args, exec) =>
        elicitText(exec, 'user', {
          message: String(args.message),
          requestedSchema: { type: 'object', properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } }, required: ['username', 'email'] },
        }),
      { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    ),
    text('test_elicitation_sep1034_defaults', 'Asks a form whose fields have defaults (SEP-1034)', (_args, exec) =>
      elicitText(exec, 'defaults', {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      }),
    ),
    text('test_elicitation_sep1330_enums', 'Asks a form with every enum variant (SEP-1330)', (_args, exec) =>
      elicitText(exec, 'enums', {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      }),
    ),
    text('test_input_required_result_elicitation', 'Asks for a name (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const name = acceptedName(mcp, 'user_name')
      if (name === undefined) mcp.require({ user_name: nameForm('What is your name?') })
      return `Hello, ${name}!`
    }),
    text('test_input_required_result_sampling', 'Asks the client to sample a greeting (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const a = mcp.answer('greeting')
      if (a?.kind !== 'sampling') mcp.require({ greeting })
      return `Sampled: ${JSON.stringify(a.result.content)}`
    }),
    text('test_input_required_result_list_roots', "Asks for the client's roots (input_required)", (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const a = mcp.answer('client_roots')
      if (a?.kind !== 'roots') mcp.require({ client_roots: roots })
      return `Roots: ${a.roots.map((r) => r.uri).join(', ') || '(none)'}`
    }),
    text('test_input_required_result_request_state', 'Asks for a confirmation and carries request state (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const a = mcp.answer('confirm')
      const state = mcp.state as { round?: number } | undefined
      if (a?.kind !== 'elicit' || a.action !== 'accept' || state?.round !== 1) {
        mcp.require({ confirm: { method: 'elicitation/create', params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } }, { round: 1 })
      }
      return `state-ok: confirmed=${String(a.content?.ok)}`
    }),
    text('test_missing_capability', 'Needs sampling from the client (a client without it gets -32021)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const a = mcp.answer('greeting')
      if (a?.kind !== 'sampling') mcp.require({ greeting })
      return `Sampled: ${JSON.stringify(a.result.content)}`
    }),
    text('test_input_required_result_multiple_inputs', 'Asks for a form, a sample and the roots at once (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const name = acceptedName(mcp, 'user_name')
      const sample = mcp.answer('greeting')
      const list = mcp.answer('client_roots')
      if (name === undefined || sample?.kind !== 'sampling' || list?.kind !== 'roots') {
        mcp.require({ user_name: nameForm('What is your name?'), greeting, client_roots: roots }, { asked: ['user_name', 'greeting', 'client_roots'] })
      }
      return `Hello, ${name}! (${list.roots.length} roots)`
    }),
    text('test_input_required_result_multi_round', 'Asks two questions in two rounds (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const state = mcp.state as { step?: number; name?: string } | undefined
      // (the state is JSON: what require() was given)
      if (state?.step === 2) {
        const a = mcp.answer('step2')
        const color = a?.kind === 'elicit' && a.action === 'accept' ? a.content?.color : undefined
        if (typeof color !== 'string') mcp.require({ step2: { method: 'elicitation/create', params: { message: 'Step 2: What is your favourite colour?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } }, state as JsonObject)
        return `${state.name} likes ${color}`
      }
      const name = acceptedName(mcp, 'step1')
      if (name === undefined) mcp.require({ step1: nameForm('Step 1: What is your name?') }, { step: 1 })
      return mcp.require({ step2: { method: 'elicitation/create', params: { message: 'Step 2: What is your favourite colour?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } }, { step: 2, name: name ?? '' })
    }),
    text('test_input_required_result_tampered_state', 'Carries request state the client must not change (input_required)', (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const name = acceptedName(mcp, 'user_name')
      if (name === undefined || mcp.state === undefined) mcp.require({ user_name: nameForm('What is your name?') }, { issued: true })
      return `Hello, ${name}!`
    }),
    text('test_input_required_result_capabilities', "Asks only what the client's capabilities allow (input_required)", (_args, exec) => {
      const mcp: McpCallInput = input(exec)
      const requests: Record<string, McpInputRequest> = {}
      if (mcp.supports('elicitation/create') && acceptedName(mcp, 'user_name') === undefined) requests.user_name = nameForm('What is your name?')
      if (mcp.supports('sampling/createMessage') && mcp.answer('greeting') === undefined) requests.greeting = greeting
      if (Object.keys(requests).length > 0) mcp.require(requests)
      return 'Capabilities respected'
    }),
    ...(onTriggerChange === undefined ? [] : [text('test_trigger_tool_change', 'Changes the tool list (for list-change notifications)', () => (onTriggerChange(), 'Tool list changed'))]),
  ]
}
