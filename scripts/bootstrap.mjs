#!/usr/bin/env node
// Installs the workspace on a fresh machine that has only Node 20 and npm.
// pnpm is fetched at the pinned version with npx; nothing is installed globally.
// Skipped when node_modules is already in sync with pnpm-lock.yaml.
import { execFileSync } from 'node:child_process'
import { existsSync, statSync, utimesSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const PNPM = 'pnpm@12.4.2'
const marker = join(root, 'node_modules', '.modules.yaml')
const lock = join(root, 'pnpm-lock.yaml')
// No update banners from npm (npx) or pnpm on a first run: pnpm reads pnpm_config_*, npm npm_config_*.
const QUIET = { TURBO_TELEMETRY_DISABLED: '1', pnpm_config_update_notifier: 'false', npm_config_update_notifier: 'false' }

const upToDate = existsSync(marker) && existsSync(lock) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs
if (!upToDate) {
  const args = ['-y', PNPM, 'install', ...(existsSync(lock) ? ['--frozen-lockfile'] : [])]
  console.error(`[bootstrap] npx ${args.join(' ')}`)
  execFileSync('npx', args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...QUIET } })
  // pnpm leaves the marker alone when nothing changed (and may write the lockfile after it), so
  // mark the install as current; otherwise every later command would reinstall.
  const now = new Date()
  if (existsSync(marker)) utimesSync(marker, now, now)
}
