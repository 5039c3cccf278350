/**
 * The cordis check every plugin of these packages runs at start: the registry, the executors,
 * the policies, the OpenTelemetry plugins, the MCP bridge and server, the testkit harness.
 * `npm i cordis` without a version installs the registry's `latest`, cordis 3, whose contexts have
 * no `fiber` and whose `Service` never provides `ctx.tools` to these packages: the first
 * `ctx.tools.register` failed with `Cannot read properties of undefined (reading 'register')`.
 */
import { createRequire } from 'node:module'

/** The cordis versions these packages support (the `cordis` peer dependency's range). */
export const SUPPORTED_CORDIS_RANGE = '>=4.0.0-rc.10 <5'

/** The version the install hint names: the lowest supported release. */
const INSTALL_HINT = 'npm i cordis@4.0.0-rc.10'

/**
 * Thrown at plugin start (the `await ctx.plugin(...)` rejects; cordis 3 logs it as `[E] app …`,
 * since its `ctx.plugin` does not return a promise) when the cordis in use is outside
 * {@link SUPPORTED_CORDIS_RANGE}. Code `UNSUPPORTED_CORDIS`.
 */
export class CordisVersionError extends Error {
  override readonly name = 'CordisVersionError'
  readonly code = 'UNSUPPORTED_CORDIS' as const
  /** The version found: a version string, or `'3 or older'` when only the Context's shape tells. */
  readonly found: string
  /** Always {@link SUPPORTED_CORDIS_RANGE}. */
  readonly supported = SUPPORTED_CORDIS_RANGE
  constructor(message: string, found: string) {
    super(message)
    this.found = found
  }
}

/**
 * Whether `version` (a semver string) is within {@link SUPPORTED_CORDIS_RANGE} by npm's rules, as
 * the peer dependency is: every 4.x release, and of the prereleases only those of 4.0.0 from
 * `rc.10` on (precedence `rc.9 < rc.10 < rc.11 < 4.0.0`; a prerelease of a later tuple, such as
 * `4.1.0-beta.1`, matches no comparator's tuple, so npm excludes it).
 */
export function isSupportedCordisVersion(version: string): boolean {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version.trim())
  if (match === null) return false
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const pre = match[4]
  if (major !== 4) return false
  if (pre === undefined) return true
  if (minor > 0 || patch > 0) return false
  const ids = pre.split('.')
  if (ids[0] !== 'rc') return ids[0]! > 'rc'
  const n = ids[1] === undefined ? -1 : /^\d+$/.test(ids[1]) ? Number(ids[1]) : Number.POSITIVE_INFINITY
  return n >= 10
}

/** Cached once per process: the version `cordis/package.json` resolves to, or null when unreadable. */
let resolvedVersion: string | null | undefined

/**
 * The version of the `cordis` package as this package's install resolves it (the consumer's copy:
 * `cordis` is a peer dependency), read once per process with `createRequire(import.meta.url)`.
 * `null` when it cannot be read (a bundle without `node_modules`); then only the Context's shape
 * is checked.
 */
export function resolvedCordisVersion(): string | null {
  if (resolvedVersion !== undefined) return resolvedVersion
  try {
    const pkg = createRequire(import.meta.url)('cordis/package.json') as { version?: unknown }
    resolvedVersion = typeof pkg.version === 'string' ? pkg.version : null
  } catch {
    resolvedVersion = null
  }
  return resolvedVersion
}

/**
 * The problem with running `plugin` in `ctx`, or `undefined` when there is none. Pure: `version`
 * is the resolved cordis version (`null`: unknown), `ctx` the context the plugin starts in.
 * A Context without an object `fiber` comes from cordis 3 or older (cordis 4 contexts have
 * `ctx.fiber`; cordis 3 ones `ctx.scope`).
 */
export function cordisProblem(plugin: string, version: string | null, ctx: object): CordisVersionError | undefined {
  if (version !== null && !isSupportedCordisVersion(version)) {
    return new CordisVersionError(`${plugin} needs cordis ${SUPPORTED_CORDIS_RANGE}, found cordis ${version}. Install a supported version: ${INSTALL_HINT}`, version)
  }
  // `in`, not a read: cordis 3 warns on reading a property no service provides.
  if (!('fiber' in ctx) || typeof (ctx as { fiber?: unknown }).fiber !== 'object') {
    const resolved = version === null ? '' : ` (this package resolves cordis ${version}: two copies of cordis are installed)`
    return new CordisVersionError(
      `${plugin} needs cordis ${SUPPORTED_CORDIS_RANGE}, found a Context from cordis 3 or older (it has no ctx.fiber)${resolved}. Install a supported version: ${INSTALL_HINT}`,
      '3 or older',
    )
  }
  return undefined
}

/**
 * The error for a plugin whose `Config` schema was called as a function: cordis 4 validates
 * `Config` through its Standard Schema `~standard.validate`, cordis 3 calls it (`Config(config)`)
 * before the plugin starts. A plugin with a `Config` makes it callable and throws this from the
 * call, so cordis 3 reports the version problem instead of `TypeError: schema is not a function`.
 */
export function cordisCalledConfig(plugin: string): CordisVersionError {
  const version = resolvedCordisVersion()
  const problem = version === null ? undefined : cordisProblem(plugin, version, { fiber: {} })
  return problem ?? new CordisVersionError(
    `${plugin} needs cordis ${SUPPORTED_CORDIS_RANGE}, found cordis 3 or older (it called the plugin's Config as a function)${version === null ? '' : ` (this package resolves cordis ${version}: two copies of cordis are installed)`}. Install a supported version: ${INSTALL_HINT}`,
    '3 or older',
  )
}

/**
 * Throws a {@link CordisVersionError} when `ctx` or the installed cordis is outside
 * {@link SUPPORTED_CORDIS_RANGE}. Every plugin of these packages calls it first thing at start,
 * naming itself (`plugin`, e.g. `'NativeExecutor'`). Cost: the version is read once per process;
 * each call then reads `ctx.fiber`.
 *
 * @throws CordisVersionError, e.g. `NativeExecutor needs cordis >=4.0.0-rc.10 <5, found cordis
 *   3.18.1. Install a supported version: npm i cordis@4.0.0-rc.10`
 */
export function assertSupportedCordis(ctx: object, plugin: string): void {
  const problem = cordisProblem(plugin, resolvedCordisVersion(), ctx)
  if (problem !== undefined) throw problem
}
