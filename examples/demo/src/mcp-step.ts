/**
 * The MCP step of the demo: the reference server `@modelcontextprotocol/server-filesystem`,
 * started over stdio on the sample workspace by `@deepseek-ai/dsh-tool-mcp`, serves the same
 * kind of task. Recorded model steps call its tools natively (with the same per-call output as
 * the native section), then one model-written program calls them through PTC. The deployment's
 * read-only policy denies every MCP tool the server does not annotate `readOnlyHint: true`.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { realpath } from 'node:fs/promises'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createMcpBridge, mcpToolInfo, type McpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { chat, type RecordedStep } from './recorded'
import { stepToBatch } from './wire'
import { bootWith, dispatchMs, type Deployment } from './deployment'
import { callView, formatCall, formatMs, paragraph, preview, stepHeader, style } from './format'

/** The recorded model steps against the MCP server's tools (prefixed `fs__`). */
export const MCP_STEPS: readonly RecordedStep[] = [
  {
    title: 'Explore through MCP (parallel calls, "" arguments for a zero-argument tool)',
    basis: 'an OpenAI parallel tool_calls response; "" as the arguments of a zero-argument tool; retargeted at server-filesystem',
    provider: 'openai-chat',
    payload: chat('chatcmpl-mcp-1', 'tool_calls', [
      ['mcp_01', 'fs__list_allowed_directories', ''],
      ['mcp_02', 'fs__search_files', '{"path":".","pattern":"**/*.md"}'],
      ['mcp_03', 'fs__read_text_file', '{"path":"docs/policies.md","head":3}'],
    ]),
  },
  {
    title: 'Read, a denied write, a path outside the workspace, a missing argument',
    basis: 'an Anthropic response with parallel tool_use blocks; a path traversal recorded against the MCP filesystem server',
    provider: 'anthropic',
    payload: {
      id: 'msg_mcp_2',
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Checking the orders file and saving a summary.' },
        { type: 'tool_use', id: 'toolu_m4', name: 'fs__get_file_info', input: { path: 'data/orders.json' } },
        { type: 'tool_use', id: 'toolu_m5', name: 'fs__write_file', input: { path: 'docs/summary.md', content: 'Refunded: ORD-1002' } },
        { type: 'tool_use', id: 'toolu_m6', name: 'fs__read_text_file', input: { path: '/../../etc/passwd' } },
        { type: 'tool_use', id: 'toolu_m7', name: 'fs__read_text_file', input: { head: 2 } },
      ],
    },
  },
]

/** The program a model wrote against the MCP tools (run in the PTC sandbox). */
export const MCP_PROGRAM = `
const hits = await tools.fs__search_files({ path: '.', pattern: '**/*.md' })
const names = hits.content.split('\\n').map((p) => p.split('/').pop()).sort()
const policy = await tools.fs__read_text_file({ path: 'docs/policies.md' })
const orders = JSON.parse((await tools.fs__read_text_file({ path: 'data/orders.json' })).content)
try {
  await tools.fs__write_file({ path: 'docs/summary.md', content: 'draft' })
} catch (e) {
  console.log('summary not written:', (e as Error).message)
}
return {
  markdownFiles: names,
  refundWindow: policy.content.split('\\n').find((l) => l.includes('Refund window')),
  refunded: orders.filter((o) => o.status === 'refunded').map((o) => o.id),
}
`

/** What the MCP step leaves for tests. */
export interface McpRun {
  /** `callId ok|<code>` for every replayed call, in order. */
  readonly outcomes: readonly string[]
  /** The registered MCP tool names. */
  readonly tools: readonly string[]
  /** The PTC program's model-facing text. */
  readonly programText: string
  /** `name ok|<code>` of the program's sub-calls. */
  readonly subCalls: readonly string[]
  /** Whether each server child was gone after its deployment was disposed. */
  readonly childrenEnded: boolean
}

const require = createRequire(import.meta.url)

/** server-filesystem's entry script, from the demo's dependencies. */
function filesystemServer(): string {
  return join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js')
}

