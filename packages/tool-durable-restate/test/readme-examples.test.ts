/**
 * The README's service example as a reader runs it: the code block is examples/service.ts
 * verbatim; run as a Node 22 process next to a real Restate server, it prints the line its comment
 * says, and a batch through the ingress returns the documented result with the idempotency key.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { RestateClient } from '../src/client'
import { ServiceProcess, freePort } from './support/process'
import { RestateServer } from './support/server'

const example = fileURLToPath(new URL('../examples/service.ts', import.meta.url))
let server: RestateServer | undefined
let service: ServiceProcess | undefined
afterAll(async () => {
  await service?.stop()
  await server?.stop()
})

test('examples/service.ts is the README block verbatim, serves, and runs a batch durably', { timeout: 90_000 }, async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(example, 'utf8')}\`\`\``)
  server = await RestateServer.start()
  const port = await freePort()
  service = new ServiceProcess(example, { PORT: String(port) })
  expect(await service.start()).toBe(port)
  expect(service.output).toContain(`serving tools on port ${port}\n`)
  const client = new RestateClient({ ingressUrl: server.ingressUrl, adminUrl: server.adminUrl })
  await client.register(`http://127.0.0.1:${port}`)
  const results = await client.call<ToolResult[]>(
    { service: 'tools', handler: 'execute' },
    { key: 'turn-1', calls: [{ callId: 'c1', name: 'send_invoice', arguments: '{"customer":"ada"}' }] },
    { idempotencyKey: 'turn-1' },
  )
  expect(results.map((r) => r.content)).toEqual([[{ type: 'text', text: 'sent invoice-for-ada (turn-1/c1)' }]])
})
