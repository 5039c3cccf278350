/**
 * The retry policy with the testkit's manual clock: which calls are repeated, which failures,
 * the backoff and jitter, the caller's signal during waits, the order with the timeout policy,
 * and what the result meta and `tools/retry` events show.
 */
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, ToolError, type AnyToolDefinition, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, ManualClock, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { backoffDelay, resolveRetryPolicyConfig, retryAfterMs, RetryPolicy, RetryPolicyConfigError, type RetryPolicyConfig, type ToolRetryEvent } from '@deepseek-ai/dsh-tool-call-retry-policy'

let h: Harness | undefined
let uninstall: (() => void) | undefined
afterEach(async () => {
  uninstall?.()
  uninstall = undefined
  await h?.dispose()
  h = undefined
})

const DETERMINISTIC: RetryPolicyConfig = { initialDelayMs: 100, multiplier: 2, jitter: 'none' }

/** Boots a harness with the given wrappers in order, then installs a manual clock. */
async function boot(plugins: { plugin: unknown; config?: unknown }[]): Promise<{ h: Harness; clock: ManualClock; retries: ToolRetryEvent[] }> {
  h = await createHarness({ plugins })
  const clock = new ManualClock()
  uninstall = clock.install()
  const retries: ToolRetryEvent[] = []
  h.ctx.on('tools/retry', (event) => {
    retries.push(event)
  })
  return { h, clock, retries }
}

/**
 * A tool that fails its first `failures` attempts with `makeError(attempt)`, then answers
 * `ok after <n>`. Records attempt start times on the clock.
 */
function flaky(clock: () => ManualClock, options: { failures: number; makeError?: (attempt: number) => unknown; idempotent?: boolean; name?: string; timeoutMs?: number; hangFirst?: boolean }) {
  const starts: number[] = []
  const tool = defineTool({
    name: options.name ?? 'fetch_status',
    description: 'Fetches a status page.',
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    ...(options.idempotent === false ? {} : { idempotent: true }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    async execute(_args, exec) {
      starts.push(clock().now)
      const attempt = starts.length
      if (options.hangFirst === true && attempt === 1) {
        await new Promise((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true }))
      }
      if (attempt <= options.failures) throw options.makeError?.(attempt) ?? Object.assign(new Error(`connection reset (attempt ${attempt})`), { code: 'ECONNRESET' })
      return `ok after ${attempt}`
    },
  })
  return { tool, starts }
}

const text = (r: ToolResult | undefined): string => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('')
const code = (r: ToolResult | undefined): string | undefined => (r?.isError === true ? r.error.info?.code : undefined)

