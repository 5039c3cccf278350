/**
 * What the registry keeps per scope (internal): a layer of registrations, restriction masks,
 * guards, executor mounts and approvals; the cached view of what a scope sees and how it is
 * computed; and how a `restrict()` filter becomes a mask.
 */
import type { AnyToolDefinition, ApprovalService, Scope, ToolCondition, ToolGuard, ToolSchema } from '../contracts'
import type { ToolExecutor } from '../executor'
import { ToolRegistrationError } from '../errors'
import type { FoundTool } from '../found-tool'
import type { ToolFilter } from './types'

export interface Registration {
  readonly definition: AnyToolDefinition
  readonly schema: ToolSchema
  readonly scope: Scope
  readonly when: ToolCondition | undefined
  readonly owner: string
  readonly seq: number
  /** The execution lookup's answer for this registration (one object, not one per call; it keeps the validators after first use). */
  readonly found: FoundTool
}

export type Mask = (name: string, definition: AnyToolDefinition) => boolean

export interface Layer {
  readonly byName: Map<string, Registration>
  readonly masks: Mask[]
  readonly guards: ToolGuard[]
  readonly executors: ToolExecutor[]
  readonly approvals: ApprovalService[]
}

export interface Visible {
  readonly version: number
  readonly list: readonly Registration[]
  readonly byName: ReadonlyMap<string, Registration>
  /** `list` by name, in list order: the pins of a set that admitted every tool (built on first use). */
  allPinned?: ReadonlyMap<string, Registration>
}

export function maskOf(filter: ToolFilter): Mask {
  if (typeof filter === 'function') return filter
  if (filter !== null && typeof filter === 'object') {
    if ('allow' in filter && Array.isArray(filter.allow)) {
      const allow = new Set(filter.allow)
      return (name) => allow.has(name)
    }
    if ('deny' in filter && Array.isArray(filter.deny)) {
      const deny = new Set(filter.deny)
      return (name) => !deny.has(name)
    }
  }
  throw new ToolRegistrationError('restrict() takes { allow: string[] }, { deny: string[] } or a predicate (name, definition) => boolean')
}

/**
 * The registrations a scope sees, by name: walking `chain` (the scope first, then its parents),
 * the nearest layer's registration wins a name, and a parent's registration counts only if every
 * mask of the layers below it admits it. A throwing mask masks the tool (fail closed) and is
 * reported as `restrict() predicate on "<name>"`.
 */
export function visibleByName(layers: ReadonlyMap<Scope, Layer>, chain: readonly Scope[], report: (stage: string, error: unknown) => void): Map<string, Registration> {
  const byName = new Map<string, Registration>()
  const masksBelow: Mask[] = []
  for (const s of chain) {
    const layer = layers.get(s)
    if (layer === undefined) continue
    for (const reg of layer.byName.values()) {
      if (byName.has(reg.definition.name)) continue
      let admitted = true
      for (const mask of masksBelow) {
        let ok: boolean
        try {
          ok = mask(reg.definition.name, reg.definition) === true
        } catch (error) {
          report(`restrict() predicate on "${reg.definition.name}"`, error)
          ok = false
        }
        if (!ok) {
          admitted = false
          break
        }
      }
      if (admitted) byName.set(reg.definition.name, reg)
    }
    masksBelow.push(...layer.masks)
  }
  return byName
}
