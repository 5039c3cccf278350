/**
 * `@modelcontextprotocol/server-filesystem` on a temporary directory, started over stdio by the
 * test: read, list and search through the registry with a policy that denies every MCP tool the
 * server does not annotate read-only, natively and from a PTC program.
 */
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import type { Context } from 'cordis'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createMcpBridge, mcpToolInfo } from '@deepseek-ai/dsh-tool-mcp'
import { serverEntry } from './servers'

let root: string
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'dsh-mcp-fs-')))
  await mkdir(join(root, 'docs'))
  await mkdir(join(root, 'data'))
  await writeFile(join(root, 'docs', 'intro.md'), '# Intro\nRefunds within 14 days.\n')
  await writeFile(join(root, 'docs', 'faq.md'), '# FAQ\nAsk support.\n')
  await writeFile(join(root, 'data', 'orders.json'), '[{"id":"ORD-1"}]\n')
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** The bridge with server-filesystem on `root`, and the read-only policy. */
async function mountFilesystem(ctx: Context): Promise<void> {
  await createMcpBridge(ctx, { servers: [{ name: 'fs', command: process.execPath, args: [serverEntry('@modelcontextprotocol/server-filesystem'), root] }] })
  ctx.on('tools/pre-execute', (exec, next) => {
    const info = mcpToolInfo(exec.definition)
    return info !== undefined && info.annotations.readOnlyHint !== true ? { type: 'deny', reason: `${exec.name} may modify the workspace; this agent is read-only` } : next()
  })
}

function outcome(r: ToolResult | undefined): string {
  if (r === undefined) return 'missing'
  return r.isError ? `${r.error.info?.code}: ${r.error.message}` : `ok: ${JSON.stringify(r.value)}`
}

test('read, list and search run; writes are denied before they reach the server', async () => {
  h = await createHarness()
  await mountFilesystem(h.ctx)
  const names = h.ctx.tools.schemas().map((s) => s.name)
  expect(names).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__list_directory', 'fs__search_files', 'fs__write_file', 'fs__edit_file', 'fs__move_file']))
  const results = await h.execute([
    call('fs__list_directory', { path: root }),
    call('fs__read_text_file', { path: join(root, 'docs', 'intro.md') }),
    call('fs__search_files', { path: root, pattern: '**/*.md' }),
    call('fs__write_file', { path: join(root, 'docs', 'new.md'), content: 'hello' }),
    call('fs__read_text_file', { path: '/etc/hostname' }),
  ])
  const listing = results[0]!.isError ? '' : (results[0]!.value as { content: string }).content
  expect(listing.split('\n').sort()).toEqual(['[DIR] data', '[DIR] docs'])
  expect(outcome(results[1])).toBe('ok: {"content":"# Intro\\nRefunds within 14 days.\\n"}')
  expect(results[1]!.content).toEqual([{ type: 'text', text: '# Intro\nRefunds within 14 days.\n' }])
  const found = results[2]!.isError ? '' : (results[2]!.value as { content: string }).content
  expect(found.split('\n').sort()).toEqual([join(root, 'docs', 'faq.md'), join(root, 'docs', 'intro.md')])
  expect(outcome(results[3])).toBe('TOOL_DENIED: fs__write_file may modify the workspace; this agent is read-only')
  // Outside the allowed directory: the server's own refusal, as an error result for that call.
  expect(outcome(results[4])).toMatch(/^MCP_TOOL_ERROR: .*Access denied - path outside allowed directories/)
  expect((await readdir(join(root, 'docs'))).sort()).toEqual(['faq.md', 'intro.md'])
})

test('a PTC program reads, lists and searches through the same tools; its write is refused', async () => {
  h = await createHarness({ executor: 'none', plugins: [{ plugin: PtcExecutor, config: {} }] })
  await mountFilesystem(h.ctx)
  const sdk = h.ctx.tools.describe().sections[0]!.text
  expect(sdk).toContain('fs__read_text_file')
  const program = `
const hits = await tools.fs__search_files({ path: ${JSON.stringify(root)}, pattern: '**/*.md' })
const files = hits.content.split('\\n').sort()
const first = await tools.fs__read_text_file({ path: files[1], head: 1 })
const listing = await tools.fs__list_directory({ path: ${JSON.stringify(join(root, 'data'))} })
try {
  await tools.fs__write_file({ path: files[0], content: 'overwritten' })
} catch (e) {
  console.log('write refused:', e.message)
}
return { markdownFiles: files.length, firstHeading: first.content.trim(), data: listing.content }
`
  const [r] = await h.execute([call('run_code', { code: program, description: 'survey the workspace' })])
  expect(r!.content).toEqual([
    {
      type: 'text',
      text: 'write refused: fs__write_file may modify the workspace; this agent is read-only\n{\n  "markdownFiles": 2,\n  "firstHeading": "# Intro",\n  "data": "[FILE] orders.json"\n}',
    },
  ])
})
