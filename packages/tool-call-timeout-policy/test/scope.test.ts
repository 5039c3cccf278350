/**
 * Where the policy applies (ARCHITECTURE §3: listeners are scope-filtered and disposed with
 * their fiber) and how a bad config fails plugin start.
 */
import { describe, expect, test, vi } from 'vitest'
import { MAX_TIMER_MS } from '@deepseek-ai/dsh-tools'
import { call, } from '@deepseek-ai/dsh-tool-testkit'
import {
  DEFAULT_GRACE_MS,
  TimeoutPolicy,
  TimeoutPolicyConfigError,
  TimeoutPolicyConfigSchema,
  checkTimeoutPolicyConfig,
  resolveTimeoutPolicyConfig,
  type TimeoutPolicyConfig,
} from '../src/index'
import { codeOf, probeTool, textOf, useFakeTimerHarness } from './fixtures/tools'

const harness = useFakeTimerHarness()

describe('scoped mounting', () => {
  test('mounted on one agent\'s context, it limits that agent only — not a sibling agent, not the deployment', async () => {
    const h = await harness()
    const { tool, runs } = probeTool()
    h.ctx.tools.register(tool)
    const limited = h.agent('limited')
    const free = h.agent('free')
    await limited.ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 100 })
    const controller = new AbortController()
    const signal = controller.signal
    const pending = Promise.all([
      h.execute([call('probe', { ms: 300 }, 'limited-1')], { agent: limited.agent, signal }),
      h.execute([call('probe', { ms: 300 }, 'free-1')], { agent: free.agent, signal }),
      h.execute([call('probe', { ms: 300 }, 'deployment-1')], { signal }),
    ])
    await vi.advanceTimersByTimeAsync(300)
    const [[a], [b], [c]] = await pending
    expect([codeOf(a), textOf(a)]).toEqual(['TOOL_TIMEOUT', 'Error: tool call timed out after 100ms'])
    expect(b).toMatchObject({ isError: false, value: 'slept 300ms' })
    expect(c).toMatchObject({ isError: false, value: 'slept 300ms' })
    // Unlimited calls never saw a derived signal.
    const byId = new Map(runs.map((r) => [r.callId, r.signal]))
    expect(byId.get('free-1')).toBe(signal)
    expect(byId.get('deployment-1')).toBe(signal)
    expect(byId.get('limited-1')).not.toBe(signal)
  })

  test('mounted on a preset, it limits the agents of that preset and not the agents of another preset', async () => {
    const h = await harness()
    const { tool } = probeTool()
    h.ctx.tools.register(tool)
    const strict = h.preset('strict')
    const relaxed = h.preset('relaxed')
    await strict.plugin(TimeoutPolicy, { defaultTimeoutMs: 100 })
    const inStrict = h.agent('s1', { parent: strict })
    const inRelaxed = h.agent('r1', { parent: relaxed })
    const pending = Promise.all([
      h.execute([call('probe', { ms: 300 }, 's')], { agent: inStrict.agent }),
      h.execute([call('probe', { ms: 300 }, 'r')], { agent: inRelaxed.agent }),
    ])
    await vi.advanceTimersByTimeAsync(300)
    const [[s], [r]] = await pending
    expect(codeOf(s)).toBe('TOOL_TIMEOUT')
    expect(r).toMatchObject({ isError: false, value: 'slept 300ms' })
  })

  test('disposing the plugin removes the wrapper: the same call is no longer limited', async () => {
    const h = await harness()
    const { tool, runs } = probeTool({ timeoutMs: 100 })
    h.ctx.tools.register(tool)
    const fiber = await h.ctx.plugin(TimeoutPolicy, {})
    const controller = new AbortController()

    let pending = h.execute([call('probe', { ms: 300 }, 'before')], { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(300)
    expect(codeOf((await pending)[0])).toBe('TOOL_TIMEOUT')

    await fiber.dispose()
    pending = h.execute([call('probe', { ms: 300 }, 'after')], { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(300)
    expect((await pending)[0]).toMatchObject({ isError: false, value: 'slept 300ms' })
    expect(runs[1]!.signal).toBe(controller.signal)
  })

  test('two mounts (deployment and agent) nest: the nearer, shorter budget reports its own ms', async () => {
    const h = await harness()
    const { tool } = probeTool()
    h.ctx.tools.register(tool)
    await h.ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 500 })
    const agent = h.agent('a')
    await agent.ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 100 })
    const other = h.agent('b')
    const pending = Promise.all([
      h.execute([call('probe', { ms: 1_000 }, 'a1')], { agent: agent.agent }),
      h.execute([call('probe', { ms: 1_000 }, 'b1')], { agent: other.agent }),
    ])
    await vi.advanceTimersByTimeAsync(500)
    const [[a], [b]] = await pending
    expect(textOf(a)).toBe('Error: tool call timed out after 100ms')
    expect(textOf(b)).toBe('Error: tool call timed out after 500ms')
  })
})

