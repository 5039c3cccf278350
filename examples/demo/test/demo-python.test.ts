/**
 * The Python half of the demo: the same task as a Python program gives the same sub-calls and
 * byte-identical model-facing text as the TypeScript program.
 */
import { fileURLToPath } from 'node:url'
import { expect, test, vi } from 'vitest'
import { runNative } from '../src/native'
import { runPtc } from '../src/ptc'
import { runPtcPython } from '../src/ptc-python'

const root = fileURLToPath(new URL('../sample', import.meta.url))

test('the Python program does what the TypeScript program does, with the same model-facing bytes', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
  try {
    const native = await runNative(root)
    const typescript = await runPtc(root, native)
    const python = await runPtcPython(root, typescript)
    expect(python.subCalls).toEqual(typescript.subCalls)
    expect(python.text).toBe(typescript.text)
    expect(python.modelFacingBytes).toBe(typescript.modelFacingBytes)
    const printed = log.mock.calls.map((c) => String(c[0])).join('\n')
    expect(printed).toContain('The Python program (Pyodide):')
    expect(printed).toContain('(byte-identical)')
  } finally {
    log.mockRestore()
  }
}, 180_000)
