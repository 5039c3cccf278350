/**
 * Issue 34 item 7: `npm i cordis` without a version installs cordis 3, under which `ctx.tools`
 * was never set and the first `ctx.tools.register` failed with a TypeError naming nothing. The
 * registry now refuses to start, naming the version found and the range supported. Cordis 3 here
 * is the real package (the `cordis-v3` alias of `cordis@3.18.1`), not a stand-in.
 */
import { createRequire } from 'node:module'
import { Context as Context3 } from 'cordis-v3'
import { Context } from 'cordis'
import { expect, test } from 'vitest'
import {
  CordisVersionError,
  SUPPORTED_CORDIS_RANGE,
  ToolRegistry,
  assertSupportedCordis,
  cordisProblem,
  isSupportedCordisVersion,
  resolvedCordisVersion,
} from '../src/index'

const require = createRequire(import.meta.url)
const cordis3Version = (require('cordis-v3/package.json') as { version: string }).version
const cordis4Version = (require('cordis/package.json') as { version: string }).version

/** Starts `plugin` in a real cordis 3 context; returns what cordis 3 reported for it (it logs plugin-start errors instead of throwing). */
async function startInCordis3(plugin: unknown): Promise<{ errors: unknown[]; ctx: Context3 }> {
  const ctx = new Context3()
  const errors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => void errors.push(error))
  ctx.plugin(plugin as never)
  await ctx.lifecycle.flush()
  return { errors, ctx }
}

test('the registry started in a real cordis 3 context fails with the range and the version kind found', async () => {
  expect(cordis3Version).toBe('3.18.1')
  const { errors, ctx } = await startInCordis3(ToolRegistry)
  expect(errors).toHaveLength(1)
  const error = errors[0] as CordisVersionError
  expect(error).toBeInstanceOf(CordisVersionError)
  expect(error.message).toBe(
    `ToolRegistry needs cordis >=4.0.0-rc.10 <5, found a Context from cordis 3 or older (it has no ctx.fiber) (this package resolves cordis ${cordis4Version}: two copies of cordis are installed). Install a supported version: npm i cordis@4.0.0-rc.10`,
  )
  expect([error.code, error.found, error.supported]).toEqual(['UNSUPPORTED_CORDIS', '3 or older', '>=4.0.0-rc.10 <5'])
  // Nothing half-started: no `tools` service on the cordis 3 context.
  expect((ctx as unknown as { tools?: unknown }).tools).toBeUndefined()
})

test('a single cordis 3 install (what `npm i cordis` gives) is named with its version', () => {
  // What the registry's module resolves when the consumer's only cordis is 3.18.1.
  const problem = cordisProblem('NativeExecutor', cordis3Version, new Context3())
  expect(problem?.message).toBe('NativeExecutor needs cordis >=4.0.0-rc.10 <5, found cordis 3.18.1. Install a supported version: npm i cordis@4.0.0-rc.10')
  expect(problem?.found).toBe('3.18.1')
  // The version decides even for a cordis 4 context (a cordis 3 install with a stray cordis 4 elsewhere).
  expect(cordisProblem('ToolRegistry', '3.18.1', new Context())?.message).toBe('ToolRegistry needs cordis >=4.0.0-rc.10 <5, found cordis 3.18.1. Install a supported version: npm i cordis@4.0.0-rc.10')
  // Unknown version (no readable package.json): the Context's shape alone.
  expect(cordisProblem('ToolRegistry', null, new Context3())?.message).toBe('ToolRegistry needs cordis >=4.0.0-rc.10 <5, found a Context from cordis 3 or older (it has no ctx.fiber). Install a supported version: npm i cordis@4.0.0-rc.10')
})

test("the workspace's cordis 4 passes: the version read is the installed one and the registry starts", async () => {
  expect(resolvedCordisVersion()).toBe(cordis4Version)
  expect(isSupportedCordisVersion(cordis4Version)).toBe(true)
  expect(cordisProblem('ToolRegistry', cordis4Version, new Context())).toBeUndefined()
  expect(cordisProblem('ToolRegistry', null, new Context())).toBeUndefined()
  const ctx = new Context()
  expect(() => assertSupportedCordis(ctx, 'ToolRegistry')).not.toThrow()
  await ctx.plugin(ToolRegistry)
  expect(typeof ctx.tools.register).toBe('function')
  await ctx.fiber.dispose()
})

test("the supported range follows npm's semver rules, as the peer dependency does", () => {
  expect(SUPPORTED_CORDIS_RANGE).toBe('>=4.0.0-rc.10 <5')
  const table = Object.fromEntries(
    ['3.18.1', '3.99.99', '4.0.0-rc.9', '4.0.0-rc.10', '4.0.0-rc.11', '4.0.0-rc', '4.0.0-beta.20', '4.0.0-alpha.1', '4.0.0-1', '4.0.0', '4.2.3', '4.1.0-beta.1', '5.0.0-rc.1', '5.0.0', '4.0.0+build.1', 'not a version']
      .map((v) => [v, isSupportedCordisVersion(v)]),
  )
  expect(table).toEqual({
    '3.18.1': false,
    '3.99.99': false,
    '4.0.0-rc.9': false,
    '4.0.0-rc.10': true,
    '4.0.0-rc.11': true,
    '4.0.0-rc': false,
    '4.0.0-beta.20': false,
    '4.0.0-alpha.1': false,
    '4.0.0-1': false,
    '4.0.0': true,
    '4.2.3': true,
    '4.1.0-beta.1': false,
    '5.0.0-rc.1': false,
    '5.0.0': false,
    '4.0.0+build.1': true,
    'not a version': false,
  })
  // The same answers as npm's own semver (the repository's dev dependency) for the peer range.
  const semver = require('semver') as { satisfies(version: string, range: string): boolean; valid(version: string): string | null }
  for (const [version, ours] of Object.entries(table)) expect([version, semver.valid(version) !== null && semver.satisfies(version, SUPPORTED_CORDIS_RANGE)]).toEqual([version, ours])
})
