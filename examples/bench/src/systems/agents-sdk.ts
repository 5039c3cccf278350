/**
 * The OpenAI Agents SDK (`@openai/agents-core`): a `Runner` (tracing disabled, the peer's
 * fastest setting) runs an agent whose scripted `Model` returns every call as a
 * `function_call` item in the first turn and a final assistant message in the second. The
 * tool is declared with zod (validated by the SDK). The SDK runs every function call of a
 * turn concurrently, so both variants run the same code.
 */
import { Agent, Runner, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core'
import { z } from 'zod'
import { addBody, TOOL_DESCRIPTION, TOOL_NAME, type ScriptedCall, type StepSystem } from './trivial'

/** A scripted model: the calls on the first turn, then a final text answer. */
export class ScriptedAgentsModel implements Model {
  /** Model requests served (one run = two requests). */
  requests = 0
  private readonly calls: ModelResponse['output']

  constructor(calls: readonly ScriptedCall[]) {
    this.calls = calls.map((c) => ({ type: 'function_call' as const, callId: c.id, name: c.name, status: 'completed' as const, arguments: c.arguments }))
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests++
    const input = request.input
    const last = Array.isArray(input) ? input[input.length - 1] : undefined
    if (last !== undefined && last.type === 'function_call_result') {
      return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] }
    }
    return { usage: new Usage(), output: this.calls }
  }

  // eslint-disable-next-line require-yield -- the benchmark never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream')
  }
}

/** The trivial tool as an Agents SDK function tool. */
export function agentsSdkTool() {
  return tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ a: z.number().int(), b: z.number().int(), label: z.string() }),
    execute: (args) => addBody(args),
  })
}

/** Creates the Agents SDK system over `calls`. */
export function createAgentsSdk(calls: readonly ScriptedCall[]): StepSystem {
  const agent = new Agent({ name: 'bench', instructions: 'Run the batch.', model: new ScriptedAgentsModel(calls), tools: [agentsSdkTool()] })
  const runner = new Runner({ tracingDisabled: true })
  const step = () => runner.run(agent, 'run the batch', { maxTurns: 3 })
  return {
    id: 'agents-sdk',
    async step() {
      await step()
    },
    async outputs() {
      const result = await step()
      if (result.finalOutput !== 'done') throw new Error(`agents-sdk: final output ${JSON.stringify(result.finalOutput)}`)
      const byId = new Map<string, unknown>()
      for (const item of result.newItems) {
        if (item.type === 'tool_call_output_item') byId.set((item.rawItem as { callId: string }).callId, item.output)
      }
      return calls.map((c) => byId.get(c.id))
    },
    async dispose() {},
  }
}
