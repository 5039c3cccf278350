/**
 * The PTC side of the core's contract fixes (each test named after the kind of fault): the SDK
 * follows closed objects, a sub-call whose body returns nothing succeeds as under the native
 * executor, and a policy's text reaches the program verbatim.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, type ToolRegistryConfig } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

async function ptc(registry?: ToolRegistryConfig): Promise<Harness> {
  h = await createHarness({ executor: createPtcExecutor({ limits: { wallMs: 5_000, computeMs: 2_000 } }), ...(registry === undefined ? {} : { registry }) })
  return h
}

function runCall(code: string) {
  return { callId: 'run1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'test program' }) }
}

const logs = defineRawTool({
  name: 'get_logs',
  description: 'Recent logs.',
  inputSchema: { type: 'object', properties: { server_name: { type: 'string' }, filter: { type: 'object', properties: { level: { type: 'string' } } } }, required: ['server_name'] },
  execute: () => undefined as never,
})

function sdkOf(h: Harness): string {
  const description = h.ctx.tools.describe()
  return description.sections.map((section) => section.text).join('\n')
}

describe('unknown argument keys can be rejected (PTC SDK)', () => {
  test('closed objects have no index signature in the SDK; open ones keep it', async () => {
    await ptc({ unknownKeys: 'reject' })
    h.ctx.tools.register(logs)
    expect(sdkOf(h)).toContain('get_logs(args: { server_name: string; filter?: { level?: string } }): Promise<unknown>')
    await h.dispose()
    await ptc()
    h.ctx.tools.register(logs)
    expect(sdkOf(h)).toContain('  get_logs(args: {\n    server_name: string\n    filter?: { level?: string; [key: string]: unknown }\n    [key: string]: unknown\n  }): Promise<unknown>')
  })

  test('a program passing an unknown key gets the same INVALID_ARGS text as a native call', async () => {
    await ptc({ unknownKeys: 'reject' })
    h.ctx.tools.register(logs)
    const [r] = await h.execute([runCall(`try { await tools.get_logs({ server_name: 'db1', hours: 1 }) } catch (e) { return e.message }`)])
    expect(r!.content).toEqual([{ type: 'text', text: 'Invalid arguments for tool "get_logs": /hours: is not a declared key (declared: "server_name", "filter")' }])
  })
})

describe('a body that returns nothing succeeded (PTC sub-call)', () => {
  test('the sub-call resolves to null, exactly as the native result value', async () => {
    await ptc()
    let runs = 0
    h.ctx.tools.register(defineRawTool({ name: 'notify', description: 'Notify.', inputSchema: { type: 'object' }, execute: () => void runs++ as never }))
    h.ctx.tools.register(defineRawTool({ name: 'user', description: 'User.', inputSchema: { type: 'object' }, execute: () => ({ name: 'x', email: undefined }) as never }))
    const [r] = await h.execute([runCall(`const a = await tools.notify({}); const b = await tools.user({}); return JSON.stringify([a, b, Object.keys(b)])`)])
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: '[null,{"name":"x"},["name"]]' }] })
    expect(runs).toBe(1)
  })
})

describe('policy-authored text is the whole model-facing message (PTC sub-call)', () => {
  test('a denied sub-call rejects with the reason verbatim; the tool name is on the error', async () => {
    await ptc()
    h.ctx.tools.register(logs)
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'get_logs' ? { type: 'deny', reason: 'not in this workspace' } : next()))
    const [r] = await h.execute([runCall(`try { await tools.get_logs({ server_name: 'db1' }) } catch (e) { return [e.name, e.toolName, e.message].join(' | ') }`)])
    expect(r!.content).toEqual([{ type: 'text', text: 'ToolCallError | get_logs | not in this workspace' }])
  })
})

describe('tool names beyond ASCII (PTC)', () => {
  test('Unicode names are quoted SDK members and callable from a program', async () => {
    await ptc()
    for (const name of ['搜索工具', '🔍']) h.ctx.tools.register(defineRawTool({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' }, execute: () => name }))
    expect(sdkOf(h)).toContain('  "搜索工具"(args?: { [key: string]: unknown }): Promise<unknown>')
    const [r] = await h.execute([runCall(`return [await tools["搜索工具"]({}), await tools["🔍"]({})].join(' ')`)])
    expect(r!.content).toEqual([{ type: 'text', text: '搜索工具 🔍' }])
  })
})
