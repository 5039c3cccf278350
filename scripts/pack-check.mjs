#!/usr/bin/env node
// The release path, checked: `npm run pack:check` (CI runs it before the tests).
//
// For EVERY public package under packages/* (a package.json without `"private": true`):
//   1. its manifest and README follow the rules of docs/releasing.md: engines, files,
//      CHANGELOG.md, LICENSE, publishConfig, an Install section (Node version, "type": "module"),
//      cordis as a peer dependency in the supported range, peer ranges on workspace packages
//      that changesets can version;
//   2. it is built (turbo, cached) and packed with pnpm, which rewrites `workspace:` and
//      `catalog:` specifiers (npm pack would not); the packed manifest must have none left;
//   3. publint (--strict) and @arethetypeswrong/cli (--profile esm-only: the packages are ESM
//      only) are clean on the tarball;
// then, in an empty project in the OS temp directory (outside the repository):
//   4. the tarballs install with plain npm next to cordis and @types/node;
//   5. scripts/pack-check/smoke.mjs imports every package and runs batches through the registry
//      (native executor + timeout policy, a PTC run_code program, the testkit harness);
//   6. scripts/pack-check/consumer.ts typechecks (strict, moduleResolution Bundler) and
//      consumer-nodenext.ts under NodeNext, where only the errors that cordis's own typings
//      cause are allowed (docs/install.md#typescript-settings); consumer.ts typechecks under
//      Bundler with TypeScript 7 too (TYPESCRIPT_7, what `npm i -D typescript` installs now);
// and in a second empty project that already depends on cordis 3:
//   7. npm refuses to install the tarballs (ERESOLVE naming cordis) instead of adding a second,
//      silent copy of cordis;
// and in a third, where the tarball and cordis 3 are installed together (what `npm i … cordis`
// without a version does while cordis 3 is `latest`; here with --legacy-peer-deps):
//   8. the registry refuses to start with the CordisVersionError naming 3.18.1.
// Options: --skip-build (use the existing dist/), --keep (leave the temp projects and print them),
// --rules-only (step 1 only: a second's check of a new package's manifest and README).
// Exits non-zero with the failing step's output.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import semver from 'semver'
import * as lib from './release-lib.mjs'
import { CORDIS_PEER_RANGE, readJson, root } from './release-lib.mjs'

const LABEL = 'pack:check'
/** The TypeScript 7 release the consumer typecheck also runs (`npm view typescript version` when it was pinned). */
const TYPESCRIPT_7 = '7.0.2'
const here = join(root, 'scripts', 'pack-check')
const argv = process.argv.slice(2)
const args = new Set(argv)
// --root <dir>: check the rules of another workspace (the rules' own test uses it).
const tree = args.has('--root') ? argv[argv.indexOf('--root') + 1] : root
const started = Date.now()
const fail = (message, output) => lib.fail(LABEL, message, output)
const run = (command, argv, cwd, options) => lib.run(LABEL, command, argv, cwd, options)
const step = (what, fn) => lib.step(LABEL, what, fn)

if (tree !== root && !args.has('--rules-only')) fail('--root works with --rules-only only')
const nodeRange = readJson(join(tree, 'package.json')).engines?.node
const catalog = lib.catalog(tree)
const packages = lib.publicPackages(tree)
if (packages.length === 0) fail('no public package under packages/')

