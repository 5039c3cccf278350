/**
 * DeepSeek / OpenAI-compatible servers: `type` arrays become `anyOf` branches. Many
 * OpenAI-compatible servers (vLLM, SGLang, llama.cpp grammars, gateways) handle `anyOf` but not
 * union `type` arrays; DeepSeek's strict mode documents `anyOf` for unions.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { Origins, Report, childPointer, show, typeList } from './json'
import { splitByType } from './split'
import { mapSchema } from './walk'

/** Rewrites every union `type` array under `root` into `anyOf`. */
export function rewriteTypeArrays(root: JsonObject, base: string, report: Report, origins: Origins): JsonObject {
  return mapSchema(root, base, origins, (node, pointer) => {
    if (!Array.isArray(node.type)) return node
    const original = node.type
    const types = typeList(node)
    if (types.length === 1) {
      node.type = types[0] as string
      report.warn(childPointer(pointer, 'type'), 'TYPE_ARRAY_REWRITTEN', `type ${show(original)} declared as "${types[0]}"`)
      return node
    }
    if (node.anyOf !== undefined) return node
    delete node.type
    node.anyOf = splitByType(node, types)
    report.warn(childPointer(pointer, 'type'), 'TYPE_ARRAY_REWRITTEN', `type ${show(original)} declared as anyOf of single-type schemas`)
    return node
  }) as JsonObject
}
