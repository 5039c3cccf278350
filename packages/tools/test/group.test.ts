import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, ToolRegistrationError, type ToolChange } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

function named(name: string, answer: string) {
  return defineTool({ name, description: `${name} says ${answer}`, parameters: {}, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: () => answer })
}

async function run(name: string, toolSet?: Awaited<ReturnType<Harness['resolve']>>): Promise<string> {
  const [r] = await h.execute([call(name, {})], toolSet === undefined ? {} : { toolSet })
  return r!.isError ? `error:${r!.error.info?.code}` : String(r!.value)
}

describe('registerGroup', () => {
  test('registers a group with one tools/change; replace swaps in one step and keeps identical definitions pinned', async () => {
    h = await createHarness()
    const changes: ToolChange[] = []
    h.ctx.on('tools/change', (c) => void changes.push(c))
    const a = named('a', '1')
    const b = named('b', '1')
    const group = h.ctx.tools.registerGroup([a, b, named('c', '1')])
    h.ctx.tools.register(named('local', 'x'))
    expect(changes.map((c) => (c.type === 'replace' ? `${c.type} +${c.registered.join(',')} -${c.unregistered.join(',')}` : `${c.type} ${'name' in c ? c.name : ''}`))).toEqual(['replace +a,b,c -', 'register local'])
    const pinned = await h.resolve()
    // b changes, c goes, d arrives; a is the same object.
    group.replace([a, named('b', '2'), named('d', '2')])
    expect(changes.at(-1)).toMatchObject({ type: 'replace', registered: ['b', 'd'], unregistered: ['b', 'c'] })
    expect(group.names).toEqual(['a', 'b', 'd'])
    // Prompt order: a changed tool keeps its position, a new one goes last.
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual(['a', 'b', 'local', 'd'])
    expect(await run('a', pinned)).toBe('1')
    expect(await run('b', pinned)).toBe('error:UNKNOWN_TOOL')
    expect(await run('c', pinned)).toBe('error:UNKNOWN_TOOL')
    expect(await run('b', await h.resolve())).toBe('2')
    const count = changes.length
    group.replace([a, ...h.ctx.tools.definitions().filter((d) => d.name === 'b' || d.name === 'd')])
    expect(changes.length).toBe(count)
    await group.dispose()
    expect(changes.at(-1)).toMatchObject({ type: 'replace', registered: [], unregistered: ['a', 'b', 'd'] })
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual(['local'])
    expect(() => group.replace([a])).toThrow('Cannot replace the tools of a disposed group (scope "deployment"')
  })

  test('a collision, a duplicate or a throwing listener leaves the group as it was', async () => {
    h = await createHarness()
    h.ctx.tools.register(named('taken', 'x'))
    expect(() => h.ctx.tools.registerGroup([named('free', '1'), named('taken', '1')])).toThrow(ToolRegistrationError)
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual(['taken'])
    const group = h.ctx.tools.registerGroup([named('g1', '1')])
    expect(() => group.replace([named('g2', '1'), named('g2', '2')])).toThrow(/Cannot register tool "g2" in scope "deployment": the group from .* lists it twice/)
    expect(() => group.replace([named('taken', '2')])).toThrow(/Cannot register tool "taken" in scope "deployment": a tool of that name is already registered there by/)
    const off = h.ctx.on('tools/change', () => {
      throw new Error('listener refused')
    })
    expect(() => group.replace([named('g3', '1')])).toThrow('listener refused')
    off()
    expect(group.names).toEqual(['g1'])
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual(['taken', 'g1'])
    expect(await run('g1')).toBe('1')
  })
})
