/**
 * The PTC section once more, as a Python program: the same task, the same deployment and pipeline,
 * with the Python runtime (`@deepseek-ai/dsh-code-runtime-python`: Pyodide in a worker thread)
 * mounted instead of QuickJS. Prints both programs and the model-facing bytes of each.
 */
import { createPythonRuntime } from '@deepseek-ai/dsh-code-runtime-python'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { bootDeployment } from './deployment'
import { formatMs, listing, paragraph, preview, style } from './format'
import { PROGRAM, type PtcRun } from './ptc'

/** The same program a model would write in Python (top-level await, keyword arguments, `return` for the result). */
export const PYTHON_PROGRAM = `
import asyncio, re
dirs, hits = await asyncio.gather(
    tools.list_allowed_directories(),
    tools.search_files(query="refund"),
)
policy = await tools.read_text_file(path="docs/policies.md", head=3)
mentioned = [m for h in hits for m in re.findall(r"ORD-\\d{4}", h["text"])]
ids = list(dict.fromkeys([*mentioned, "ORD-1003", "ORD-1004"]))
orders = await asyncio.gather(*(tools.lookup_order(id=i) for i in ids))
open_orders = [o for o in orders if o["status"] not in ("delivered", "refunded")]
refunded = [o for o in orders if o["status"] == "refunded"]
total = await tools.get_sum(a=refunded[0]["total"], b=sum(o["total"] for o in open_orders))
try:
    await tools.slow_report(delayMs=5000)
except ToolCallError as e:
    print("weekly report unavailable:", e.message)
try:
    await tools.write_file(path="docs/summary.md", content="Refunded: " + ", ".join(o["id"] for o in refunded))
except ToolCallError as e:
    print("summary not written:", e.message)
return {
    "refunded": [{"id": o["id"], "customer": o["customer"], "total": o["total"]} for o in refunded],
    "refundedPlusOpenTotal": total,
    "policy": next(l for l in policy.split("\\n") if "Refund window" in l),
}
`

/** What the Python run printed and returned (the TypeScript run's shape without its timeline batch). */
export type PtcPythonRun = Omit<PtcRun, 'batch'>

/** Runs the Python program and prints it next to the TypeScript one, with the bytes of each. */
export async function runPtcPython(root: string, typescript: PtcRun): Promise<PtcPythonRun> {
  const { bold, dim } = style
  const runtime = createPythonRuntime()
  const { ctx, agent, log } = await bootDeployment(root, (c) => c.plugin(PtcExecutor, { maxParallelSubCalls: 4, runtime }))
  try {
    const description = ctx.tools.describe({ agent })
    const sdk = description.sections[0]?.text ?? ''
    console.log()
    console.log(bold('dsh-tools demo — PTC executor with Python programs (Pyodide)'))
    for (const line of paragraph(`Tools the model sees: ${description.tools.map((t) => t.name).join(', ')} + a ${Buffer.byteLength(sdk)}-byte Python SDK section`)) console.log(line)
    console.log('  The TypeScript program (QuickJS):')
    for (const line of listing(PROGRAM.trim())) console.log(dim(line))
    console.log('  The Python program (Pyodide):')
    for (const line of listing(PYTHON_PROGRAM.trim())) console.log(dim(line))
    const t0 = performance.now()
    const [result] = await ctx.tools.execute({
      agent,
      calls: [{ callId: 'call_ptc', name: 'run_code', arguments: JSON.stringify({ code: PYTHON_PROGRAM, description: 'answer the refund question' }) }],
    })
    const elapsed = performance.now() - t0
    const subCalls = log.ofType('tool/code-dispatch')
    console.log(dim(`  ${subCalls.length} sub-calls through the full pipeline in ${formatMs(elapsed).trim()}`))
    const text = result!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    console.log('  What the model sees:')
    for (const line of preview(text, 40, '    ')) console.log(line)
    const bytes = Buffer.byteLength(JSON.stringify([{ role: 'tool', tool_call_id: 'call_ptc', content: text }]))
    console.log()
    console.log(bold('TypeScript vs Python (same task, same pipeline)'))
    console.log(`  program bytes:        TypeScript ${Buffer.byteLength(PROGRAM.trim())}, Python ${Buffer.byteLength(PYTHON_PROGRAM.trim())}`)
    console.log(`  model-facing results: TypeScript ${typescript.modelFacingBytes} bytes, Python ${bytes} bytes${text === typescript.text ? ' (byte-identical)' : ''}`)
    console.log()
    return { text, subCalls: subCalls.map((e) => `${e.name} ${e.isError ? e.error?.info?.code : 'ok'}`), modelFacingBytes: bytes }
  } finally {
    runtime.dispose()
  }
}
