/**
 * The shape check of a `tools/call` result, done by the bridge instead of the SDK's zod schemas.
 * On the direct path (`direct.ts`, the usual one) the bridge reads responses off the transport
 * itself and runs {@link checkCallToolResult} on the result: one pass, no copy, covering the SDK's
 * base `ResultSchema` too (an object, `_meta` an object when present). On the fallback path
 * through `client.request`, the SDK's transport handler has already checked the JSON-RPC envelope
 * with that base `ResultSchema`; `callTool` would then parse the result again with the SDK's
 * `CallToolResult` schema — zod copies every object it parses, key by key. {@link CALL_TOOL_RESULT}
 * hands the SDK this module's check as the request's result schema instead (a 2026-07-28
 * connection calls through `client.callTool`, for its header mirroring, and checks the result
 * with {@link checkCallToolResult} after it). Either way the rest of the MCP `CallToolResult`
 * contract — every field the bridge reads, and every field a block type requires — is checked in
 * one pass without copying.
 *
 * Checked (MCP `CallToolResult`, protocol 2025-06-18):
 * - `content`: an array when present (absent reads as `[]`, like the SDK's default); each block
 *   an object with a string `type`;
 * - `text` blocks: `text` a string; `image` and `audio`: `data` a base64 string and `mimeType` a
 *   string; `resource_link`: `uri` and `name` strings, `title`, `description` and `mimeType`
 *   strings and `size` a number when present; `resource`: a `resource` object with a string
 *   `uri`, a `mimeType` string when present, and a `text` string or a base64 `blob`;
 * - `annotations` and `_meta` of a block: objects when present (the bridge does not read them);
 * - `structuredContent`: an object (not an array) when present; `isError`: a boolean when present;
 *   `_meta`: an object when present (the SDK's `isJSONRPCResultResponse` checks it too, on the SDK
 *   path; the direct path of `direct.ts` has only this check).
 *
 * A block of another `type` passes (a newer protocol's block type): the content mapping turns it
 * into a text line naming the type, so it is never dropped silently.
 */
import { typeLabel } from '@deepseek-ai/dsh-tools'
import type { CallToolResult, StandardSchemaV1 } from '@modelcontextprotocol/client'

/** Characters outside base64 (standard or URL-safe alphabet, padding, whitespace `atob` skips). */
const NOT_BASE64 = /[^A-Za-z0-9+/=_\-\s]/

/** A non-null, non-array object (a JSON object as received). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function expected(pointer: string, what: string, value: unknown): string {
  return `${pointer} must be ${what} (got ${typeLabel(value)})`
}

function string(block: Record<string, unknown>, key: string, pointer: string): string | undefined {
  const value = block[key]
  return typeof value === 'string' ? undefined : expected(`${pointer}/${key}`, 'a string', value)
}

function optionalString(block: Record<string, unknown>, key: string, pointer: string): string | undefined {
  return block[key] === undefined ? undefined : string(block, key, pointer)
}

function base64(block: Record<string, unknown>, key: string, pointer: string): string | undefined {
  const value = block[key]
  if (typeof value !== 'string') return expected(`${pointer}/${key}`, 'a base64 string', value)
  return NOT_BASE64.test(value) ? `${pointer}/${key} must be a base64 string (it has characters outside the base64 alphabet)` : undefined
}

function optionalObject(block: Record<string, unknown>, key: string, pointer: string): string | undefined {
  const value = block[key]
  return value === undefined || isObject(value) ? undefined : expected(`${pointer}/${key}`, 'an object', value)
}

function checkResource(resource: unknown, pointer: string): string | undefined {
  if (!isObject(resource)) return expected(pointer, 'an object', resource)
  const problem = string(resource, 'uri', pointer) ?? optionalString(resource, 'mimeType', pointer) ?? optionalObject(resource, '_meta', pointer)
  if (problem !== undefined) return problem
  if (resource.text !== undefined) return string(resource, 'text', pointer)
  if (resource.blob !== undefined) return base64(resource, 'blob', pointer)
  return `${pointer} must have a "text" string or a base64 "blob"`
}

function checkBlock(block: unknown, pointer: string): string | undefined {
  if (!isObject(block)) return expected(pointer, 'a content block object', block)
  const common = optionalObject(block, 'annotations', pointer) ?? optionalObject(block, '_meta', pointer)
  if (common !== undefined) return common
  switch (block.type) {
    case 'text':
      return string(block, 'text', pointer)
    case 'image':
    case 'audio':
      return base64(block, 'data', pointer) ?? string(block, 'mimeType', pointer)
    case 'resource_link': {
      const problem = string(block, 'uri', pointer) ?? string(block, 'name', pointer) ?? optionalString(block, 'title', pointer) ?? optionalString(block, 'description', pointer) ?? optionalString(block, 'mimeType', pointer)
      if (problem !== undefined) return problem
      return block.size === undefined || typeof block.size === 'number' ? undefined : expected(`${pointer}/size`, 'a number', block.size)
    }
    case 'resource':
      return checkResource(block.resource, `${pointer}/resource`)
    default:
      return typeof block.type === 'string' ? undefined : expected(`${pointer}/type`, 'a string', block.type)
  }
}

/**
 * The first way `result` breaks the MCP `CallToolResult` shape, as `<JSON pointer> must be …
 * (got …)` (`(the result)` in place of the pointer for the result itself), or `undefined` when
 * it conforms (see the module comment for what is checked). Never throws.
 *
 * @example checkCallToolResult({ content: [{ type: 'text', text: 3 }] }) // '/content/0/text must be a string (got number)'
 */
export function checkCallToolResult(result: unknown): string | undefined {
  if (!isObject(result)) return expected('(the result)', 'an object', result)
  const content = result.content
  if (content !== undefined) {
    if (!Array.isArray(content)) return expected('/content', 'an array', content)
    for (let i = 0; i < content.length; i++) {
      const problem = checkBlock(content[i], `/content/${i}`)
      if (problem !== undefined) return problem
    }
  }
  if (result.structuredContent !== undefined && !isObject(result.structuredContent)) return expected('/structuredContent', 'an object', result.structuredContent)
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return expected('/isError', 'a boolean', result.isError)
  if (result._meta !== undefined && !isObject(result._meta)) return expected('/_meta', 'an object', result._meta)
  return undefined
}

/** A `tools/call` result that breaks the `CallToolResult` shape; `problem` is {@link checkCallToolResult}'s text. */
export class MalformedCallToolResult extends Error {
  constructor(readonly problem: string) {
    super(`malformed CallToolResult: ${problem}`)
    this.name = 'MalformedCallToolResult'
  }
}

/**
 * The result schema the bridge passes to `client.request` for `tools/call` on the fallback path
 * of a 2025-era connection: {@link checkCallToolResult} as a Standard Schema (the SDK 2.x
 * `Protocol.request(request, resultSchema, options)` overload validates a result with
 * `schema['~standard'].validate(result)` and resolves with its `value`). It hands back the
 * result object as received — not a copy — and throws a {@link MalformedCallToolResult} for a
 * malformed one, which the SDK's request rejects with unchanged, so both paths fail the call with
 * the same error. The malformed-result tests pin this against the installed SDK.
 */
export const CALL_TOOL_RESULT: StandardSchemaV1<CallToolResult, CallToolResult> = Object.freeze({
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: 'dsh-tool-mcp',
    validate(data: unknown): { readonly value: CallToolResult } {
      const problem = checkCallToolResult(data)
      if (problem !== undefined) throw new MalformedCallToolResult(problem)
      return { value: data as CallToolResult }
    },
  }),
})
