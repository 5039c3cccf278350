/**
 * The harness as a user meets it: boot in one call, mint scopes and agents, run batches,
 * tear down quiescently.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { NoExecutorError, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import {
  call,
  createHarness,
  echoTool,
  Gate,
  gatedTool,
  HarnessLeakError,
  MemorySessionLog,
  withHarness,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const texts = (results: readonly ToolResult[]) => results.map((r) => r.content.map((b) => (b.type === 'text' ? b.text : `[${b.mimeType}]`)).join(''))

describe('createHarness', () => {
  test('boots the registry and the native executor; a registered tool runs through ctx.tools.execute', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const results = await h.execute([call('echo', { text: 'hi' }, 'c1')])
    expect(results).toEqual([{ callId: 'c1', isError: false, value: { text: 'hi' }, content: [{ type: 'text', text: '{"text":"hi"}' }], meta: { toolName: 'echo' } }])
    expect(Object.isFrozen(results)).toBe(true)
    expect(h.tools.schemas().map((s) => s.name)).toEqual(['echo'])
    expect(h.tools.executor()?.name).toBe('native')
  })

  test('executor "none" boots without an executor: execute rejects with NO_EXECUTOR', async () => {
    h = await createHarness({ executor: 'none' })
    h.ctx.tools.register(echoTool())
    await expect(h.execute([call('echo', {})])).rejects.toBeInstanceOf(NoExecutorError)
  })

  test('an executor object is mounted at the deployment and serves the batch', async () => {
    const seen: string[] = []
    h = await createHarness({
      executor: {
        name: 'recording',
        describe: (input) => ({ tools: input.schemas, sections: [] }),
        execute: (batch) => {
          seen.push(...batch.calls.map((c) => String((c as { callId: string }).callId)))
          return batch.pipeline.runBatch(batch)
        },
      },
    })
    h.ctx.tools.register(echoTool())
    await h.execute([call('echo', {}, 'x1'), call('echo', {}, 'x2')])
    expect(seen).toEqual(['x1', 'x2'])
    expect(h.tools.executor()?.name).toBe('recording')
  })

  test('native config and plugins are applied: the pool bound holds and a policy plugin denies', async () => {
    const denyWrites = {
      name: 'deny-writes',
      apply(ctx: Context, config: { prefix: string }) {
        ctx.on('tools/pre-execute', (exec, next) => (exec.name.startsWith(config.prefix) ? { type: 'deny', reason: 'read-only deployment' } : next()))
      },
    }
    h = await createHarness({ native: { maxParallelCalls: 2 }, plugins: [{ plugin: denyWrites, config: { prefix: 'write' } }] })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    h.ctx.tools.register(echoTool({ name: 'write_file' }))
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b'), call('gated', {}, 'c'), call('write_file', {}, 'w')])
    await gate.started(2)
    expect(gate.live).toBe(2)
    gate.releaseAll()
    await gate.started(3)
    gate.releaseAll()
    const results = await pending
    expect(gate.peak).toBe(2)
    expect(texts(results)).toEqual(['done a', 'done b', 'done c', 'Error: read-only deployment'])
  })

  test('a plugin that fails to start disposes what was booted and rethrows', async () => {
    const failing = { name: 'broken', apply: () => { throw new RangeError('bad config: /x must be a number') } }
    await expect(createHarness({ plugins: [{ plugin: failing }] })).rejects.toThrow('bad config: /x must be a number')
  })

  test('presets and agents are minted under the deployment; listeners are scope-filtered', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const preset = h.preset('coder')
    const a1 = h.agent('a1', { parent: preset })
    const a2 = h.agent('a2')
    expect(a1.agent.scope).toMatchObject({ id: 'a1', kind: 'agent', parent: { id: 'coder', kind: 'preset', parent: { id: 'deployment' } } })
    expect(a2.agent.scope.parent?.id).toBe('deployment')
    const presetSaw: string[] = []
    preset.on('tools/result', (r) => {
      presetSaw.push(r.callId)
    })
    await h.execute([call('echo', {}, 'from-a1')], { agent: a1.agent })
    await h.execute([call('echo', {}, 'from-a2')], { agent: a2.agent })
    expect(presetSaw).toEqual(['from-a1'])
  })

  test('agent(id, { log }) and agentWithLog(id) attach a session log that records calls and results in model order', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const log = new MemorySessionLog()
    const plain = h.agent('a1', { log })
    await h.execute([call('echo', {}, 'c1'), call('nope', {}, 'c2')], { agent: plain.agent })
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/call:c2', 'tool/result:c1', 'tool/result:c2'])
    const logged = h.agentWithLog('a2')
    expect(logged.agent.log).toBe(logged.log)
    await h.execute([call('echo', { text: 'x' }, 'd1')], { agent: logged.agent })
    expect(logged.log.outcomes()).toEqual([['d1', 'ok']])
    expect(log.events).toHaveLength(4)
  })

  test('resolve() pins the step tool set; conditional tools need it', async () => {
    h = await createHarness()
    let enabled = true
    h.ctx.tools.register(echoTool({ name: 'cond' }), { when: () => enabled })
    const set = await h.resolve()
    expect(set.has('cond')).toBe(true)
    const [withSet] = await h.execute([call('cond', {}, 'c1')], { toolSet: set })
    const [without] = await h.execute([call('cond', {}, 'c2')])
    expect(withSet!.isError).toBe(false)
    expect(without).toMatchObject({ isError: true, error: { info: { code: 'UNKNOWN_TOOL' } } })
    enabled = false
    expect((await h.resolve()).has('cond')).toBe(false)
    set.dispose()
  })
})

describe('createHarness options', () => {
  const KNOWN = 'registry, executor, native, plugins'
  test('an unknown key, in the options or in a plugin entry, and a non-object are refused before anything boots', async () => {
    await expect(createHarness({ natve: { maxParallelCalls: 2 } } as never)).rejects.toThrow(
      new RangeError(`createHarness options: /natve is not a known option (expected ${KNOWN}; did you mean "native"?)`),
    )
    await expect(createHarness({ natve: {} } as never)).rejects.toBeInstanceOf(RangeError)
    await expect(createHarness(5 as never)).rejects.toBeInstanceOf(RangeError)
    await expect(createHarness({ plugin: [] } as never)).rejects.toThrow(`createHarness options: /plugin is not a known option (expected ${KNOWN}; did you mean "plugins"?)`)
    await expect(createHarness({ plugins: [{ plugin: {}, configs: {} }] } as never)).rejects.toThrow(
      'createHarness options: /plugins/0/configs is not a known option (expected plugin, config; did you mean "config"?)',
    )
    await expect(createHarness({ plugins: [null] } as never)).rejects.toThrow('createHarness options: /plugins/0 must be an object, got null')
    await expect(createHarness({ plugins: {} } as never)).rejects.toThrow('createHarness options: /plugins must be an array, got an object')
    await expect(createHarness(5 as never)).rejects.toThrow('createHarness options: must be an object, got 5')
    // Neither a BigInt (JSON.stringify throws on one) nor a function's source text in the message.
    await expect(createHarness({ plugins: 5n } as never)).rejects.toThrow(new RangeError('createHarness options: /plugins must be an array, got 5'))
    await expect(createHarness((() => 1) as never)).rejects.toThrow(new RangeError('createHarness options: must be an object, got a function'))
  })

  test('an executor of none of its three forms and a plugins entry without a plugin are refused before anything boots', async () => {
    const executor = 'createHarness options: /executor must be "native", "none" or an executor { name, describe(input), execute(batch) }, got'
    await expect(createHarness({ executor: 'x' } as never)).rejects.toThrow(new RangeError(`${executor} "x"`))
    await expect(createHarness({ executor: {} } as never)).rejects.toThrow(new RangeError(`${executor} an object`))
    await expect(createHarness({ executor: 0 } as never)).rejects.toThrow(new RangeError(`${executor} 0`))
    const plugin = 'createHarness options: /plugins/1/plugin must be a cordis plugin (a function or an object with apply), got'
    const ok = { plugin: { name: 'p', apply() {} } }
    await expect(createHarness({ plugins: [ok, {}] } as never)).rejects.toThrow(new RangeError(`${plugin} undefined`))
    await expect(createHarness({ plugins: [ok, { plugin: { name: 'q' } }] } as never)).rejects.toThrow(new RangeError(`${plugin} an object`))
    await expect(createHarness({ plugins: [ok, { plugin: 'timeout' }] } as never)).rejects.toThrow(new RangeError(`${plugin} "timeout"`))
    // A function plugin and an executor object are accepted: the object is the mounted executor, the function was applied.
    const description = { tools: [], sections: [] }
    const executorObject = { name: 'null', describe: () => description, execute: async () => [] }
    const applied: string[] = []
    h = await createHarness({ executor: executorObject as never, plugins: [{ plugin: function fn() { applied.push('fn') } }] })
    expect([h.ctx.tools.describe(), await h.ctx.tools.execute({ calls: [] }), applied]).toEqual([description, [], ['fn']])
    expect(h.ctx.tools.describe()).toBe(description)
  })

  test('the registry and native configs are checked by their plugins (a nested typo names its own config)', async () => {
    await expect(createHarness({ registry: { maxArgumentByte: 10 } } as never)).rejects.toThrow('tools config: /maxArgumentByte is not a known option')
    await expect(createHarness({ native: { maxParallelCall: 2 } } as never)).rejects.toThrow('native executor config: /maxParallelCall is not a known option')
  })

  test('null for executor, native or registry means the default: the native executor runs the batch', async () => {
    for (const options of [{ executor: null }, { native: null }, { registry: null }, { executor: null, native: null, registry: null }]) {
      h = await createHarness(options as never)
      h.ctx.tools.register(echoTool())
      expect([h.ctx.tools.describe().tools.map((t) => t.name), texts(await h.execute([call('echo', { text: 'hi' }, 'c1')]))]).toEqual([['echo'], ['{"text":"hi"}']])
      await h.dispose()
    }
  })

  test('every documented option is accepted (TSDoc example and README)', async () => {
    h = await createHarness({ registry: { maxArgumentBytes: 1_000 }, executor: 'native', native: { maxParallelCalls: 2, warmUp: false }, plugins: [{ plugin: { name: 'p', apply() {} }, config: {} }, { plugin: { name: 'q', apply() {} } }] })
    h.ctx.tools.register(echoTool())
    expect(texts(await h.execute([call('echo', { text: 'hi' }, 'c1')]))).toEqual(['{"text":"hi"}'])
  })
})

describe('quiescent teardown', () => {
  test('dispose removes every listener, guard and tool the test registered, and is idempotent', async () => {
    const wrapper = { name: 'wrapper', apply: (ctx: Context) => void ctx.on('tools/execute', (_e, next) => next()) }
    h = await createHarness({ plugins: [{ plugin: wrapper }] })
    h.ctx.tools.register(echoTool())
    h.ctx.on('tools/pre-execute', (_e, next) => next())
    h.ctx.on('tools/result', () => undefined)
    h.preset('p').on('tools/post-execute', (_e, _d, next) => next())
    h.ctx.tools.guard(() => undefined)
    expect(h.listeners()).toEqual({ 'tools/pre-execute': 1, 'tools/execute': 1, 'tools/post-execute': 1, 'tools/result': 1 })
    const first = h.dispose()
    const second = h.dispose()
    expect(second).toBe(first)
    await first
    expect(h.disposed).toBe(true)
    expect(h.listeners()).toEqual({})
    expect(() => h!.ctx.tools.register(echoTool({ name: 'late' }))).toThrow()
  })

  test('dispose waits for a running batch to drain before the registry goes', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([call('gated', { id: 'x' }, 'g1')])
    await gate.started(1)
    const order: string[] = []
    const disposing = h.dispose().then(() => order.push('disposed'))
    void pending.then(() => order.push('batch settled'))
    await new Promise((r) => setImmediate(r))
    expect(order).toEqual([])
    gate.releaseAll()
    await disposing
    expect(order).toEqual(['batch settled', 'disposed'])
    expect((await pending)[0]).toMatchObject({ isError: false, value: { id: 'x' } })
  })

  test('withHarness returns fn’s value, disposes, and checks that no listener is left', async () => {
    const out = await withHarness(async (harness) => {
      harness.ctx.tools.register(echoTool())
      harness.ctx.on('tools/result', () => undefined)
      return texts(await harness.execute([call('echo', { text: 'a' }, 'c1')]))
    })
    expect(out).toEqual(['{"text":"a"}'])
  })

  test('withHarness reports listeners left on the root context as a HarnessLeakError', async () => {
    const error = await withHarness((harness) => {
      harness.root.on('tools/result', () => undefined) // the root outlives the test fiber… but not the root fiber
      harness.root.events._hooks['tools/result']!.push({ ctx: harness.root, callback: () => undefined }) // a raw push no fiber owns
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarnessLeakError)
    expect((error as HarnessLeakError).listeners).toEqual({ 'tools/result': 1 })
    expect((error as Error).message).toBe('the harness was disposed but listeners remain: tools/result ×1')
  })

  test('withHarness disposes and rethrows when fn throws', async () => {
    let captured: Harness | undefined
    await expect(
      withHarness((harness) => {
        captured = harness
        harness.ctx.on('tools/result', () => undefined)
        throw new Error('test body failed')
      }),
    ).rejects.toThrow('test body failed')
    expect(captured?.disposed).toBe(true)
    expect(captured?.listeners()).toEqual({})
  })
})