describe('what is retried', () => {
  test('an idempotent tool failing transiently: exponential backoff, attempts in meta and as events', async () => {
    const { h, clock, retries } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    const { tool, starts } = flaky(() => clock, { failures: 2 })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('ok after 3')
    expect(starts).toEqual([0, 100, 300])
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 3, delaysMs: [100, 200], errors: ['ECONNRESET', 'ECONNRESET'] })
    expect(retries.map((e) => [e.callId, e.toolName, e.attempt, e.delayMs, e.error.message, e.error.info.code])).toEqual([
      ['c1', 'fetch_status', 1, 100, 'connection reset (attempt 1)', 'ECONNRESET'],
      ['c1', 'fetch_status', 2, 200, 'connection reset (attempt 2)', 'ECONNRESET'],
    ])
    expect(clock.pending).toBe(0)
  })

  test('a success at the first attempt carries no retry annotation', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    const { tool } = flaky(() => clock, { failures: 0 })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('ok after 1')
    expect(r!.meta).toEqual({ toolName: 'fetch_status' })
  })

  test('a tool not declared safe to repeat runs once', async () => {
    const { h, clock, retries } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    const { tool, starts } = flaky(() => clock, { failures: 1, idempotent: false })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('Error: connection reset (attempt 1)')
    expect(code(r)).toBe('ECONNRESET')
    expect(starts).toEqual([0])
    expect(retries).toEqual([])
  })

  test('MCP readOnlyHint / idempotentHint annotations on a definition make it repeatable', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    let attempts = 0
    const base = defineRawTool({
      name: 'mcp_read',
      description: 'An MCP tool.',
      inputSchema: { type: 'object' },
      execute: () => {
        attempts++
        if (attempts === 1) throw Object.assign(new Error('503 from the server'), { status: 503 })
        return 'read'
      },
    })
    const withAnnotations: AnyToolDefinition = Object.assign({ ...base }, { annotations: { readOnlyHint: true } })
    h.ctx.tools.register(withAnnotations)
    const [r] = await clock.settle(h.execute([call('mcp_read', {}, 'c1')]))
    expect(text(r)).toBe('read')
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 2, delaysMs: [100], errors: ['TOOL_FAILED'] })
  })

  test('a definition registered by @deepseek-ai/dsh-tool-mcp (annotations under definition.mcp) with readOnlyHint is repeatable', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    let attempts = 0
    const base = defineRawTool({
      name: 'srv__read',
      description: 'An MCP tool.',
      inputSchema: { type: 'object' },
      execute: () => {
        attempts++
        if (attempts === 1) throw Object.assign(new Error('503 from the server'), { status: 503 })
        return 'read'
      },
    })
    // The shape the MCP bridge registers: McpToolDefinition.mcp = { server, tool, annotations, structured }.
    const bridged: AnyToolDefinition = Object.assign({ ...base }, { mcp: { server: 'srv', tool: 'read', annotations: { readOnlyHint: true }, structured: false } })
    const idempotentOnly: AnyToolDefinition = Object.assign({ ...base, name: 'srv__put' }, { mcp: { server: 'srv', tool: 'put', annotations: { idempotentHint: true }, structured: false } })
    const destructive: AnyToolDefinition = Object.assign({ ...base, name: 'srv__rm' }, { mcp: { server: 'srv', tool: 'rm', annotations: { readOnlyHint: false, destructiveHint: true }, structured: false } })
    h.ctx.tools.register(bridged)
    h.ctx.tools.register(idempotentOnly)
    h.ctx.tools.register(destructive)
    const outcomes: unknown[] = []
    for (const name of ['srv__read', 'srv__put', 'srv__rm']) {
      attempts = 0
      const [r] = await clock.settle(h.execute([call(name, {}, name)]))
      outcomes.push([name, text(r), r!.meta?.annotations?.retry ?? null])
    }
    expect(outcomes).toEqual([
      ['srv__read', 'read', { attempts: 2, delaysMs: [100], errors: ['TOOL_FAILED'] }],
      ['srv__put', 'read', { attempts: 2, delaysMs: [100], errors: ['TOOL_FAILED'] }],
      ['srv__rm', 'Error: 503 from the server', null],
    ])
  })

  test('a non-transient failure is not retried; a custom predicate decides otherwise', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    const plain = flaky(() => clock, { failures: 1, name: 'plain', makeError: () => new Error('file not found') })
    h.ctx.tools.register(plain.tool)
    const [r] = await clock.settle(h.execute([call('plain', {}, 'c1')]))
    expect(text(r)).toBe('Error: file not found')
    expect(plain.starts).toEqual([0])

    const scoped = h.agent('a1')
    await scoped.ctx.plugin(RetryPolicy, { ...DETERMINISTIC, retryable: ({ error }) => (error as Error).message.includes('locked') })
    const locked = flaky(() => clock, { failures: 1, name: 'locked', makeError: () => new Error('database is locked') })
    h.ctx.tools.register(locked.tool)
    const [s] = await clock.settle(h.execute([call('locked', {}, 'c2')], { agent: scoped.agent }))
    expect(text(s)).toBe('ok after 2')
  })

  test('never retried whatever the predicate says: INVALID_ARGS, denial codes, a body’s own AbortError', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: { ...DETERMINISTIC, retryable: () => true } }])
    const errors: Record<string, unknown> = {
      args: new ToolError('INVALID_ARGS', 'bad input'),
      denied: new ToolError('TOOL_DENIED', 'not allowed'),
      abort: Object.assign(new Error('stream closed'), { name: 'AbortError' }),
    }
    const tools = Object.entries(errors).map(([name, error]) => flaky(() => clock, { failures: 5, name, makeError: () => error }))
    for (const t of tools) h.ctx.tools.register(t.tool)
    const results = await clock.settle(h.execute(Object.keys(errors).map((name) => call(name, {}, name))))
    expect(results.map(code)).toEqual(['INVALID_ARGS', 'TOOL_DENIED', 'ABORTED'])
    expect(tools.map((t) => t.starts.length)).toEqual([1, 1, 1])
  })

  test('attempts used up: the last failure is the result, all attempts in meta', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: { ...DETERMINISTIC, maxAttempts: 4, maxDelayMs: 250 } }])
    const { tool, starts } = flaky(() => clock, { failures: 10 })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('Error: connection reset (attempt 4)')
    expect(starts).toEqual([0, 100, 300, 550])
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 4, delaysMs: [100, 200, 250], errors: ['ECONNRESET', 'ECONNRESET', 'ECONNRESET', 'ECONNRESET'] })
  })
})

