/**
 * The demo's MCP step end to end: server-filesystem over stdio on the sample workspace, every
 * replayed call's outcome, the PTC program's model-facing output, and no child left behind.
 */
import { fileURLToPath } from 'node:url'
import { expect, test, vi } from 'vitest'
import { runMcp } from '../src/mcp-step'

const root = fileURLToPath(new URL('../sample', import.meta.url))

test('the MCP step replays its recorded calls and program against server-filesystem', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
  try {
    const run = await runMcp(root)
    expect(run.tools).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__search_files', 'fs__list_allowed_directories', 'fs__write_file', 'fs__get_file_info']))
    expect(run.outcomes).toEqual(['mcp_01 ok', 'mcp_02 ok', 'mcp_03 ok', 'toolu_m4 ok', 'toolu_m5 TOOL_DENIED', 'toolu_m6 MCP_TOOL_ERROR', 'toolu_m7 INVALID_ARGS'])
    expect(run.subCalls).toEqual(['fs__search_files ok', 'fs__read_text_file ok', 'fs__read_text_file ok', 'fs__write_file TOOL_DENIED'])
    expect(run.programText).toBe(
      [
        'summary not written: the demo workspace is read-only',
        JSON.stringify({ markdownFiles: ['intro.md', 'policies.md'], refundWindow: '- Refund window: 14 days after delivery.', refunded: ['ORD-1002'] }, null, 2),
      ].join('\n'),
    )
    expect(run.childrenEnded).toBe(true)
    const printed = log.mock.calls.map((c) => String(c[0])).join('\n')
    expect(printed).toMatch(/^ {2}toolu_m6 +fs__read_text_file +\{"path":"\/\.\.\/\.\.\/etc\/passwd"\} +MCP_TOOL_ERROR /m)
    expect(printed.split('\n').filter((line) => line.length > 100)).toEqual([])
    expect(printed).toContain('Error: Access denied - path outside allowed directories: /etc/passwd')
    expect(printed).not.toContain(root)
  } finally {
    log.mockRestore()
  }
})