/** Does the package's source import cordis (then cordis must be a peer dependency)? */
function importsCordis(dir) {
  const walk = (d) =>
    readdirSync(d, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : /\.[cm]?ts$/.test(e.name) && /from ['"]cordis['"]|import\(['"]cordis['"]\)/.test(readFileSync(join(d, e.name), 'utf8')),
    )
  return existsSync(join(dir, 'src')) && walk(join(dir, 'src'))
}

/** The `## Install` section of a README (up to the next `## `), or undefined. */
function installSection(markdown) {
  const m = /^## Install\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)
  return m?.[1]
}

step('manifests and READMEs', () => {
  const problems = []
  for (const { dir, manifest: m, name } of packages) {
    const say = (text) => problems.push(`${name}: ${text}`)
    if (m.type !== 'module') say('"type" must be "module"')
    if (m.license !== 'MIT') say('"license" must be "MIT"')
    if (m.engines?.node !== nodeRange) say(`"engines.node" must be "${nodeRange}" (as the root package.json)`)
    for (const f of ['dist', 'README.md', 'CHANGELOG.md']) if (!m.files?.includes(f)) say(`"files" must include "${f}"`)
    if (!existsSync(join(dir, 'CHANGELOG.md'))) say('CHANGELOG.md is missing')
    if (!existsSync(join(dir, 'LICENSE'))) say('LICENSE is missing (npm packs it with every package; a copy of the root LICENSE)')
    if (m.publishConfig?.access !== 'public') say('"publishConfig.access" must be "public"')
    if (JSON.stringify(m.publishConfig?.exports ?? {}).includes('dsh-source')) say('"publishConfig.exports" must not carry the dsh-source condition (src/ is not published)')
    if (!m.publishConfig?.exports) say('"publishConfig.exports" must list the published entry points (exports without dsh-source)')
    for (const [dep, spec] of Object.entries(m.peerDependencies ?? {})) {
      const target = packages.find((p) => p.name === dep)
      if (!target || !spec.startsWith('workspace:')) continue
      // changesets bumps a dependent to a new major when its peer leaves the range, so a 0.x
      // peer written `workspace:^` would turn every minor of the target into a 1.0.0 here.
      const range = spec.slice('workspace:'.length)
      const nextMinor = semver.inc(target.version, 'minor')
      const nextMajor = semver.inc(target.version, 'major')
      if (!semver.validRange(range) || !semver.satisfies(target.version, range) || !semver.satisfies(nextMinor, range) || semver.satisfies(nextMajor, range)) {
        say(`"peerDependencies.${dep}" must be "workspace:<range>" holding ${target.version} and ${nextMinor} but not ${nextMajor}, e.g. "workspace:>=${target.version} <${semver.major(nextMajor)}" (docs/releasing.md)`)
      }
    }
    if (m.dependencies?.cordis) say('cordis must not be in "dependencies" (peerDependencies + devDependencies)')
    if (importsCordis(dir) || m.peerDependencies?.cordis) {
      if (m.peerDependencies?.cordis !== CORDIS_PEER_RANGE) say(`"peerDependencies.cordis" must be "${CORDIS_PEER_RANGE}"`)
      if (m.devDependencies?.cordis !== 'catalog:') say('"devDependencies.cordis" must be "catalog:"')
    }
    const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : ''
    const install = installSection(readme)
    if (install === undefined) say('README.md needs an "## Install" section')
    else {
      if (!new RegExp(`npm i (-D )?${name.replace(/[./]/g, '\\$&')}\\b`).test(install)) say(`the README's Install section must show \`npm i ${name} …\` (or npm i -D)`)
      if (m.peerDependencies?.cordis && !install.includes(`cordis@${catalog.cordis}`)) say(`the README's Install section must install cordis@${catalog.cordis}`)
      if (!install.includes('Node ≥ 20.19')) say('the README\'s Install section must state "Node ≥ 20.19"')
      if (!install.includes('"type": "module"')) say('the README\'s Install section must tell the project to set "type": "module" (npm init -y writes "commonjs")')
    }
  }
  if (problems.length) fail(`${problems.length} manifest/README problem(s)`, problems.join('\n'))
  return `${packages.length} public packages: ${packages.map((p) => p.name).join(', ')}`
})
if (args.has('--rules-only')) process.exit(0)

if (!args.has('--skip-build')) step('build', () => lib.build(LABEL, packages))

const work = mkdtempSync(join(tmpdir(), 'dsh-pack-check-'))
const tarballs = join(work, 'tarballs')
mkdirSync(tarballs)
const cleanup = () => {
  if (args.has('--keep')) console.log(`pack:check kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
process.on('exit', cleanup)

step('pnpm pack', () => {
  const files = lib.pack(LABEL, packages, tarballs)
  const problems = []
  for (const [i, p] of packages.entries()) {
    const file = files[i]
    const packed = JSON.parse(run('tar', ['-xzOf', file, 'package/package.json'], work).output)
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dep, spec] of Object.entries(packed[field] ?? {})) {
        if (/^(workspace|catalog):/.test(spec)) problems.push(`${p.name}: packed ${field}.${dep} is still "${spec}"`)
      }
    }
    if (packed.exports && JSON.stringify(packed.exports).includes('dsh-source')) problems.push(`${p.name}: packed exports still carry dsh-source`)
  }
  if (problems.length) fail('packed manifests', problems.join('\n'))
  return `${packages.length} tarballs`
})

// publint and attw on every tarball, in parallel (attw loads TypeScript per run: ~8 s each).
const t0 = Date.now()
const lints = await lib.runAll(
  packages.flatMap((p) => [
    [join(root, 'node_modules', '.bin', 'publint'), ['run', join(tarballs, p.tarball), '--strict'], root],
    [join(root, 'node_modules', '.bin', 'attw'), [join(tarballs, p.tarball), '--profile', 'esm-only', '--format', 'ascii', '--no-color'], root],
  ]),
)
packages.forEach((p, i) => {
  const [publint, attw] = [lints[2 * i], lints[2 * i + 1]]
  if (publint.status !== 0 || !publint.output.includes('All good!')) fail(`publint --strict reported on ${p.name}`, publint.output)
  if (attw.status !== 0) fail(`attw --profile esm-only reported on ${p.name}`, attw.output)
})
console.log(`${LABEL} publint --strict, attw --profile esm-only: clean (${((Date.now() - t0) / 1000).toFixed(1)} s)`)

const consumer = join(work, 'consumer')
mkdirSync(consumer)
const npmFlags = ['--no-audit', '--no-fund', '--loglevel=error']
const tarballPaths = packages.map((p) => join(tarballs, p.tarball))

step('npm install (empty project)', () => {
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-check-consumer', private: true, type: 'module' }, null, 2)}\n`)
  run('npm', ['install', ...npmFlags, ...tarballPaths, `cordis@${catalog.cordis}`, `@types/node@${catalog['@types/node']}`], consumer)
  return `into ${consumer}`
})

