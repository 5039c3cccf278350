/**
 * The native executor's own contract: config validation and what unmounting does to a running
 * batch (`drain` waits for it, `cancel` aborts it).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { createNativeExecutor, NativeExecutor, resolveNativeConfig } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, echoTool, Gate, gatedTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

describe('config', () => {
  test('defaults, and a RangeError naming the field for each invalid value', () => {
    expect(resolveNativeConfig()).toEqual({ maxParallelCalls: 10, onDispose: 'drain' })
    expect(() => resolveNativeConfig({ maxParallelCalls: 0 })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got 0'))
    expect(() => resolveNativeConfig({ maxParallelCalls: 2.5 })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got 2.5'))
    expect(() => resolveNativeConfig({ onDispose: 'abandon' as never })).toThrow(new RangeError('onDispose must be "drain" or "cancel", got "abandon"'))
    expect(() => resolveNativeConfig({ onDispose: (() => 'drain') as never })).toThrow(new RangeError('onDispose must be "drain" or "cancel", got a function'))
  })

  test('a string is shown quoted, so "3" does not read as the number 3; a null config means the defaults, as for the registry', () => {
    expect(() => resolveNativeConfig({ maxParallelCalls: '3' as never })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got "3"'))
    expect(() => resolveNativeConfig({ maxParallelCalls: null as never })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got null'))
    expect(() => resolveNativeConfig({ maxParallelCalls: [4] as never })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got an array'))
    expect(resolveNativeConfig(null as never)).toEqual({ maxParallelCalls: 10, onDispose: 'drain' })
  })

  test('an unknown key or a non-object config is a RangeError naming it, for the function, the factory and the plugin', async () => {
    expect(() => resolveNativeConfig({ maxParallel: 4 } as never)).toThrow(new RangeError('native executor config: /maxParallel is not a known option (expected maxParallelCalls, onDispose; did you mean "maxParallelCalls"?)'))
    expect(() => createNativeExecutor({ ondispose: 'cancel' } as never)).toThrow(new RangeError('native executor config: /ondispose is not a known option (expected maxParallelCalls, onDispose; did you mean "onDispose"?)'))
    // warmUp is the plugin's own option, not the factory's.
    expect(() => createNativeExecutor({ warmUp: true } as never)).toThrow(new RangeError('native executor config: /warmUp is not a known option (expected maxParallelCalls, onDispose)'))
    expect(() => resolveNativeConfig(4 as never)).toThrow(new RangeError('native executor config: must be an object, got 4'))
    // Neither a BigInt (JSON.stringify throws on one) nor a function's source text in the message.
    expect(() => resolveNativeConfig(4n as never)).toThrow(new RangeError('native executor config: must be an object, got 4'))
    expect(() => resolveNativeConfig((() => 1) as never)).toThrow(new RangeError('native executor config: must be an object, got a function'))
    h = await createHarness({ executor: 'none' })
    await expect(h.ctx.plugin(NativeExecutor, { warmup: true } as never)).rejects.toThrow(new RangeError('native executor config: /warmup is not a known option (expected maxParallelCalls, onDispose, warmUp; did you mean "warmUp"?)'))
    await expect(h.ctx.plugin(NativeExecutor, 'fast' as never)).rejects.toThrow(new RangeError('native executor config: must be an object, got "fast"'))
    // Nothing was mounted: the scope still takes an executor.
    const unmount = h.ctx.tools.mount(createNativeExecutor())
    await unmount()
  })

  test('every documented key is accepted (README "Config" and examples); the plugin takes no config and null as the defaults', async () => {
    expect(resolveNativeConfig({ maxParallelCalls: 4, onDispose: 'cancel' })).toEqual({ maxParallelCalls: 4, onDispose: 'cancel' })
    for (const config of [{ maxParallelCalls: 4, onDispose: 'drain' as const }, { maxParallelCalls: 1, onDispose: 'cancel' as const, warmUp: false }, {}, undefined, null]) {
      const harness = await createHarness({ executor: 'none' })
      try {
        await harness.ctx.plugin(NativeExecutor, config as never)
        harness.ctx.tools.register(echoTool())
        const [r] = await harness.execute([call('echo', { text: 'hi' }, 'c')])
        expect(r!.isError ? r!.error.message : r!.content).toEqual([{ type: 'text', text: '{"text":"hi"}' }])
      } finally {
        await harness.dispose()
      }
    }
  })
})

describe('unmounting mid-batch', () => {
  async function running(onDispose: 'drain' | 'cancel') {
    h = await createHarness({ executor: 'none' })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const unmount = h.ctx.tools.mount(createNativeExecutor({ maxParallelCalls: 1, onDispose }))
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b')])
    await gate.started(1)
    return { gate, unmount, pending }
  }

  test('drain: disposal waits for the accepted batch, which settles normally', async () => {
    const { gate, unmount, pending } = await running('drain')
    let disposed = false
    const disposal = unmount().then(() => (disposed = true))
    await new Promise((r) => setImmediate(r))
    expect(disposed).toBe(false)
    gate.release('a')
    await gate.started(2)
    gate.release('b')
    await disposal
    expect((await pending).map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['ok', 'ok'])
  })

  test('cancel: the running body is aborted and the queued call never starts', async () => {
    const { gate, unmount, pending } = await running('cancel')
    await unmount()
    const results = await pending
    expect(results.map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH'])
    expect(gate.starts).toEqual(['a'])
    expect(gate.aborted).toEqual(['a'])
  })
})

describe('the batch’s nameMap', () => {
  test('reaches the pipeline under either disposal policy (cancel runs the batch with its own fused signal)', async () => {
    const nameMap = { toWire: (name: string) => (name === 'echo' ? 'echo_v2' : undefined) }
    for (const onDispose of ['drain', 'cancel'] as const) {
      h = await createHarness({ executor: createNativeExecutor({ onDispose }) })
      h.ctx.tools.register(echoTool())
      const [r] = await h.execute([call('echo', '[1]', 'c1')], { nameMap })
      expect([onDispose, r!.isError && r!.error.message, r!.meta?.toolName]).toEqual([onDispose, 'Invalid arguments for tool "echo_v2": expected a JSON object, got array', 'echo'])
      await h.dispose()
    }
  })
})
