/**
 * The timeout policy's configuration: its shape, its validation, and the Standard Schema that
 * lets cordis reject a bad config before the plugin starts (docs/design.md, "Timeout policy").
 */
import { MAX_TIMER_MS, cordisCalledConfig, showConfigValue, unknownOptions } from '@deepseek-ai/dsh-tools'

/** Grace a signal-ignoring body gets after its signal fired when `hardLimit: true` is given (1,000 ms). */
export const DEFAULT_GRACE_MS = 1_000

/**
 * Configuration of {@link TimeoutPolicy}. Every field is optional: `{}` enforces each visible
 * definition's own `timeoutMs` and nothing else.
 */
export interface TimeoutPolicyConfig {
  /**
   * Budget in ms for calls whose definition declares no `timeoutMs`. A definition's own
   * `timeoutMs` always wins. Absent: such calls are not limited and their body sees the
   * caller's signal unchanged. Positive, finite, at most 2,147,483,647 ({@link MAX_TIMER_MS}).
   */
  readonly defaultTimeoutMs?: number
  /**
   * Opt-in hard limit for bodies that ignore their signal. Off by default: the default contract
   * is quiescence — a started body is awaited however late it settles (docs/cancellation.md, "Cooperative
   * cancellation"). On: once the body's signal fired (the deadline, or a caller abort), the call
   * waits at most `graceMs` more, then settles without the body — `TOOL_TIMEOUT` when the
   * deadline fired first, `ABORTED` when the caller did — and the body is *abandoned*: counted
   * in {@link timeoutStats}, reported through the `tools/abandoned` event, and whatever it
   * returns later is dropped. `true` means `{ graceMs: DEFAULT_GRACE_MS }` (1,000 ms).
   */
  readonly hardLimit?: boolean | HardLimitConfig
}

/** The object form of {@link TimeoutPolicyConfig.hardLimit}. */
export interface HardLimitConfig {
  /**
   * How long, in ms, a body may keep running after its signal fired before it is abandoned.
   * Non-negative, finite, at most 2,147,483,647. Default {@link DEFAULT_GRACE_MS} (1,000).
   */
  readonly graceMs?: number
}

/** A validated configuration, as the wrapper uses it. Frozen. */
export interface ResolvedTimeoutPolicyConfig {
  /** Budget in ms for definitions without `timeoutMs`, or `undefined` for none. */
  readonly defaultTimeoutMs: number | undefined
  /** Grace in ms before a signal-ignoring body is abandoned, or `undefined` when the hard limit is off. */
  readonly graceMs: number | undefined
}

/** One problem found in a configuration: a JSON pointer to the field and what was expected. */
export interface TimeoutConfigIssue {
  /** JSON pointer of the offending field, e.g. `/defaultTimeoutMs`, `/hardLimit/graceMs`; `` for the root. */
  readonly pointer: string
  /** The complete message, naming the field, what was expected and what was given. */
  readonly message: string
}

/**
 * Thrown by {@link resolveTimeoutPolicyConfig} (and so by the plugin's start) for an invalid
 * configuration. `message` lists every issue; each names its field as a JSON pointer.
 */
export class TimeoutPolicyConfigError extends RangeError {
  override readonly name = 'TimeoutPolicyConfigError'
  /** Every problem found, in field order. */
  readonly issues: readonly TimeoutConfigIssue[]
  constructor(issues: readonly TimeoutConfigIssue[]) {
    super(issues.map((issue) => issue.message).join('; '))
    this.issues = Object.freeze([...issues])
  }
}

const PREFIX = 'tool-call-timeout-policy config:'
const TOP_KEYS: readonly string[] = ['defaultTimeoutMs', 'hardLimit']
const HARD_KEYS: readonly string[] = ['graceMs']

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A budget is a number of ms in (0, MAX_TIMER_MS]. */
function checkBudget(value: unknown, pointer: string, issues: TimeoutConfigIssue[]): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    issues.push({ pointer, message: `${PREFIX} ${pointer} must be a positive finite number of milliseconds up to ${MAX_TIMER_MS}, got ${showConfigValue(value)}` })
    return undefined
  }
  return value
}

/** A grace is a number of ms in [0, MAX_TIMER_MS]. */
function checkGrace(value: unknown, pointer: string, issues: TimeoutConfigIssue[]): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS) {
    issues.push({ pointer, message: `${PREFIX} ${pointer} must be a non-negative finite number of milliseconds up to ${MAX_TIMER_MS}, got ${showConfigValue(value)}` })
    return undefined
  }
  return value
}

