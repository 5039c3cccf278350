/**
 * The agent's recorded model turns (the tool calls of two assistant messages, as the native
 * executor's parsers hand them over) and the tools they call. `pack_order` is slow, so there is
 * time to kill the process in the middle of turn 1; `refund` needs a person's approval.
 */
import { appendFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineTool, type RawToolCall } from '@deepseek-ai/dsh-tools'

export const TURNS: readonly (readonly RawToolCall[])[] = [
  [
    { callId: 'call_lookup', name: 'lookup_order', arguments: '{"orderId":"A-42"}' },
    { callId: 'call_pack', name: 'pack_order', arguments: '{"orderId":"A-42"}' },
  ],
  [{ callId: 'call_refund', name: 'refund', arguments: '{"orderId":"A-42","amount":30}' }],
]

/** The tools; each writes what it did to `effects` (one line per side effect). */
export function agentTools(effects: string, packMs: number) {
  const effect = (line: string) => appendFileSync(effects, `${line}\n`)
  return [
    defineTool({
      name: 'lookup_order',
      description: 'Looks an order up',
      parameters: { orderId: { type: 'string' } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      idempotent: true,
      execute: (args) => `order ${args.orderId}: 1 item, paid 30`,
    }),
    defineTool({
      name: 'pack_order',
      description: 'Sends an order to the warehouse to be packed (not safe to repeat)',
      parameters: { orderId: { type: 'string' } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      async execute(args, exec) {
        effect(`pack_order started ${exec.idempotencyKey}`)
        console.log(`pack_order started (${exec.idempotencyKey})`)
        await sleep(packMs, undefined, { signal: exec.signal })
        effect(`pack_order finished ${exec.idempotencyKey}`)
        return `order ${args.orderId} packed`
      },
    }),
    defineTool({
      name: 'refund',
      description: 'Refunds an amount (needs approval)',
      parameters: { orderId: { type: 'string' }, amount: { type: 'integer' } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute(args, exec) {
        effect(`refund ${exec.idempotencyKey}`)
        return `refunded ${args.amount} on ${args.orderId}`
      },
    }),
  ]
}
