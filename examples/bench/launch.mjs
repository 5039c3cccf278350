#!/usr/bin/env node
// Starts dist/main.mjs with `--expose-gc` under the Node that runs the package manager.
// The `node` dev dependency (the Node 22 binary the code-mode peer runs under) links
// node_modules/.bin/node, which package-manager scripts put first on PATH: a bare `node` in a
// script would run the whole benchmark on Node 22. pnpm and npm export the Node they run on as
// npm_node_execpath; without it (run by hand) this process's own Node is used.
// Usage: node launch.mjs [--smoke | --render]
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const fromManager = process.env.npm_node_execpath
const host = fromManager !== undefined && fromManager !== '' && existsSync(fromManager) ? fromManager : process.execPath
const result = spawnSync(host, ['--expose-gc', join(here, 'dist', 'main.mjs'), ...process.argv.slice(2)], { stdio: 'inherit' })
if (result.error !== undefined) throw result.error
process.exit(result.status ?? 1)
