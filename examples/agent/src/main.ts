/**
 * `npm run agent` — the agent loop from the command line.
 *
 *   npm run agent                                   offline: the bundled replay server, no key
 *   npm run agent -- --executor ptc                 offline, programmatic tool calling (one run_code program)
 *   npm run agent -- --base-url https://api.deepseek.com --model deepseek-chat
 *   npm run agent -- --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B --prompt "…"
 *
 * The key comes from the environment: `OPENAI_API_KEY` (any OpenAI-compatible server's key).
 * Exits 0 after a final answer or the step limit, 1 on an error (printed).
 */
import { parseArgs } from 'node:util'
import { runAgent } from './agent'
import { startOfflineServer } from './offline'

const DEFAULT_PROMPT = 'What is the weather in Oslo and in Lima (in fahrenheit), and what is 5 factorial?'

/** Runs the CLI with `argv` (without the node and script paths) and `env`; resolves to the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, print: (line: string) => void = (line) => console.log(line)): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'base-url': { type: 'string' },
      model: { type: 'string' },
      prompt: { type: 'string' },
      'max-steps': { type: 'string' },
      executor: { type: 'string' },
    },
  })
  const executor = values.executor ?? 'native'
  if (executor !== 'native' && executor !== 'ptc') {
    print(`error: --executor must be native or ptc, got ${JSON.stringify(executor)}`)
    return 1
  }
  const offline = values['base-url'] === undefined
  const server = offline ? await startOfflineServer(executor) : undefined
  try {
    const baseURL = server ? `${server.origin}/v1` : (values['base-url'] as string)
    // Offline, the local replay server needs no key (and gets none of yours).
    const apiKey = offline ? 'offline' : env.OPENAI_API_KEY
    if (apiKey === undefined || apiKey === '') {
      print('error: set OPENAI_API_KEY to the endpoint\'s API key')
      return 1
    }
    const model = values.model ?? (offline ? 'offline-replay' : 'deepseek-chat')
    print(offline ? `endpoint: offline replay server ${baseURL} (no network)` : `endpoint: ${baseURL}, model ${model}`)
    const maxSteps = values['max-steps'] === undefined ? 8 : Number(values['max-steps'])
    await runAgent({ baseURL, apiKey, model, prompt: values.prompt ?? DEFAULT_PROMPT, maxSteps, executor, print })
    return 0
  } catch (error) {
    print(`error: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  } finally {
    await server?.close()
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2), process.env)
}
