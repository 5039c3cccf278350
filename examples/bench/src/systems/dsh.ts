/**
 * Our system: a deployment with the registry and the native executor, the trivial tool
 * declared with the DSL (arguments and output validated), one `tools/pre-execute` listener, one
 * guard and one `tools/execute` wrapper. The listener and the wrapper are registered with
 * `ctx.tools.on` (as this project's policy plugins register theirs); the `dsh-ctx-on` variant
 * registers them with cordis' `ctx.on` instead, whose per-call argument tracing is then the
 * difference. A step is what a harness does per model step: `resolve` → `describe` → `execute`
 * the raw batch → dispose the tool set.
 */
import type { Context } from 'cordis'
import { defineTool, type RawToolCall, type ToolEvents } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { addBody, TOOL_DESCRIPTION, TOOL_NAME, type ScriptedCall, type StepSystem, type Variant } from './trivial'

/** The trivial tool in our DSL; `parallel` decides `isConcurrencySafe`. */
export function dshAddTool(parallel: boolean) {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: {
      a: { type: 'integer', required: true },
      b: { type: 'integer', required: true },
      label: { type: 'string', required: true },
    },
    output: {
      schema: { type: 'object', properties: { sum: { type: 'integer', required: true }, label: { type: 'string', required: true } }, additionalProperties: false },
      render: (_args, value) => [{ type: 'text', text: `${value.label}: ${value.sum}` }],
    },
    isConcurrencySafe: () => parallel,
    execute: (args) => addBody(args),
  })
}

/**
 * How the listener and the wrapper are registered: `tools` with `ctx.tools.on`, `ctx` with
 * cordis' `ctx.on`, `none` leaves out the listener, the guard and the wrapper (an attribution run:
 * what they cost).
 */
export type DshHooks = 'tools' | 'ctx' | 'none'

/**
 * Adds the measured hooks to `ctx`: one `tools/pre-execute` listener and one `tools/execute`
 * wrapper (both `(exec, next) => next()`, registered as `how` says) and one guard that allows
 * everything. `none` adds nothing.
 */
export function addHooks(ctx: Context, how: DshHooks): void {
  if (how === 'none') return
  const pre: ToolEvents['tools/pre-execute'] = (_exec, next) => next()
  const wrapper: ToolEvents['tools/execute'] = (_exec, next) => next()
  if (how === 'tools') ctx.tools.on('tools/pre-execute', pre)
  else ctx.on('tools/pre-execute', pre)
  ctx.tools.guard(() => undefined)
  if (how === 'tools') ctx.tools.on('tools/execute', wrapper)
  else ctx.on('tools/execute', wrapper)
}

/** Creates our system over `calls` (default pool of 10 parallel bodies). */
export async function createDsh(calls: readonly ScriptedCall[], variant: Variant, options: { readonly hooks?: DshHooks } = {}): Promise<StepSystem> {
  const hooks = options.hooks ?? 'tools'
  const h = await createHarness()
  h.ctx.tools.register(dshAddTool(variant === 'parallel'))
  addHooks(h.ctx, hooks)
  const batch: RawToolCall[] = calls.map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }))
  const step = async () => {
    const toolSet = await h.tools.resolve()
    try {
      const description = h.tools.describe({ toolSet })
      if (description.tools.length !== 1) throw new Error(`dsh: expected 1 described tool, got ${description.tools.length}`)
      return await h.tools.execute({ calls: batch, toolSet })
    } finally {
      toolSet.dispose()
    }
  }
  return {
    id: hooks === 'none' ? 'dsh-bare' : hooks === 'ctx' ? 'dsh-ctx-on' : 'dsh',
    async step() {
      await step()
    },
    async outputs() {
      const results = await step()
      return results.map((r) => (r.isError ? r.error.message : r.value))
    },
    dispose: () => h.dispose(),
  }
}
