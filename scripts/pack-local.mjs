#!/usr/bin/env node
// Installing from a clone: `npm run pack:local` (docs/install.md#install-from-a-clone).
//
// The packages are not on the npm registry yet (and `@deepseek-ai/dsh-tools` there is an
// unrelated older package), so a project installs tarballs made from this repository:
//   1. every public package under packages/* is built (turbo, cached);
//   2. and packed with pnpm into packs/ at the repository root (git-ignored; emptied first),
//      which rewrites `workspace:` and `catalog:` specifiers (npm pack would not: docs/releasing.md);
//   3. the script prints each tarball's absolute path and the `npm i …` line that installs all of
//      them with the supported cordis.
// `npm run pack:check` packs with the same function (release-lib.mjs `pack`) and installs the
// tarballs into an empty project, so what this script writes is what CI installs.
// Options: --skip-build (use the existing dist/), --out <dir> (pack there instead of packs/).
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import * as lib from './release-lib.mjs'
import { root } from './release-lib.mjs'

const LABEL = 'pack:local'
const argv = process.argv.slice(2)
const out = argv.includes('--out') ? resolve(argv[argv.indexOf('--out') + 1]) : join(root, 'packs')
const packages = lib.publicPackages()
if (packages.length === 0) lib.fail(LABEL, 'no public package under packages/')

if (!argv.includes('--skip-build')) lib.step(LABEL, 'build', () => lib.build(LABEL, packages))
rmSync(out, { recursive: true, force: true }) // no tarball of an older version stays behind
mkdirSync(out, { recursive: true })
let files = []
lib.step(LABEL, 'pnpm pack', () => {
  files = lib.pack(LABEL, packages, out)
  return `${files.length} tarballs in ${out}`
})
console.log(files.join('\n'))
console.log('\nInstall them in your project (pick the packages you need, with cordis):\n')
console.log(`npm i ${[...files, `cordis@${lib.catalog().cordis}`].join(' ')}`)
