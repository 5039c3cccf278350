/**
 * The floor (docs/design.md, "Performance targets"): per call, `JSON.parse` of the argument text, a precompiled ajv
 * validator and a direct call of the body — the least any tool layer must do.
 */
import AjvImport from 'ajv'
import { addBody, ARGS_JSON_SCHEMA, type ScriptedCall, type StepSystem } from './trivial'

type AjvClass = typeof AjvImport
/** CommonJS interop: the default import may be the class or the module object. */
const Ajv: AjvClass = typeof AjvImport === 'function' ? AjvImport : (AjvImport as unknown as { default: AjvClass }).default

/** Creates the floor system over `calls` (the variant does not apply: there is nothing to schedule). */
export function createFloor(calls: readonly ScriptedCall[]): StepSystem {
  const validate = new Ajv({ strict: false }).compile<{ a: number; b: number; label: string }>(ARGS_JSON_SCHEMA)
  const run = (): unknown[] => {
    const out = new Array<unknown>(calls.length)
    for (let i = 0; i < calls.length; i++) {
      const args: unknown = JSON.parse(calls[i]!.arguments)
      if (!validate(args)) throw new Error(`floor: call ${i} failed validation`)
      out[i] = addBody(args)
    }
    return out
  }
  return {
    id: 'floor',
    async step() {
      run()
    },
    async outputs() {
      return run()
    },
    async dispose() {},
  }
}
