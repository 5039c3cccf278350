/**
 * `@modelcontextprotocol/server-memory` over stdio with an explicit environment (its storage
 * file), started by the test: a create-then-read round trip through the pipeline.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { serverEntry } from './servers'

let h: Harness
let dir: string | undefined
afterEach(async () => {
  await h?.dispose()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

test('entities created in one step are read back in the next', async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-mcp-memory-'))
  const file = join(dir, 'memory.jsonl')
  h = await createHarness()
  await createMcpBridge(h.ctx, { servers: [{ name: 'memory', command: process.execPath, args: [serverEntry('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: file } }] })
  const ada = { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first published program'] }
  const [created] = await h.execute([call('memory__create_entities', { entities: [ada] })])
  expect(created).toMatchObject({ isError: false, value: { entities: [ada] } })
  const [read] = await h.execute([call('memory__open_nodes', { names: ['Ada Lovelace'] })])
  expect(read).toMatchObject({ isError: false, value: { entities: [ada], relations: [] } })
  // The explicit env reached the server: it stored the graph where we told it to.
  expect(JSON.parse((await readFile(file, 'utf8')).trim())).toEqual({ type: 'entity', ...ada })
})
