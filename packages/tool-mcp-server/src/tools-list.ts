/**
 * `tools/list` (pure parts): the MCP `Tool` of a definition and the opaque pagination cursor.
 */
import type { AnyToolDefinition, ToolSchema } from '@deepseek-ai/dsh-tools'
import { outputSchemaOf } from './result'

/** A tool as `tools/list` lists it. */
export interface ListedTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown }
  readonly outputSchema?: { readonly [key: string]: unknown }
}

/** MCP input schemas are objects with `type: 'object'`: `true` or a schema without `type` gets it. */
function inputSchemaOf(parameters: ToolSchema['parameters']): ListedTool['inputSchema'] {
  if (typeof parameters !== 'object' || parameters === null) return { type: 'object' }
  return (parameters as { type?: unknown }).type === 'object' ? (parameters as ListedTool['inputSchema']) : { ...parameters, type: 'object' }
}

/** The listed form of a tool: its model-facing projection plus the output schema when it is an object schema. */
export function listedTool(schema: ToolSchema, definition: AnyToolDefinition): ListedTool {
  const output = outputSchemaOf(definition)
  return { name: schema.name, description: schema.description, inputSchema: inputSchemaOf(schema.parameters), ...(output === undefined ? {} : { outputSchema: output }) }
}

/** The cursor of the page starting at `offset` (base64url of `{"o":offset}`). */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url')
}

/** The offset a cursor names, or `undefined` for a cursor this server did not issue. */
export function decodeCursor(cursor: string): number | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }
    return Number.isInteger(parsed.o) && (parsed.o as number) >= 0 ? (parsed.o as number) : undefined
  } catch {
    return undefined
  }
}
