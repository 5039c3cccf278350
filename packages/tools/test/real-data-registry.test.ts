/**
 * Real data through the registry (not just the validator): every MCP tool registers as a raw
 * tool and projects unchanged; every BFCL subset function registers and its example call runs
 * through `ctx.tools.execute`, except the documented ground-truth mismatches, which come back as
 * INVALID_ARGS naming the field.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { createScope, defineRawTool, type JsonValue } from '@deepseek-ai/dsh-tools'
import { createHarness, loadBfclMismatches, loadBfclSubset, loadMcpToolLists, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

describe('MCP tool lists', () => {
  test('every tool of every list registers (one scope per server) and projects its schema unchanged', async () => {
    h = await createHarness()
    const lists = loadMcpToolLists()
    let registered = 0
    for (const list of lists) {
      const scope = createScope(h.ctx, list.file, 'preset')
      for (const tool of list.tools) {
        scope.tools.register(defineRawTool({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, execute: () => null }))
        registered++
      }
      const projected = h.ctx.tools.schemas(scope)
      expect(projected.map((s) => s.name)).toEqual(list.tools.map((t) => t.name))
      expect(projected.map((s) => s.parameters)).toEqual(list.tools.map((t) => t.inputSchema))
    }
    expect(registered).toBe(189)
  })
})

describe('BFCL subset', () => {
  test('functions register and example calls validate; documented mismatches are rejected naming the field', async () => {
    h = await createHarness()
    const { entries } = loadBfclSubset()
    const mismatches = loadBfclMismatches()
    let ok = 0
    const rejected: string[] = []
    for (const entry of entries) {
      const scope = createScope(h.ctx, entry.id, 'preset')
      for (const fn of entry.functions_json_schema) {
        scope.tools.register(defineRawTool({ name: fn.name, description: fn.description, inputSchema: fn.parameters, execute: (args) => args as JsonValue }))
      }
      // Executed through the preset's context: the batch runs in that scope.
      const results = await scope.tools.execute({ calls: entry.example_call.map((c, i) => ({ callId: `${entry.id}#${i}`, name: c.name, arguments: JSON.stringify(c.arguments) })) })
      for (const [i, r] of results.entries()) {
        if (!r.isError) {
          expect(r.value).toEqual(entry.example_call[i]!.arguments)
          ok++
          continue
        }
        expect(r.error.info?.code).toBe('INVALID_ARGS')
        const call = entry.example_call[i]!
        const known = mismatches.find((m) => m.fn === call.name && JSON.stringify(m.args) === JSON.stringify(call.arguments))
        expect(known, `unexpected rejection of ${entry.id}: ${r.error.message}`).toBeDefined()
        // The message names the field the recorded ajv error names.
        const field = known!.errors[0]!.split(' ')[0]!
        expect(r.error.message).toContain(`${field}:`)
        rejected.push(entry.id)
      }
    }
    expect(ok).toBe(209)
    expect(rejected.sort()).toEqual(['parallel_multiple_94', 'simple_python_200'])
  })
})
