/**
 * Workload 4 (docs/design.md, "Performance targets", "Scale"): the real BFCL tool set (6,353 functions) registered in
 * every system. Measures registration time, the heap each system adds per tool, the per-step
 * cost of exposing the whole set to a model (ours: `resolve` + `describe`; the peers: one
 * scripted step that answers with text, which is where they prepare their tool list), and our
 * first-call versus steady validation through the full pipeline, with the validator cache
 * counters that show compilation is lazy and cached.
 */
import { generateText, jsonSchema, tool as aiTool, type ToolSet } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Agent, Runner, tool as agentsTool, Usage, type Model, type ModelResponse } from '@openai/agents-core'
import { defineRawTool, describeThrown, validatorCacheStats, type AnyToolDefinition, type JsonObject, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { collectGarbage } from '../sampler'
import { summarize, type Summary } from '../stats'
import { loadScaleData, type ScaleData, type ScaleTool } from '../bfcl'

export const SCALE_SYSTEMS = ['dsh', 'ai-sdk', 'agents-sdk'] as const
export type ScaleSystemId = (typeof SCALE_SYSTEMS)[number]

/** Workload configuration. */
export interface ScaleConfig {
  /** Cap on registered tools (the full run takes all 6,353). */
  readonly toolLimit: number
  /** Registration samples per system (a fresh deployment/tool set each). */
  readonly registrationSamples: number
  /** Steady steps measured per system after the first. */
  readonly steadySteps: number
  /** Ground-truth calls executed for the validation figures. */
  readonly validationCalls: number
  readonly log: (line: string) => void
}

/** Registration cost of the whole set. */
export interface RegistrationRow {
  readonly system: ScaleSystemId
  readonly totalMs: Summary
  /** Per tool, µs (median total / tools). */
  readonly perToolUs: number
}

/** Heap added by the system for the whole set. */
export interface HeapRow {
  readonly system: ScaleSystemId
  readonly totalBytes: number
  readonly bytesPerTool: number
}

/** Per-step cost of exposing the set. */
export interface StepRow {
  readonly system: ScaleSystemId
  /** What one step is for this system. */
  readonly what: string
  readonly firstMs: number
  readonly steadyMs: Summary
  /** Tools the model was shown (sanity check). */
  readonly toolsShown: number
}

/** Our validation figures through the full pipeline. */
export interface ValidationFigures {
  readonly calls: number
  /** Calls that validated and ran. */
  readonly ok: number
  /** Calls whose ground truth violates its own schema (`INVALID_ARGS`). */
  readonly invalidArgs: number
  readonly otherErrors: number
  /** One call per batch, first time its schema is used (includes the ajv compile), µs. */
  readonly firstCallUs: Summary
  /** The same calls again (cached validator), µs. */
  readonly steadyCallUs: Summary
  /** ajv compilations caused by registering the whole set (lazy: 0 expected). */
  readonly compilesAtRegistration: number
  /** Compilations caused by the first calls (≤ distinct schemas called). */
  readonly compilesAtFirstCalls: number
  /** Compilations caused by the repeated calls (cached: 0 expected). */
  readonly compilesAtSteadyCalls: number
  /** Distinct argument schemas among the called tools. */
  readonly distinctSchemasCalled: number
}

/** The workload's result. */
export interface ScaleResult {
  readonly tools: number
  readonly distinctSchemas: number
  /** Tools our registry refused (with the reason), expected empty. */
  readonly rejected: readonly { readonly name: string; readonly message: string }[]
  readonly registration: readonly RegistrationRow[]
  readonly heap: readonly HeapRow[]
  readonly gcExposed: boolean
  readonly steps: readonly StepRow[]
  readonly validation: ValidationFigures
}

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

function dshDefinitions(tools: readonly ScaleTool[]): AnyToolDefinition[] {
  return tools.map((t) => defineRawTool({ name: t.name, description: t.description, inputSchema: t.parameters, isConcurrencySafe: () => true, execute: (args) => ({ tool: t.name, args }) }))
}

function aiSdkToolSet(tools: readonly ScaleTool[]): ToolSet {
  const set: ToolSet = {}
  for (const t of tools) set[t.name] = aiTool({ description: t.description, inputSchema: jsonSchema<JsonObject>(t.parameters as Parameters<typeof jsonSchema>[0]), execute: async (args) => ({ tool: t.name, args }) })
  return set
}

function agentsSdkTools(tools: readonly ScaleTool[]) {
  return tools.map((t) =>
    agentsTool({
      name: t.name,
      description: t.description,
      parameters: t.parameters as Parameters<typeof agentsTool>[0]['parameters'] & { type: 'object' },
      strict: false,
      execute: async (args: unknown) => ({ tool: t.name, args }),
    } as Parameters<typeof agentsTool>[0]),
  )
}

class TextModel implements Model {
  lastTools = 0
  async getResponse(request: Parameters<Model['getResponse']>[0]): Promise<ModelResponse> {
    this.lastTools = request.tools.length
    return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] }
  }
  // eslint-disable-next-line require-yield -- never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream')
  }
}

