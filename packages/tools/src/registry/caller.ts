/**
 * Who a registry method acts for (internal): the scope a reference names, the plain registry
 * behind cordis' per-caller proxy, and the owner a registration error names.
 */
import { Context, symbols } from 'cordis'
import type { Agent } from '../contracts'
import type { ToolRegistry } from './tool-registry'
import type { ScopeRef } from './types'

export function isAgent(ref: ScopeRef): ref is Agent {
  return ref !== undefined && !Context.is(ref) && 'scope' in ref
}

/**
 * The registry object behind cordis' per-caller proxy (`ctx.tools`), or `registry` itself.
 * Every property read through that proxy runs its `get` trap (a prototype walk and a lookup in
 * the reflect service, which builds a tracing proxy of its own); the hot entry points
 * (`resolve`, `describe`, `execute`) take the caller's scope from the proxy, then make their
 * internal calls on the plain object (docs/benchmarks.md, "Optimisations").
 */
export function serviceOf(registry: ToolRegistry): ToolRegistry {
  return (registry as unknown as { readonly [key: symbol]: ToolRegistry | undefined })[symbols.original] ?? registry
}

/** How a registration error names the plugin (fiber) that registered a tool. */
export function fiberName(ctx: Context): string {
  try {
    const name = ctx.fiber?.name
    return typeof name === 'string' && name !== '' ? `plugin "${name}"` : 'the root context'
  } catch {
    return 'an unnamed plugin'
  }
}