describe('configuration', () => {
  const bad: [string, unknown, RegExp][] = [
    ['zero budget', { defaultTimeoutMs: 0 }, /\/defaultTimeoutMs must be a positive finite number of milliseconds up to 2147483647, got 0/],
    ['negative budget', { defaultTimeoutMs: -5 }, /\/defaultTimeoutMs .* got -5/],
    ['NaN budget', { defaultTimeoutMs: Number.NaN }, /\/defaultTimeoutMs .* got NaN/],
    ['infinite budget', { defaultTimeoutMs: Number.POSITIVE_INFINITY }, /\/defaultTimeoutMs .* got Infinity/],
    ['budget over the timer limit', { defaultTimeoutMs: MAX_TIMER_MS + 1 }, /\/defaultTimeoutMs .* got 2147483648/],
    ['string budget', { defaultTimeoutMs: '100' }, /\/defaultTimeoutMs .* got "100"/],
    ['negative grace', { hardLimit: { graceMs: -1 } }, /\/hardLimit\/graceMs must be a non-negative finite number of milliseconds up to 2147483647, got -1/],
    ['hardLimit of the wrong type', { hardLimit: 'yes' }, /\/hardLimit must be true, false or \{ graceMs \}, got "yes"/],
    ['a typo in a key', { defaultTimeout: 100 }, /\/defaultTimeout is not a known option \(expected defaultTimeoutMs, hardLimit; did you mean "defaultTimeoutMs"\?\)/],
    ['not an object', 42, /expected an object such as \{ defaultTimeoutMs\?, hardLimit\? \}, got 42/],
  ]

  test.each(bad)('%s fails plugin start with a message naming the field, and mounts no wrapper', async (_label, config, message) => {
    const h = await harness()
    const { tool, runs } = probeTool()
    h.ctx.tools.register(tool)
    const silence = vi.spyOn(console, 'error').mockImplementation(() => {}) // cordis logs the failed fiber
    const silenceLog = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    let failure: unknown
    try {
      await h.ctx.plugin(TimeoutPolicy, config as TimeoutPolicyConfig)
    } catch (error) {
      failure = error
    } finally {
      silence.mockRestore()
      silenceLog.mockRestore()
    }
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toMatch(message)
    const signal = new AbortController().signal
    const pending = h.execute([call('probe', { ms: 10 }, 'c')], { signal })
    await vi.advanceTimersByTimeAsync(10)
    expect((await pending)[0]).toMatchObject({ isError: false })
    expect(runs[0]!.signal).toBe(signal)
  })

  test('resolveTimeoutPolicyConfig throws TimeoutPolicyConfigError listing every issue with its JSON pointer', () => {
    let error: unknown
    try {
      resolveTimeoutPolicyConfig({ defaultTimeoutMs: -1, hardLimit: { graceMs: Number.NaN } })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(TimeoutPolicyConfigError)
    expect(error).toBeInstanceOf(RangeError)
    expect((error as TimeoutPolicyConfigError).issues.map((i) => i.pointer)).toEqual(['/defaultTimeoutMs', '/hardLimit/graceMs'])
  })

  test('unknown keys read as in every other config of the family: each one, with a close known key as "did you mean"', () => {
    const issues = checkTimeoutPolicyConfig({ defaultTimeout: 100, hardLimit: { grace: 5 }, extra: 1 }).issues
    expect(issues).toEqual([
      { pointer: '/defaultTimeout', message: 'tool-call-timeout-policy config: /defaultTimeout is not a known option (expected defaultTimeoutMs, hardLimit; did you mean "defaultTimeoutMs"?)' },
      { pointer: '/extra', message: 'tool-call-timeout-policy config: /extra is not a known option (expected defaultTimeoutMs, hardLimit)' },
      { pointer: '/hardLimit/grace', message: 'tool-call-timeout-policy config: /hardLimit/grace is not a known option (expected graceMs; did you mean "graceMs"?)' },
    ])
    expect(() => resolveTimeoutPolicyConfig({ defaultTimeout: 100 } as never)).toThrow(
      'tool-call-timeout-policy config: /defaultTimeout is not a known option (expected defaultTimeoutMs, hardLimit; did you mean "defaultTimeoutMs"?)',
    )
  })

  test('a refused value reads as in every other config: a function by its kind, not its source', () => {
    expect(checkTimeoutPolicyConfig({ defaultTimeoutMs: () => 1 }).issues.map((i) => i.message)).toEqual([
      'tool-call-timeout-policy config: /defaultTimeoutMs must be a positive finite number of milliseconds up to 2147483647, got a function',
    ])
  })

  test('valid configs normalise: hardLimit true → default grace, limits inclusive', () => {
    expect(resolveTimeoutPolicyConfig()).toEqual({ defaultTimeoutMs: undefined, graceMs: undefined })
    expect(resolveTimeoutPolicyConfig({})).toEqual({ defaultTimeoutMs: undefined, graceMs: undefined })
    expect(resolveTimeoutPolicyConfig({ defaultTimeoutMs: MAX_TIMER_MS, hardLimit: true })).toEqual({ defaultTimeoutMs: MAX_TIMER_MS, graceMs: DEFAULT_GRACE_MS })
    expect(resolveTimeoutPolicyConfig({ hardLimit: { graceMs: 0 } })).toEqual({ defaultTimeoutMs: undefined, graceMs: 0 })
    expect(resolveTimeoutPolicyConfig({ hardLimit: {} })).toEqual({ defaultTimeoutMs: undefined, graceMs: DEFAULT_GRACE_MS })
    expect(resolveTimeoutPolicyConfig({ hardLimit: false, defaultTimeoutMs: 0.5 })).toEqual({ defaultTimeoutMs: 0.5, graceMs: undefined })
    expect(checkTimeoutPolicyConfig(null).issues).toEqual([])
  })

  test('the Standard Schema reports issues with property paths and passes valid values through', () => {
    const validate = TimeoutPolicyConfigSchema['~standard'].validate
    expect(validate({ hardLimit: { graceMs: -1 } })).toEqual({
      issues: [{ message: 'tool-call-timeout-policy config: /hardLimit/graceMs must be a non-negative finite number of milliseconds up to 2147483647, got -1', path: ['hardLimit', 'graceMs'] }],
    })
    const ok = { defaultTimeoutMs: 10 }
    expect(validate(ok)).toEqual({ value: ok })
  })
})
