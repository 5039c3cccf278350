/**
 * Provider emission fixtures (docs/design.md, "Testkit"): loaders for `fixtures/real/model-outputs/provider_emissions.json` — 22 tool-call
 * emission shapes of OpenAI chat/Responses, Anthropic, Gemini, DeepSeek and OpenAI-compatible
 * servers, each with the parse outcome a provider adapter should produce. Provenance:
 * `fixtures/real/SOURCES.md` (shapes from public docs and bug reports; values invented, except
 * `observed-raw-output` entries whose argument strings are a model's own bytes).
 */
import { readFileSync } from 'node:fs'
import type { JsonObject, JsonSchemaNode, JsonValue, RawToolCall } from '@deepseek-ai/dsh-tools'

const FILE = new URL('../fixtures/real/model-outputs/provider_emissions.json', import.meta.url)

/** How an emission example was obtained (the file's `meta.kinds`). */
export type EmissionKind = 'documented-shape' | 'observed-quirk' | 'observed-raw-output'

/** One example of `provider_emissions.json`. */
export interface ProviderEmission {
  /** `E01` … `E26` (not contiguous; each explained in docs/glossary.md, "Provider emissions"). */
  readonly id: string
  /** e.g. `openai`, `anthropic`, `google gemini`, `deepseek`, `openai-compatible`. */
  readonly provider: string
  /** e.g. `chat.completions (stream)`, `messages (non-stream)`, `generateContent`. */
  readonly api: string
  readonly kind: EmissionKind
  /** The parameters schema of the called tool, when the example has one. */
  readonly tool_schema?: JsonSchemaNode
  /** The provider payload: a response object, or an array of stream events/chunks. */
  readonly payload: JsonValue
  /** What a correct adapter produces (`calls`, `execute: false`, `strict` / `lenient`, `rule`, …). */
  readonly expected: JsonObject
  readonly note?: string
  readonly sources: readonly string[]
}

/** The whole file: `meta` (what / kinds) and the examples in file order. */
export interface ProviderEmissions {
  readonly meta: JsonObject
  readonly examples: readonly ProviderEmission[]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Reads `provider_emissions.json` afresh (synchronously; detached data).
 *
 * @throws Error naming the file when it is not `{ meta, examples: [...] }` or an example lacks
 *   `id`, `provider`, `kind`, `payload` or `expected`.
 *
 * @example
 * const { examples } = loadProviderEmissions()
 * examples.filter((e) => e.provider === 'anthropic').map((e) => e.id) // ['E06', 'E07', 'E08', 'E09', 'E10']
 */
export function loadProviderEmissions(): ProviderEmissions {
  const data = JSON.parse(readFileSync(FILE, 'utf8')) as unknown
  const where = 'model-outputs/provider_emissions.json'
  if (!isObject(data) || !Array.isArray(data.examples)) throw new Error(`real-data fixture ${where}: expected { meta, examples: [...] }`)
  data.examples.forEach((e: unknown, i: number) => {
    if (!isObject(e) || typeof e.id !== 'string' || typeof e.provider !== 'string' || typeof e.kind !== 'string' || !('payload' in e) || !isObject(e.expected)) {
      throw new Error(`real-data fixture ${where}: examples[${i}] lacks id, provider, kind, payload or expected`)
    }
  })
  return { meta: (isObject(data.meta) ? data.meta : {}) as JsonObject, examples: data.examples as ProviderEmission[] }
}

/**
 * One example by id.
 *
 * @throws Error `no provider emission "<id>"; available: E01, …` for an unknown id.
 *
 * @example providerEmission('E09').expected // { calls: [{ id: 'toolu_z', arguments: {} }] }
 */
export function providerEmission(id: string): ProviderEmission {
  const { examples } = loadProviderEmissions()
  const found = examples.find((e) => e.id === id)
  if (found === undefined) throw new Error(`no provider emission ${JSON.stringify(id)}; available: ${examples.map((e) => e.id).join(', ')}`)
  return found
}

/** A call a correct adapter extracts from an emission (`expected.calls[i]`). */
export interface ExpectedEmissionCall {
  /** The provider's call id, when the example names it. */
  readonly id?: string
  /** The tool name, when the example names it. */
  readonly name?: string
  readonly arguments: JsonObject
}

/**
 * The calls an example expects an adapter to extract (`expected.calls` when it is a list);
 * `[]` when the example expects a count, a rule or no execution instead.
 *
 * @example expectedCalls(providerEmission('E01')) // [{ id: 'call_a1', name: 'get_weather', arguments: { city: 'Oslo', unit: 'celsius' } }]
 */
export function expectedCalls(example: ProviderEmission): ExpectedEmissionCall[] {
  const calls = example.expected.calls
  if (!Array.isArray(calls)) return []
  return (calls as unknown[]).filter(isObject).map((c) => ({
    ...(typeof c.id === 'string' ? { id: c.id } : {}),
    ...(typeof c.name === 'string' ? { name: c.name } : {}),
    arguments: (isObject(c.arguments) ? c.arguments : {}) as JsonObject,
  }))
}

/**
 * The expected calls of an example as a raw batch for `ctx.tools.execute`: arguments as parsed
 * objects (as Anthropic and Gemini send them), ids from the example or `<exampleId>-<i>`, names
 * from the example or `defaultName` (for examples that omit the name).
 *
 * @throws Error when a call has no name and no `defaultName` was given.
 *
 * @example
 * await h.execute(emissionBatch(providerEmission('E04'), 'get_weather'))
 */
export function emissionBatch(example: ProviderEmission, defaultName?: string): RawToolCall[] {
  return expectedCalls(example).map((c, i) => {
    const name = c.name ?? defaultName
    if (name === undefined) throw new Error(`emission ${example.id}: expected call ${i} has no name; pass defaultName`)
    return { callId: c.id ?? `${example.id}-${i}`, name, arguments: c.arguments }
  })
}
