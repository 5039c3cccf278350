/**
 * A ready Restate service that runs one tool batch per invocation: `POST <ingress>/<name>/execute`
 * with `{ "calls": [...] }` returns the batch's results, each tool body journaled.
 */
import * as restate from '@restatedev/restate-sdk'
import type { Context } from 'cordis'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { DurableBatchError, restateDurable, type RestateDurable, type RestateDurableOptions } from './durable'

/** The input of the `execute` handler. */
export interface DurableBatchInput {
  /** The batch exactly as the model emitted it. */
  readonly calls: readonly RawToolCall[]
  /** The batch's stable key; default: the invocation id. */
  readonly key?: string
}

/** Options of {@link toolBatchService}. */
export interface ToolBatchServiceOptions<Name extends string> {
  /** The Restate service name (the ingress path's first segment). */
  readonly name: Name
  /** The cordis context whose `ctx.tools` runs the batches: registry, executor and tools mounted. */
  readonly tools: Context
  /** Durable approvals (see {@link RestateDurableOptions.approvals}). */
  readonly approvals?: RestateDurableOptions['approvals']
}

/**
 * A Restate service with one handler, `execute(input: DurableBatchInput): ToolResult[]`. Serve it
 * with the SDK (`restate.serve({ services: [service], port })`) on Node 22+ and register the
 * deployment with the Restate server. Bad input (no `calls` array, a call without a string
 * `callId` and `name`) is a terminal error with HTTP status 400, never retried.
 */
export function toolBatchService<Name extends string>(options: ToolBatchServiceOptions<Name>) {
  return restate.service({
    name: options.name,
    handlers: {
      execute: async (ctx: restate.Context, input: DurableBatchInput): Promise<ToolResult[]> => {
        const calls = checkInput(input)
        let durable: RestateDurable
        try {
          durable = restateDurable(ctx, { calls, ...(input.key === undefined ? {} : { key: input.key }), ...(options.approvals === undefined ? {} : { approvals: options.approvals }) })
        } catch (error) {
          // A batch the adapter cannot journal is the caller's mistake: terminal, never retried.
          if (error instanceof DurableBatchError) throw new restate.TerminalError(`execute: ${error.message}`, { errorCode: 400 })
          throw error
        }
        return [...(await options.tools.tools.execute({ calls, durable }))]
      },
    },
  })
}

function checkInput(input: unknown): readonly RawToolCall[] {
  const bad = (detail: string) => new restate.TerminalError(`execute: ${detail}`, { errorCode: 400 })
  if (typeof input !== 'object' || input === null || !Array.isArray((input as DurableBatchInput).calls)) throw bad('the input must be { "calls": [...] } (got ' + (input === null ? 'null' : typeof input) + ')')
  const { calls, key } = input as DurableBatchInput
  if (key !== undefined && (typeof key !== 'string' || key === '')) throw bad('/key must be a non-empty string')
  calls.forEach((call, index) => {
    if (typeof call !== 'object' || call === null) throw bad(`/calls/${index} must be an object`)
    if (typeof call.callId !== 'string' || call.callId === '') throw bad(`/calls/${index}/callId must be a non-empty string`)
    if (typeof call.name !== 'string') throw bad(`/calls/${index}/name must be a string`)
  })
  return calls
}