describe('the caller’s signal', () => {
  test('an abort during a wait ends it at once: ABORTED, no further attempt, no timer or listener left', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    const { tool, starts } = flaky(() => clock, { failures: 5 })
    h.ctx.tools.register(tool)
    const controller = new AbortController()
    const pending = h.execute([call('fetch_status', {}, 'c1')], { signal: controller.signal })
    await clock.advance(150) // attempt 2 at t=100 failed; waiting 200 ms
    expect(starts).toEqual([0, 100])
    controller.abort()
    const [r] = await clock.settle(pending)
    expect(code(r)).toBe('ABORTED')
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 2, delaysMs: [100, 200], errors: ['ECONNRESET', 'ECONNRESET'] })
    expect(starts).toEqual([0, 100])
    expect(clock.pending).toBe(0)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })
})

describe('order with the timeout policy', () => {
  test('retry loaded first: the deadline is per attempt, and a timed-out attempt is retried', async () => {
    const { h, clock } = await boot([
      { plugin: RetryPolicy, config: DETERMINISTIC },
      { plugin: TimeoutPolicy, config: {} },
    ])
    const { tool, starts } = flaky(() => clock, { failures: 0, timeoutMs: 1_000, hangFirst: true })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('ok after 2')
    expect(starts).toEqual([0, 1_100])
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 2, delaysMs: [100], errors: ['TOOL_TIMEOUT'] })
  })

  test('timeout loaded first: one budget for all attempts and waits — it ends a wait as TOOL_TIMEOUT', async () => {
    const { h, clock } = await boot([
      { plugin: TimeoutPolicy, config: {} },
      { plugin: RetryPolicy, config: DETERMINISTIC },
    ])
    const { tool, starts } = flaky(() => clock, { failures: 5, timeoutMs: 250 })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('Error: tool call timed out after 250ms')
    expect(code(r)).toBe('TOOL_TIMEOUT')
    expect(starts).toEqual([0, 100])
    expect(clock.now).toBe(250)
    expect(clock.pending).toBe(0)
  })
})