function time<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now()
  const value = fn()
  return { value, ms: performance.now() - t0 }
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now()
  const value = await fn()
  return { value, ms: performance.now() - t0 }
}

function heapUsed(): number {
  collectGarbage()
  collectGarbage()
  return process.memoryUsage().heapUsed
}

/** Registers every definition in a fresh harness; returns the rejections. */
function registerAll(h: Harness, definitions: readonly AnyToolDefinition[]): { name: string; message: string }[] {
  const rejected: { name: string; message: string }[] = []
  for (const d of definitions) {
    try {
      h.ctx.tools.register(d)
    } catch (error) {
      rejected.push({ name: d.name, message: describeThrown(error) })
    }
  }
  return rejected
}

/** Runs the scale workload. */
export async function runScale(config: ScaleConfig): Promise<ScaleResult> {
  const data: ScaleData = loadScaleData(config.toolLimit)
  const n = data.tools.length
  const definitions = dshDefinitions(data.tools)
  const distinctSchemas = new Set(data.tools.map((t) => JSON.stringify(t.parameters))).size
  config.log(`scale: ${n} BFCL tools (${distinctSchemas} distinct argument schemas), ${data.calls.length} ground-truth calls`)

  // Registration, alternating systems; a fresh deployment / tool set per sample.
  const regMs: Record<ScaleSystemId, number[]> = { dsh: [], 'ai-sdk': [], 'agents-sdk': [] }
  let rejected: { name: string; message: string }[] = []
  for (let round = 0; round < config.registrationSamples; round++) {
    const order = [...SCALE_SYSTEMS.slice(round % 3), ...SCALE_SYSTEMS.slice(0, round % 3)]
    for (const system of order) {
      if (system === 'dsh') {
        const h = await createHarness()
        const r = time(() => registerAll(h, definitions))
        regMs.dsh.push(r.ms)
        rejected = r.value
        await h.dispose()
      } else if (system === 'ai-sdk') {
        regMs['ai-sdk'].push(time(() => aiSdkToolSet(data.tools)).ms)
      } else {
        regMs['agents-sdk'].push(time(() => agentsSdkTools(data.tools)).ms)
      }
    }
  }
  const registration = SCALE_SYSTEMS.map((system) => {
    const totalMs = summarize(regMs[system])
    return { system, totalMs, perToolUs: (totalMs.median * 1000) / n }
  })
  config.log(`scale registration: ${registration.map((r) => `${r.system} ${r.totalMs.median.toFixed(1)} ms`).join(', ')}`)

  // Per-step exposure cost: first step after registration, then steady steps (alternating).
  const validatorsBefore = validatorCacheStats()
  const h = await createHarness()
  rejected = registerAll(h, definitions)
  const compilesAtRegistration = validatorCacheStats().compiles - validatorsBefore.compiles
  const dshStep = async () => {
    const toolSet = await h.tools.resolve()
    const description = h.tools.describe({ toolSet })
    toolSet.dispose()
    return description.tools.length
  }
  const aiTools = aiSdkToolSet(data.tools)
  const aiModel = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] }) })
  const aiStep = async () => {
    const result = await generateText({ model: aiModel, prompt: 'answer', tools: aiTools })
    if (result.text !== 'done') throw new Error('ai-sdk: unexpected answer')
    return aiModel.doGenerateCalls.at(-1)?.tools?.length ?? 0
  }
  const textModel = new TextModel()
  const agent = new Agent({ name: 'scale', instructions: 'Answer.', model: textModel, tools: agentsSdkTools(data.tools) })
  const runner = new Runner({ tracingDisabled: true })
  const agentsStep = async () => {
    const result = await runner.run(agent, 'answer', { maxTurns: 2 })
    if (result.finalOutput !== 'done') throw new Error('agents-sdk: unexpected answer')
    return textModel.lastTools
  }
  const stepFns: Record<ScaleSystemId, () => Promise<number>> = { dsh: dshStep, 'ai-sdk': aiStep, 'agents-sdk': agentsStep }
  const first: Partial<Record<ScaleSystemId, { ms: number; shown: number }>> = {}
  for (const system of SCALE_SYSTEMS) {
    const r = await timeAsync(stepFns[system])
    first[system] = { ms: r.ms, shown: r.value }
  }
  const steady: Record<ScaleSystemId, number[]> = { dsh: [], 'ai-sdk': [], 'agents-sdk': [] }
  for (let round = 0; round < config.steadySteps; round++) {
    const order = [...SCALE_SYSTEMS.slice(round % 3), ...SCALE_SYSTEMS.slice(0, round % 3)]
    for (const system of order) steady[system].push((await timeAsync(stepFns[system])).ms)
  }
  const what: Record<ScaleSystemId, string> = {
    dsh: '`resolve()` + `describe({ toolSet })` + dispose',
    'ai-sdk': '`generateText` step, scripted model answers text',
    'agents-sdk': '`run` turn, scripted model answers text',
  }
  const steps: StepRow[] = SCALE_SYSTEMS.map((system) => ({ system, what: what[system], firstMs: first[system]!.ms, steadyMs: summarize(steady[system]), toolsShown: first[system]!.shown }))
  config.log(`scale step: ${steps.map((s) => `${s.system} first ${s.firstMs.toFixed(2)} ms, steady ${s.steadyMs.median.toFixed(2)} ms (${s.toolsShown} tools)`).join('; ')}`)

  // Validation through the full pipeline: first call of each sampled tool, then again.
  const sample = data.calls.slice(0, config.validationCalls)
  const toolSet = await h.tools.resolve()
  const batchOf = (i: number): RawToolCall[] => [{ callId: `v${i}`, name: sample[i]!.name, arguments: JSON.stringify(sample[i]!.arguments) }]
  const firstUs: number[] = []
  const steadyUs: number[] = []
  let ok = 0
  let invalidArgs = 0
  let otherErrors = 0
  const beforeFirst = validatorCacheStats().compiles
  for (let i = 0; i < sample.length; i++) {
    const calls = batchOf(i)
    const r = await timeAsync(() => h.tools.execute({ calls, toolSet }))
    firstUs.push(r.ms * 1000)
    const result = r.value[0]!
    if (!result.isError) ok++
    else if (result.error.info?.code === 'INVALID_ARGS') invalidArgs++
    else otherErrors++
  }
  const beforeSteady = validatorCacheStats().compiles
  for (let i = 0; i < sample.length; i++) {
    const calls = batchOf(i)
    steadyUs.push((await timeAsync(() => h.tools.execute({ calls, toolSet }))).ms * 1000)
  }
  const afterSteady = validatorCacheStats().compiles
  toolSet.dispose()
  await h.dispose()
  const params = new Map(data.tools.map((t) => [t.name, JSON.stringify(t.parameters)]))
  const validation: ValidationFigures = {
    calls: sample.length,
    ok,
    invalidArgs,
    otherErrors,
    firstCallUs: summarize(firstUs.length > 0 ? firstUs : [0]),
    steadyCallUs: summarize(steadyUs.length > 0 ? steadyUs : [0]),
    compilesAtRegistration,
    compilesAtFirstCalls: beforeSteady - beforeFirst,
    compilesAtSteadyCalls: afterSteady - beforeSteady,
    distinctSchemasCalled: new Set(sample.map((c) => params.get(c.name))).size,
  }
  config.log(`scale validation: ${sample.length} calls (${ok} ok, ${invalidArgs} INVALID_ARGS), first ${validation.firstCallUs.median.toFixed(0)} µs, steady ${validation.steadyCallUs.median.toFixed(0)} µs; compiles: ${compilesAtRegistration} at registration, ${validation.compilesAtFirstCalls} at first calls, ${validation.compilesAtSteadyCalls} at steady calls`)
  // Heap per tool, last (forced GCs slow code down for a while): what each system adds on top of
  // the shared, already-normalised definitions.
  const gcExposed = collectGarbage()
  const heap: HeapRow[] = []
  {
    const h = await createHarness()
    const before = heapUsed()
    registerAll(h, definitions)
    const after = heapUsed()
    heap.push({ system: 'dsh', totalBytes: after - before, bytesPerTool: (after - before) / n })
    await h.dispose()
  }
  {
    const before = heapUsed()
    const set = aiSdkToolSet(data.tools)
    const after = heapUsed()
    heap.push({ system: 'ai-sdk', totalBytes: after - before, bytesPerTool: (after - before) / n })
    if (Object.keys(set).length !== n) throw new Error('ai-sdk: tool set incomplete')
  }
  {
    const before = heapUsed()
    const list = agentsSdkTools(data.tools)
    const after = heapUsed()
    heap.push({ system: 'agents-sdk', totalBytes: after - before, bytesPerTool: (after - before) / n })
    if (list.length !== n) throw new Error('agents-sdk: tool list incomplete')
  }

  return { tools: n, distinctSchemas, rejected, registration, heap, gcExposed, steps, validation }
}
