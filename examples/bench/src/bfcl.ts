/**
 * The real tool set of the scale workload: every function of the raw BFCL v4 question files
 * (`@deepseek-ai/dsh-tool-testkit` real-data loaders; 6,353 definitions in 7 categories, BFCL
 * dialect normalised to JSON Schema), each under a unique provider-safe name, plus one
 * ground-truth call per entry that has one.
 */
import { loadBfclRawEntries, normalizeBfclSchema } from '@deepseek-ai/dsh-tool-testkit'
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'

/** One function to register. */
export interface ScaleTool {
  /** Unique across the set, `^[A-Za-z0-9_-]{1,64}$` (safe for every system). */
  readonly name: string
  /** As published (may repeat across entries, may contain dots). */
  readonly originalName: string
  readonly description: string
  /** JSON Schema of the arguments (BFCL dialect normalised). */
  readonly parameters: JsonObject
}

/** A ground-truth call, addressed to a registered unique name. */
export interface ScaleCall {
  readonly entryId: string
  readonly name: string
  readonly arguments: JsonObject
}

/** The tool set and the calls. */
export interface ScaleData {
  readonly tools: readonly ScaleTool[]
  readonly calls: readonly ScaleCall[]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * One concrete value from BFCL's "possible answers" format: each parameter maps to a list of
 * acceptable values, `""` meaning "may be omitted"; nested objects use the same format.
 * Returns `undefined` for an omitted parameter.
 */
export function pickAnswer(possible: unknown): JsonValue | undefined {
  if (!Array.isArray(possible) || possible.length === 0) return undefined
  const first = possible[0] as JsonValue
  if (first === '') return undefined
  if (isObject(first)) return argumentsFromAnswer(first)
  return first
}

/** Concrete arguments from one ground-truth call's parameter map (see {@link pickAnswer}). */
export function argumentsFromAnswer(answer: Readonly<Record<string, unknown>>): JsonObject {
  const args: JsonObject = {}
  for (const [key, possible] of Object.entries(answer)) {
    const value = pickAnswer(possible)
    if (value !== undefined) args[key] = value
  }
  return args
}

/**
 * Loads the BFCL tool set with every entry's first ground-truth call. Entries are taken in file
 * order; with a finite `limit`, entries that have ground truth come first (stable) and entries
 * are taken until the next one would exceed the cap.
 */
export function loadScaleData(limit = Number.POSITIVE_INFINITY): ScaleData {
  const tools: ScaleTool[] = []
  const calls: ScaleCall[] = []
  const used = new Set<string>()
  const unique = (name: string): string => {
    const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56)
    let candidate = base
    for (let k = 2; used.has(candidate); k++) candidate = `${base}__${k}`
    used.add(candidate)
    return candidate
  }
  const entries = loadBfclRawEntries()
  // A capped set (smoke runs) takes entries with ground truth first, so it has calls to make.
  if (Number.isFinite(limit)) entries.sort((a, b) => Number(b.groundTruth !== undefined) - Number(a.groundTruth !== undefined))
  for (const entry of entries) {
    if (tools.length + entry.functions.length > limit) break
    const local = new Map<string, string>()
    for (const fn of entry.functions) {
      const name = unique(fn.name)
      local.set(fn.name, name)
      tools.push({ name, originalName: fn.name, description: fn.description, parameters: normalizeBfclSchema(fn.parameters as JsonValue) })
    }
    const first = entry.groundTruth?.[0]
    if (first !== undefined) {
      const [fnName, answer] = Object.entries(first)[0] ?? []
      const name = fnName === undefined ? undefined : local.get(fnName)
      if (name !== undefined && isObject(answer)) calls.push({ entryId: entry.id, name, arguments: argumentsFromAnswer(answer) })
    }
  }
  return { tools, calls }
}
