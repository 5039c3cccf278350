/**
 * MCP `tools/call` results → what the model sees and what a program receives.
 *
 * Every MCP content block becomes model-facing content; nothing is dropped silently:
 * - `text` → a text block;
 * - `image` → an image block with its `mimeType`;
 * - `audio` → a text line naming the audio (models here take no audio input);
 * - `resource_link` → a text line with its name, URI, type and description;
 * - `resource` (embedded) → its text under a header with the URI, or for a blob an image block
 *   when it is an image, otherwise a text line naming the binary resource;
 * - any other block type → a text line naming the unsupported type.
 */
import { quoteText, type ContentBlock, type JsonValue } from '@deepseek-ai/dsh-tools'

/** An MCP content block as it arrives (loosely typed: servers may send newer block types). */
export interface McpContentBlock {
  readonly type: string
  readonly [key: string]: unknown
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/**
 * Decoded size in bytes of a base64 string, computed from its length and `=` padding without
 * decoding it (`length * 3 / 4 - padding`, at least 0). Used for the "N bytes" lines of binary
 * blocks; it does not validate the base64 text and never throws.
 */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

function bytes(data: string): string {
  return `${base64Bytes(data).toLocaleString('en-US')} bytes`
}

/**
 * One MCP content block → one model-facing block: `text` → text; `image` → image (with its
 * `mimeType`); an embedded image blob → image; `audio`, `resource_link`, a non-image blob and
 * unknown types → a text line naming them (size in bytes, URI, type); an embedded text resource
 * → its text under a header with the URI. Block shapes follow the MCP `CallToolResult` content
 * types; nothing is dropped silently. Never throws (a malformed field reads as empty).
 */
export function mapContentBlock(block: McpContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' }
    case 'image': {
      const data = str(block.data)
      const mimeType = str(block.mimeType)
      if (data !== undefined && mimeType !== undefined) return { type: 'image', data, mimeType }
      return { type: 'text', text: '[image without data or mimeType]' }
    }
    case 'audio': {
      const data = str(block.data) ?? ''
      return { type: 'text', text: `[audio ${str(block.mimeType) ?? 'of unknown type'}, ${bytes(data)}: not shown, this interface passes no audio to the model]` }
    }
    case 'resource_link': {
      const parts = [`[resource link] ${str(block.name) ?? str(block.title) ?? '(unnamed)'} <${str(block.uri) ?? '?'}>`]
      if (str(block.mimeType) !== undefined) parts.push(`(${str(block.mimeType)})`)
      const description = str(block.description)
      return { type: 'text', text: description === undefined ? parts.join(' ') : `${parts.join(' ')}: ${description}` }
    }
    case 'resource': {
      const resource = (block.resource ?? {}) as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown }
      const uri = str(resource.uri) ?? '?'
      const mimeType = str(resource.mimeType)
      const text = str(resource.text)
      if (text !== undefined) return { type: 'text', text: `[resource <${uri}>${mimeType === undefined ? '' : ` (${mimeType})`}]\n${text}` }
      const blob = str(resource.blob) ?? ''
      if (mimeType !== undefined && mimeType.startsWith('image/') && blob !== '') return { type: 'image', data: blob, mimeType }
      return { type: 'text', text: `[resource <${uri}> (${mimeType ?? 'binary'}), ${bytes(blob)}: binary content not shown]` }
    }
    default:
      return { type: 'text', text: `[unsupported MCP content type ${quoteText(block.type)}]` }
  }
}

/** All blocks of a result mapped by {@link mapContentBlock}, in order (one block out per block in). Never throws. */
export function mapContent(blocks: readonly McpContentBlock[]): ContentBlock[] {
  const out = new Array<ContentBlock>(blocks.length)
  for (let i = 0; i < blocks.length; i++) out[i] = mapContentBlock(blocks[i]!)
  return out
}

/**
 * The canonical value of a call to a tool without an `outputSchema`: the text joined by
 * newlines when every block is text (an empty result is `""`), otherwise the MCP content blocks
 * themselves as JSON (so a program still gets images and resources whole).
 */
export function valueOf(blocks: readonly McpContentBlock[]): JsonValue {
  let text = ''
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    if (block.type !== 'text') return blocks as unknown as JsonValue
    text += i === 0 ? (str(block.text) ?? '') : `\n${str(block.text) ?? ''}`
  }
  return text
}

/**
 * The message of an MCP `isError: true` result: the model-facing text of its blocks, joined by
 * newlines. The bridge fails the call with a `ToolError` of code `MCP_TOOL_ERROR` carrying it,
 * so the model sees `Error: <text>`. Never throws.
 */
export function errorText(blocks: readonly McpContentBlock[]): string {
  return mapContent(blocks)
    .map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`))
    .filter((t) => t !== '')
    .join('\n')
}
