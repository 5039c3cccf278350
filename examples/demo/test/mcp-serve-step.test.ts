/**
 * The demo's serving step: the workspace tools served over MCP and called through the bridge;
 * the serving pipeline answers each call (a read, a denied write, a refused argument).
 */
import { fileURLToPath } from 'node:url'
import { expect, test, vi } from 'vitest'
import { runMcpServe } from '../src/mcp-serve-step'

const root = fileURLToPath(new URL('../sample', import.meta.url))

test('the serving step reads, is denied a write and refuses a bad argument on the serving side', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
  try {
    expect(await runMcpServe(root)).toEqual([
      { callId: 'serve_1', code: undefined },
      { callId: 'serve_2', code: 'MCP_TOOL_ERROR' },
      { callId: 'serve_3', code: 'MCP_TOOL_ERROR' },
    ])
    const printed = log.mock.calls.map((c) => String(c[0])).join('\n')
    expect(printed).toMatch(/served at http:\/\/127\.0\.0\.1:\d+\/mcp; 8 tools listed/)
    expect(printed).toContain('  │ # Policies')
    expect(printed).toContain('  │ Error: the demo workspace is read-only')
    expect(printed).toContain('  │ Error: Invalid arguments for tool "read_text_file": /path: is required')
    expect(printed.split('\n').filter((line) => line.length > 100)).toEqual([])
  } finally {
    log.mockRestore()
  }
})
