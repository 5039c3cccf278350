/**
 * Scopes: deployment → preset → agent (docs/design.md, "Scopes"). A scope is a cordis context tagged
 * with a {@link Scope} whose `parent` is the scope of the context it was minted from.
 * Registrations, restrictions, guards, listeners and executor mounts made on a scope's context
 * belong to that scope and are disposed with the fiber that made them.
 */
import type { Context } from 'cordis'
import type { Agent, Scope, ScopeKind, SessionLog } from './contracts'

/** The context property that carries a context's scope. */
export const kScope: unique symbol = Symbol.for('dsh-tools.scope')

/** The deployment scope of a root context that was never tagged. One per root context. */
const deployments = new WeakMap<object, Scope>()

/** The scope a context belongs to (the root's deployment scope when untagged). */
export function scopeOf(ctx: Context): Scope {
  const tagged = (ctx as unknown as { [kScope]?: Scope })[kScope]
  if (tagged !== undefined) return tagged
  const root = ctx.root as object
  let scope = deployments.get(root)
  if (scope === undefined) {
    scope = Object.freeze({ id: 'deployment', kind: 'deployment' as const, parent: undefined })
    deployments.set(root, scope)
  }
  return scope
}

/**
 * Mints a child scope of `ctx`'s scope and returns a context tagged with it.
 * `kind` defaults to `preset` under the deployment and `agent` below a preset.
 *
 * @throws TypeError when `id` is empty.
 */
export function createScope(ctx: Context, id: string, kind?: ScopeKind): Context {
  if (typeof id !== 'string' || id === '') throw new TypeError('createScope: id must be a non-empty string')
  const parent = scopeOf(ctx)
  const scope: Scope = Object.freeze({ id, kind: kind ?? (parent.kind === 'deployment' ? 'preset' : 'agent'), parent })
  return ctx.extend({ [kScope]: scope })
}

/** An agent and the context tagged with its scope. */
export interface AgentHandle {
  readonly agent: Agent
  readonly ctx: Context
}

/**
 * Mints an agent scope under `ctx` (a preset's or the deployment's context) with an optional
 * session log (docs/design.md, "Scopes").
 */
export function createAgent(ctx: Context, id: string, options?: { log?: SessionLog }): AgentHandle {
  const agentCtx = createScope(ctx, id, 'agent')
  const scope = scopeOf(agentCtx)
  const agent: Agent = Object.freeze(options?.log === undefined ? { id, scope } : { id, scope, log: options.log })
  return { agent, ctx: agentCtx }
}

/** `ancestor` is `scope` or one of its ancestors. */
export function isWithin(scope: Scope, ancestor: Scope): boolean {
  for (let s: Scope | undefined = scope; s !== undefined; s = s.parent) if (s === ancestor) return true
  return false
}

/** The chain from `scope` up to the deployment, nearest first. */
export function scopeChain(scope: Scope): Scope[] {
  const chain: Scope[] = []
  for (let s: Scope | undefined = scope; s !== undefined; s = s.parent) chain.push(s)
  return chain
}

/**
 * Calls every listener of the observe-only event `name` whose context's scope contains `scope`,
 * in registration order (how `tools/batch-*`, `tools/retry` and `tools/abandoned` reach
 * scope-filtered listeners). Each listener's throw, or its returned promise's rejection, goes
 * to `report`; nothing propagates.
 */
export function emitScoped(ctx: Context, name: string, scope: Scope, args: readonly unknown[], report: (error: unknown) => void): void {
  const hooks = (ctx.events._hooks as Record<string, readonly { readonly ctx: Context; readonly callback: unknown }[] | undefined>)[name]
  if (hooks === undefined || hooks.length === 0) return
  for (const hook of [...hooks]) {
    if (!isWithin(scope, scopeOf(hook.ctx))) continue
    try {
      const out = (hook.callback as (...a: readonly unknown[]) => unknown)(...args)
      if (out instanceof Promise) out.catch(report)
    } catch (error) {
      report(error)
    }
  }
}
