/**
 * WebAssembly instances of QuickJS (the sync release variant) with a hard memory cap, recycled
 * while healthy.
 *
 * Memory (a pitfall measured with quickjs-emscripten 0.32): WebAssembly memory is never returned while an instance
 * lives, so every instance gets its own `WebAssembly.Memory` whose `maximum` is the hard cap
 * `16 MiB (the initial image) + 2 × memoryBytes`. QuickJS's allocator limit
 * (`setMemoryLimit(memoryBytes)`, set per run) fails many allocations first with
 * `InternalError: out of memory`, but this build cannot measure block sizes
 * (`malloc_usable_size unavailable`) and under-counts — measured: 22 MB in use under an 8 MiB
 * limit. The `maximum` is what really bounds the run: a grow past it fails, `malloc` returns
 * NULL and QuickJS throws the same error (or `null` when even that error cannot be allocated;
 * the pool counts refused grows so the run can tell). Host RSS growth of a run is therefore
 * bounded by the cap, whatever the program allocates.
 *
 * Recycling: a fresh instance costs 1–40 ms here (most of it garbage collection of the previous
 * memories), a fresh runtime + context with the prelude evaluated in a recycled instance ≈1.5 ms,
 * which is paid while the instance is idle ({@link ModulePool.prepareIdle}). An instance is reused —
 * always with a new QuickJS runtime and context, so no JavaScript state survives a run — only
 * when its run ended cleanly (no watchdog stop, no host-side exception, no out-of-memory, every
 * handle disposed), its memory stayed under {@link RECYCLE_MAX_BYTES} and it served fewer than
 * {@link RECYCLE_MAX_RUNS} runs. Everything else is dropped and left to the garbage collector.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type EmscriptenModuleLoaderOptions,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten'

/** WebAssembly page size (bytes). */
export const WASM_PAGE_BYTES = 65_536
/** Pages the QuickJS build needs at start (16 MiB: data, a 5 MiB C stack, the initial heap). */
export const BASE_PAGES = 256
/** The largest memory the build accepts (2 GiB). */
const MAX_PAGES = 32_768
/** A recycled instance's memory may not exceed this (48 MiB); a larger one is dropped. */
export const RECYCLE_MAX_BYTES = 48 * 1024 * 1024
/** An instance serves at most this many runs. */
export const RECYCLE_MAX_RUNS = 200
/** Idle instances kept per pool. */
const MAX_IDLE = 2

/**
 * A QuickJS runtime and context made ahead of a run while the instance was idle, with the prelude
 * evaluated to its installer function (`preludeFn`) — not yet called, so no run-specific state
 * (tools, limits) and no program code has touched it. The run that takes it owns every handle.
 */
export interface PreparedContext {
  readonly rt: QuickJSRuntime
  readonly ctx: QuickJSContext
  readonly preludeFn: QuickJSHandle
}

/** A QuickJS WebAssembly instance and its capped memory. */
export interface SandboxModule {
  readonly module: QuickJSWASMModule
  readonly memory: { readonly buffer: ArrayBuffer }
  /** The `maximum` of `memory` in bytes. */
  readonly capBytes: number
  /** Runs served so far. */
  runs: number
  /** Failed attempts to grow `memory` past its cap so far (the allocator then returns NULL). */
  readonly growFailures: () => number
  /** A context prepared for the next run ({@link ModulePool.prepareIdle}); taken with {@link takeContext}. */
  prepared?: PreparedContext | undefined
}

/**
 * Makes a fresh QuickJS runtime and context in `module` and evaluates `prelude` in it (the
 * costly part of starting a run: ≈1–1.5 ms). Frees what it made and rethrows when the prelude
 * fails to evaluate.
 */
export function prepareContext(module: QuickJSWASMModule, prelude: string): PreparedContext {
  const rt = module.newRuntime()
  let ctx: QuickJSContext | undefined
  try {
    ctx = rt.newContext()
    const evaluated = ctx.evalCode(prelude, 'prelude.js')
    if (evaluated.error !== undefined) {
      const text: unknown = ctx.dump(evaluated.error)
      evaluated.error.dispose()
      throw new Error(`prelude failed: ${JSON.stringify(text)}`)
    }
    return { rt, ctx, preludeFn: evaluated.value }
  } catch (error) {
    ctx?.dispose()
    rt.dispose()
    throw error
  }
}

/** The context prepared in `entry` (then no longer held by it), or a new one. */
export function takeContext(entry: SandboxModule, prelude: string): PreparedContext {
  const prepared = entry.prepared
  entry.prepared = undefined
  return prepared ?? prepareContext(entry.module, prelude)
}

/** Counters of a pool (for tests and diagnostics). */
export interface ModulePoolStats {
  /** Instances created since the pool was made. */
  readonly created: number
  /** Instances dropped (unhealthy, too large, too old, or over the idle bound). */
  readonly dropped: number
  /** Instances waiting for reuse. */
  readonly idle: number
  /** Instances lent to a running program. */
  readonly inUse: number
}

/** The hard cap in bytes of the memory of a run with `memoryBytes` (see the module comment). */
export function memoryCapBytes(memoryBytes: number): number {
  const pages = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil((2 * memoryBytes) / WASM_PAGE_BYTES))
  return pages * WASM_PAGE_BYTES
}

