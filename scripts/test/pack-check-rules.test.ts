/**
 * The publishing rules of `npm run pack:check` (step 1, docs/releasing.md), run with
 * `--rules-only --root <dir>` against a small workspace written to a temp directory: a package
 * that follows every rule passes, a private package is skipped, and each broken rule is reported
 * with the package, the field and what is expected.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test } from 'vitest'

const script = fileURLToPath(new URL('../pack-check.mjs', import.meta.url))
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const INSTALL = (cmd: string): string => `# x\n\n## Install\n\n\`\`\`sh\n${cmd}\n\`\`\`\n\nNode ≥ 20.19; set \"type\": \"module\".\n\n## Use this package\n`
const EXPORTS = { '.': { 'dsh-source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' } }
const PUBLISHED = { access: 'public', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } }

function goodManifest(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    version: '0.1.0',
    license: 'MIT',
    type: 'module',
    engines: { node: '>=20.19' },
    exports: EXPORTS,
    files: ['dist', 'README.md', 'CHANGELOG.md'],
    publishConfig: PUBLISHED,
    peerDependencies: { cordis: '>=4.0.0-rc.10 <5' },
    devDependencies: { cordis: 'catalog:' },
    ...extra,
  }
}

/** Writes a workspace; `files` maps paths under it to contents (objects become JSON). */
function workspace(files: Record<string, string | Record<string, unknown>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-rules-'))
  dirs.push(dir)
  const all = {
    'package.json': { name: 'ws', private: true, engines: { node: '>=20.19' } },
    'pnpm-workspace.yaml': 'packages:\n  - packages/*\n\ncatalog:\n  cordis: 4.0.0-rc.10\n',
    ...files,
  }
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`)
  }
  return dir
}

function rules(dir: string): { status: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [script, '--rules-only', '--root', dir], { encoding: 'utf8' })
  return { status: r.status, lines: `${r.stdout}${r.stderr}`.trim().split('\n') }
}

const core = {
  'packages/tools/package.json': goodManifest('@deepseek-ai/dsh-tools'),
  'packages/tools/README.md': INSTALL('npm i @deepseek-ai/dsh-tools cordis@4.0.0-rc.10'),
  'packages/tools/CHANGELOG.md': '# @deepseek-ai/dsh-tools\n\n## 0.1.0\n\nFirst release.\n',
  'packages/tools/LICENSE': 'MIT License\n',
  'packages/tools/src/index.ts': "import { Context } from 'cordis'\nexport const C = Context\n",
}

describe('pack:check publishing rules', () => {
  test('packages that follow the rules pass; private packages are not checked', () => {
    const dir = workspace({
      ...core,
      'packages/plugin/package.json': goodManifest('@deepseek-ai/dsh-plugin', {
        peerDependencies: { '@deepseek-ai/dsh-tools': 'workspace:>=0.1.0 <1', cordis: '>=4.0.0-rc.10 <5' },
        devDependencies: { '@deepseek-ai/dsh-tools': 'workspace:*', cordis: 'catalog:' },
      }),
      'packages/plugin/README.md': INSTALL('npm i -D @deepseek-ai/dsh-plugin @deepseek-ai/dsh-tools cordis@4.0.0-rc.10'),
      'packages/plugin/CHANGELOG.md': '# @deepseek-ai/dsh-plugin\n',
      'packages/plugin/LICENSE': 'MIT License\n',
      'packages/internal/package.json': { name: 'internal', private: true },
    })
    const { status, lines } = rules(dir)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^pack:check manifests and READMEs: 2 public packages: @deepseek-ai\/dsh-plugin, @deepseek-ai\/dsh-tools \(/)
    expect(status).toBe(0)
  })

  test('each broken rule is named with the package and the field', () => {
    const dir = workspace({
      ...core,
      'packages/bad/package.json': {
        name: '@deepseek-ai/dsh-bad',
        version: '0.1.0',
        license: 'ISC',
        type: 'module',
        exports: EXPORTS,
        files: ['dist'],
        publishConfig: { exports: EXPORTS },
        peerDependencies: { '@deepseek-ai/dsh-tools': 'workspace:^' },
        dependencies: { cordis: 'catalog:' },
      },
      'packages/bad/README.md': '# bad\n\n## Use this package\n',
      'packages/bad/src/index.ts': 'import { Context } from "cordis"\nexport const C = Context\n',
    })
    const { status, lines } = rules(dir)
    const bad = '@deepseek-ai/dsh-bad'
    expect(lines).toEqual([
      `${bad}: "license" must be "MIT"`,
      `${bad}: "engines.node" must be ">=20.19" (as the root package.json)`,
      `${bad}: "files" must include "README.md"`,
      `${bad}: "files" must include "CHANGELOG.md"`,
      `${bad}: CHANGELOG.md is missing`,
      `${bad}: LICENSE is missing (npm packs it with every package; a copy of the root LICENSE)`,
      `${bad}: "publishConfig.access" must be "public"`,
      `${bad}: "publishConfig.exports" must not carry the dsh-source condition (src/ is not published)`,
      `${bad}: "peerDependencies.@deepseek-ai/dsh-tools" must be "workspace:<range>" holding 0.1.0 and 0.2.0 but not 1.0.0, e.g. "workspace:>=0.1.0 <1" (docs/releasing.md)`,
      `${bad}: cordis must not be in "dependencies" (peerDependencies + devDependencies)`,
      `${bad}: "peerDependencies.cordis" must be ">=4.0.0-rc.10 <5"`,
      `${bad}: "devDependencies.cordis" must be "catalog:"`,
      `${bad}: README.md needs an "## Install" section`,
      'pack:check FAILED: 13 manifest/README problem(s)',
    ])
    expect(status).toBe(1)
  })

  test('an Install section without the package, cordis, the Node version or "type": "module" is reported', () => {
    const dir = workspace({ ...core, 'packages/tools/README.md': INSTALL('npm i something-else').replace('Node ≥ 20.19', 'Node 20').replace('"type": "module"', 'ESM') })
    const { status, lines } = rules(dir)
    expect(lines).toEqual([
      "@deepseek-ai/dsh-tools: the README's Install section must show `npm i @deepseek-ai/dsh-tools …` (or npm i -D)",
      "@deepseek-ai/dsh-tools: the README's Install section must install cordis@4.0.0-rc.10",
      '@deepseek-ai/dsh-tools: the README\'s Install section must state "Node ≥ 20.19"',
      '@deepseek-ai/dsh-tools: the README\'s Install section must tell the project to set "type": "module" (npm init -y writes "commonjs")',
      'pack:check FAILED: 4 manifest/README problem(s)',
    ])
    expect(status).toBe(1)
  })
})
