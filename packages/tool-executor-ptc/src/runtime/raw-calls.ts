/**
 * The calls into the sandbox that every sub-call makes — settling its promise with the
 * result's JSON text (`api.deliver(id, json)`), running the jobs that follow, asking whether the
 * program's promise is still pending, and taking the calls queued after the jobs of an entry
 * (`api.afterJobs()`) — made straight through quickjs-emscripten's C interface (`QTS_Call`,
 * `QTS_ExecutePendingJob`, `QTS_PromiseState` and friends) instead of its `callFunction` /
 * `newString` / `getString` / `executePendingJobs` / `getPromiseState` wrappers.
 *
 * Why: the wrappers allocate a `Lifetime` per value, typed arrays and a `malloc`ed argument array
 * per call, and `typeof` a C string; measured in a loop, a call of a guest function that returns
 * `undefined` took 1.5–3.3 µs through `callFunction` + `typeof` + `dispose` and 0.07–0.2 µs
 * through `QTS_Call` (same process, alternated); `executePendingJobs` allocates an out-pointer
 * array (a `malloc`, a typed array and a lifetime) and a result object per call, and
 * `getPromiseState` an object with a getter. Here the argument array and the out pointer are
 * allocated once per context and every value the C side returns is freed exactly once, right
 * after use.
 *
 * The C interface is reached through members quickjs-emscripten declares `protected`
 * (`QuickJSContext.ffi`, `.ctx`, `.memory`, `.module`, `QuickJSRuntime.rt`): {@link rawCalls} checks that each one is
 * there with the expected shape and returns `undefined` otherwise, and the caller then keeps the
 * public API, so a quickjs-emscripten release that renames them only loses the speed-up.
 * Exceptions are returned as ordinary {@link QuickJSHandle}s (the library's own handle type), so
 * error paths are those of the public API.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten'

/** What a sandbox call gave: its text, or the exception it threw (the caller disposes it). */
export type RawText = { readonly text: string } | { readonly error: QuickJSHandle }

/** The fast calls of one context (see the module comment). Call {@link RawCalls.dispose} before the context is freed. */
export interface RawCalls {
  /** `fn(id, text)`: the call's result is dropped; an exception is returned as a handle. */
  callIdText(fn: QuickJSHandle, id: number, text: string): QuickJSHandle | undefined
  /** `fn()` read as text (`String(result)`, `''` when QuickJS cannot allocate the copy). */
  callForText(fn: QuickJSHandle): RawText
  /**
   * `executePendingJobs(-1)` of the context's runtime: `undefined` when the jobs ran, or the
   * exception a job threw (as the public API: a result that is not a number is an exception).
   */
  runJobs(): QuickJSHandle | undefined
  /** Whether `promise` is a pending promise (`getPromiseState(promise).type === 'pending'`). */
  isPending(promise: QuickJSHandle): boolean
  /** Frees the argument array. */
  dispose(): void
}

/** The members of quickjs-emscripten's C interface used here (pointers are numbers in wasm32). */
interface Ffi {
  QTS_Call(ctx: number, fn: number, self: number, argc: number, argv: number): number
  QTS_ResolveException(ctx: number, value: number): number
  QTS_FreeValuePointer(ctx: number, value: number): void
  QTS_NewFloat64(ctx: number, value: number): number
  QTS_NewString(ctx: number, chars: number): number
  QTS_GetString(ctx: number, value: number): number
  QTS_FreeCString(ctx: number, chars: number): void
  QTS_ExecutePendingJob(rt: number, maxJobs: number, lastJobContext: number): number
  QTS_FreeValuePointerRuntime(rt: number, value: number): void
  QTS_Typeof(ctx: number, value: number): number
  QTS_PromiseState(ctx: number, promise: number): number
}

/** The members of the Emscripten module used here. */
interface EmscriptenModule {
  _malloc(bytes: number): number
  _free(pointer: number): void
  /** The current view of the WebAssembly memory (replaced when the memory grows). */
  HEAPU8: Uint8Array
  lengthBytesUTF8(text: string): number
  stringToUTF8(text: string, pointer: number, maxBytes: number): number
  UTF8ToString(pointer: number): string
}

/** The protected members of a `QuickJSContext` used here (`runtime` is public, its `rt` protected). */
interface ContextInternals {
  readonly ffi?: Partial<Ffi>
  readonly ctx?: { readonly value?: unknown }
  readonly module?: Partial<EmscriptenModule>
  readonly memory?: { heapValueHandle?: (pointer: number) => QuickJSHandle }
  readonly runtime?: { readonly rt?: { readonly value?: unknown } }
}

const FFI_FUNCTIONS = [
  'QTS_Call',
  'QTS_ResolveException',
  'QTS_FreeValuePointer',
  'QTS_NewFloat64',
  'QTS_NewString',
  'QTS_GetString',
  'QTS_FreeCString',
  'QTS_ExecutePendingJob',
  'QTS_FreeValuePointerRuntime',
  'QTS_Typeof',
  'QTS_PromiseState',
] as const
/** `JSPromiseStateEnum.Pending` of quickjs-emscripten. */
const PROMISE_PENDING = 0
/** `typeof` of a number as the text `QTS_Typeof` returns (UTF-8, NUL-terminated). */
const NUMBER_TYPE = [...'number'].map((c) => c.charCodeAt(0)).concat(0)
const MODULE_FUNCTIONS = ['_malloc', '_free', 'lengthBytesUTF8', 'stringToUTF8', 'UTF8ToString'] as const

