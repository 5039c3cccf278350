/**
 * The engine side of the worker placement (`worker-host.ts` is the main-thread side): QuickJS runs
 * in this worker thread, one run at a time, with the same {@link Execution} as in-process. Sub-calls
 * travel to the main thread as one string per sandbox entry (the calls of that entry, each with
 * the JSON text the guest produced; framing in `wire.ts`) and their replies come back as strings
 * on a port of their own (`workerData.replies`); a reply message that does not parse fails the
 * run as an internal error. While the program waits on nothing but replies, the engine does not
 * return to this thread's event loop: it waits on the monitor's wake counter (which the main
 * thread raises after posting replies or an abort) and takes the replies with
 * `receiveMessageOnPort` — no event-loop turn per reply; before waiting it looks at the port only
 * when the counter moved since its last look. The wait first spins on the counter for up to
 * `replySpinMs` (when its pool's spin gate has room and its recent waits were not much longer, see
 * `reply-spin.ts`), so a quick reply costs no thread wake-up, then blocks in `Atomics.wait` for
 * the rest of its timeout. Printed
 * lines are forwarded after every entry that printed, so the main thread still has them if it has
 * to terminate this worker; sandbox entries, compute time and the abort flag go through the
 * shared {@link EntryMonitor}.
 *
 * This module starts the loop by itself when it is loaded in a worker whose `workerData` carries
 * {@link WORKER_MARKER}; anywhere else importing it does nothing.
 */
