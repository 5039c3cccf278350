/**
 * A hard stop for synchronous sandbox work that never reaches the QuickJS interrupt handler.
 *
 * QuickJS polls its interrupt handler only from bytecode (calls and backward jumps). Several
 * built-ins loop in C without polling: `Array(2 ** 32 - 1).join('')`,
 * `[].indexOf.call({ length: 2 ** 32 - 1 }, 1)`, `includes`, `fill`, `lastIndexOf`, big BigInt
 * arithmetic (quickjs-emscripten issue #219, quickjs-ng issue #1672). Measured here, each ran
 * for minutes and blocked the host event loop. Every entry into the sandbox therefore runs
 * inside `vm.Script#runInContext` with a `timeout`: Node's watchdog thread terminates the
 * running JavaScript — WebAssembly included — when the budget runs out, and `runInContext`
 * throws `ERR_SCRIPT_EXECUTION_TIMEOUT`. The interrupted WebAssembly instance is then in an
 * unknown state and must be discarded (the caller does).
 *
 * Cost: Node starts and joins one watchdog thread per guarded entry (≈0.1 ms measured).
 */
import vm from 'node:vm'

/** Thrown by {@link runGuarded} when the watchdog stopped the entry. */
export class WatchdogTimeout extends Error {
  override readonly name = 'WatchdogTimeout'
  constructor(readonly timeoutMs: number) {
    super(`sandbox entry stopped by the watchdog after ${timeoutMs} ms`)
  }
}

let guardScript: vm.Script | undefined
let guardContext: vm.Context | undefined
let current: (() => unknown) | undefined

function setup(): { script: vm.Script; context: vm.Context } {
  if (guardScript === undefined || guardContext === undefined) {
    guardContext = vm.createContext({ enter: () => (current as () => unknown)() })
    guardScript = new vm.Script('enter()', { filename: 'dsh-ptc-watchdog.js' })
  }
  return { script: guardScript, context: guardContext }
}

/** Largest timeout `runInContext` accepts. */
const MAX_TIMEOUT = 2 ** 31 - 1

/**
 * Runs `fn` synchronously under a watchdog of `timeoutMs` (rounded up, at least 1 ms).
 *
 * @returns what `fn` returns.
 * @throws {@link WatchdogTimeout} when the watchdog terminated `fn`; whatever `fn` throws otherwise.
 */
export function runGuarded<T>(fn: () => T, timeoutMs: number): T {
  const { script, context } = setup()
  const timeout = Math.min(MAX_TIMEOUT, Math.max(1, Math.ceil(timeoutMs)))
  const previous = current
  current = fn
  try {
    return script.runInContext(context, { timeout }) as T
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new WatchdogTimeout(timeout)
    throw error
  } finally {
    current = previous
  }
}
