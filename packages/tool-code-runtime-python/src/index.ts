/**
 * `@deepseek-ai/dsh-code-runtime-python` — Python programs for the PTC executor: a Pyodide
 * (CPython on WebAssembly) `CodeRuntime` in a worker thread, and the Python SDK the model reads.
 *
 * @example ctx.plugin(PtcExecutor, { runtime: createPythonRuntime() })
 */
export * from './runtime'
export * from './flavour'
export { generatePythonSdk, PY_SDK_PREAMBLE, PY_MAX_DEPTH } from './sdk'
export { pythonToolNames, pythonIdentifier, PYTHON_KEYWORDS, type PythonToolName } from './names'
