/**
 * The Python flavour of `run_code` (the PTC executor's `CodeLanguageFlavour` seam): the Python
 * SDK and the descriptions a model reads when the mounted runtime runs Python.
 */
import type { CodeLanguageFlavour } from '@deepseek-ai/dsh-tool-executor-ptc'
import { pythonIdentifier, uniqueIdentifiers } from './names'
import { generatePythonSdk } from './sdk'

/** The model-facing description of `run_code` when programs are Python. */
export const PY_RUN_CODE_DESCRIPTION =
  'Execute a Python program that calls the tools of the SDK described in the system prompt and returns only its output. Both `code` (the program) and `description` (a short label) are required. Batch many tool calls in one program, filter and aggregate their results in code, and print or return only what you need.'

/** The description of `run_code`'s `code` parameter when programs are Python. */
export const PY_CODE_DESCRIPTION =
  'The program: Python 3 run as the body of an async function. Use top-level await to call tools (`await tools.name(arg=value)`), print() to print, and `return` a value. Only the printed lines and the returned value come back to you.'

/**
 * The Python flavour: {@link generatePythonSdk} and the texts above. Its call example names the
 * function the SDK shows for the tool (with the collision suffix the SDK gives it, e.g.
 * `fetch_page_2` when `fetch.page` took `fetch_page`).
 */
export const pythonFlavour: CodeLanguageFlavour = Object.freeze({
  renderSdk: generatePythonSdk,
  runCodeDescription: PY_RUN_CODE_DESCRIPTION,
  codeDescription: PY_CODE_DESCRIPTION,
  callExample: (name: string, visible?: readonly string[]) =>
    `await tools.${(visible === undefined ? undefined : uniqueIdentifiers(visible, 'tool').get(name)) ?? pythonIdentifier(name, 'tool')}(...)`,
})
