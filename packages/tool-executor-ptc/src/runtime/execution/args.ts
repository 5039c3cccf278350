/** What a run (`run.ts`) is given. */
import type { RunLimits } from '../../limits'
import type { RunDeterminism } from '../determinism'
import type { EntryMonitor } from '../entry-monitor'
import type { HostLink } from '../host-call'
import type { ModulePool, SandboxModule } from '../module-pool'
import type { RunInput, RunOutput } from '../types'

/** What an {@link Execution} needs. */
export interface ExecutionArgs {
  readonly entry: SandboxModule
  readonly pool: ModulePool
  readonly code: string
  /** `signal` and `onSettle` are used; `bindings` are reached through {@link ExecutionArgs.host}. */
  readonly input: Pick<RunInput, 'signal' | 'onSettle'>
  /** Where sub-calls go (in-process bindings, or the main thread when the engine runs in a worker). */
  readonly host: HostLink
  /** The prelude source (`preludeCode()`). */
  readonly prelude: string
  readonly limits: Readonly<Required<RunLimits>>
  /** The random seed and the clock journals to replay (empty journals: a first run). */
  readonly determinism: RunDeterminism
  readonly started: number
  /** Guard program entries with the `vm` watchdog (in-process engine only). */
  readonly watchdog: boolean
  readonly graceMs: number
  /** The heartbeat shared with the main thread (engine in a worker): entries, compute time, abort flag. */
  readonly monitor?: EntryMonitor
  /** Called after every entry (the worker forwards printed lines from it). */
  readonly afterEntry?: () => void
  /**
   * How settled sub-calls are applied (default `immediate`): in one batch per event-loop turn
   * (`setImmediate`), which keeps the thread responsive when tools resolve synchronously (bug case B20:
   * elsewhere a loop in promise callbacks escaped the time limit),
   * or in one batch per microtask checkpoint (`microtask`), for an engine in a worker, where every
   * reply arrives in a message and so already in a turn of its own.
   */
  readonly wake?: 'immediate' | 'microtask'
  /**
   * When the instance, once released, prepares the next run's context (default `idle`): on a
   * later event-loop turn (`setImmediate`), or at once after the result is delivered (`now`, for
   * an engine in a worker, whose thread has nothing else to do).
   */
  readonly prepareNext?: 'idle' | 'now'
  readonly resolve: (output: RunOutput) => void
}
