// Shared by the release-path scripts (pack-check.mjs, pack-local.mjs, release-dry-run.mjs): the
// public packages of the workspace, child processes that fail loudly, timed steps, pnpm's tarball
// names and packing.
import { spawn, spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The cordis range every package that plugs into cordis declares as a peer dependency. */
export const CORDIS_PEER_RANGE = '>=4.0.0-rc.10 <5'

export const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'))

/** The root pnpm-workspace.yaml catalog (`name → version`), read without a YAML parser. */
export function catalog(dir = root) {
  const yaml = readFileSync(join(dir, 'pnpm-workspace.yaml'), 'utf8')
  const block = /^catalog:\n((?: {2}.*\n?|\s*\n)*)/m.exec(yaml)?.[1] ?? ''
  return Object.fromEntries([...block.matchAll(/^ {2}"?([@\w/.-]+)"?: "?([^\s#"]+)"?$/gm)].map((m) => [m[1], m[2]]))
}

/**
 * Every public package: a `packages/<dir>/package.json` without `"private": true`, sorted by
 * directory. `tarball` is the file name `pnpm pack` writes (`@scope/name` → `scope-name-1.2.3.tgz`).
 */
export function publicPackages(dir = root) {
  return readdirSync(join(dir, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, 'packages', e.name, 'package.json')))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => ({ dir: join(dir, 'packages', e.name), manifest: readJson(join(dir, 'packages', e.name, 'package.json')) }))
    .filter((p) => p.manifest.private !== true)
    .map((p) => ({ ...p, name: p.manifest.name, version: p.manifest.version, tarball: tarballName(p.manifest) }))
}

/** The file name `pnpm pack` gives a package's tarball. */
export function tarballName({ name, version }) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`
}

/** Prints the output and the reason, then exits 1. */
export function fail(label, message, output = '') {
  if (output) console.error(output.trimEnd())
  console.error(`${label} FAILED: ${message}`)
  process.exit(1)
}

/**
 * Runs a command to completion and returns `{ status, output }` (stdout + stderr). Fails the
 * script on a non-zero exit unless `expectFailure`.
 */
export function run(label, command, argv, cwd, { expectFailure = false } = {}) {
  const r = spawnSync(command, argv, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', NO_UPDATE_NOTIFIER: '1', npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  })
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`
  if (!expectFailure && r.status !== 0) fail(label, `${command} ${argv.join(' ')} (in ${cwd}) exited ${r.status}`, output)
  return { status: r.status, output }
}

/**
 * Runs independent commands (`[command, argv, cwd]`) with at most one per core at a time and
 * resolves to their `{ status, output }` in input order.
 */
export async function runAll(jobs) {
  const results = new Array(jobs.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const [command, argv, cwd] = jobs[i]
      results[i] = await new Promise((resolve, reject) => {
        const child = spawn(command, argv, { cwd, env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } })
        let output = ''
        child.stdout.on('data', (chunk) => (output += chunk))
        child.stderr.on('data', (chunk) => (output += chunk))
        child.on('error', reject)
        child.on('close', (status) => resolve({ status, output }))
      })
    }
  }
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), jobs.length) }, worker))
  return results
}

/** The pinned pnpm (scripts/pnpm.mjs) with `argv`, in `cwd`. */
export function pnpm(label, argv, cwd = root) {
  return run(label, process.execPath, [join(root, 'scripts', 'pnpm.mjs'), ...argv], cwd)
}

/** Runs `fn`, then prints `<label> <what>: <its note> (<seconds> s)`. */
export function step(label, what, fn) {
  const t = Date.now()
  const note = fn()
  console.log(`${label} ${what}${note ? `: ${note}` : ''} (${((Date.now() - t) / 1000).toFixed(1)} s)`)
}

/** Builds the given packages with turbo (cached: unchanged packages cost nothing). */
export function build(label, packages) {
  pnpm(label, ['exec', 'turbo', 'run', 'build', ...packages.flatMap((p) => ['--filter', p.name])])
}

/**
 * Packs the given packages with pnpm into `destination` (pnpm rewrites `workspace:` and
 * `catalog:` specifiers; npm pack would not: docs/releasing.md) and returns the tarballs' paths in
 * the packages' order. Fails the script when a tarball is missing.
 */
export function pack(label, packages, destination) {
  pnpm(label, ['-r', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', destination])
  return packages.map((p) => {
    const file = join(destination, p.tarball)
    if (!existsSync(file)) fail(label, `pnpm pack did not write ${p.tarball}`, readdirSync(destination).join('\n'))
    return file
  })
}