step('ESM smoke (node smoke.mjs)', () => {
  copyFileSync(join(here, 'smoke.mjs'), join(consumer, 'smoke.mjs'))
  writeFileSync(join(consumer, 'packages.json'), `${JSON.stringify(packages.map((p) => p.name))}\n`)
  const { output } = run(process.execPath, ['smoke.mjs'], consumer)
  if (!output.includes('smoke ok')) fail('smoke.mjs did not finish', output)
  return output.trim().split('\n').slice(0, -1).join('; ')
})

writeFileSync(
  join(consumer, 'packages.ts'),
  [
    '// Written by scripts/pack-check.mjs: every packed package, imported as a user would.',
    ...packages.map((p, i) => `import * as p${i} from '${p.name}'`),
    `export const packages: readonly object[] = [${packages.map((_, i) => `p${i}`).join(', ')}]`,
    '',
  ].join('\n'),
)
for (const f of ['consumer.ts', 'consumer-nodenext.ts', 'tools.ts', 'tsconfig.bundler.json', 'tsconfig.nodenext.json']) copyFileSync(join(here, f), join(consumer, f))

/**
 * Runs tsc (skipLibCheck off) and sorts its errors: ours (the consumer files and our packages'
 * .d.ts) versus third-party typings. The tsconfigs here set `"lib": ["ES2023"]` without DOM, the
 * stricter case of docs/install.md#typescript-settings: quickjs-emscripten's typings then miss the
 * WebAssembly namespace (@types/node 20 lacks it; the documented tsconfig, with no `lib`, gets it
 * from the default DOM lib, and a user's skipLibCheck hides it). Those are not ours to fix.
 */
function typecheck(mode, tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')) {
  const { output } = run(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], consumer, { expectFailure: true })
  const errors = output.split('\n').filter((line) => /^\S+\(\d+,\d+\): error TS\d+/.test(line))
  const thirdParty = errors.filter((line) => line.startsWith('node_modules/') && !line.startsWith('node_modules/@deepseek-ai/'))
  return { output, ours: errors.filter((line) => !thirdParty.includes(line)), thirdParty }
}

step('tsc consumer.ts (strict, moduleResolution Bundler)', () => {
  const { output, ours, thirdParty } = typecheck('bundler')
  if (ours.length) fail(`${ours.length} type error(s) in the consumer or our .d.ts under Bundler`, output)
  return `0 errors in ours; ${thirdParty.length} in third-party .d.ts (skipLibCheck hides them)`
})

