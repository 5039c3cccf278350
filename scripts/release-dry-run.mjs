#!/usr/bin/env node
// The changesets release, rehearsed: `npm run release:dry-run` (CI runs it after pack:check).
//
// On a throwaway copy of the working tree in the OS temp directory (the repository is never
// modified; the script compares `git status` before and after):
//   1. writes a sample changeset: a minor change of @deepseek-ai/dsh-tools and a patch of every
//      other public package under packages/*;
//   2. runs `changeset version` and checks the plan: dsh-tools goes to its next minor, every other
//      package to its next patch (no package is pushed to a new major by its peer dependency on
//      dsh-tools), and every CHANGELOG.md starts with the new version and the sample text;
//   3. packs the versioned packages with pnpm and checks that each packed dependency on a
//      workspace package (peer or regular) holds that package's new version;
//   4. runs `pnpm publish -r --dry-run --no-git-checks` and checks that it would publish exactly
//      the public packages at their new versions (pnpm asks the registry which versions exist).
// Options: --skip-build (use the existing dist/), --keep (leave the copy and print its path).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import semver from 'semver'
import * as lib from './release-lib.mjs'
import { root } from './release-lib.mjs'

const LABEL = 'release:dry-run'
const CORE = '@deepseek-ai/dsh-tools'
const SAMPLE = 'Sample change written by scripts/release-dry-run.mjs.'
const args = new Set(process.argv.slice(2))
const fail = (message, output) => lib.fail(LABEL, message, output)
const run = (command, argv, cwd, options) => lib.run(LABEL, command, argv, cwd, options)
const step = (what, fn) => lib.step(LABEL, what, fn)

const packages = lib.publicPackages()
if (!packages.some((p) => p.name === CORE)) fail(`${CORE} is not among the public packages`)
const expected = new Map(packages.map((p) => [p.name, semver.inc(p.version, p.name === CORE ? 'minor' : 'patch')]))
const gitStatus = () => run('git', ['status', '--porcelain', '--untracked-files=all'], root).output
const statusBefore = gitStatus()

if (!args.has('--skip-build')) step('build', () => lib.build(LABEL, packages))

const copy = mkdtempSync(join(tmpdir(), 'dsh-release-dry-run-'))
process.on('exit', () => {
  if (args.has('--keep')) console.log(`${LABEL} kept ${copy}`)
  else rmSync(copy, { recursive: true, force: true }) // unlinks the node_modules symlinks, never follows them
})

step('copy the working tree', () => {
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).output.split('\0').filter(Boolean)
  for (const file of files) {
    if (!existsSync(join(root, file))) continue // deleted in the working tree
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    cpSync(join(root, file), join(copy, file))
  }
  // The root's installed tools (changesets, pnpm's view of the workspace), each package's links
  // (relative symlinks, so they point into the copy) and its built dist/.
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
  for (const p of packages) {
    const rel = p.dir.slice(root.length + 1)
    for (const sub of ['node_modules', 'dist']) {
      if (!existsSync(join(p.dir, sub))) fail(`${rel}/${sub} is missing (run npm run build first, or drop --skip-build)`)
      cpSync(join(p.dir, sub), join(copy, rel, sub), { recursive: true, verbatimSymlinks: true })
    }
  }
  return `${files.length} files into ${copy}`
})

step('changeset version', () => {
  const frontmatter = packages.map((p) => `'${p.name}': ${p.name === CORE ? 'minor' : 'patch'}`).join('\n')
  writeFileSync(join(copy, '.changeset', 'release-dry-run-sample.md'), `---\n${frontmatter}\n---\n\n${SAMPLE}\n`)
  run(process.execPath, [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], copy)
  const problems = []
  for (const p of lib.publicPackages(copy)) {
    if (p.version !== expected.get(p.name)) problems.push(`${p.name}: version ${p.version}, expected ${expected.get(p.name)}`)
    const changelog = readFileSync(join(p.dir, 'CHANGELOG.md'), 'utf8')
    const first = /^## (\S+)\n([\s\S]*?)(?=^## )/m.exec(changelog)
    if (first?.[1] !== p.version || !first[2].includes(SAMPLE)) problems.push(`${p.name}: CHANGELOG.md does not start with "## ${p.version}" and the sample text`)
  }
  if (existsSync(join(copy, '.changeset', 'release-dry-run-sample.md'))) problems.push('the sample changeset was not consumed')
  if (problems.length) fail('the release plan', problems.join('\n'))
  return [...expected].map(([name, version]) => `${name.replace('@deepseek-ai/', '')} ${version}`).join(', ')
})

step('pnpm pack (versioned)', () => {
  const out = join(copy, '.tarballs')
  mkdirSync(out)
  lib.pnpm(LABEL, ['-r', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', out], copy)
  const problems = []
  for (const p of packages) {
    const file = join(out, lib.tarballName({ name: p.name, version: expected.get(p.name) }))
    const manifest = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json'], copy).output)
    for (const field of ['dependencies', 'peerDependencies']) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (expected.has(dep) && !semver.satisfies(expected.get(dep), range)) problems.push(`${p.name}: ${field}.${dep} "${range}" excludes the new ${expected.get(dep)}`)
      }
    }
  }
  if (problems.length) fail('packed ranges', problems.join('\n'))
})

step('pnpm publish -r --dry-run', () => {
  const { output } = lib.pnpm(LABEL, ['publish', '-r', '--dry-run', '--no-git-checks'], copy)
  const wouldPublish = [...output.matchAll(/Skip publishing (\S+)@(\S+) \(dry run\)/g)].map((m) => `${m[1]}@${m[2]}`).sort()
  const want = [...expected].map(([name, version]) => `${name}@${version}`).sort()
  if (JSON.stringify(wouldPublish) !== JSON.stringify(want)) fail(`would publish ${wouldPublish.join(', ') || 'nothing'}; expected ${want.join(', ')}`, output)
  return `${wouldPublish.length} packages`
})

if (gitStatus() !== statusBefore) fail('the repository changed during the dry run', gitStatus())
console.log(`${LABEL} ok: repository unchanged`)
