/**
 * The Vercel AI SDK (`ai` 6): `generateText` with a scripted `MockLanguageModelV3` that returns
 * every call in one step; the default stop condition (`stepCountIs(1)`) ends the run after the
 * tools executed. The tool is declared with zod (the SDK's idiomatic, validating schema). The
 * SDK has no per-tool concurrency control: every call of a step runs concurrently, so both
 * variants run the same code.
 */
import { generateText, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { addBody, TOOL_DESCRIPTION, TOOL_NAME, type ScriptedCall, type StepSystem } from './trivial'

/** The AI SDK's zero-usage record (V3 shape). */
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** The trivial tool as an AI SDK tool. */
export function aiSdkTools() {
  return {
    [TOOL_NAME]: tool({
      description: TOOL_DESCRIPTION,
      inputSchema: z.object({ a: z.number().int(), b: z.number().int(), label: z.string() }),
      execute: (args) => addBody(args),
    }),
  }
}

/** Creates the AI SDK system over `calls`. */
export function createAiSdk(calls: readonly ScriptedCall[]): StepSystem {
  const content = calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.arguments }))
  const model = new MockLanguageModelV3({
    doGenerate: async () => ({ content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE, warnings: [] }),
  })
  const tools = aiSdkTools()
  const step = () => generateText({ model, prompt: 'run the batch', tools })
  return {
    id: 'ai-sdk',
    async step() {
      await step()
    },
    async outputs() {
      const result = await step()
      const byId = new Map(result.toolResults.map((r) => [r.toolCallId, r.output]))
      return calls.map((c) => byId.get(c.id))
    },
    async dispose() {},
  }
}