step(`tsc ${TYPESCRIPT_7} consumer.ts (TypeScript 7, strict, moduleResolution Bundler)`, () => {
  const ts7 = join(work, 'typescript7')
  mkdirSync(ts7)
  writeFileSync(join(ts7, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-check-typescript7', private: true }, null, 2)}\n`)
  run('npm', ['install', ...npmFlags, `typescript@${TYPESCRIPT_7}`], ts7)
  const { output, ours, thirdParty } = typecheck('bundler', join(ts7, 'node_modules', 'typescript', 'bin', 'tsc'))
  if (ours.length) fail(`${ours.length} type error(s) in the consumer or our .d.ts under TypeScript ${TYPESCRIPT_7}`, output)
  return `0 errors in ours; ${thirdParty.length} in third-party .d.ts`
})

step('tsc consumer-nodenext.ts (strict, moduleResolution NodeNext)', () => {
  const { output, ours, thirdParty } = typecheck('nodenext')
  // cordis 4.0.0-rc.10's .d.ts use extensionless relative imports (TS2834 under NodeNext), so
  // 'cordis' exports nothing there and our .d.ts cannot see its names (TS2305). docs/install.md.
  const cordisCaused = (line) => /: error TS2305: Module '"cordis"' has no exported member/.test(line)
  const unexpected = ours.filter((line) => !cordisCaused(line))
  if (unexpected.length) fail(`${unexpected.length} type error(s) in the consumer or our .d.ts under NodeNext`, output)
  const cordisBroken = thirdParty.some((line) => line.startsWith('node_modules/cordis/') && line.includes('TS2834'))
  if (!cordisBroken) {
    fail('cordis\'s typings now resolve under NodeNext: typecheck consumer.ts under NodeNext too, and update docs/install.md', output)
  }
  return `0 errors of ours; cordis's own typings unreadable under NodeNext as documented (${ours.length} TS2305 follow from it)`
})

step('npm refuses cordis 3', () => {
  const old = join(work, 'cordis3')
  mkdirSync(old)
  writeFileSync(join(old, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-check-cordis3', private: true, type: 'module', dependencies: { cordis: '^3.18.1' } }, null, 2)}\n`)
  const { status, output } = run('npm', ['install', '--package-lock-only', ...npmFlags, ...tarballPaths], old, { expectFailure: true })
  if (status === 0 || !output.includes('ERESOLVE') || !output.includes(`peer cordis@"${CORDIS_PEER_RANGE}"`)) {
    fail('npm installed the packages next to cordis 3 (expected ERESOLVE naming the cordis peer range)', output)
  }
  return 'ERESOLVE: could not resolve … peer cordis@"' + CORDIS_PEER_RANGE + '"'
})

step('a cordis 3 install fails at plugin start, naming the version', () => {
  // The layout `npm i <the packages> cordis` (no version) gives while the registry's latest is
  // cordis 3 (npm only warns then), made deterministic: cordis 3.18.1 with --legacy-peer-deps, the
  // same layout. The registry must refuse to start, naming the version.
  const loose = join(work, 'cordis3-installed')
  mkdirSync(loose)
  writeFileSync(join(loose, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-check-cordis3-installed', private: true, type: 'module' }, null, 2)}\n`)
  const tools = packages.find((p) => p.name === '@deepseek-ai/dsh-tools')
  run('npm', ['install', ...npmFlags, '--legacy-peer-deps', join(tarballs, tools.tarball), 'cordis@3.18.1'], loose)
  writeFileSync(
    join(loose, 'main.mjs'),
    "import { Context } from 'cordis'\nimport { ToolRegistry } from '@deepseek-ai/dsh-tools'\nconst ctx = new Context()\nctx.on('internal/error', (e) => console.log(`${e.name} ${e.code}: ${e.message}`))\nawait ctx.plugin(ToolRegistry)\nawait new Promise((r) => setTimeout(r, 50))\nconsole.log(typeof ctx.tools)\n",
  )
  const { output } = run(process.execPath, ['main.mjs'], loose)
  const expected = `CordisVersionError UNSUPPORTED_CORDIS: ToolRegistry needs cordis ${CORDIS_PEER_RANGE}, found cordis 3.18.1. Install a supported version: npm i cordis@4.0.0-rc.10`
  if (!output.includes(`${expected}\nundefined\n`)) fail(`expected "${expected}" at plugin start`, output)
  return 'CordisVersionError: ToolRegistry needs cordis … found cordis 3.18.1'
})

console.log(`pack:check ok: ${packages.length} packages in ${((Date.now() - started) / 1000).toFixed(0)} s`)