/** Every unknown key is an issue, with the "did you mean" of the other packages' configs. */
function checkKeys(record: Record<string, unknown>, allowed: readonly string[], base: string, issues: TimeoutConfigIssue[]): void {
  for (const unknown of unknownOptions(record, allowed, base)) issues.push({ pointer: unknown.pointer, message: `${PREFIX} ${unknown.pointer} ${unknown.detail}` })
}

/**
 * Validates a configuration and lists every problem (empty when valid). Pure; never throws.
 * Unknown keys are problems too, so a typo such as `defaultTimeout` cannot silently leave
 * tools unlimited.
 */
export function checkTimeoutPolicyConfig(config: unknown): { readonly config?: ResolvedTimeoutPolicyConfig; readonly issues: readonly TimeoutConfigIssue[] } {
  const issues: TimeoutConfigIssue[] = []
  if (config === undefined || config === null) return { config: Object.freeze({ defaultTimeoutMs: undefined, graceMs: undefined }), issues }
  if (!isRecord(config)) {
    issues.push({ pointer: '', message: `${PREFIX} expected an object such as { defaultTimeoutMs?, hardLimit? }, got ${showConfigValue(config)}` })
    return { issues }
  }
  checkKeys(config, TOP_KEYS, '', issues)
  const defaultTimeoutMs = checkBudget(config.defaultTimeoutMs, '/defaultTimeoutMs', issues)
  let graceMs: number | undefined
  const hard = config.hardLimit
  if (hard === true) graceMs = DEFAULT_GRACE_MS
  else if (isRecord(hard)) {
    checkKeys(hard, HARD_KEYS, '/hardLimit', issues)
    graceMs = checkGrace(hard.graceMs, '/hardLimit/graceMs', issues) ?? DEFAULT_GRACE_MS
  } else if (hard !== undefined && hard !== false) {
    issues.push({ pointer: '/hardLimit', message: `${PREFIX} /hardLimit must be true, false or { graceMs }, got ${showConfigValue(hard)}` })
  }
  if (issues.length > 0) return { issues }
  return { config: Object.freeze({ defaultTimeoutMs, graceMs }), issues }
}

/**
 * Validates and normalises a configuration (`hardLimit: true` → `graceMs: 1000`).
 *
 * @throws TimeoutPolicyConfigError (a `RangeError`) naming each bad field as a JSON pointer:
 *   a budget that is not a positive finite number of ms up to 2,147,483,647, a negative or
 *   non-finite `graceMs`, a `hardLimit` that is neither boolean nor object, or an unknown key.
 */
export function resolveTimeoutPolicyConfig(config?: TimeoutPolicyConfig): ResolvedTimeoutPolicyConfig {
  const checked = checkTimeoutPolicyConfig(config)
  if (checked.config === undefined) throw new TimeoutPolicyConfigError(checked.issues)
  return checked.config
}

/** Splits `/a/b` into `['a', 'b']` for Standard Schema issue paths. */
function pathOf(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/')
}

/** One issue as a Standard Schema v1 validator reports it. */
export interface TimeoutConfigSchemaIssue {
  readonly message: string
  /** Property path of the offending field, e.g. `['hardLimit', 'graceMs']`. */
  readonly path: readonly string[]
}

/** A Standard Schema v1 validator of {@link TimeoutPolicyConfig} (synchronous). */
export interface TimeoutPolicyConfigValidator {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    validate(value: unknown): { readonly value: TimeoutPolicyConfig | undefined; readonly issues?: undefined } | { readonly issues: readonly TimeoutConfigSchemaIssue[] }
  }
}

/**
 * The configuration as a Standard Schema v1 validator (the plugin's `Config`): cordis runs it
 * before `apply`, so a bad value fails plugin start with a `ValidationError` whose message
 * lists each issue with its field. The validated value passes through unchanged. Calling it
 * as a function (what cordis 3 does with `Config`) throws the `CordisVersionError` of
 * `cordisCalledConfig` from `@deepseek-ai/dsh-tools`.
 */
export const TimeoutPolicyConfigSchema: TimeoutPolicyConfigValidator = Object.freeze(Object.assign(function TimeoutPolicyConfig(): never {
  // Only cordis 3 calls `Config` (cordis 4 reads `~standard`): name the version, not `schema is not a function`.
  throw cordisCalledConfig('TimeoutPolicy')
}, {
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: 'dsh-tool-call-timeout-policy',
    validate(value: unknown) {
      const { issues } = checkTimeoutPolicyConfig(value)
      if (issues.length > 0) return { issues: issues.map((issue) => ({ message: issue.message, path: pathOf(issue.pointer) })) }
      return { value: value as TimeoutPolicyConfig | undefined }
    },
  }),
}))