describe('backoff and config', () => {
  test('full and equal jitter use the random source; delays are capped', () => {
    const base = { initialDelayMs: 100, multiplier: 3, maxDelayMs: 500 }
    const full = resolveRetryPolicyConfig({ ...base, random: () => 0.5 })
    const equal = resolveRetryPolicyConfig({ ...base, jitter: 'equal', random: () => 0 })
    const none = resolveRetryPolicyConfig({ ...base, jitter: 'none' })
    expect([1, 2, 3, 4].map((n) => backoffDelay(full, n))).toEqual([50, 150, 250, 250])
    expect([1, 2, 3, 4].map((n) => backoffDelay(equal, n))).toEqual([50, 150, 250, 250])
    expect([1, 2, 3, 4].map((n) => backoffDelay(none, n))).toEqual([100, 300, 500, 500])
  })

  test('bad fields are RetryPolicyConfigErrors naming the field, also at plugin start', async () => {
    expect(() => resolveRetryPolicyConfig({ maxAttempts: 0 })).toThrow('retry policy config: /maxAttempts must be an integer from 1 to 100, got 0')
    // A string is quoted, so "3" does not read as the number 3 (showConfigValue, like every config message).
    expect(() => resolveRetryPolicyConfig({ maxAttempts: '3' as never })).toThrow('retry policy config: /maxAttempts must be an integer from 1 to 100, got "3"')
    expect(() => resolveRetryPolicyConfig({ jitter: (() => 'full') as never })).toThrow('retry policy config: /jitter must be "full", "equal" or "none", got a function')
    expect(() => resolveRetryPolicyConfig({ jitter: 'some' as never })).toThrow('retry policy config: /jitter must be "full", "equal" or "none", got "some"')
    expect(() => resolveRetryPolicyConfig({ initialDelayMs: 500, maxDelayMs: 100 })).toThrow('retry policy config: /maxDelayMs must be at least initialDelayMs (500), got 100')
    expect(() => resolveRetryPolicyConfig({ multiplier: 0.5 })).toThrow('retry policy config: /multiplier must be a number from 1 to 1000, got 0.5')
    // README "Configuration": the ranges of the table.
    expect(() => resolveRetryPolicyConfig({ multiplier: 1_001 })).toThrow('retry policy config: /multiplier must be a number from 1 to 1000, got 1001')
    expect(() => resolveRetryPolicyConfig({ initialDelayMs: -1 })).toThrow('retry policy config: /initialDelayMs must be a number from 0 to 2147483647, got -1')
    expect(() => resolveRetryPolicyConfig({ maxDelayMs: 2_147_483_648 })).toThrow('retry policy config: /maxDelayMs must be a number from 0 to 2147483647, got 2147483648')
    expect(resolveRetryPolicyConfig({ multiplier: 1_000, initialDelayMs: 0, maxDelayMs: 2_147_483_647, maxRetryAfterMs: 0 })).toMatchObject({ multiplier: 1_000, initialDelayMs: 0, maxDelayMs: 2_147_483_647, maxRetryAfterMs: 0 })
    expect(() => resolveRetryPolicyConfig({ retryable: 'yes' as never })).toThrow('retry policy config: /retryable must be a function, got string')
    expect(() => resolveRetryPolicyConfig({ respectRetryAfter: 'yes' as never })).toThrow('retry policy config: /respectRetryAfter must be a boolean, got string')
    expect(() => resolveRetryPolicyConfig({ maxRetryAfterMs: -1 })).toThrow('retry policy config: /maxRetryAfterMs must be a number from 0 to 2147483647, got -1')
    expect(() => resolveRetryPolicyConfig({ maxRetryAfterMs: '5' as never })).toThrow('retry policy config: /maxRetryAfterMs must be a number from 0 to 2147483647, got "5"')
    h = await createHarness()
    await expect(h.ctx.plugin(RetryPolicy, { maxAttempts: 1.5 })).rejects.toThrow('retry policy config: /maxAttempts must be an integer from 1 to 100, got 1.5')
  })
})

