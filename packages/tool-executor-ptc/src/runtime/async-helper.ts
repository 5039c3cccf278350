/**
 * esbuild's `__async` helper (the runtime of `async` functions lowered to generators, see
 * `strip.ts`) as the sandbox's prelude defines it instead of the program (`prelude.ts`): the same
 * steps, but an `await` on a promise whose `then` is the prelude's own marks it handled and
 * attaches the helper's callbacks with the intrinsic `then` — no tracking wrapper, closures and
 * argument arrays per `await` (the helper's callbacks never throw: they reject the async
 * function's own promise, so the promise `then` derives, which nothing holds, cannot reject).
 *
 * {@link dropAsyncHelper} removes esbuild's definition from a stripped program, so the program's
 * `__async` calls reach the prelude's. It removes it only when the program begins with exactly
 * the text this module knows ({@link ESBUILD_ASYNC_HELPER}, esbuild 0.27); the run then tells the
 * prelude to define the global `__async` (writable, enumerable, not configurable: the property a
 * script-level `var` makes), and only then. Otherwise — esbuild renamed its helper because the
 * program names `__async` itself, another helper comes first, or esbuild's text changed — the
 * program keeps its own helper and no global is added: the same behaviour, only slower.
 */
/** esbuild's `__async` helper as it begins a stripped program (its text in esbuild 0.27). */
export const ESBUILD_ASYNC_HELPER = `var __async = (__this, __arguments, generator) => {
  return new Promise((resolve, reject) => {
    var fulfilled = (value) => {
      try {
        step(generator.next(value));
      } catch (e) {
        reject(e);
      }
    };
    var rejected = (value) => {
      try {
        step(generator.throw(value));
      } catch (e) {
        reject(e);
      }
    };
    var step = (x) => x.done ? resolve(x.value) : Promise.resolve(x.value).then(fulfilled, rejected);
    step((generator = generator.apply(__this, __arguments)).next());
  });
};
`

/** The one step of esbuild's helper the prelude's copy changes: how an awaited value's callbacks are attached. */
const AWAIT_STEP = 'Promise.resolve(x.value).then(fulfilled, rejected)'

/**
 * The prelude's `__async` (`prelude.ts` interpolates it): {@link ESBUILD_ASYNC_HELPER} itself,
 * bound to the prelude's local `asyncHelper`, with its await step going through the prelude's
 * `awaitThen` (see the module comment) — derived from esbuild's text, so the two cannot drift.
 */
export const PRELUDE_ASYNC_HELPER = replaceOnce(replaceOnce(ESBUILD_ASYNC_HELPER, 'var __async = ', 'var asyncHelper = '), AWAIT_STEP, 'awaitThen(Promise.resolve(x.value), fulfilled, rejected)')

/** `text` with `from` replaced by `to`; throws (at module load) when `from` is not in it, rather than leaving the prelude silently unchanged. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from)
  if (at === -1) throw new Error(`async-helper: esbuild's helper text no longer contains ${JSON.stringify(from)}`)
  return text.slice(0, at) + to + text.slice(at + from.length)
}

/**
 * `code` (a program stripped by `stripProgram` / `stripProgramCached`) without esbuild's
 * `__async` definition when the code begins with it, exactly {@link ESBUILD_ASYNC_HELPER};
 * `code` itself otherwise. (When the helper is not first — another helper such as
 * `__knownSymbol` precedes it — it is kept, so the program's globals are created in the same
 * order as before.)
 */
export function dropAsyncHelper(code: string): string {
  return code.startsWith(ESBUILD_ASYNC_HELPER) ? code.slice(ESBUILD_ASYNC_HELPER.length) : code
}
