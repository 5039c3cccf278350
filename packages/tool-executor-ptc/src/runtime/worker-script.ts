/**
 * How a runtime starts its `worker_threads` Worker from either TypeScript sources or built
 * JavaScript. Shared by the QuickJS worker placement (`worker-host.ts`) and other code runtimes
 * built on this package (the Python runtime), so both start their workers the same way.
 */
import { builtinModules, createRequire } from 'node:module'
import { build, type Plugin } from 'esbuild'

/**
 * How to start a worker: `eval: true` with the script text (a CommonJS bundle, passed to
 * `new Worker(code, { eval: true })`), or `eval: false` with the URL of a built JavaScript file.
 */
export type WorkerScript = { readonly eval: true; readonly code: string } | { readonly eval: false; readonly url: URL }

/**
 * Memoizes `load`: the first call starts it, later calls share its promise. A rejected load is
 * forgotten, so the next call tries again (a failed bundle is not cached for the process).
 *
 * @param load Resolves the worker script, usually with {@link bundleWorkerEntry} from sources.
 * @returns A function that resolves the one script of this process; it rejects with whatever
 *   `load` rejected with.
 */
export function lazyWorkerScript(load: () => Promise<WorkerScript>): () => Promise<WorkerScript> {
  let script: Promise<WorkerScript> | undefined
  return () => {
    script ??= load().catch((error: unknown) => {
      script = undefined
      throw error
    })
    return script
  }
}

/**
 * Bundles a TypeScript worker entry and its relative imports with esbuild into one CommonJS text
 * (`platform: 'node'`, `target: 'node20'`), for a worker evaluated without the parent's loader
 * flags (tests, `tsx`). Package imports are not inlined: they are rewritten to absolute paths
 * resolved from the importing file, and `node:` / built-in modules stay external.
 *
 * @param entry The absolute file path of the entry (`worker.ts`).
 * @returns `{ eval: true, code }` with the bundle text.
 * @throws The esbuild error when bundling fails; an `Error` `bundling <entry> produced no output`
 *   when esbuild returns no file.
 */
export async function bundleWorkerEntry(entry: string): Promise<WorkerScript> {
  const absolutePackages: Plugin = {
    name: 'absolute-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || builtinModules.includes(args.path)) return { path: args.path, external: true }
        return { path: createRequire(args.importer).resolve(args.path), external: true }
      })
    },
  }
  const built = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [absolutePackages],
  })
  const file = built.outputFiles[0]
  if (file === undefined) throw new Error(`bundling ${entry} produced no output`)
  return { eval: true, code: file.text }
}
