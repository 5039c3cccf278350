/**
 * `ctx.tools.registerGroup` (internal): a set of registrations in one scope swapped as a unit,
 * with one `tools/change` `{ type: 'replace' }` per swap, rolled back when a listener throws.
 * The MCP bridge registers each server's tools this way. Also the duplicate-name error that
 * `register` and a group share.
 */
import type { Context } from 'cordis'
import type { AnyToolDefinition, Scope, ToolSchema } from '../contracts'
import type { ToolChange } from '../events'
import { ToolRegistrationError } from '../errors'
import { FoundTool } from '../found-tool'
import type { Layer, Registration } from './layers'
import type { Disposer, ToolGroup } from './types'

/** What a group needs from the registry. */
export interface GroupHost {
  /** The scope's layer (created on first use). */
  layer(scope: Scope): Layer
  /** Checks a definition as `register` does; throws `ToolRegistrationError`. */
  validate(definition: AnyToolDefinition): ToolSchema
  /** The next registration sequence number (prompt order). */
  nextSeq(): number
  /** What scopes see changed: a new registry version. */
  bump(): void
  /** Emits `tools/change`; a listener's throw propagates. */
  emitChange(change: ToolChange): void
  /** Reports a failure that must not propagate (a throwing listener at disposal). */
  report(stage: string, error: unknown): void
}

/**
 * The error for a second registration of `name` in one scope (bug case B14: both owners named):
 * `Cannot register tool "<name>" in scope "<scope>": a tool of that name is already registered
 * there by <existing owner>; this registration came from <owner>. Rename one (for example with a
 * server prefix) or register it in another scope.`
 */
export function duplicateNameError(name: string, scope: Scope, existingOwner: string, owner: string): ToolRegistrationError {
  return new ToolRegistrationError(
    `Cannot register tool "${name}" in scope "${scope.id}": a tool of that name is already registered there by ${existingOwner}; this registration came from ${owner}. Rename one (for example with a server prefix) or register it in another scope.`,
    { toolName: name },
  )
}

/**
 * Registers `definitions` in `scope` as one group owned by `owner`; disposed with `ctx`'s fiber.
 *
 * @throws ToolRegistrationError as {@link ToolGroup.replace} does; nothing is registered then.
 */
export function registerToolGroup(host: GroupHost, ctx: Context, scope: Scope, owner: string, definitions: readonly AnyToolDefinition[]): ToolGroup {
  let current = new Map<string, Registration>()
  let live = true
  const swap = (next: readonly AnyToolDefinition[]): void => {
    if (!Array.isArray(next)) throw new ToolRegistrationError('registerGroup() and replace() take an array of tool definitions')
    const layer = host.layer(scope)
    const prepared = new Map<string, Registration>()
    for (const definition of next) {
      const name = (definition as { name?: unknown } | null)?.name
      const kept = typeof name === 'string' ? current.get(name) : undefined
      if (kept !== undefined && kept.definition === definition && !prepared.has(name as string)) {
        prepared.set(kept.definition.name, kept)
        continue
      }
      const schema = host.validate(definition)
      if (prepared.has(definition.name)) throw new ToolRegistrationError(`Cannot register tool "${definition.name}" in scope "${scope.id}": the group from ${owner} lists it twice`, { toolName: definition.name })
      const other = layer.byName.get(definition.name)
      if (other !== undefined && current.get(definition.name) !== other) throw duplicateNameError(definition.name, scope, other.owner, owner)
      const seq = kept?.seq ?? host.nextSeq()
      prepared.set(definition.name, { definition, schema, scope, when: undefined, owner, seq, found: new FoundTool(definition, schema.parameters) })
    }
    const registered: string[] = []
    const unregistered: string[] = []
    for (const [name, reg] of current) if (prepared.get(name) !== reg) unregistered.push(name)
    for (const [name, reg] of prepared) if (current.get(name) !== reg) registered.push(name)
    if (registered.length === 0 && unregistered.length === 0) {
      current = prepared
      return
    }
    const install = (from: Map<string, Registration>, to: Map<string, Registration>): void => {
      for (const [name, reg] of from) if (layer.byName.get(name) === reg) layer.byName.delete(name)
      for (const [name, reg] of to) layer.byName.set(name, reg)
      host.bump()
    }
    install(current, prepared)
    try {
      host.emitChange({ type: 'replace', scope, registered, unregistered })
    } catch (error) {
      install(prepared, current)
      throw error
    }
    current = prepared
  }
  const dispose = ctx.effect(() => {
    swap(definitions)
    return () => {
      if (!live) return
      live = false
      try {
        swap([])
      } catch (error) {
        host.report('tools/change', error)
      }
    }
  }, `ctx.tools.registerGroup(${definitions.length} tools)`) as Disposer
  return Object.freeze({
    get names(): readonly string[] {
      return Object.freeze([...current.keys()])
    },
    replace(next: readonly AnyToolDefinition[]): void {
      if (!live) throw new ToolRegistrationError(`Cannot replace the tools of a disposed group (scope "${scope.id}", ${owner})`)
      swap(next)
    },
    dispose,
  })
}
