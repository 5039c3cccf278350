/**
 * One program run inside a QuickJS runtime and context of its own (see `quickjs.ts` for the
 * design). Owns the context for its whole life: builds it, enters the sandbox for the program and
 * for every batch of settled sub-calls, enforces the limits, settles exactly once, and frees
 * every handle.
 *
 * The implementation is in `execution/`, one concept a file, and this file is its entry: what a
 * run is given (`execution/args.ts`), the `Execution` class (`execution/run.ts`), the sandbox it
 * builds from the instance's prepared context (`execution/context.ts`), its compute and wall time
 * budgets (`execution/budget.ts`), its calls into the sandbox through the public API
 * (`execution/guest-calls.ts`), and the failure texts and values, shared with the worker host
 * (`execution/failures.ts`).
 */
export type { ExecutionArgs } from './execution/args'
export { Execution } from './execution/run'
export { MAX_MESSAGE_CHARS, STALLED_MESSAGE, abortError, memoryError, messageOf } from './execution/failures'
