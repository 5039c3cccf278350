#!/usr/bin/env node
// The Vercel AI SDK code-mode peer of workload 5 (PTC). `@ai-sdk/code-mode` needs `ai` 7 and
// Node >= 22.13, so the runner (Node 20) starts this plain-JS script as a child process under the
// Node 22 binary of the `node` dev dependency (src/workloads/ptc-code-mode.ts) and reads one
// JSON object from its stdout. It measures what src/workloads/ptc.ts measures for us, through the
// AI SDK tool the model would call (`experimental_createCodeModeTool(tools).execute({ js })`):
// the cold run (first in the process), steady runs of a trivial program, K sub-calls of the
// trivial `add` tool awaited one by one and with Promise.all, and the model-facing bytes of the
// inventory task; it prints raw samples, which the runner summarises (parsePeerOutput).
// Usage: node code-mode.mjs '{"subCalls":100,"rounds":15,"warmup":3,"lookups":20}'
//
// `ai` 7 is installed under the alias `ai7` (the bench measures `ai` 6 elsewhere); pnpm links
// code-mode's `ai` peer to `ai` 6, so a resolve hook points code-mode's `import 'ai'` at `ai` 7.
import { registerHooks } from 'node:module'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const ai7Entry = pathToFileURL(require.resolve('ai7')).href
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'ai' && context.parentURL?.includes('/@ai-sdk/code-mode/')) return next(ai7Entry, context)
    return next(specifier, context)
  },
})

const config = JSON.parse(process.argv[2] ?? '{}')
const k = config.subCalls ?? 100
const rounds = config.rounds ?? 15
const warmup = config.warmup ?? 3
const lookups = config.lookups ?? 20

const t0 = performance.now()
const { tool, jsonSchema } = await import('ai7')
const { z } = await import('zod')
const { experimental_createCodeModeTool: createCodeModeTool } = await import('@ai-sdk/code-mode')
const importMs = performance.now() - t0

// Same shapes and bodies as src/systems/trivial.ts and src/workloads/ptc.ts.
const add = tool({
  description: 'Adds two integers and echoes a label.',
  inputSchema: z.object({ a: z.number().int(), b: z.number().int(), label: z.string() }),
  execute: async ({ a, b, label }) => ({ sum: a + b, label }),
})
function inventoryRecord(sku) {
  return {
    sku: `SKU-${String(sku).padStart(5, '0')}`,
    name: `Widget model ${sku}`,
    price: Math.round((10 + ((sku * 37) % 90) + ((sku * 13) % 100) / 100) * 100) / 100,
    inStock: sku % 3 !== 0,
    warehouse: ['Rotterdam', 'Memphis', 'Singapore', 'Leipzig'][sku % 4],
    tags: ['hardware', sku % 2 === 0 ? 'steel' : 'aluminium', sku % 5 === 0 ? 'clearance' : 'regular'],
    description: `A dependable widget (model ${sku}) for everyday assembly work, rated for indoor and outdoor use.`,
  }
}
const inventory_lookup = tool({
  description: 'Looks up one inventory record by numeric SKU.',
  inputSchema: z.object({ sku: z.number().int().describe('The numeric SKU.') }),
  outputSchema: z.object({ sku: z.string(), name: z.string(), price: z.number(), inStock: z.boolean(), warehouse: z.string(), tags: z.array(z.string()), description: z.string() }),
  execute: async ({ sku }) => inventoryRecord(sku),
})

// Default limits allow 32 bridge requests in flight and 256 in all: raised so K parallel calls fit.
const codeMode = createCodeModeTool({ add, inventory_lookup }, { executionPolicy: { maxInFlightBridgeRequests: Math.max(32, k, lookups), maxBridgeRequests: Math.max(256, k + 1, lookups + 1) } })
let n = 0
const runCode = (js) => codeMode.execute({ js }, { toolCallId: `cm${n++}`, messages: [] })

const trivial = 'return 1'
const sequential = `let s = 0\nfor (let i = 0; i < ${k}; i++) { const r = await tools.add({ a: i, b: 2, label: 'x' }); s += r.sum }\nreturn s`
const parallel = `const rs = await Promise.all(Array.from({ length: ${k} }, (_, i) => tools.add({ a: i, b: 2, label: 'x' })))\nreturn rs.reduce((s, r) => s + r.sum, 0)`
const expectedSum = (k * (k - 1)) / 2 + 2 * k

const c0 = performance.now()
const cold = await runCode(trivial)
const coldMs = performance.now() - c0
if (cold !== 1) throw new Error(`code-mode: trivial program returned ${JSON.stringify(cold)}`)
if ((await runCode(sequential)) !== expectedSum) throw new Error('code-mode: sequential program gave a wrong sum')
if ((await runCode(parallel)) !== expectedSum) throw new Error('code-mode: parallel program gave a wrong sum')

// Rotating order within each round after a warm-up, as src/sampler.ts does.
const programs = [
  ['trivial', trivial],
  ['sequential', sequential],
  ['parallel', parallel],
]
const samples = { trivial: [], sequential: [], parallel: [] }
for (let r = 0; r < warmup + rounds; r++) {
  for (let j = 0; j < programs.length; j++) {
    const [id, js] = programs[(r + j) % programs.length]
    const s0 = performance.now()
    await runCode(js)
    const ms = performance.now() - s0
    if (r >= warmup) samples[id].push(ms)
  }
}

// The inventory task as one program; bytes as the AI SDK sends them (tool input JSON, JSON output).
const skus = Array.from({ length: lookups }, (_, i) => 1000 + i * 7)
const program = [
  `const skus = ${JSON.stringify(skus)}`,
  'const items = await Promise.all(skus.map((sku) => tools.inventory_lookup({ sku })))',
  'const cheapest = items.filter((i) => i.inStock).sort((a, b) => a.price - b.price)[0]',
  'return `${cheapest.sku} ${cheapest.price}`',
].join('\n')
const answer = await runCode(program)
const bytes = (s) => Buffer.byteLength(s, 'utf8')
const { asSchema } = await import('ai7')
const inputSchema = await asSchema(codeMode.inputSchema).jsonSchema
const task = {
  answer,
  calls: 1,
  callBytes: bytes('code_mode') + bytes(JSON.stringify({ js: program })),
  resultBytes: bytes(JSON.stringify(answer)),
  describeBytes: bytes(JSON.stringify({ name: 'code_mode', description: codeMode.description, parameters: inputSchema })),
}

process.stdout.write(
  `${JSON.stringify({
    node: process.versions.node,
    codeMode: require('@ai-sdk/code-mode/package.json').version,
    ai: require('ai7/package.json').version,
    importMs,
    coldMs,
    subCalls: k,
    steadyMs: samples.trivial,
    sequentialMs: samples.sequential,
    parallelMs: samples.parallel,
    task,
  })}\n`,
)