describe('unknown config keys', () => {
  const KNOWN = 'maxAttempts, initialDelayMs, multiplier, maxDelayMs, jitter, random, repeatable, retryable, respectRetryAfter, maxRetryAfterMs'

  test('a typo is a RetryPolicyConfigError naming it, the known keys and the close one, also at plugin start', async () => {
    const typo = { maxAttempt: 5 } as RetryPolicyConfig
    expect(() => resolveRetryPolicyConfig(typo)).toThrow(`retry policy config: /maxAttempt is not a known option (expected ${KNOWN}; did you mean "maxAttempts"?)`)
    expect(() => resolveRetryPolicyConfig({ backoff: 2 } as RetryPolicyConfig)).toThrow(`retry policy config: /backoff is not a known option (expected ${KNOWN})`)
    try {
      resolveRetryPolicyConfig(typo)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError)
      expect(error).toMatchObject({ name: 'RetryPolicyConfigError', pointer: '/maxAttempt' })
    }
    h = await createHarness()
    await expect(h.ctx.plugin(RetryPolicy, typo)).rejects.toThrow(`retry policy config: /maxAttempt is not a known option (expected ${KNOWN}; did you mean "maxAttempts"?)`)
  })

  test('a non-object config is refused; no config or null means the defaults', () => {
    expect(new RetryPolicyConfigError('', 'must be an object, got number').message).toBe('retry policy config: must be an object, got number')
    expect(() => resolveRetryPolicyConfig(3 as never)).toThrow(new RetryPolicyConfigError('', 'must be an object, got number'))
    expect(() => resolveRetryPolicyConfig([] as never)).toThrow(new RetryPolicyConfigError('', 'must be an object, got an array'))
    expect(resolveRetryPolicyConfig(undefined).maxAttempts).toBe(3)
    expect(resolveRetryPolicyConfig(null).maxAttempts).toBe(3)
  })

  test('every documented key is accepted (README table and examples)', () => {
    const all: Required<RetryPolicyConfig> = {
      maxAttempts: 4,
      initialDelayMs: 50,
      multiplier: 3,
      maxDelayMs: 1_000,
      jitter: 'equal',
      random: () => 0.5,
      repeatable: () => true,
      retryable: () => true,
      respectRetryAfter: false,
      maxRetryAfterMs: 10_000,
    }
    expect(resolveRetryPolicyConfig(all)).toMatchObject({ maxAttempts: 4, initialDelayMs: 50, multiplier: 3, maxDelayMs: 1_000, jitter: 'equal', respectRetryAfter: false, maxRetryAfterMs: 10_000 })
    expect(resolveRetryPolicyConfig({ maxAttempts: 3, initialDelayMs: 50, maxDelayMs: 1_000 }).maxAttempts).toBe(3)
    expect(resolveRetryPolicyConfig({ maxRetryAfterMs: 10_000 }).maxRetryAfterMs).toBe(10_000)
  })
})

/** An HTTP 429 whose response asks for `retryAfter` (a `retry-after` header value). */
function tooManyRequests(retryAfter: string | undefined): Error {
  const headers = new Headers(retryAfter === undefined ? {} : { 'retry-after': retryAfter })
  return Object.assign(new Error('429 Too Many Requests'), { status: 429, headers })
}

