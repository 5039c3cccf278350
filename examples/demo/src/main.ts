/**
 * The main job (ARCHITECTURE §9): a deployment with a realistic tool set, the native executor,
 * the timeout policy and a policy that denies writes, replaying recorded model steps —
 * provider-native payloads — through `ctx.tools.execute`, then the same task as one
 * model-written program through the PTC executor, in TypeScript and in Python.
 *
 * Run: `npm run demo` (from the repository root).
 */
import { fileURLToPath } from 'node:url'
import { runNative } from './native'
import { runPtc } from './ptc'
import { runPtcPython } from './ptc-python'

const root = fileURLToPath(new URL('../sample', import.meta.url))

const native = await runNative(root)
const ptc = await runPtc(root, native)
await runPtcPython(root, ptc)
