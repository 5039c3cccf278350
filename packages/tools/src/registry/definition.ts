/**
 * What a definition must be to register (docs/design.md, "Definitions and schemas",
 * registration errors), and its model-facing projection: every `ToolRegistrationError` a
 * definition itself causes, with the tool's name and the JSON pointer.
 */
import type { AnyToolDefinition, JsonSchemaNode, ToolSchema } from '../contracts'
import { quoteText, ToolRegistrationError } from '../errors'
import { capPointer } from '../limits'
import { checkSchema } from '../json-schema'
import { deepFreeze } from '../json'
import { closeObjects, type UnknownKeysMode } from '../unknown-keys'
import { showConfigValue } from '../unknown-keys'
import { MAX_TIMER_MS } from './config'
import { NAME_RULE_TEXT, RESERVED_TOOL_NAMES, toolNameProblem } from './names'
import type { ToolRegistry } from './tool-registry'

/** {@link ToolRegistry._validateDefinition}'s work: the definition's frozen {@link ToolSchema}, or a `ToolRegistrationError`. */
export function validateDefinition(definition: AnyToolDefinition, unknownKeys: UnknownKeysMode): ToolSchema {
  if (definition === null || typeof definition !== 'object') throw new ToolRegistrationError(`Cannot register a tool: expected a definition object, got ${definition === null ? 'null' : typeof definition}`)
  const given: unknown = definition.name
  const nameIssue = typeof given === 'string' ? toolNameProblem(given) : `it is ${given === null ? 'null' : typeof given}, not a string`
  if (nameIssue !== undefined) {
    const shown = typeof given === 'string' ? quoteText(given.length > 200 ? `${given.slice(0, 200)}…` : given) : String(given)
    throw new ToolRegistrationError(
      `Cannot register tool ${shown}: ${NAME_RULE_TEXT} (${nameIssue})`,
      typeof given === 'string' ? { toolName: given, pointer: '/name' } : { pointer: '/name' },
    )
  }
  const name = given as string
  const fail = (pointer: string, problem: string): never => {
    throw new ToolRegistrationError(`Cannot register tool ${quoteText(name)}: ${capPointer(pointer)} ${problem}`, { toolName: name, pointer })
  }

  if (RESERVED_TOOL_NAMES.includes(name)) fail('/name', `"${name}" is reserved for the PTC executor`)
  if (typeof definition.description !== 'string') fail('/description', 'must be a string')
  if (typeof definition.execute !== 'function') fail('/execute', 'must be a function')
  const parameters = definition.parameters
  // checkSchema applies the one nesting limit (MAX_JSON_DEPTH) first, iteratively, so nothing
  // recursive here or later (compilation, projection, declaration) can overflow the stack.
  const paramProblem = checkSchema(parameters)
  if (paramProblem !== undefined) fail(`/parameters${paramProblem.pointer}`, paramProblem.message)
  if (typeof parameters === 'object' && parameters !== null) {
    const type = (parameters as { type?: unknown }).type
    if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) fail('/parameters/type', `must be "object" (tool arguments are a JSON object), got ${JSON.stringify(type)}`)
  } else if (parameters === false) fail('/parameters', 'is `false`, which admits no arguments at all')
  const output = definition.output as unknown
  if (output === null || typeof output !== 'object') fail('/output', 'is missing: declare { schema, render } for the canonical value')
  const { schema: outSchema, render } = output as { schema?: unknown; render?: unknown }
  if (outSchema === undefined) fail('/output/schema', 'is missing')
  const outProblem = checkSchema(outSchema as JsonSchemaNode)
  if (outProblem !== undefined) fail(`/output/schema${outProblem.pointer}`, outProblem.message)
  if (typeof render !== 'function') fail('/output/render', 'must be a function (args, value) => ContentBlock[]')
  const timeoutMs = definition.timeoutMs
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS)) {
    fail('/timeoutMs', `must be a positive finite number of ms up to ${MAX_TIMER_MS}, got ${showConfigValue(timeoutMs)}`)
  }
  const budget: unknown = definition.resultBudget
  if (budget !== undefined) {
    if (budget === null || typeof budget !== 'object' || Array.isArray(budget)) fail('/resultBudget', `must be an object { maxChars }, got ${showConfigValue(budget)}`)
    const extra = Object.keys(budget as object).find((key) => key !== 'maxChars')
    if (extra !== undefined) fail(`/resultBudget/${extra}`, 'is not a known option (expected "maxChars")')
    const maxChars = (budget as { maxChars?: unknown }).maxChars
    if (typeof maxChars !== 'number' || !Number.isInteger(maxChars) || maxChars < 1) fail('/resultBudget/maxChars', `must be a positive integer of characters, got ${showConfigValue(maxChars)}`)
  }
  for (const key of ['isConcurrencySafe', 'presentCall', 'presentResult', 'finalizeContent', 'projectContent'] as const) {
    const fn = definition[key]
    if (fn !== undefined && typeof fn !== 'function') fail(`/${key}`, 'must be a function')
  }
  const projected: ToolSchema = {
    name,
    description: definition.description,
    parameters: typeof parameters === 'object' ? deepFreeze(unknownKeys === 'reject' ? closeObjects(structuredClone(parameters)) : structuredClone(parameters)) : parameters,
    ...(definition.deferLoading === true ? { deferLoading: true as const } : {}),
  }
  return Object.freeze(projected)
}
