/**
 * The agent loop: declare → request → parse → execute through the registry → assistant turn +
 * tool results → next request, until a final answer or the step limit. It speaks Chat
 * Completions through the official `openai` client, so it works with any OpenAI-compatible
 * endpoint (OpenAI, DeepSeek, vLLM, llama.cpp's server, Ollama).
 *
 * With the native executor the loop streams: `executeToolStream` starts each tool call as soon as
 * its arguments are complete in the stream, while the model still writes the rest of the turn.
 *
 * Two executors: `native` (each tool is a function) and `ptc` (programmatic tool calling: one
 * `run_code` tool, and a generated SDK of the tools that the request carries in its system
 * message — `toOpenAICompatibleRequest` returns both).
 */
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { Context } from 'cordis'
import { ToolRegistry, type ToolResult } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import {
  NativeExecutor,
  executeToolStream,
  markupErrorMessage,
  parseOpenAIChatCompletion,
  settleParsedCalls,
  toOpenAIChatAssistantMessage,
  toOpenAIChatToolMessages,
  toOpenAICompatibleRequest,
  type ParsedToolCalls,
  type SettledCalls,
} from '@deepseek-ai/dsh-tool-executor-native'
import { registerTools } from './tools'

/** What the loop needs: where to send requests and how to print. */
export interface AgentOptions {
  readonly baseURL: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  /** How the model meets the tools (default `native`): a function each, or one `run_code` tool and an SDK. */
  readonly executor?: 'native' | 'ptc'
  /** Requests at most (default 8). */
  readonly maxSteps?: number
  readonly print?: (line: string) => void
}

/** How the run ended: a final answer, or the step limit. */
export type AgentOutcome = { readonly kind: 'answer'; readonly text: string; readonly steps: number } | { readonly kind: 'step-limit'; readonly steps: number }

/** Runs the loop once; throws what the client throws (HTTP errors, connection errors). */
export async function runAgent(options: AgentOptions): Promise<AgentOutcome> {
  const print = options.print ?? ((line: string) => console.log(line))
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  if (options.executor === 'ptc') await ctx.plugin(PtcExecutor, { maxParallelSubCalls: 4 })
  else await ctx.plugin(NativeExecutor, { maxParallelCalls: 4 })
  registerTools(ctx.tools)
  try {
    const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 1 })
    // Everything the request needs for OpenAI-compatible servers: the tools (portable schemas,
    // names mapped reversibly) and the system text the executor requires (PTC: the tool SDK).
    const declared = toOpenAICompatibleRequest(ctx.tools.describe())
    print(`tools: ${declared.tools.map((t) => t.function.name).join(', ')}`)
    const messages: ChatCompletionMessageParam[] = []
    if (declared.system !== '') {
      messages.push({ role: 'system', content: declared.system })
      print(`system: ${declared.sections.map((s) => `${s.title} (${Buffer.byteLength(s.text)} bytes)`).join(', ')}`)
    }
    messages.push({ role: 'user', content: options.prompt })
    print(`user: ${options.prompt}`)
    const maxSteps = options.maxSteps ?? 8
    for (let step = 1; step <= maxSteps; step++) {
      // Native: calls start while the model streams; PTC: one complete response, then its batch.
      const settled = options.executor === 'ptc' ? await completeTurn(ctx, client, options.model, messages, declared) : await streamedTurn(ctx, client, options.model, messages, declared)
      const { parsed } = settled
      const early = settled.startedEarly > 0 ? `, ${settled.startedEarly} started while streaming` : ''
      print(`step ${step}: ${parsed.status}, finish ${parsed.finish.raw ?? parsed.finish.kind}, ${parsed.calls.length || parsed.truncated.length} call(s)${early}`)
      if (parsed.status === 'complete' && parsed.calls.length === 0) {
        print(`answer: ${parsed.text}`)
        return { kind: 'answer', text: parsed.text, steps: step }
      }
      // The assistant turn goes into the history as the model produced it, with the ids the
      // results use (minted, de-duplicated, or recovered from text).
      const turn = toOpenAIChatAssistantMessage(parsed)
      if (turn.content) print(`  assistant: ${oneLine(turn.content)}`)
      messages.push(turn)
      if (parsed.status === 'malformed-markup') {
        const note = markupErrorMessage(parsed)
        print(`  markup: ${oneLine(note)}`)
        messages.push({ role: 'user', content: note })
        continue
      }
      if (parsed.status === 'recovered') print(`  recovered ${parsed.recovered.length} call(s) from ${[...new Set(parsed.recovered.map((r) => r.marker))].join(', ')} markup in the text`)
      const { calls, results } = settled
      calls.forEach((call, i) => print(`  ${call.callId} ${call.name}(${shortArgs(call.arguments)}) → ${outcome(results[i])}`))
      messages.push(...toOpenAIChatToolMessages(calls, results, { images: 'omit' }))
    }
    print(`step limit (${maxSteps}) reached without a final answer`)
    return { kind: 'step-limit', steps: maxSteps }
  } finally {
    await ctx.fiber.dispose()
  }
}

type Declared = ReturnType<typeof toOpenAICompatibleRequest>

/** A turn's parse, its calls and their results, and how many calls started while it streamed. */
interface SettledTurn extends SettledCalls {
  readonly parsed: ParsedToolCalls
  readonly startedEarly: number
}

/** One streamed request: the calls run as their arguments complete (`executeToolStream`). */
async function streamedTurn(ctx: Context, client: OpenAI, model: string, messages: ChatCompletionMessageParam[], declared: Declared): Promise<SettledTurn> {
  const stream = await client.chat.completions.create({ model, messages, tools: declared.tools, stream: true })
  return executeToolStream(ctx, { provider: 'openai-compatible', stream, nameMap: declared.nameMap }).outcome
}

/** One complete request, then its batch through the mounted executor. */
async function completeTurn(ctx: Context, client: OpenAI, model: string, messages: ChatCompletionMessageParam[], declared: Declared): Promise<SettledTurn> {
  const completion = await client.chat.completions.create({ model, messages, tools: declared.tools })
  const parsed = parseOpenAIChatCompletion(completion, { provider: 'openai-compatible', nameMap: declared.nameMap })
  const settled = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))
  return { parsed, ...settled, startedEarly: 0 }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

function shortArgs(args: unknown): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args)
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

function outcome(result: ToolResult | undefined): string {
  if (!result) return '(no result)'
  const text = oneLine(result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' '))
  return result.isError ? `error ${result.error.info.code}: ${text}` : text
}