let compiled: Promise<object | undefined> | undefined

/**
 * Compiles the QuickJS WebAssembly binary once per thread; `undefined` when it cannot be located
 * (then each instance compiles its own). The result is a `WebAssembly.Module`, which can be
 * posted to a worker thread (see {@link ModulePoolOptions.wasmModule}).
 */
export function compiledModule(): Promise<object | undefined> {
  compiled ??= (async () => {
    try {
      const requireFromHere = createRequire(import.meta.url)
      const requireFromQuickJS = createRequire(requireFromHere.resolve('quickjs-emscripten'))
      const path = requireFromQuickJS.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')
      return await wasm.compile(readFileSync(path))
    } catch {
      return undefined
    }
  })()
  return compiled
}

const silent = (): void => {}

/** The slice of the WebAssembly API used here (the project's `lib` settings do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(deltaPages: number): number
}
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory
  compile(bytes: Uint8Array): Promise<object>
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

/** Options of a {@link ModulePool}. */
export interface ModulePoolOptions {
  /**
   * Reuse healthy instances (default `true`). `false` gives every run a new WebAssembly instance
   * and memory — no byte of an earlier run's heap is even present — at 1–40 ms per run.
   */
  readonly recycle?: boolean
  /** A compiled QuickJS `WebAssembly.Module` to instantiate (default: {@link compiledModule}). */
  readonly wasmModule?: object
}

/** A pool of QuickJS instances. One instance serves one run at a time. */
export class ModulePool {
  private readonly recycle: boolean
  private readonly wasmModule: object | undefined
  private readonly idle: SandboxModule[] = []
  private created = 0
  private dropped = 0
  private inUse = 0

  constructor(options: ModulePoolOptions = {}) {
    this.recycle = options.recycle ?? true
    this.wasmModule = options.wasmModule
  }

  /**
   * Lends an instance whose memory cap is {@link memoryCapBytes}(`memoryBytes`) bytes: an idle
   * one with the same cap, else a new QuickJS WebAssembly module on a fresh `WebAssembly.Memory`
   * (compiling the module once per process). Give it back with `release`. Rejects only when
   * WebAssembly itself fails (the `WebAssembly.Memory` cannot be reserved, or instantiation fails:
   * the engine's `RangeError`/`WebAssembly.CompileError` as is).
   */
  async acquire(memoryBytes: number): Promise<SandboxModule> {
    const capBytes = memoryCapBytes(memoryBytes)
    const index = this.idle.findIndex((m) => m.capBytes === capBytes)
    if (index >= 0) {
      const [reused] = this.idle.splice(index, 1)
      if (reused !== undefined) {
        this.inUse++
        return reused
      }
    }
    const memory = new wasm.Memory({ initial: BASE_PAGES, maximum: capBytes / WASM_PAGE_BYTES })
    // Emscripten grows the heap through this object's grow(); count the refusals at the cap.
    let growFailures = 0
    const grow = memory.grow.bind(memory)
    Object.defineProperty(memory, 'grow', {
      value: (deltaPages: number): number => {
        try {
          return grow(deltaPages)
        } catch (error) {
          growFailures++
          throw error
        }
      },
    })
    const wasmModule = this.wasmModule ?? (await compiledModule())
    const variant = newVariant(RELEASE_SYNC, {
      wasmMemory: memory as never,
      ...(wasmModule === undefined ? {} : { wasmModule: wasmModule as never }),
      // Emscripten honours print/printErr (an aborted instance would otherwise write to stderr).
      emscriptenModule: { print: silent, printErr: silent } as unknown as EmscriptenModuleLoaderOptions,
      log: silent,
    })
    const module = await newQuickJSWASMModuleFromVariant(variant)
    this.created++
    this.inUse++
    return { module, memory, capBytes, runs: 0, growFailures: () => growFailures }
  }

  /**
   * Returns an instance after a run. `healthy` says the run ended cleanly and every handle was
   * disposed; an unhealthy, grown or old instance is dropped.
   */
  release(entry: SandboxModule, healthy: boolean): void {
    this.inUse--
    entry.runs++
    const reusable =
      this.recycle &&
      healthy && entry.memory.buffer.byteLength <= RECYCLE_MAX_BYTES && entry.runs < RECYCLE_MAX_RUNS && this.idle.length < MAX_IDLE
    if (reusable) this.idle.push(entry)
    else this.dropped++
  }

  /**
   * Prepares a context ({@link prepareContext}) in every idle instance that has none, so the next
   * run skips that work. An instance whose preparation fails is dropped.
   */
  prepareIdle(prelude: string): void {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const entry = this.idle[i] as SandboxModule
      if (entry.prepared !== undefined) continue
      try {
        entry.prepared = prepareContext(entry.module, prelude)
      } catch {
        this.idle.splice(i, 1)
        this.dropped++
      }
    }
  }

  /** Drops every idle instance. */
  clear(): void {
    this.dropped += this.idle.length
    this.idle.length = 0
  }

  /** Current counters. */
  stats(): ModulePoolStats {
    return { created: this.created, dropped: this.dropped, idle: this.idle.length, inUse: this.inUse }
  }
}
