/**
 * An approval that outlives its process (issue 30, "Show it"):
 *
 *   npm run approvals -- start  --state approval.json [--ptc]
 *   npm run approvals -- resume --state approval.json --decision approve      (or: reject --reason "…")
 *
 * `start` asks the model (recorded turns served by a local replay server), runs its calls with
 * `ctx.tools.executeSuspendable`: `check_status` runs, `deploy` needs approval and the approval
 * service defers it, so the batch suspends. The signed state, the transcript and which results it
 * already holds are written to the file, and the process exits. `resume`, in a new process,
 * registers the same tools, resumes the state with the decision from the command line
 * (`ctx.tools.resume`), appends the results still owed (`turnResults`: each exactly once) and asks
 * the model again, which answers.
 *
 * With `--ptc` the model sees one tool, `run_code` (the PTC executor), and writes a program
 * that calls `check_status`, then `deploy`: the deferred approval parks that sub-call, the
 * program's `run_code` call is pending with the sub-call's approval request, and the state
 * carries the program's journal. `resume` decides the sub-call (`call_1:code:2`); the program
 * is replayed in a fresh sandbox (`check_status` answered from the journal, not run again) and
 * continues with the decision.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Context } from 'cordis'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { createSuspension, defineTool, ToolRegistry, type JsonValue, type PendingCall, type RawToolCall, type ResumeDecision, type ResumeLedger, type SuspendedState, type ToolResult } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { NativeExecutor, parseOpenAIChatCompletion, toOpenAIChatAssistantMessage, toOpenAIChatToolMessages, toOpenAIChatTools, turnResults } from '@deepseek-ai/dsh-tool-executor-native'
import { startReplayServer } from '@deepseek-ai/dsh-tool-testkit'

/** What `start` writes and `resume` reads. */
interface SavedApproval {
  readonly state: SuspendedState
  readonly messages: ChatCompletionMessageParam[]
  readonly calls: readonly RawToolCall[]
  readonly delivered: readonly string[]
  /** Which executor ran the batch (`ptc`: `--ptc`); resume mounts the same. */
  readonly mode?: Mode
}

/** The executor the model's calls run on: native tool calls, or one `run_code` program (PTC). */
type Mode = 'native' | 'ptc'

const USER: ChatCompletionMessageParam = { role: 'user', content: 'Deploy v2 if the service is healthy.' }
/** Demo signing key; a deployment reads its own from a secret store (at least 32 bytes). */
const DEMO_KEY = 'demo key of examples/approvals: replace it in production'

const recordings = (): Record<string, JsonValue> => JSON.parse(readFileSync(new URL('../recordings/turns.json', import.meta.url), 'utf8')) as Record<string, JsonValue>

/**
 * A resume ledger shared by the processes of this machine: one file per consumed state and per
 * claimed call in `dir`, created with `wx` (fails when it exists), so a state resumed twice —
 * also from two processes — is refused and no call runs twice. (A deployment over several
 * machines uses a shared database instead.)
 */
function fileLedger(dir: string): ResumeLedger {
  mkdirSync(dir, { recursive: true })
  const claim = (name: string): boolean => {
    try {
      writeFileSync(`${dir}/${name}`, '', { flag: 'wx' })
      return true
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST') return false
      throw error
    }
  }
  return {
    consumeState: (stateId) => claim(`state-${encodeURIComponent(stateId)}`),
    claimCall: (suspensionId, callId) => claim(`call-${encodeURIComponent(suspensionId)}-${encodeURIComponent(callId)}`),
  }
}

/** The registry with the two tools, an `ask` for deploys and an approval service that always defers. */
async function agent(env: NodeJS.ProcessEnv, file: string, mode: Mode) {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  // The PTC runtime starts on the first program (one program per process here: no warm-up).
  if (mode === 'ptc') await ctx.plugin(PtcExecutor, { warmUp: false })
  else await ctx.plugin(NativeExecutor, {})
  const text = { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] } as const
  ctx.tools.register(defineTool({ name: 'check_status', description: 'Health of the service.', parameters: {}, output: text, execute: () => 'healthy' }))
  ctx.tools.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a version of the service.',
      parameters: { version: { type: 'string', required: true } },
      output: text,
      execute: (args) => `deployed ${args.version}`,
    }),
  )
  ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'deploy' ? { type: 'ask', reason: 'deploys need a human' } : next()))
  ctx.tools.approval({ request: async () => ({ type: 'defer' }) })
  const suspension = createSuspension({ keys: { demo: env.DSH_APPROVALS_KEY ?? DEMO_KEY }, signWith: 'demo', ledger: fileLedger(`${file}.ledger`) })
  return { ctx, suspension }
}

/** Asks the recorded model (`turn` of the recordings) with `messages`; closes the server after. */
async function ask(turn: string, messages: ChatCompletionMessageParam[], tools: ReturnType<typeof toOpenAIChatTools>['tools']) {
  const server = await startReplayServer([{ kind: 'json', body: recordings()[turn] as JsonValue }])
  try {
    const client = new OpenAI({ apiKey: 'none', baseURL: `${server.origin}/v1`, maxRetries: 0 })
    return await client.chat.completions.create({ model: 'recorded', messages, tools })
  } finally {
    await server.close()
  }
}

