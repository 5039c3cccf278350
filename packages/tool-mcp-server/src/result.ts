/**
 * What an MCP client receives for a pipeline result (pure): the finalized content (plus
 * attached contexts, in order), `structuredContent` from the canonical value when the tool
 * declares an object `outputSchema`, and `isError` with the failure's code in `_meta`.
 */
import type { AnyToolDefinition, ContentBlock, JsonValue, ToolResult } from '@deepseek-ai/dsh-tools'
import { isMcpContentTool, renderMcpBlock, type McpContentBlock, type McpContentValue } from './content'

/** The `_meta` key under which a failed call's `{ code, name }` travels. */
export const ERROR_META_KEY = 'io.github.deepseek-ai/dsh-tools/error'

/** A `tools/call` result as sent. */
export interface ServedCallResult {
  readonly [key: string]: unknown
  readonly content: readonly (ContentBlock | McpContentBlock)[]
  readonly structuredContent?: { readonly [key: string]: JsonValue }
  readonly isError?: true
  readonly _meta?: { readonly [key: string]: JsonValue }
}

/** The object `outputSchema` a tool's output declares for MCP, or `undefined` (MCP output schemas must be `type: 'object'`). */
export function outputSchemaOf(definition: AnyToolDefinition): { readonly [key: string]: unknown } | undefined {
  const schema = definition.output.schema
  if (typeof schema !== 'object' || schema === null || isMcpContentTool(definition)) return undefined
  return (schema as { type?: unknown }).type === 'object' ? (schema as { readonly [key: string]: unknown }) : undefined
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The content blocks the client receives for a success. */
function successContent(result: ToolResult & { isError: false }, definition: AnyToolDefinition | undefined): readonly (ContentBlock | McpContentBlock)[] {
  if (definition !== undefined && isMcpContentTool(definition)) {
    const blocks = (result.value as unknown as McpContentValue).content
    // Served as blocks only while nothing after the body changed what they render to.
    if (Array.isArray(blocks) && sameJson(blocks.map(renderMcpBlock), result.content)) return blocks
  }
  return result.content
}

/** Maps one frozen pipeline result to the `tools/call` result the client receives. */
export function toCallResult(result: ToolResult, definition: AnyToolDefinition | undefined): ServedCallResult {
  const contexts = (result.contexts ?? []).flatMap((c) => c.content)
  if (result.isError) {
    return { content: [...result.content, ...contexts], isError: true, _meta: { [ERROR_META_KEY]: { code: result.error.info.code, name: result.error.info.name } } }
  }
  const content = [...successContent(result, definition), ...contexts]
  const schema = definition === undefined ? undefined : outputSchemaOf(definition)
  const value = result.value
  if (schema !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) return { content, structuredContent: value }
  return { content }
}
