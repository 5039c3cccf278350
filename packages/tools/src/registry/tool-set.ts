/**
 * A resolved tool set (internal): the registrations `resolve` admitted for one step, pinned by
 * identity, and the visible set they were resolved from.
 */
import type { Agent, AnyToolDefinition, ModelSelection, Scope } from '../contracts'
import type { ResolvedToolSet } from '../executor'
import type { Registration, Visible } from './layers'
import type { ToolRegistry } from './tool-registry'
import type { ResolveInput } from './types'

/** A resolved tool set (see {@link ResolvedToolSet}). */
export class ToolSet implements ResolvedToolSet {
  disposed = false
  readonly agent?: Agent
  readonly modelSelection?: ModelSelection

  constructor(
    private readonly registry: ToolRegistry,
    readonly scope: Scope,
    readonly pinned: ReadonlyMap<string, Registration>,
    input: ResolveInput,
    /** The visible set it was resolved from (identity: unchanged registry version). */
    readonly visible: Visible,
  ) {
    if (input.agent !== undefined) this.agent = input.agent
    if (input.modelSelection !== undefined) this.modelSelection = input.modelSelection
  }

  get definitions(): readonly AnyToolDefinition[] {
    return this.registry.definitions(this.scope, this)
  }

  has(name: string): boolean {
    const reg = this.disposed ? undefined : this.pinned.get(name)
    return reg !== undefined && this.registry._isCurrent(this.scope, reg)
  }

  dispose(): void {
    this.disposed = true
  }
}
