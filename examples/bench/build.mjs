#!/usr/bin/env node
// Bundles the benchmark runner (and the workspace packages it measures, from their TypeScript
// sources) into dist/ with esbuild, the way tsup builds the published packages: no keepNames
// helpers, ES2022, Node 20. Third-party packages (the peers, ajv, cordis, quickjs, …) stay
// external and are imported from their installed location, exactly as users would load them.
// Usage: node build.mjs [entry ...]   (default: src/main.ts and src/ptc-first-main.ts, the child
// process of the PTC first-run measurement)
import { build } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
// The workspace's source export condition (the one TypeScript and vitest resolve with).
const conditions = JSON.parse(await readFile(join(here, '../../tsconfig.base.json'), 'utf8')).compilerOptions.customConditions
const entries = process.argv.slice(2)

/** Keeps every import that resolves into a node_modules folder external, by absolute URL. */
const externalDependencies = {
  name: 'external-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'inner' || args.path.startsWith('node:')) return undefined
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' })
      if (resolved.errors.length > 0 || resolved.external) return undefined
      if (!resolved.path.split(/[\\/]/).includes('node_modules')) return undefined
      return { path: pathToFileURL(resolved.path).href, external: true }
    })
  },
}

/**
 * Workspace sources that locate files from their own module (`new URL('../fixtures/', import.meta.url)`)
 * keep doing so from their original path, not from the bundle's.
 */
const originalImportMetaUrl = {
  name: 'original-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return undefined
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' }
    })
  },
}

await build({
  entryPoints: (entries.length > 0 ? entries : ['src/main.ts', 'src/ptc-first-main.ts']).map((e) => join(here, e)),
  outdir: join(here, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [externalDependencies, originalImportMetaUrl],
})
