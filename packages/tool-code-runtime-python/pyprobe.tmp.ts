import { createPythonRuntime } from './src/index'
import { validateLimits } from '@deepseek-ai/dsh-tool-executor-ptc'
import { readFileSync } from 'node:fs'
const rt = createPythonRuntime()
await rt.warmUp()
const progs = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as string[]
for (const p of progs) {
  const out = await rt.run({ program: p, bindings: { add: async (a: any) => ({ sum: a.a + a.b }), slow: async () => { await new Promise(r => setTimeout(r, 300)); return 1 } }, signal: new AbortController().signal, limits: validateLimits({ wallMs: 5000 }) })
  console.log('-----\n' + p + '\n=> ' + JSON.stringify({ ...out, stats: undefined }, null, 1))
}
rt.dispose()
