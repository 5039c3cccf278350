/**
 * MCP content blocks a tool can return beyond the registry's text and image blocks (audio,
 * embedded resources, resource links), through an output declaration made by
 * {@link defineMcpContentTool}: the canonical value is `{ content: [MCP blocks] }`, the model sees
 * their text/image rendering, and an MCP client receives the blocks themselves.
 */
import { defineRawTool, type ContentBlock, type DefineRawToolInput, type JsonObject, type JsonValue, type ToolDefinition, type ToolExecution } from '@deepseek-ai/dsh-tools'

/** An MCP content block as `tools/call` results carry it (text, image, audio, resource, resource_link). */
export type McpContentBlock =
  | { readonly type: 'text'; readonly text: string; readonly annotations?: JsonObject; readonly _meta?: JsonObject }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string; readonly annotations?: JsonObject; readonly _meta?: JsonObject }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string; readonly annotations?: JsonObject; readonly _meta?: JsonObject }
  | {
      readonly type: 'resource'
      readonly resource: { readonly uri: string; readonly mimeType?: string; readonly text?: string; readonly blob?: string; readonly _meta?: JsonObject }
      readonly annotations?: JsonObject
      readonly _meta?: JsonObject
    }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly mimeType?: string; readonly description?: string; readonly title?: string; readonly _meta?: JsonObject }

/** The canonical value of a tool declared with {@link mcpContentOutput}. */
export interface McpContentValue {
  readonly content: readonly McpContentBlock[]
}

const BLOCK_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'image', 'audio', 'resource', 'resource_link'] } },
  oneOf: [
    { properties: { type: { const: 'text' }, text: { type: 'string' } }, required: ['text'] },
    { properties: { type: { enum: ['image', 'audio'] }, data: { type: 'string' }, mimeType: { type: 'string' } }, required: ['data', 'mimeType'] },
    {
      properties: {
        type: { const: 'resource' },
        resource: {
          type: 'object',
          required: ['uri'],
          properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, text: { type: 'string' }, blob: { type: 'string' } },
          anyOf: [{ required: ['text'] }, { required: ['blob'] }],
        },
      },
      required: ['resource'],
    },
    { properties: { type: { const: 'resource_link' }, uri: { type: 'string' }, name: { type: 'string' } }, required: ['uri', 'name'] },
  ],
} as const

/** The JSON Schema of {@link McpContentValue} (what the pipeline validates the body's value against). */
export const MCP_CONTENT_SCHEMA = { type: 'object', required: ['content'], additionalProperties: false, properties: { content: { type: 'array', items: BLOCK_SCHEMA } } } as const

/** How the model (and any non-MCP consumer) sees one MCP block: text and images as they are, the rest as a readable line. */
export function renderMcpBlock(block: McpContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text }
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType }
    case 'audio':
      return { type: 'text', text: `[audio] ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes` }
    case 'resource': {
      const r = block.resource
      return { type: 'text', text: r.text !== undefined ? `[resource] <${r.uri}>${r.mimeType === undefined ? '' : ` (${r.mimeType})`}:\n${r.text}` : `[resource] <${r.uri}>${r.mimeType === undefined ? '' : ` (${r.mimeType})`}, binary` }
    }
    case 'resource_link':
      return { type: 'text', text: `[resource link] ${block.name} <${block.uri}>${block.mimeType === undefined ? '' : ` (${block.mimeType})`}${block.description === undefined ? '' : `: ${block.description}`}` }
  }
}

const mcpTools = new WeakSet<object>()

/** What {@link defineMcpContentTool} takes: `defineRawTool`'s input without the output (the body returns {@link McpContentValue}). */
export type DefineMcpContentToolInput = Omit<DefineRawToolInput, 'outputSchema' | 'render' | 'execute'> & {
  execute(args: JsonObject, exec: ToolExecution): McpContentValue | Promise<McpContentValue>
}

/**
 * A raw tool whose body returns MCP content blocks (`{ content: [...] }`, validated against
 * {@link MCP_CONTENT_SCHEMA}). The model sees {@link renderMcpBlock}'s rendering; an MCP client of
 * `createMcpToolServer` receives the blocks themselves, unless a post-execute policy or
 * `finalizeContent` changed the rendered content, in which case it receives that finalized
 * content (README, "What a client sees").
 *
 * @throws ToolDefinitionError as `defineRawTool` does.
 */
export function defineMcpContentTool(input: DefineMcpContentToolInput): ToolDefinition<JsonObject, JsonValue> {
  const definition = defineRawTool({
    ...input,
    outputSchema: MCP_CONTENT_SCHEMA,
    render: (_args, value) => ((value as unknown as McpContentValue).content ?? []).map(renderMcpBlock),
    execute: input.execute as unknown as DefineRawToolInput['execute'],
  })
  mcpTools.add(definition)
  return definition
}

/** Whether `definition` was made by {@link defineMcpContentTool}. */
export function isMcpContentTool(definition: unknown): boolean {
  return typeof definition === 'object' && definition !== null && mcpTools.has(definition)
}
