import { loadPyodide } from 'pyodide'
import { writeFileSync, readFileSync, existsSync } from 'node:fs'
let t = performance.now()
if (!existsSync('/tmp/py.snap')) {
  const py = await loadPyodide({ _makeSnapshot: true, jsglobals: Object.create(null) })
  console.log('load ms', performance.now() - t)
  py.runPython('import sys, asyncio, json, ast, traceback')
  t = performance.now()
  const s = py.makeMemorySnapshot()
  console.log('snap ms', performance.now() - t, s.length / 1048576)
  writeFileSync('/tmp/py.snap', s)
} else {
  const snap = readFileSync('/tmp/py.snap')
  const py = await loadPyodide({ _loadSnapshot: snap, jsglobals: Object.create(null) })
  console.log('load from snapshot ms', performance.now() - t)
  t = performance.now()
  console.log(py.runPython('import sys; str(len(sys.modules)) + " " + str("asyncio" in sys.modules)'), performance.now() - t)
}
