/**
 * A tool's identity in a suspended state (internal): its name and a hash of what decides how a
 * call runs — the arguments' JSON Schema, the output schema and the author's `version`.
 */
import { createHash } from 'node:crypto'
import type { AnyToolDefinition } from '../contracts'
import { canonicalJson } from './canonical'

const HASHES = new WeakMap<AnyToolDefinition, string>()

/** `sha256:<hex>` of the canonical JSON of `{ name, parameters, output, version }` (cached per definition object). */
export function toolHash(definition: AnyToolDefinition): string {
  let hash = HASHES.get(definition)
  if (hash === undefined) {
    const identity = { name: definition.name, parameters: definition.parameters, output: definition.output.schema, version: definition.version ?? null }
    hash = `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`
    HASHES.set(definition, hash)
  }
  return hash
}