/** A call as printed: `run_code` by its program's description, other tools with their arguments. */
function label(call: RawToolCall): string {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
  if (call.name !== 'run_code') return `${call.callId} ${call.name}(${args})`
  const description = (JSON.parse(args) as { description?: string }).description
  return `${call.callId} run_code("${description ?? ''}")`
}

const show = (call: RawToolCall, result: ToolResult | undefined, pending?: PendingCall): string =>
  `  ${label(call)} → ${result === undefined ? awaiting(pending) : result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' | ').replace(/\n/g, ' | ')}`

/** A pending call as printed: its reason, or for a program its sub-calls awaiting approval. */
function awaiting(pending: PendingCall | undefined): string {
  const subCalls = pending?.subCalls
  if (subCalls === undefined) return `awaiting approval (${pending?.reason ?? 'no reason'})`
  return `suspended: ${subCalls.map((s) => `${s.callId} ${s.toolName}(${JSON.stringify(s.arguments)}) awaits approval (${s.reason ?? 'no reason'})`).join('; ')}`
}

/** The ids a decision answers: each pending call's, or for a program its sub-calls'. */
function awaitingIds(state: SuspendedState): string[] {
  return state.payload.calls.flatMap((c) => (c.status === 'completed' ? [] : (c.subCalls?.map((s) => s.callId) ?? [c.callId])))
}

async function start(file: string, mode: Mode, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const { ctx, suspension } = await agent(env, file, mode)
  try {
    const declared = toOpenAIChatTools(ctx.tools.describe())
    print(`user: ${String(USER.content)}`)
    const parsed = parseOpenAIChatCompletion(await ask(mode === 'ptc' ? 'ptc-first' : 'first', [USER], declared.tools), { nameMap: declared.nameMap })
    print(`model: ${parsed.text} (${parsed.calls.length} call${parsed.calls.length === 1 ? '' : 's'})`)
    const outcome = await ctx.tools.executeSuspendable({ calls: parsed.calls, nameMap: declared.nameMap, suspension })
    const results = outcome.results
    const pending = outcome.status === 'suspended' ? outcome.pending : []
    parsed.calls.forEach((call, i) => print(show(call, results[i], pending.find((p) => p.callId === call.callId))))
    if (outcome.status === 'complete') {
      print('nothing to approve')
      return 0
    }
    const now = turnResults(parsed.calls, outcome.results, [], 'incremental')
    const messages = [USER, toOpenAIChatAssistantMessage(parsed) as ChatCompletionMessageParam, ...(toOpenAIChatToolMessages(now.calls, now.results) as ChatCompletionMessageParam[])]
    const saved: SavedApproval = { state: outcome.state, messages, calls: parsed.calls, delivered: now.delivered, mode }
    writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`)
    const ids = awaitingIds(outcome.state)
    print(`suspended: ${ids.length} call awaiting a decision (${ids.join(', ')}); state written to ${file}`)
    return 0
  } finally {
    await ctx.fiber.dispose()
  }
}

async function resume(file: string, decision: ResumeDecision, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedApproval
  const { ctx, suspension } = await agent(env, file, saved.mode ?? 'native')
  try {
    const declared = toOpenAIChatTools(ctx.tools.describe())
    const ids = awaitingIds(saved.state)
    const outcome = await ctx.tools.resume({ state: saved.state, decisions: Object.fromEntries(ids.map((id) => [id, decision])), suspension, nameMap: declared.nameMap })
    if (outcome.status !== 'complete') {
      print('still suspended')
      return 1
    }
    print(`resumed with ${decision.type}${decision.type === 'reject' && decision.reason !== undefined ? ` (${decision.reason})` : ''}`)
    const rest = turnResults(saved.calls, outcome.results, saved.delivered, 'incremental')
    rest.calls.forEach((call, i) => print(show(call, rest.results[i])))
    const messages = [...saved.messages, ...(toOpenAIChatToolMessages(rest.calls, rest.results) as ChatCompletionMessageParam[])]
    const answer = await ask(decision.type, messages, declared.tools)
    print(`model: ${answer.choices[0]?.message.content ?? ''}`)
    return 0
  } finally {
    await ctx.fiber.dispose()
  }
}

/** Runs one command; returns the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const option = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`)
    return i === -1 ? undefined : argv[i + 1]
  }
  const file = option('state') ?? 'approval.json'
  try {
    if (argv[0] === 'start') return await start(file, argv.includes('--ptc') ? 'ptc' : 'native', env, print)
    if (argv[0] === 'resume') {
      const type = option('decision')
      if (type !== 'approve' && type !== 'reject') {
        print('resume needs --decision approve or --decision reject [--reason "…"]')
        return 2
      }
      const reason = option('reason')
      return await resume(file, type === 'approve' ? { type } : reason === undefined ? { type } : { type, reason }, env, print)
    }
    print('usage: start [--state FILE] [--ptc] | resume [--state FILE] --decision approve|reject [--reason TEXT]')
    return 2
  } catch (error) {
    print(`error: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2), process.env, (line) => console.log(line))
}
