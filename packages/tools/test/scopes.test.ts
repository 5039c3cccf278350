import { afterEach, describe, expect, test } from 'vitest'
import { createNativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { defineTool, NoExecutorError, ToolActivationError, ToolRegistrationError, type ToolChange } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

function named(name: string, answer: string) {
  return defineTool({ name, description: `${name} from ${answer}`, parameters: {}, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: () => answer })
}

async function answer(h: Harness, name: string, agent?: { agent: import('@deepseek-ai/dsh-tools').Agent }): Promise<string> {
  const [r] = await h.ctx.tools.execute({ calls: [call(name, {})], ...(agent === undefined ? {} : { agent: agent.agent }) })
  return r!.isError ? `error:${r!.error.info?.code}` : String(r!.value)
}

describe('shadowing', () => {
  test('the nearest scope wins whichever registered first', async () => {
    h = await createHarness()
    const preset = h.preset('coder')
    const a1 = h.agent('a1', { parent: preset })
    // Agent first, then global.
    a1.ctx.tools.register(named('read', 'agent'))
    h.ctx.tools.register(named('read', 'global'))
    expect(await answer(h, 'read', a1)).toBe('agent')
    expect(await answer(h, 'read')).toBe('global')
    // Global first, then preset.
    h.ctx.tools.register(named('write', 'global'))
    preset.tools.register(named('write', 'preset'))
    expect(await answer(h, 'write', a1)).toBe('preset')
    expect(h.ctx.tools.schemas(a1.agent).map((s) => s.description)).toEqual(['read from agent', 'write from preset'])
  })

  test('a duplicate in one scope throws naming both owners (B14)', async () => {
    h = await createHarness()
    await h.ctx.plugin({ name: 'mail_a', inject: ['tools'], apply: (ctx) => void ctx.tools.register(named('send_email', 'a')) })
    let error: unknown
    await h.ctx.plugin({
      name: 'mail_b',
      inject: ['tools'],
      apply: (ctx) => {
        try {
          ctx.tools.register(named('send_email', 'b'))
        } catch (e) {
          error = e
        }
      },
    })
    expect(error).toBeInstanceOf(ToolRegistrationError)
    expect((error as Error).message).toBe(
      'Cannot register tool "send_email" in scope "deployment": a tool of that name is already registered there by plugin "mail_a"; this registration came from plugin "mail_b". Rename one (for example with a server prefix) or register it in another scope.',
    )
    expect(await answer(h, 'send_email')).toBe('a')
  })

  test('registrations are disposed with the fiber that made them', async () => {
    h = await createHarness()
    const fiber = h.ctx.plugin({ inject: ['tools'], apply: (ctx) => void ctx.tools.register(named('temp', 'plugin')) })
    await fiber
    expect(await answer(h, 'temp')).toBe('plugin')
    await fiber.dispose()
    expect(await answer(h, 'temp')).toBe('error:UNKNOWN_TOOL')
  })
})

describe('restrict', () => {
  test('allow masks exclude later globals; deny masks admit them', async () => {
    h = await createHarness()
    const allowAgent = h.agent('allow')
    const denyAgent = h.agent('deny')
    h.ctx.tools.register(named('read', 'g'))
    allowAgent.ctx.tools.restrict({ allow: ['read'] })
    denyAgent.ctx.tools.restrict({ deny: ['rm'] })
    h.ctx.tools.register(named('rm', 'g'))
    h.ctx.tools.register(named('later', 'g'))
    expect(h.ctx.tools.schemas(allowAgent.agent).map((s) => s.name)).toEqual(['read'])
    expect(h.ctx.tools.schemas(denyAgent.agent).map((s) => s.name)).toEqual(['read', 'later'])
    expect(await answer(h, 'rm', denyAgent)).toBe('error:UNKNOWN_TOOL')
  })

  test('masks intersect down the chain; inherited preset tools are masked; own layer exempt', async () => {
    h = await createHarness()
    const preset = h.preset('p')
    const agent = h.agent('a', { parent: preset })
    for (const n of ['a', 'b', 'c']) h.ctx.tools.register(named(n, 'g'))
    preset.tools.register(named('p1', 'preset'))
    preset.tools.restrict({ allow: ['a', 'b'] })
    agent.ctx.tools.restrict({ deny: ['b', 'p1'] })
    agent.ctx.tools.register(named('mine', 'agent'))
    agent.ctx.tools.restrict({ allow: ['a'] }) // own 'mine' stays visible
    expect(h.ctx.tools.schemas(preset).map((s) => s.name)).toEqual(['a', 'b', 'p1'])
    expect(h.ctx.tools.schemas(agent.agent).map((s) => s.name)).toEqual(['a', 'mine'])
  })

  test('a restriction lifts when disposed and emits tools/change', async () => {
    h = await createHarness()
    const changes: string[] = []
    h.ctx.on('tools/change', (c: ToolChange) => {
      changes.push(c.type)
    })
    h.ctx.tools.register(named('x', 'g'))
    const agent = h.agent('a')
    const lift = agent.ctx.tools.restrict({ deny: ['x'] })
    expect(h.ctx.tools.executable('x', agent.agent)).toBeUndefined()
    await lift()
    expect(h.ctx.tools.executable('x', agent.agent)?.name).toBe('x')
    expect(changes).toEqual(['register', 'restrict', 'unrestrict'])
  })

  test('a throwing tools/change listener rolls back register and restrict', async () => {
    h = await createHarness()
    h.ctx.on('tools/change', (c) => {
      if (c.type === 'register' && c.name === 'bad') throw new Error('veto')
      if (c.type === 'restrict') throw new Error('no masks')
    })
    expect(() => h.ctx.tools.register(named('bad', 'g'))).toThrow('veto')
    expect(h.ctx.tools.get('bad')).toBeUndefined()
    h.ctx.tools.register(named('good', 'g'))
    expect(() => h.ctx.tools.restrict({ deny: ['good'] })).toThrow('no masks')
    expect(h.ctx.tools.executable('good')?.name).toBe('good')
  })
})

describe('guards', () => {
  test('a guard denies and a pre-execute listener forcing allow cannot bypass it', async () => {
    h = await createHarness()
    h.ctx.tools.register(named('rm', 'g'))
    h.ctx.tools.guard((exec) => (exec.name === 'rm' ? 'destructive tools are disabled' : undefined))
    h.ctx.on('tools/pre-execute', () => ({ type: 'allow' }), { prepend: true })
    const [r] = await h.execute([call('rm', {}, 'c1')])
    expect(r!.isError && r!.error).toEqual({ message: 'destructive tools are disabled', info: { name: 'GuardDenied', code: 'TOOL_DENIED', toolName: 'rm' } })
  })

  test('guards and listeners are scope-filtered: an agent listener sees its own calls only', async () => {
    h = await createHarness()
    h.ctx.tools.register(named('t', 'g'))
    const a = h.agent('a')
    const b = h.agent('b')
    const seenByA: string[] = []
    const seenByRoot: string[] = []
    a.ctx.on('tools/pre-execute', (exec, next) => {
      seenByA.push(exec.scope.id)
      return next()
    })
    h.ctx.on('tools/pre-execute', (exec, next) => {
      seenByRoot.push(exec.scope.id)
      return next()
    })
    a.ctx.tools.guard(() => 'agent a is read-only')
    expect(await answer(h, 't', a)).toBe('error:TOOL_DENIED')
    expect(await answer(h, 't', b)).toBe('g')
    expect(await answer(h, 't')).toBe('g')
    expect(seenByA).toEqual(['a'])
    expect(seenByRoot).toEqual(['a', 'b', 'deployment'])
  })
})

describe('executor mounts', () => {
  test('nearest scope wins; a duplicate in one scope throws; unmount → batches reject with NO_EXECUTOR', async () => {
    h = await createHarness({ executor: 'none' })
    h.ctx.tools.register(echoTool())
    await expect(h.execute([call('echo', {})])).rejects.toBeInstanceOf(NoExecutorError)
    const changes: unknown[] = []
    h.ctx.on('tools/change', (c) => void changes.push(c))
    const unmount = h.ctx.tools.mount(createNativeExecutor())
    expect(() => h.ctx.tools.mount(createNativeExecutor())).toThrow('Cannot mount executor "native" in scope "deployment": executor "native" is already mounted there')
    const agent = h.agent('a')
    const custom = { name: 'custom', describe: () => ({ tools: [], sections: [{ id: 'x', title: 'X', text: 'custom' }] }), execute: async () => [] }
    agent.ctx.tools.mount(custom)
    expect(h.ctx.tools.executor(agent.agent)?.name).toBe('custom')
    expect(h.ctx.tools.describe({ agent: agent.agent }).sections[0]!.text).toBe('custom')
    expect(h.ctx.tools.describe().tools.map((t) => t.name)).toEqual(['echo'])
    expect(changes).toEqual([])
    await unmount()
    await expect(h.execute([call('echo', {})])).rejects.toThrow(new NoExecutorError('deployment'))
    expect(((await h.execute([call('echo', {})]).catch((e: Error) => e)) as Error).message).toBe('No tool executor is mounted for scope "deployment" or its ancestors; mount one (native or PTC) before executing a batch')
    // describe() names what it was asked to do, not a batch.
    const thrown = (() => {
      try {
        h.ctx.tools.describe()
      } catch (e) {
        return e as NoExecutorError
      }
    })()
    expect([thrown?.name, thrown?.code, thrown?.message]).toEqual(['NoExecutorError', 'NO_EXECUTOR', 'No tool executor is mounted for scope "deployment" or its ancestors; mount one (native or PTC) before describing the tools'])
  })
})

describe('conditional tools and resolved sets', () => {
  test('conditions run once per resolve; false omits; without a set a conditional tool is UNKNOWN_TOOL', async () => {
    h = await createHarness()
    let calls = 0
    let enabled = true
    h.ctx.tools.register(named('plain', 'g'))
    h.ctx.tools.register(named('cond', 'g'), { when: ({ modelSelection }) => (calls++, enabled && modelSelection?.model === 'big') })
    const set = await h.resolve({ modelSelection: { provider: 'p', model: 'big' } })
    expect(calls).toBe(1)
    expect(set.definitions.map((d) => d.name)).toEqual(['plain', 'cond'])
    expect(h.ctx.tools.describe({ toolSet: set }).tools.map((t) => t.name)).toEqual(['plain', 'cond'])
    const [withSet] = await h.execute([call('cond', {})], { toolSet: set })
    expect(withSet).toMatchObject({ isError: false, value: 'g' })
    const [withoutSet] = await h.execute([call('cond', {})])
    expect(withoutSet!.isError && withoutSet!.error.message).toBe('Unknown tool "cond". Available tools: plain')
    expect(calls).toBe(1)
    enabled = false
    const next = await h.resolve({ modelSelection: { provider: 'p', model: 'big' } })
    expect(calls).toBe(2)
    expect(next.has('cond')).toBe(false)
    expect(h.ctx.tools.describe({ toolSet: next }).tools.map((t) => t.name)).toEqual(['plain'])
  })

  test('a throwing condition fails resolve with TOOL_ACTIVATION_FAILED', async () => {
    h = await createHarness()
    h.ctx.tools.register(named('cond', 'g'), {
      when: () => {
        throw new Error('feature flag service down')
      },
    })
    const error = await h.resolve().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolActivationError)
    expect((error as ToolActivationError).code).toBe('TOOL_ACTIVATION_FAILED')
    expect((error as Error).message).toBe('Tool activation failed for "cond": feature flag service down')
  })

  test('a set pins registrations: disposal, replacement and a new restriction make calls UNKNOWN_TOOL', async () => {
    h = await createHarness()
    const agent = h.agent('a')
    const disposeA = h.ctx.tools.register(named('a', 'v1'))
    const disposeB = h.ctx.tools.register(named('b', 'v1'))
    h.ctx.tools.register(named('c', 'v1'))
    const set = await h.resolve({ agent: agent.agent })
    await disposeA()
    await disposeB()
    h.ctx.tools.register(named('b', 'v2')) // same-name replacement
    agent.ctx.tools.restrict({ deny: ['c'] })
    const results = await h.ctx.tools.execute({ calls: [call('a', {}), call('b', {}), call('c', {})], agent: agent.agent, toolSet: set })
    expect(results.map((r) => (r.isError ? r.error.info?.code : r.value))).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL', 'UNKNOWN_TOOL'])
    set.dispose()
    expect(set.definitions).toEqual([])
  })

  test('during a batch, a disposal of the set, a same-name replacement or a new restriction makes the calls that have not started UNKNOWN_TOOL; a started body finishes', async () => {
    // Each case changes the registry from inside the first call's body (an exclusive call, so the
    // second has not started); the second call must not run the tool the set no longer admits.
    const bodies: string[] = []
    const acting = (name: string, act: () => unknown) =>
      defineTool({ name, description: name, parameters: {}, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: async () => {
        bodies.push(name)
        await act()
        return `${name} done`
      } })
    const outcomes = (results: readonly { isError: boolean; value?: unknown; error?: { message: string } }[]) => results.map((r) => (r.isError ? r.error!.message : r.value))

    h = await createHarness()
    let set = await h.resolve()
    h.ctx.tools.register(acting('first', () => set.dispose()))
    h.ctx.tools.register(acting('second', () => undefined))
    set = await h.resolve()
    expect(outcomes(await h.ctx.tools.execute({ calls: [call('first', {}, 'c1'), call('second', {}, 'c2')], toolSet: set }))).toEqual(['first done', 'Unknown tool "second". No tools are available.'])
    await h.dispose()

    h = await createHarness()
    let disposeOld: () => unknown = () => undefined
    h.ctx.tools.register(acting('first', async () => {
      await disposeOld()
      h.ctx.tools.register(named('second', 'new'))
    }))
    disposeOld = h.ctx.tools.register(acting('second', () => undefined))
    set = await h.resolve()
    expect(outcomes(await h.ctx.tools.execute({ calls: [call('first', {}, 'c1'), call('second', {}, 'c2')], toolSet: set }))).toEqual(['first done', 'Unknown tool "second". Available tools: first'])
    await h.dispose()

    h = await createHarness()
    const agent = h.agent('a')
    h.ctx.tools.register(acting('first', () => agent.ctx.tools.restrict({ deny: ['second'] })))
    h.ctx.tools.register(acting('second', () => undefined))
    set = await h.resolve({ agent: agent.agent })
    expect(outcomes(await h.ctx.tools.execute({ calls: [call('first', {}, 'c1'), call('second', {}, 'c2')], agent: agent.agent, toolSet: set }))).toEqual(['first done', 'Unknown tool "second". Available tools: first'])
    await h.dispose()

    // Between policy and the body: the set is disposed while an approval is pending.
    h = await createHarness()
    h.ctx.tools.register(acting('second', () => undefined))
    set = await h.resolve()
    h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    h.ctx.tools.approval({ request: async () => {
      set.dispose()
      return { type: 'approve' }
    } })
    const [late] = await h.ctx.tools.execute({ calls: [call('second', {}, 'c1')], toolSet: set })
    expect(late!.isError && [late!.error.info?.code, late!.error.message]).toEqual(['UNKNOWN_TOOL', 'Unknown tool "second". No tools are available.'])
    expect(bodies).toEqual(['first', 'first', 'first'])
  })
})