/** A deployment with the bridge on the workspace; the read-only policy denies every tool not annotated `readOnlyHint: true`. */
async function boot(root: string, executor: 'native' | 'ptc'): Promise<Deployment & { bridge: McpBridge }> {
  let bridge: McpBridge | undefined
  const deployment = await bootWith(
    (ctx) => (executor === 'native' ? ctx.plugin(NativeExecutor, { maxParallelCalls: 4 }) : ctx.plugin(PtcExecutor, { maxParallelSubCalls: 4 })),
    (exec) => {
      const info = mcpToolInfo(exec.definition)
      return info !== undefined && info.annotations.readOnlyHint !== true
    },
    async (ctx) => {
      // Only the variables the server needs: no blanket inheritance of the host environment.
      bridge = await createMcpBridge(ctx, { servers: [{ name: 'fs', command: process.execPath, args: [filesystemServer(), root], inheritEnv: 'minimal' }] })
    },
  )
  return { ...deployment, bridge: bridge! }
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Runs the MCP step over the sample workspace at `root` and prints it. */
export async function runMcp(sampleRoot: string): Promise<McpRun> {
  const root = await realpath(sampleRoot)
  const hide = (text: string): string => text.split(root).join('<workspace>')
  const native = await boot(root, 'native')
  const status = native.bridge.server('fs')!
  const { bold, dim } = style
  console.log(bold('dsh-tools demo — MCP: server-filesystem over stdio (native, then PTC)'))
  for (const line of paragraph(`Server: ${status.serverInfo?.name ?? '?'} ${status.serverInfo?.version ?? ''} · state ${status.state} · pid ${status.pid ?? '—'} · ${status.tools.length} tools registered as fs__<tool>`)) console.log(line)
  const readOnly = native.ctx.tools.definitions().filter((d) => mcpToolInfo(d)?.annotations.readOnlyHint === true).length
  for (const line of paragraph(`${readOnly} read-only (parallel-safe, allowed), ${status.tools.length - readOnly} modifying (denied by the read-only policy)`, 2)) console.log(dim(line))
  console.log()

  const outcomes: string[] = []
  for (const [i, step] of MCP_STEPS.entries()) {
    for (const line of stepHeader(`MCP step ${i + 1}`, step.title, [`${step.provider} payload: ${step.basis}`])) console.log(line)
    const parsed = stepToBatch(step)
    const calls: readonly RawToolCall[] = parsed.status === 'complete' ? parsed.calls : parsed.truncated
    const t0 = performance.now()
    const results: readonly ToolResult[] = await native.ctx.tools.execute({ calls, agent: native.agent })
    const elapsed = performance.now() - t0
    for (const [j, result] of results.entries()) {
      const call = calls[j]!
      outcomes.push(`${call.callId} ${result.isError ? result.error.info.code : 'ok'}`)
      const view = callView(call, result, dispatchMs(native.tracer, call.callId))
      const shown = { ...view, content: view.content.map((b) => (b.type === 'text' ? { ...b, text: hide(b.text) } : b)) }
      for (const line of formatCall(shown)) console.log(line)
    }
    console.log(dim(`  → ${results.length} results in call order, ${formatMs(elapsed).trim()} for the batch`))
    console.log()
  }
  const nativePid = native.bridge.server('fs')!.pid
  await native.bridge.close()

  const ptc = await boot(root, 'ptc')
  const [result] = await ptc.ctx.tools.execute({ agent: ptc.agent, calls: [{ callId: 'call_mcp_ptc', name: 'run_code', arguments: JSON.stringify({ code: MCP_PROGRAM, description: 'survey the workspace through MCP' }) }] })
  const subCalls = ptc.log.ofType('tool/code-dispatch').map((e) => `${e.name} ${e.isError ? e.error?.info?.code : 'ok'}`)
  const programText = hide(result!.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
  console.log(bold('MCP through PTC (one program, the same server tools)'))
  for (const line of paragraph(`${subCalls.length} sub-calls: ${subCalls.join(', ')}`, 2)) console.log(dim(line))
  console.log('  What the model sees:')
  for (const line of preview(programText, 40, '    ')) console.log(line)
  const ptcPid = ptc.bridge.server('fs')!.pid
  await ptc.bridge.close()
  const childrenEnded = !alive(nativePid) && !alive(ptcPid)
  console.log(dim(`  server children ended after disposal: ${childrenEnded ? 'yes' : 'NO'}`))
  console.log()
  return { outcomes, tools: status.tools, programText, subCalls, childrenEnded }
}
