/**
 * A run's sandbox as `run.ts` uses it: the QuickJS runtime and context taken from the instance
 * (made while it was idle, or now), with the run's limits and interrupt handler set, the
 * prelude called with the run's tool names and limits, and the prelude's API read out as
 * handles. Built once per run, inside the run's first (uncounted, unguarded) entry.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten'
import type { RunLimits } from '../../limits'
import { dropAsyncHelper } from '../async-helper'
import { accessor } from '../host-call'
import { takeContext, type SandboxModule } from '../module-pool'
import { rawCalls, type RawCalls } from '../raw-calls'
import { MAX_MESSAGE_CHARS } from './failures'
import { unwrap } from './guest-calls'

/** What {@link buildContext} needs from the run. */
export interface ContextInput {
  readonly entry: SandboxModule
  /** The prelude source (`preludeCode()`). */
  readonly prelude: string
  /** The program as the caller gave it. */
  readonly code: string
  /** The SDK's tool names, in the order sub-calls index them. */
  readonly names: readonly string[]
  readonly limits: Readonly<Required<RunLimits>>
  /** The prelude's `hostPrint`: one printed line (a guest string). */
  readonly print: (line: QuickJSHandle) => void
  /** QuickJS' interrupt handler: `true` stops the running guest code. */
  readonly interrupt: () => boolean
  /**
   * The prelude's `hostTimer(op, id, ms)` (`prelude-timers.ts`): `1` arms timer `id` for `ms`, `2`
   * disarms it, `3` asks the run's clock (returns ms since the program started).
   */
  readonly timer: (op: number, id: number, ms: number) => number | undefined
}

/** The run's sandbox. Every handle is also in `handles`, which the run frees when it ends. */
export interface RunContext {
  readonly rt: QuickJSRuntime
  readonly ctx: QuickJSContext
  /** The program as evaluated: `code` without esbuild's `__async` when the prelude defines it (`async-helper.ts`). */
  readonly code: string
  readonly handles: QuickJSHandle[]
  /** The prelude's `serialize(value)`: the return value's JSON text, its length in characters when over `outputBytes`, or `undefined`. */
  readonly serializeFn: QuickJSHandle
  /** The prelude's `describe(error)`: one line for a thrown guest value. */
  readonly describeFn: QuickJSHandle
  /** The prelude's `unhandled(main)`: the first unhandled rejection's description, or `undefined`. */
  readonly unhandledFn: QuickJSHandle
  /** The prelude's `deliver(id, text)`: settles sub-call `id` with its result text. */
  readonly deliverFn: QuickJSHandle
  /** The prelude's `refuse(id, rejection)`: rejects sub-call `id`. */
  readonly refuseFn: QuickJSHandle
  /** The prelude's `afterJobs()`: the queued sub-calls' text (`call-queue.ts`), or `undefined`. */
  readonly afterJobsFn: QuickJSHandle
  /** The prelude's `fire(id)`: runs timer `id`'s callback (throws what it throws). */
  readonly fireFn: QuickJSHandle
  /** The prelude's `pendingWork()`: the notes on sub-calls and timers still pending (lines joined by `\n`), or `undefined`. */
  readonly pendingWorkFn: QuickJSHandle
  /** `deliver`, `afterJobs`, the jobs and the main promise's state through the C interface (`raw-calls.ts`); `undefined`: the public API. */
  readonly raw: RawCalls | undefined
}

/**
 * Takes the instance's prepared context and readies it for the run. Handles made before a
 * failure are in `handles` (pass an array the run frees); throws `Error('prelude failed: …')`
 * when the prelude throws.
 */
export function buildContext(input: ContextInput, handles: QuickJSHandle[]): RunContext {
  const keep = (handle: QuickJSHandle): QuickJSHandle => {
    handles.push(handle)
    return handle
  }
  const limits = input.limits
  const { rt, ctx, preludeFn: evaluated } = takeContext(input.entry, input.prelude)
  const code = dropAsyncHelper(input.code)
  const preludeFn = keep(evaluated)
  rt.setMemoryLimit(limits.memoryBytes)
  rt.setMaxStackSize(limits.stackBytes)
  rt.setInterruptHandler(input.interrupt)
  const hostPrint = keep(ctx.newFunction('hostPrint', input.print))
  const hostTimer = keep(
    ctx.newFunction('hostTimer', (op, id, ms) => {
      const answer = input.timer(ctx.getNumber(op), ctx.getNumber(id), ctx.getNumber(ms))
      return answer === undefined ? undefined : ctx.newNumber(answer)
    }),
  )
  const names = keep(ctx.newArray())
  input.names
    .flatMap((name) => [name, accessor(name)])
    .forEach((text, i) => {
      const h = ctx.newString(text)
      ctx.setProp(names, i, h)
      h.dispose()
    })
  const config = keep(ctx.newObject())
  for (const [key, value] of [
    ['valueBytes', limits.valueBytes],
    ['outputBytes', limits.outputBytes],
    ['messageChars', MAX_MESSAGE_CHARS],
    ['maxSubCalls', limits.maxSubCalls],
  ] as const) {
    const h = ctx.newNumber(value)
    ctx.setProp(config, key, h)
    h.dispose()
  }
  // The program's copy of esbuild's `__async` is dropped when the prelude can define it (async-helper.ts).
  ctx.setProp(config, 'asyncHelper', code === input.code ? ctx.false : ctx.true)
  const api = keep(unwrap(ctx, ctx.callFunction(preludeFn, ctx.undefined, hostPrint, names, config, hostTimer), 'prelude'))
  const member = (key: string): QuickJSHandle => keep(ctx.getProp(api, key))
  return {
    rt,
    ctx,
    code,
    handles,
    serializeFn: member('serialize'),
    describeFn: member('describe'),
    unhandledFn: member('unhandled'),
    deliverFn: member('deliver'),
    refuseFn: member('refuse'),
    afterJobsFn: member('afterJobs'),
    fireFn: member('fire'),
    pendingWorkFn: member('pendingWork'),
    raw: rawCalls(ctx),
  }
}