/** The fast calls for `context`, or `undefined` when its internals are not the expected ones (then use the public API). */
export function rawCalls(context: QuickJSContext): RawCalls | undefined {
  const internals = context as unknown as ContextInternals
  const ffi = internals.ffi
  const module = internals.module
  const ctxPointer = internals.ctx?.value
  const rtPointer = internals.runtime?.rt?.value
  const memory = internals.memory
  if (ffi === undefined || module === undefined || memory === undefined || typeof ctxPointer !== 'number' || typeof rtPointer !== 'number') return undefined
  if (!FFI_FUNCTIONS.every((name) => typeof ffi[name] === 'function')) return undefined
  if (!MODULE_FUNCTIONS.every((name) => typeof module[name] === 'function') || !(module.HEAPU8 instanceof Uint8Array)) return undefined
  if (typeof memory.heapValueHandle !== 'function') return undefined
  const undefinedPointer = (context.undefined as { readonly value: unknown }).value
  if (typeof undefinedPointer !== 'number') return undefined
  return makeRawCalls(ffi as Ffi, module as EmscriptenModule, ctxPointer, rtPointer, undefinedPointer, (pointer) =>
    (memory.heapValueHandle as (p: number) => QuickJSHandle).call(memory, pointer),
  )
}

function makeRawCalls(ffi: Ffi, module: EmscriptenModule, ctx: number, rt: number, undefinedPointer: number, handle: (pointer: number) => QuickJSHandle): RawCalls {
  // Two JSValue pointers (wasm32: 4 bytes each) and the last job's context pointer, reused by every call.
  let argv = module._malloc(12)
  if (argv === 0) throw new Error('the sandbox could not allocate its call arguments')
  let words: Uint32Array | undefined
  /** A 32-bit view of the memory, made again after the memory grew (which replaces its buffer). */
  const memory32 = (): Uint32Array => {
    const buffer = module.HEAPU8.buffer
    if (words === undefined || words.buffer !== buffer) words = new Uint32Array(buffer)
    return words
  }
  /** `fn(...args)` with `argc` arguments already in `argv`: the result pointer, or the exception as a handle. */
  const call = (fn: QuickJSHandle, argc: number): { readonly result: number } | { readonly error: QuickJSHandle } => {
    const result = ffi.QTS_Call(ctx, fn.value as unknown as number, undefinedPointer, argc, argv)
    const error = ffi.QTS_ResolveException(ctx, result)
    if (error === 0) return { result }
    ffi.QTS_FreeValuePointer(ctx, result)
    return { error: handle(error) }
  }
  return {
    callIdText(fn, id, text) {
      const bytes = module.lengthBytesUTF8(text) + 1
      const chars = module._malloc(bytes)
      if (chars === 0) throw new Error('the sandbox could not allocate a reply text')
      module.stringToUTF8(text, chars, bytes)
      const textValue = ffi.QTS_NewString(ctx, chars)
      module._free(chars)
      const idValue = ffi.QTS_NewFloat64(ctx, id)
      const heap = memory32()
      heap[argv >>> 2] = idValue
      heap[(argv >>> 2) + 1] = textValue
      const called = call(fn, 2)
      ffi.QTS_FreeValuePointer(ctx, idValue)
      ffi.QTS_FreeValuePointer(ctx, textValue)
      if ('error' in called) return called.error
      ffi.QTS_FreeValuePointer(ctx, called.result)
      return undefined
    },
    callForText(fn) {
      const called = call(fn, 0)
      if ('error' in called) return called
      const chars = ffi.QTS_GetString(ctx, called.result)
      const text = module.UTF8ToString(chars)
      ffi.QTS_FreeCString(ctx, chars)
      ffi.QTS_FreeValuePointer(ctx, called.result)
      return { text }
    },
    runJobs() {
      const heap = memory32()
      const out = (argv >>> 2) + 2
      heap[out] = 0
      const result = ffi.QTS_ExecutePendingJob(rt, -1, argv + 8)
      const jobContext = memory32()[out]
      if (jobContext === 0) {
        // No job ran: the result belongs to the runtime (as in the public API).
        ffi.QTS_FreeValuePointerRuntime(rt, result)
        return undefined
      }
      if (jobContext !== ctx) {
        ffi.QTS_FreeValuePointerRuntime(rt, result)
        throw new Error('a job ran in a context the run does not own')
      }
      const type = ffi.QTS_Typeof(ctx, result)
      const bytes = module.HEAPU8
      let isNumber = type !== 0
      for (let i = 0; isNumber && i < NUMBER_TYPE.length; i++) isNumber = bytes[type + i] === NUMBER_TYPE[i]
      // A plain malloc'd copy (the public API frees it with `_free` too), not a QuickJS C string.
      if (type !== 0) module._free(type)
      if (!isNumber) return handle(result)
      ffi.QTS_FreeValuePointer(ctx, result)
      return undefined
    },
    isPending(promise) {
      return ffi.QTS_PromiseState(ctx, promise.value as unknown as number) === PROMISE_PENDING
    },
    dispose() {
      if (argv !== 0) module._free(argv)
      argv = 0
    },
  }
}