describe('Retry-After', () => {
  test('retryAfterMs reads retryAfterMs, retry-after-ms and retry-after (seconds or HTTP-date), on the error or its cause', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')
    expect(retryAfterMs({ retryAfterMs: 1500 }, now)).toBe(1500)
    expect(retryAfterMs({ retryAfterMs: 12.2 }, now)).toBe(13)
    expect(retryAfterMs({ headers: new Headers({ 'Retry-After': '3' }) }, now)).toBe(3000)
    expect(retryAfterMs({ headers: { 'Retry-After-Ms': '250.5', 'retry-after': '9' } }, now)).toBe(251)
    expect(retryAfterMs({ response: { status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:04 GMT' } } }, now)).toBe(4000)
    expect(retryAfterMs({ headers: { 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' } }, now)).toBe(0)
    expect(retryAfterMs({ headers: { 'retry-after': ['5'] } }, now)).toBe(5000)
    expect(retryAfterMs({ headers: new Map([['retry-after', '7']]) }, now)).toBe(7000)
    expect(retryAfterMs(new Error('wrapped', { cause: { headers: { 'retry-after': '2' } } }), now)).toBe(2000)
    // Nothing usable: no advice.
    expect(retryAfterMs({ headers: { 'retry-after': 'soon' } }, now)).toBeUndefined()
    expect(retryAfterMs({ headers: { 'retry-after': '-3' } }, now)).toBeUndefined()
    expect(retryAfterMs({ retryAfterMs: -1 }, now)).toBeUndefined()
    expect(retryAfterMs({ retryAfterMs: Number.NaN, headers: {} }, now)).toBeUndefined()
    expect(retryAfterMs(new Error('a', { cause: new Error('b', { cause: { retryAfterMs: 5 } }) }), now)).toBeUndefined()
    expect(retryAfterMs('429', now)).toBeUndefined()
  })

  test('a retry waits as long as the server asked; without advice the backoff applies; the event names the advice', async () => {
    const { h, clock, retries } = await boot([{ plugin: RetryPolicy, config: { ...DETERMINISTIC, maxAttempts: 4 } }])
    const { tool, starts } = flaky(() => clock, { failures: 3, makeError: (attempt) => tooManyRequests(attempt === 2 ? undefined : '2') })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('ok after 4')
    // 2 s (advice), 200 ms (backoff of the second retry), 2 s (advice).
    expect(starts).toEqual([0, 2000, 2200, 4200])
    expect(r!.meta?.annotations?.retry).toEqual({ attempts: 4, delaysMs: [2000, 200, 2000], errors: ['TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED'] })
    expect(retries.map((e) => [e.attempt, e.delayMs, e.retryAfterMs])).toEqual([
      [1, 2000, 2000],
      [2, 200, undefined],
      [3, 2000, 2000],
    ])
    expect(clock.pending).toBe(0)
  })

  test('an HTTP-date is counted from Date.now()', async () => {
    const { h, clock } = await boot([{ plugin: RetryPolicy, config: DETERMINISTIC }])
    uninstall?.()
    uninstall = clock.install({ date: true })
    clock.now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')
    const start = clock.now
    const { tool, starts } = flaky(() => clock, { failures: 1, makeError: () => tooManyRequests('Wed, 21 Oct 2026 07:28:05 GMT') })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(text(r)).toBe('ok after 2')
    expect(starts.map((t) => t - start)).toEqual([0, 5000])
  })

  test('advice over maxRetryAfterMs ends the call with that failure at once; respectRetryAfter: false keeps the backoff', async () => {
    const { h, clock, retries } = await boot([{ plugin: RetryPolicy, config: { ...DETERMINISTIC, maxRetryAfterMs: 1000 } }])
    const { tool, starts } = flaky(() => clock, { failures: 1, makeError: () => tooManyRequests('5') })
    h.ctx.tools.register(tool)
    const [r] = await clock.settle(h.execute([call('fetch_status', {}, 'c1')]))
    expect(code(r)).toBe('TOOL_FAILED')
    expect(r!.isError && r!.error.message).toBe('429 Too Many Requests')
    expect(starts).toEqual([0])
    expect(retries).toEqual([])
    expect(r!.meta?.annotations?.retry).toBeUndefined()
    expect(clock.pending).toBe(0)
    await h.dispose()

    const second = await boot([{ plugin: RetryPolicy, config: { ...DETERMINISTIC, respectRetryAfter: false } }])
    const flakyAgain = flaky(() => second.clock, { failures: 1, makeError: () => tooManyRequests('5') })
    second.h.ctx.tools.register(flakyAgain.tool)
    const [again] = await second.clock.settle(second.h.execute([call('fetch_status', {}, 'c2')]))
    expect(text(again)).toBe('ok after 2')
    expect(flakyAgain.starts).toEqual([0, 100])
    expect(second.retries.map((e) => [e.delayMs, e.retryAfterMs])).toEqual([[100, undefined]])
  })
})
