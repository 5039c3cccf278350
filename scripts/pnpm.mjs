#!/usr/bin/env node
// Runs the pinned pnpm (via npx) with the given arguments, so root scripts work on a machine
// that has only Node 20 and npm. Exits with pnpm's exit code.
import { spawnSync } from 'node:child_process'

const result = spawnSync('npx', ['-y', 'pnpm@12.4.2', ...process.argv.slice(2)], {
  stdio: 'inherit',
  // No update banners from npm (npx) or pnpm: pnpm reads pnpm_config_*, npm reads npm_config_*.
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', pnpm_config_update_notifier: 'false', npm_config_update_notifier: 'false' },
})
process.exit(result.status ?? 1)
