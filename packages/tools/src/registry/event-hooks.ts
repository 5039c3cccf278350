/**
 * cordis' listener table as the registry reads and writes it (internal): the `tools/*` event
 * names `ctx.tools.on` accepts, and how it adds a listener to the table the way `ctx.on` does,
 * without cordis' argument tracing.
 */
import type { Context } from 'cordis'
import type { ToolEvents } from '../events'
import { ToolRegistrationError, typeLabel } from '../errors'
import type { ToolRegistry } from './tool-registry'
import type { Disposer } from './types'

/** The events `ctx.tools.on` accepts (every key of {@link ToolEvents}). */
export const TOOL_EVENT_NAMES: ReadonlySet<string> = new Set(Object.keys({
  'tools/pre-execute': true,
  'tools/execute': true,
  'tools/post-execute': true,
  'tools/result': true,
  'tools/progress': true,
  'tools/preliminary': true,
  'tools/batch-start': true,
  'tools/batch-end': true,
  'tools/change': true,
} satisfies Record<keyof ToolEvents, true>))

/** cordis' listener lists by event name (`ctx.events._hooks`). */
export type EventHooks = Record<string, { ctx: Context; callback: unknown; prepend?: boolean; global?: boolean }[] | undefined>

/** {@link ToolRegistry.on}'s work: checks `name` and `listener`, then adds the listener to `hooks[name]` as `ctx`'s, removed with its fiber. */
export function addListener<K extends keyof ToolEvents>(ctx: Context, hooks: EventHooks, name: K, listener: ToolEvents[K], options: boolean | { readonly prepend?: boolean }): Disposer {
  if (!TOOL_EVENT_NAMES.has(name)) throw new ToolRegistrationError(`tools.on() takes one of ${[...TOOL_EVENT_NAMES].map((n) => `"${n}"`).join(', ')}, got ${typeof name === 'string' ? `"${name}"` : typeof name}`)
  if (typeof listener !== 'function') throw new ToolRegistrationError(`tools.on("${name}") takes a function, got ${typeLabel(listener)}`)
  const prepend = typeof options === 'boolean' ? options : options.prepend === true
  return ctx.effect(() => {
    const hook = { ctx, callback: listener, prepend }
    const list = (hooks[name] ??= [])
    if (hook.prepend) list.unshift(hook)
    else list.push(hook)
    return () => {
      const current = hooks[name]
      const i = current === undefined ? -1 : current.indexOf(hook)
      if (i === -1) return
      current!.splice(i, 1)
      if (current!.length === 0) delete hooks[name]
    }
  }, `ctx.tools.on(${JSON.stringify(name)})`) as Disposer
}