import { isMainThread, parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads'
import type { RunLimits } from '../limits'
import { EntryMonitor } from './entry-monitor'
import { Execution, messageOf } from './execution'
import type { HostLink, HostReply } from './host-call'
import { ModulePool } from './module-pool'
import { SpinGate, waitForReply, type ReplySpin } from './reply-spin'
import { newSeed } from './determinism'
import type { RunDeterminism, RunOutput } from './types'
import { callFrame, parseRepliesMessage } from './wire'

/** `workerData.marker` of an engine worker. */
export const WORKER_MARKER = 'dsh-ptc-quickjs-worker'

/** What the main thread passes to an engine worker. */
export interface EngineWorkerData {
  readonly marker: typeof WORKER_MARKER
  /** The prelude source. */
  readonly prelude: string
  /** The heartbeat buffer ({@link EntryMonitor}). */
  readonly monitor: SharedArrayBuffer
  /** A compiled QuickJS `WebAssembly.Module`, when the main thread has one. */
  readonly wasmModule?: object
  /** Recycle healthy instances (see `ModulePoolOptions.recycle`). */
  readonly recycle: boolean
  /**
   * The port replies arrive on (transferred, the main thread keeps its sibling): strings, `runId:`
   * followed by one frame per reply (`replyFrame` in `wire.ts`).
   */
  readonly replies: MessagePort
  /** How long the engine spins on the wake counter before it blocks (ms, `QuickJsRuntimeOptions.replySpinMs`). */
  readonly replySpinMs: number
  /** The buffer of the pool's {@link SpinGate}, shared by all its workers. */
  readonly spinGate: SharedArrayBuffer
}

/** Messages from the main thread. */
export type ToEngine =
  | {
      readonly type: 'run'
      readonly runId: number
      readonly code: string
      readonly names: readonly string[]
      readonly limits: Readonly<Required<RunLimits>>
      readonly graceMs: number
      /** The seed and clock journals of the run (`determinism.ts`); default: a fresh seed, no journal. */
      readonly determinism?: RunDeterminism
    }
  | { readonly type: 'abort'; readonly runId: number }

/**
 * Messages to the main thread: a string is the sub-calls of one sandbox entry, `runId:` followed
 * by one frame per call (`callFrame` in `wire.ts`: call id, the tool's position in the run's
 * `names`, the argument's JSON text).
 */
export type FromEngine =
  | string
  | { readonly type: 'logs'; readonly runId: number; readonly lines: readonly string[] }
  | { readonly type: 'done'; readonly runId: number; readonly output: RunOutput }

interface CurrentRun {
  readonly runId: number
  readonly abort: AbortController
  readonly replies: Map<number, (reply: HostReply) => void>
  /** Ends the run as an internal error (a replies message that does not parse). */
  fail: (message: string) => void
}

/** Calls the `settle` of every reply in the replies message `text` that belongs to `run`; fails `run` when the text is malformed. */
function deliver(run: CurrentRun | undefined, text: string): void {
  if (run === undefined) return
  const { runId, replies, malformed } = parseRepliesMessage(text)
  if (runId !== undefined && runId !== run.runId) return
  if (malformed !== undefined) {
    run.fail(`malformed reply message (${malformed})`)
    return
  }
  for (const { callId, reply } of replies) {
    const settle = run.replies.get(callId)
    run.replies.delete(callId)
    settle?.(reply)
  }
}

/** Runs the engine loop on `port` (the worker's `parentPort`). */
export function serveEngine(port: MessagePort, data: EngineWorkerData): void {
  const monitor = new EntryMonitor(data.monitor)
  const pool = new ModulePool({ recycle: data.recycle, ...(data.wasmModule === undefined ? {} : { wasmModule: data.wasmModule }) })
  const publish = (): void => monitor.setPoolStats(pool.stats())
  const send = (message: FromEngine): void => port.postMessage(message)
  const replies = data.replies
  const spin: ReplySpin = { ms: data.replySpinMs, gate: new SpinGate(undefined, data.spinGate), recentWaitMs: 0 }
  let current: CurrentRun | undefined
  // Replies that arrive while the engine is not waiting for them (it normally is) come through the event loop.
  replies.on('message', (message: string) => deliver(current, message))

  const run = async (message: Extract<ToEngine, { type: 'run' }>): Promise<void> => {
    const { runId, limits } = message
    const run: CurrentRun = { runId, abort: new AbortController(), replies: new Map(), fail: () => undefined }
    current = run
    const started = performance.now()
    let entry
    try {
      entry = await pool.acquire(limits.memoryBytes)
    } catch (error) {
      current = undefined
      send({ type: 'done', runId, output: { logs: [], error: { kind: 'exception', message: `the sandbox failed to start: ${messageOf(error)}` } } })
      return
    }
    publish()
    let nextCallId = 0
    // Calls issued in one entry are forwarded in one message, in order, so the main thread
    // submits them together, as the in-process engine does.
    const head = `${runId}:`
    let batch = head
    /** The wake counter when the port was last looked at. */
    let looked: bigint | undefined
    /** Delivers the replies already on the port; whether there were any. */
    const drain = (): boolean => {
      let any = false
      for (let received = receiveMessageOnPort(replies); received !== undefined; received = receiveMessageOnPort(replies)) {
        deliver(current, received.message as string)
        any = true
      }
      return any
    }
    const host: HostLink = {
      names: message.names,
      call: (index, json, settle) => {
        const callId = ++nextCallId
        run.replies.set(callId, settle)
        batch += callFrame(callId, index, json)
      },
      flush: () => {
        if (batch === head) return
        const calls = batch
        batch = head
        send(calls)
      },
      wait: (timeoutMs) => {
        // The main thread raises the counter after posting: while it has not moved since the last
        // look, no reply can be there that the look did not take, so the port is not asked again.
        // The counter is read before looking, so a reply posted after the look still wakes the wait.
        const seen = monitor.wakeCount()
        if (seen !== looked) {
          looked = seen
          if (drain()) return
        }
        waitForReply(monitor, seen, timeoutMs, spin)
        looked = monitor.wakeCount()
        drain()
      },
    }
    let sent = 0
    const execution: Execution = new Execution({
      entry,
      pool,
      code: message.code,
      input: { signal: run.abort.signal },
      host,
      prelude: data.prelude,
      limits,
      determinism: message.determinism ?? { seed: newSeed(), clock: [], perf: [] },
      started,
      watchdog: false,
      graceMs: message.graceMs,
      monitor,
      wake: 'microtask',
      prepareNext: 'now',
      afterEntry: () => {
        const printed = execution.printed()
        if (printed.length > sent) {
          send({ type: 'logs', runId, lines: printed.slice(sent) })
          sent = printed.length
        }
      },
      resolve: (output) => {
        if (current === run) current = undefined
        publish()
        send({ type: 'done', runId, output: { ...output, logs: output.logs.slice(sent) } })
      },
    })
    run.fail = (text) => execution.failInternal(text)
    execution.start()
  }

  port.on('message', (message: ToEngine) => {
    switch (message.type) {
      case 'run':
        void run(message)
        return
      case 'abort':
        if (current?.runId === message.runId) current.abort.abort()
        return
    }
  })
}

/** Whether `data` is the `workerData` of an engine worker. */
function isEngineData(data: unknown): data is EngineWorkerData {
  return data !== null && typeof data === 'object' && (data as { marker?: unknown }).marker === WORKER_MARKER
}

if (!isMainThread && parentPort !== null && isEngineData(workerData)) serveEngine(parentPort, workerData)
