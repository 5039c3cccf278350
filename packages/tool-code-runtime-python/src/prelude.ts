/**
 * The Python side of the runtime: evaluated once per interpreter (in a private namespace) by
 * the worker (`worker.ts`). `install(host_call, host_print, host_pending, config_json)` returns the object
 * the worker drives (`host_parked()` is the number of the run's host calls parked — their
 * approval deferred, never answered in this run): `start(run_json)` begins one run and returns a future of the outcome JSON,
 * `abort()` stops it, `baseline()` records the state every run is reset to; after each run the
 * young generation of the garbage collector is collected, and `collect_all()` collects every one.
 *
 * Settlement (the TypeScript runtime's contract in Python's terms): a task or future the program
 * made whose exception nobody retrieved by the time the program ends fails the run
 * (`Task exception was never retrieved: …`); a program still waiting when no loop callback is
 * scheduled and no host call is pending is cancelled at once and the run ends as `timeout` with
 * the stalled message. Both, and the loop's scheduling, live in `loop.ts` (evaluated first).
 *
 * Contract with `worker.ts`:
 * - `host_call(name, json)` sends a host call and returns its id (0: no run is active); the
 *   worker answers it with `deliver(id, text)`, `text` being `T<json result>` or
 *   `E<json {kind, toolName?, message}>` (`kind`: `tool` → ToolCallError, `limit` →
 *   RuntimeError, `invalid` → TypeError, `abort` → the run stops), and then calls `flush()`,
 *   which runs what the replies made ready within the same JavaScript callback.
 * - `host_pending()` is the number of host calls of the current run not yet answered.
 * - `host_print(text)` forwards printed lines (joined with `\n`) as they are produced at each
 *   sub-call, so the host keeps them if it must terminate the worker.
 * - `start(run_json)` takes `{code, tools: [{name, py, renamed}], valueBytes, outputBytes,
 *   maxSubCalls, messageChars}` and resolves to `{value?: json text, error?: {kind, message},
 *   logs: [...], tainted: bool}`; `tainted` says state outside the run's namespace could not be
 *   reset (the worker is then replaced).
 *
 * The Python text is in `prelude/`, one part of `install()` a file, concatenated here in order
 * after the loop layer: module level and guards (`guards.ts`), the baseline (`baseline.ts`), the
 * loop's hookup (below), JSON (`json.ts`), a run's objects (`run.ts`), the program and `install()`'s
 * result (`program.ts`).
 */
import { PY_LOOP } from './loop'
import { PY_PRELUDE_BASELINE } from './prelude/baseline'
import { PY_PRELUDE_DETERMINISM } from './prelude/determinism'
import { PY_PRELUDE_GUARDS } from './prelude/guards'
import { PY_PRELUDE_JSON } from './prelude/json'
import { PY_PRELUDE_PROGRAM } from './prelude/program'
import { PY_PRELUDE_RUN } from './prelude/run'

/** `install()`: the loop layer (`loop.ts`) hooked to this interpreter's loop and run state. */
const PY_PRELUDE_LOOP_HOOKS = String.raw`
    # ---- the loop: scheduling, settlement (loop.ts) ----------------------------------------
    hooks = _loop_hooks(loop, state, host_pending, host_parked, stalled_message, lambda exc, code: describe(exc, code))
`

/**
 * The Python prelude the worker evaluates once per interpreter. Its text also keys the memory
 * snapshot (`snapshot.ts`): any change to it makes a new snapshot.
 */
export const PY_PRELUDE = PY_LOOP + PY_PRELUDE_GUARDS + PY_PRELUDE_BASELINE + PY_PRELUDE_LOOP_HOOKS + PY_PRELUDE_JSON + PY_PRELUDE_DETERMINISM + PY_PRELUDE_RUN + PY_PRELUDE_PROGRAM
