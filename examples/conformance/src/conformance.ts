/**
 * Conformance on real data (docs/design.md, "Reliability": every schema in the real-data
 * fixtures registers without throwing).
 *
 * Everything goes through the public surface a deployment uses: `ctx.tools.register`,
 * `ctx.tools.schemas`, the PTC package's `generateSdk`, and `ctx.tools.execute` with the
 * native executor. Nothing here throws for a bad schema or call: every problem is counted and
 * reported with its reason.
 */
import { defineRawTool, describeThrown, type AgentHandle, type JsonObject, type JsonSchemaNode, type JsonValue, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { generateSdk, type SdkTool } from '@deepseek-ai/dsh-tool-executor-ptc'
import {
  createHarness,
  loadBfclMismatches,
  loadBfclRawEntries,
  loadMcpCallSamples,
  loadMcpToolLists,
  normalizeBfclSchema,
  objectCall,
  type BfclRawEntry,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'
import type { Context } from 'cordis'

/** One registration that threw. */
export interface RegistrationFailure {
  readonly source: string
  readonly tool: string
  readonly message: string
}

/** Counts for one group of schemas (MCP or BFCL). */
export interface SchemaCounts {
  /** Tool definitions read from the fixtures. */
  readonly definitions: number
  /** Registered without an error. */
  readonly registered: number
  /** Identical re-declarations (same name, description and schema in one file) that reused a registration. */
  readonly deduplicated: number
  /** Scopes the definitions were registered in (one per MCP file; one per collision layer per BFCL file). */
  readonly scopes: number
  /** Returned by `ctx.tools.schemas()` across those scopes. */
  readonly projected: number
  /** Whose generated SDK signature has a concrete argument type (not `unknown`); `undefined` when the SDK column is skipped. */
  readonly sdkTyped: number | undefined
  readonly failures: readonly RegistrationFailure[]
}

/** Validation outcomes of a set of calls executed through `ctx.tools.execute`. */
export interface CallCounts {
  readonly calls: number
  /** Passed argument validation (the result is not `INVALID_ARGS` / `UNKNOWN_TOOL`). */
  readonly valid: number
  /** `INVALID_ARGS` results. */
  readonly invalid: number
  /** `UNKNOWN_TOOL` results (the dataset names a function the entry does not declare). */
  readonly unknown: number
  /** Each validation issue without its pointer (`must be integer (got number)`), with how many calls had it. */
  readonly reasons: readonly (readonly [string, number])[]
  /** Up to 10 example failures: `<call> → <message>`. */
  readonly examples: readonly string[]
}

/** The MCP `tools/call` samples compared with the recorded server verdicts. */
export interface SampleCounts extends CallCounts {
  /** Samples where our verdict (INVALID_ARGS or not) equals the server's (`Input validation error` or not). */
  readonly agree: number
  readonly disagreements: readonly string[]
}

/** The documented dataset errors (`ground_truth_vs_schema_mismatches_all_categories.json`). */
export interface MismatchCounts {
  readonly documented: number
  /** Whose entry is in the copied raw files. */
  readonly applicable: number
  /** Rejected as INVALID_ARGS with every recorded field named in the message. */
  readonly rejectedNamingField: number
  /** Ids not in the copied categories. */
  readonly notApplicable: readonly string[]
  /** Applicable ones that were not rejected as expected, with our message. */
  readonly problems: readonly string[]
}

/** The BFCL ground-truth calls. */
export interface GroundTruthCounts extends CallCounts {
  /** Entries with published ground truth. */
  readonly entries: number
  /** Rejected calls whose entry is a documented dataset error. */
  readonly documentedRejections: number
  /** Rejected calls whose entry is not documented as a dataset error (`<entry id>#<i>`). */
  readonly undocumentedRejections: readonly string[]
}

/** The whole report, as {@link runConformance} returns it (`formatReport` of `./report` prints it). */
export interface ConformanceReport {
  readonly mcp: SchemaCounts
  readonly mcpSamples: SampleCounts
  readonly bfcl: SchemaCounts
  readonly bfclGroundTruth: GroundTruthCounts
  readonly mismatches: MismatchCounts
  /** `generated` or why the SDK column was skipped. */
  readonly sdk: string
}

// ---------------------------------------------------------------------------------------------

/** The issue text without its pointer, with enumerated values folded so reasons group. */
function reasonOf(issue: string): string {
  const text = issue.replace(/^(\(root\)|\/\S*): /, '')
  return text.replace(/^must be one of .*/, 'must be one of the allowed values').replace(/^must equal .*/, 'must equal the constant')
}

function issuesOf(message: string): string[] {
  const i = message.indexOf('": ')
  return i === -1 ? [message] : message.slice(i + 3).split('; ')
}

function codeOf(result: ToolResult): string {
  return result.isError ? (result.error.info.code) : 'ok'
}

class CallTally {
  calls = 0
  valid = 0
  invalid = 0
  unknown = 0
  readonly reasons = new Map<string, number>()
  readonly examples: string[] = []
  /** Call ids of the rejected calls, in order. */
  readonly rejected: string[] = []

  add(label: string, result: ToolResult): void {
    this.calls++
    const code = codeOf(result)
    if (code === 'INVALID_ARGS' || code === 'UNKNOWN_TOOL') {
      this.rejected.push(result.callId)
      if (code === 'INVALID_ARGS') this.invalid++
      else this.unknown++
      const message = result.isError ? result.error.message : ''
      for (const reason of new Set(code === 'UNKNOWN_TOOL' ? ['unknown tool'] : issuesOf(message).map(reasonOf))) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1)
      if (this.examples.length < 10) this.examples.push(`${label} → ${message}`)
    } else this.valid++
  }

  counts(): CallCounts {
    return {
      calls: this.calls,
      valid: this.valid,
      invalid: this.invalid,
      unknown: this.unknown,
      reasons: [...this.reasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
      examples: [...this.examples],
    }
  }
}

/** SDK entries of a scope's definitions, as the PTC executor builds them. */
function sdkToolsOf(ctx: Context): SdkTool[] {
  const schemas = ctx.tools.schemas()
  return ctx.tools.definitions().map((d, i) => ({ name: d.name, description: d.description, parameters: schemas[i]?.parameters ?? d.parameters, outputSchema: d.output.schema }))
}

/**
 * Generates the scope's SDK twice (it must be byte-identical) and counts the tools whose
 * argument type is concrete: each tool is rendered alone and its signature checked for the
 * `(args?: unknown)` fallback.
 */
function countSdkTyped(ctx: Context): number {
  const tools = sdkToolsOf(ctx)
  const text = generateSdk(tools)
  if (generateSdk([...tools].reverse()) !== text) throw new Error('generateSdk is not deterministic for one scope')
  let typed = 0
  for (const tool of tools) if (!generateSdk([tool]).includes('(args?: unknown)')) typed++
  return typed
}

// ---------------------------------------------------------------------------------------------
// MCP
// ---------------------------------------------------------------------------------------------

async function mcp(h: Harness, sdk: boolean): Promise<{ counts: SchemaCounts; samples: SampleCounts }> {
  const lists = loadMcpToolLists()
  const samples = loadMcpCallSamples()
  const failures: RegistrationFailure[] = []
  const scopes = new Map<string, AgentHandle>()
  let definitions = 0
  let registered = 0
  let projected = 0
  let sdkTyped = 0
  for (const list of lists) {
    const scope = h.agent(`mcp:${list.file}`)
    scopes.set(list.file, scope)
    for (const tool of list.tools) {
      definitions++
      // The body replays the recorded server answer for the call samples (or a neutral value).
      const recorded = samples.filter((s) => s.server === list.server && list.variant === undefined && s.request.name === tool.name)
      try {
        scope.ctx.tools.register(
          defineRawTool({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
            execute: (args) => {
              const sample = recorded.find((s) => JSON.stringify(s.request.arguments) === JSON.stringify(args))
              const text = (sample?.result.content ?? []).map((b) => String(b.text ?? '')).join('\n')
              if (sample?.result.isError === true) throw new Error(text)
              return (sample?.result.structuredContent as JsonValue | undefined) ?? (tool.outputSchema === undefined ? text : {})
            },
          }),
        )
        registered++
      } catch (error) {
        failures.push({ source: list.file, tool: tool.name, message: describeThrown(error) })
      }
    }
    projected += scope.ctx.tools.schemas().length
    if (sdk) sdkTyped += countSdkTyped(scope.ctx)
  }

  // The recorded tools/call samples, through the pipeline, in the scope of their server's file.
  const tally = new CallTally()
  let agree = 0
  const disagreements: string[] = []
  for (const [index, sample] of samples.entries()) {
    const list = lists.find((l) => l.server === sample.server && l.variant === undefined)
    const scope = list === undefined ? undefined : scopes.get(list.file)
    if (scope === undefined) {
      disagreements.push(`#${index} ${sample.server}: no tool list`)
      continue
    }
    const [result] = await h.execute([objectCall(sample.request.name, sample.request.arguments, `sample-${index}`)], { agent: scope.agent })
    tally.add(`#${index} ${sample.request.name}`, result!)
    const text = sample.result.content.map((b) => String(b.text ?? '')).join('\n')
    const serverRejected = sample.result.isError === true && (text.includes('Input validation error') || text.includes('not found'))
    const weRejected = codeOf(result!) === 'INVALID_ARGS' || codeOf(result!) === 'UNKNOWN_TOOL'
    if (serverRejected === weRejected) agree++
    else disagreements.push(`#${index} ${sample.request.name}: server ${serverRejected ? 'rejected' : 'accepted'} ${JSON.stringify(sample.request.arguments)}, we ${weRejected ? 'rejected' : 'accepted'} (${result!.isError ? result!.error.message : 'ok'})`)
  }
  return {
    counts: { definitions, registered, deduplicated: 0, scopes: lists.length, projected, sdkTyped: sdk ? sdkTyped : undefined, failures },
    samples: { ...tally.counts(), agree, disagreements },
  }
}

// ---------------------------------------------------------------------------------------------
// BFCL
// ---------------------------------------------------------------------------------------------

interface Layered {
  readonly scope: AgentHandle
  /** name → JSON of (description, normalized parameters) registered in this layer. */
  readonly names: Map<string, string>
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Picks the concrete value of one ground-truth slot. BFCL nests acceptable-value lists inside
 * dict answers: a dict parameter's answer is a dict whose values are again lists of acceptable
 * values, and a list-of-dicts parameter's answer is a list of such dicts. The (normalised)
 * schema says where that applies.
 */
function concrete(value: JsonValue, schema: unknown): JsonValue {
  const node = isRecord(schema) ? schema : {}
  if (node.type === 'object' && isRecord(node.properties) && isRecord(value)) return pickAll(value, node.properties)
  if (node.type === 'array' && Array.isArray(value) && isRecord(node.items)) return value.map((item) => concrete(item, node.items))
  return value
}

/** For each parameter: the first acceptable value, recursively; `""` first ("may be omitted") → left out. */
function pickAll(answer: Record<string, JsonValue>, properties: unknown): JsonObject {
  const out: JsonObject = {}
  for (const [param, acceptable] of Object.entries(answer)) {
    const first = Array.isArray(acceptable) ? acceptable[0] : acceptable
    if (first === '' || first === undefined) continue
    out[param] = concrete(first, isRecord(properties) ? properties[param] : undefined)
  }
  return out
}

/**
 * One concrete call per ground-truth answer: the first acceptable value of each parameter
 * (recursively inside dict answers, guided by the function's normalised parameters); a
 * parameter whose first acceptable value is `""` ("may be omitted") is left out.
 *
 * @example concreteCalls([{ f: { a: [1, 2], b: ['', 'x'] } }], () => undefined) // [{ name: 'f', arguments: { a: 1 } }]
 */
export function concreteCalls(groundTruth: readonly JsonObject[], parametersOf: (name: string) => unknown): { name: string; arguments: JsonObject }[] {
  return groundTruth.flatMap((answer) =>
    Object.entries(answer).map(([name, params]) => ({ name, arguments: isRecord(params) ? pickAll(params, (parametersOf(name) as { properties?: unknown } | undefined)?.properties) : {} })),
  )
}

/** `/x must …` → `/x`; ` must have required property 'f'` → `/f` (as ajv recorded them). */
function recordedPointer(message: string): string {
  const required = /^(\S*) must have required property '(.+)'$/.exec(message)
  if (required !== null) return `${required[1]}/${required[2]}`
  return message.slice(0, message.indexOf(' must'))
}

async function bfcl(h: Harness, sdk: boolean): Promise<{ counts: SchemaCounts; groundTruth: GroundTruthCounts; mismatches: MismatchCounts }> {
  const entries = loadBfclRawEntries()
  const failures: RegistrationFailure[] = []
  const layersByFile = new Map<string, Layered[]>()
  /** `<entryId>\0<fn name>` → the layer that holds that entry's version of the function. */
  const placement = new Map<string, AgentHandle>()
  let definitions = 0
  let registered = 0
  let deduplicated = 0

  const place = (entry: BfclRawEntry, fn: BfclRawEntry['functions'][number]): void => {
    definitions++
    const parameters = normalizeBfclSchema(fn.parameters)
    const identity = JSON.stringify([fn.description, parameters])
    let layers = layersByFile.get(entry.file)
    if (layers === undefined) layersByFile.set(entry.file, (layers = []))
    let layer = layers.find((l) => l.names.get(fn.name) === identity)
    if (layer !== undefined) {
      deduplicated++
      placement.set(`${entry.id}\u0000${fn.name}`, layer.scope)
      return
    }
    layer = layers.find((l) => !l.names.has(fn.name))
    if (layer === undefined) {
      layer = { scope: h.agent(`bfcl:${entry.category}#${layers.length}`), names: new Map() }
      layers.push(layer)
    }
    try {
      layer.scope.ctx.tools.register(
        defineRawTool({
          name: fn.name,
          description: typeof fn.description === 'string' ? fn.description : '',
          inputSchema: parameters as JsonSchemaNode,
          execute: () => null,
        }),
      )
      registered++
      layer.names.set(fn.name, identity)
      placement.set(`${entry.id}\u0000${fn.name}`, layer.scope)
    } catch (error) {
      failures.push({ source: `${entry.file} ${entry.id}`, tool: String(fn.name), message: describeThrown(error) })
    }
  }
  for (const entry of entries) for (const fn of entry.functions) place(entry, fn)

  let scopes = 0
  let projected = 0
  let sdkTyped = 0
  for (const layers of layersByFile.values()) {
    for (const layer of layers) {
      scopes++
      projected += layer.scope.ctx.tools.schemas().length
      if (sdk) sdkTyped += countSdkTyped(layer.scope.ctx)
    }
  }

  // Ground truth: one concrete call per answer, in the layer holding the entry's function.
  const tally = new CallTally()
  let withTruth = 0
  for (const entry of entries) {
    if (entry.groundTruth === undefined) continue
    withTruth++
    const groups = new Map<AgentHandle | undefined, RawToolCall[]>()
    const parameters = (name: string) => {
      const fn = entry.functions.find((f) => f.name === name)
      return fn === undefined ? undefined : normalizeBfclSchema(fn.parameters)
    }
    concreteCalls(entry.groundTruth, parameters).forEach((c, i) => {
      const scope = placement.get(`${entry.id}\u0000${c.name}`)
      const list = groups.get(scope) ?? []
      list.push(objectCall(c.name, c.arguments, `${entry.id}#${i}`))
      groups.set(scope, list)
    })
    for (const [scope, calls] of groups) {
      // A name the entry does not declare has no layer: run it in an empty scope (UNKNOWN_TOOL).
      const agent = scope?.agent ?? h.agent(`bfcl:undeclared:${entry.id}`).agent
      const results = await h.execute(calls, { agent })
      results.forEach((r, i) => tally.add(`${calls[i]!.callId} ${calls[i]!.name}`, r))
    }
  }

  // The documented dataset errors: rejected, naming every recorded field.
  const documented = loadBfclMismatches()
  const documentedIds = new Set(documented.map((m) => m.id))
  const byId = new Map(entries.map((e) => [e.id, e]))
  const notApplicable: string[] = []
  const problems: string[] = []
  let applicable = 0
  let rejectedNamingField = 0
  for (const m of documented) {
    const scope = byId.has(m.id) ? placement.get(`${m.id}\u0000${m.fn}`) : undefined
    if (scope === undefined) {
      notApplicable.push(m.id)
      continue
    }
    applicable++
    const [result] = await h.execute([objectCall(m.fn, m.args, `mismatch:${m.id}`)], { agent: scope.agent })
    const message = result!.isError ? result!.error.message : ''
    const pointers = [...new Set(m.errors.map(recordedPointer))]
    if (codeOf(result!) === 'INVALID_ARGS' && pointers.every((p) => message.includes(`${p}: `))) rejectedNamingField++
    else problems.push(`${m.id} ${m.fn}: expected INVALID_ARGS naming ${pointers.join(', ')}; got ${codeOf(result!)} ${message}`)
  }

  return {
    counts: { definitions, registered, deduplicated, scopes, projected, sdkTyped: sdk ? sdkTyped : undefined, failures },
    groundTruth: {
      ...tally.counts(),
      entries: withTruth,
      documentedRejections: tally.rejected.filter((id) => documentedIds.has(id.slice(0, id.lastIndexOf('#')))).length,
      undocumentedRejections: tally.rejected.filter((id) => !documentedIds.has(id.slice(0, id.lastIndexOf('#')))),
    },
    mismatches: { documented: documented.length, applicable, rejectedNamingField, notApplicable, problems },
  }
}

/**
 * Runs the whole conformance check on a fresh harness (native executor) and disposes it.
 *
 * @example
 * const report = await runConformance()
 * console.log(formatReport(report))
 */
export async function runConformance(): Promise<ConformanceReport> {
  const sdk = typeof generateSdk === 'function'
  const h = await createHarness()
  try {
    const m = await mcp(h, sdk)
    const b = await bfcl(h, sdk)
    return { mcp: m.counts, mcpSamples: m.samples, bfcl: b.counts, bfclGroundTruth: b.groundTruth, mismatches: b.mismatches, sdk: sdk ? 'generated' : 'skipped: @deepseek-ai/dsh-tool-executor-ptc does not export generateSdk' }
  } finally {
    await h.dispose()
  }
}
