/**
 * The main job: a deployment with a realistic tool set, the native executor, the timeout policy
 * and a policy that denies writes, replaying recorded model steps — provider-native payloads —
 * through `ctx.tools.execute`, then the same task as one model-written program through the PTC
 * executor, in TypeScript and in Python. See `examples/demo/README.md`.
 *
 * Run: `npm run demo` (from the repository root); `npm run demo -- --timeline <file>.svg` also
 * draws every batch as a timeline.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runNative } from './native'
import { runPtc } from './ptc'
import { runMcp } from './mcp-step'
import { runMcpServe } from './mcp-serve-step'
import { runPtcPython } from './ptc-python'
import { renderTimelineSvg } from './timeline'
import { paragraph } from './format'

/** The demo's command-line options. */
export interface DemoOptions {
  /** Where to write the timeline SVG; absent = no picture. */
  readonly timeline?: string
}

/**
 * Parses `--timeline <file>` / `--timeline=<file>`.
 *
 * @throws Error naming the option for a missing file or an unknown argument.
 */
export function parseArgs(argv: readonly string[]): DemoOptions {
  let timeline: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--timeline' || arg.startsWith('--timeline=')) {
      const value = arg === '--timeline' ? argv[++i] : arg.slice('--timeline='.length)
      if (value === undefined || value === '' || value.startsWith('--')) throw new Error('--timeline needs a file name, e.g. --timeline timeline.svg')
      timeline = value
    } else {
      throw new Error(`unknown argument "${arg}"; the demo takes only --timeline <file>.svg`)
    }
  }
  return timeline === undefined ? {} : { timeline }
}

const root = fileURLToPath(new URL('../sample', import.meta.url))

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let options: DemoOptions
  try {
    options = parseArgs(process.argv.slice(2))
  } catch (error) {
    console.error(`demo: ${(error as Error).message}`)
    process.exit(2)
  }
  const native = await runNative(root)
  const ptc = await runPtc(root, native)
  await runPtcPython(root, ptc)
  await runMcp(root)
  await runMcpServe(root)
  if (options.timeline !== undefined) {
    // npm runs scripts from the repository root; a relative path is taken from where npm was run.
    const file = resolve(process.env.INIT_CWD ?? process.cwd(), options.timeline)
    writeFileSync(file, renderTimelineSvg([...native.batches, ptc.batch]))
    console.log()
    for (const line of paragraph(`Timeline of ${native.batches.length + 1} batches written to ${file}`)) console.log(line)
  }
}
