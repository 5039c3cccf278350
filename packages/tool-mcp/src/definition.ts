/**
 * An MCP tool as the registry holds it: a raw-schema definition with the server's `inputSchema`
 * and description as announced, `outputSchema` as the output declaration, annotations mapped to
 * parallel safety and kept for policies ({@link mcpToolInfo}).
 */
import { checkSchema, quoteText, renderJsonValue, RESERVED_TOOL_NAMES, shownToolName, toolNameProblem, ToolError, type AnyToolDefinition, type ContentBlock, type JsonObject, type JsonSchemaNode, type JsonValue, type ToolDefinition, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { CallToolResult, Tool } from '@modelcontextprotocol/client'
import { errorText, mapContent, valueOf, type McpContentBlock } from './content'
import type { ResolvedServerConfig } from './config'

/** MCP's behaviour hints for a tool (`annotations`), as the server announced them. Hints, not guarantees. */
export interface McpToolAnnotations {
  readonly title?: string
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean
  /** A modifying tool may destroy data (meaningful when `readOnlyHint` is not `true`). */
  readonly destructiveHint?: boolean
  /** Repeating a call with the same arguments has no further effect. */
  readonly idempotentHint?: boolean
  /** The tool reaches outside a closed world (the web, other systems). */
  readonly openWorldHint?: boolean
}

/** What the bridge records on each definition it registers; read it with {@link mcpToolInfo}. */
export interface McpToolInfo {
  /** The bridge's name of the server. */
  readonly server: string
  /** The tool's name on the server (what `tools/call` sends). */
  readonly tool: string
  /** The server's `title` of the tool, when it sent one. */
  readonly title?: string
  readonly annotations: McpToolAnnotations
  /** Whether the server declared an `outputSchema` (then the value is `structuredContent`). */
  readonly structured: boolean
}

/** A registered MCP tool: a raw definition plus {@link McpToolInfo} under `mcp`. */
export interface McpToolDefinition extends ToolDefinition<JsonObject, JsonValue> {
  readonly mcp: McpToolInfo
}

/**
 * The MCP facts of a definition, or `undefined` for a tool that did not come from this bridge.
 * For policies: `mcpToolInfo(exec.definition)?.annotations.destructiveHint === true`.
 */
export function mcpToolInfo(definition: AnyToolDefinition | undefined): McpToolInfo | undefined {
  const info = (definition as { readonly mcp?: unknown } | undefined)?.mcp
  return info !== null && typeof info === 'object' && typeof (info as McpToolInfo).server === 'string' ? (info as McpToolInfo) : undefined
}

/**
 * The registered name of `tool` under `server`'s prefix: `<prefix><separator><tool>` (prefix
 * defaults to the server's `name`, separator to the bridge's `separator`), or `tool` unchanged
 * when `prefix: false`. Does not validate the result: a name the registry would refuse is
 * skipped at listing time and reported in the server status's `skipped`.
 */
export function registeredName(server: ResolvedServerConfig, separator: string, tool: string): string {
  return server.prefix === false ? tool : `${server.prefix}${separator}${tool}`
}

/**
 * Why a tool cannot be registered (a name or schema the registry would refuse), or `undefined`.
 * The name rule is the registry's own (`toolNameProblem`: any non-empty Unicode name of up to 128
 * code points in NFC form, without control or invisible characters or surrounding whitespace;
 * `RESERVED_TOOL_NAMES`), so every name the registry can hold registers: `fs__récupérer`,
 * `srv__搜索`. Provider declarations map such names to the provider's wire rule (the native
 * package's name map), and the parsers map them back.
 */
export function unregistrable(name: string, tool: Tool): string | undefined {
  const problem = toolNameProblem(name)
  if (problem !== undefined) return `its registered name ${quoteText(name)} cannot be registered: ${problem} (a tool name is 1–128 Unicode characters in NFC form, without control or invisible characters or surrounding whitespace)`
  if (RESERVED_TOOL_NAMES.includes(name)) return `${quoteText(name)} is reserved for the PTC executor`
  const input = checkSchema(tool.inputSchema as JsonSchemaNode)
  if (input !== undefined) return `inputSchema${input.pointer} ${input.message}`
  if (tool.outputSchema !== undefined) {
    const output = checkSchema(tool.outputSchema as JsonSchemaNode)
    if (output !== undefined) return `outputSchema${output.pointer} ${output.message}`
  }
  return undefined
}

/**
 * What a definition hands its server connection for each call, built once per tool at
 * registration: the tool's name on the server, its registered name (for progress events), the
 * mapping of a shape-checked `CallToolResult` to the call's value (throws a `ToolError` for
 * `isError` or a missing `structuredContent`), and the content that mapping prepared. The value:
 * `structuredContent` for a tool with an `outputSchema`; otherwise the content's value
 * (`valueOf`), except that a result with no content blocks and a `structuredContent` has that
 * object as its value, shown to the model as JSON text.
 */
export interface McpCallTarget {
  readonly tool: string
  /** The tool as the server listed it, without `outputSchema` (the pipeline validates the value): what a 2026-07-28 call hands the SDK for its header mirroring. */
  readonly announced: Tool
  readonly registered: string
  settle(result: CallToolResult, exec: ToolExecution): JsonValue
  /** The content `settle` prepared for the call of `exec` (removed as it is read), or `undefined` to render the value. */
  take(exec: ToolExecution): readonly ContentBlock[] | undefined
}

/** Sends one `tools/call` for a definition (the server connection owns transport and cancellation) and settles it through `target.settle`. */
export type McpCaller = (target: McpCallTarget, args: JsonObject, exec: ToolExecution) => Promise<JsonValue>

/** Content a call prepared for the model, keyed by the call's token until the pipeline renders it. */
const prepared = new WeakMap<symbol, readonly ContentBlock[]>()

const always = (): boolean => true

/**
 * The default rendering (`renderJsonValue`: a text value is its own block), left unfrozen: the
 * pipeline takes a frozen copy of what a render returns without asking whether it is frozen.
 */
function render(_args: JsonObject, value: JsonValue): readonly ContentBlock[] {
  return renderJsonValue(value)
}
const NO_BLOCKS: readonly McpContentBlock[] = Object.freeze([])

/** The call target of `tool` registered as `name`: the result mapping described on {@link McpCallTarget}. */
function callTarget(server: ResolvedServerConfig, name: string, tool: Tool): McpCallTarget {
  const mcpName = tool.name
  const structured = tool.outputSchema !== undefined
  // Whether `settle` ever prepared content for this tool: until then `take` has nothing to look
  // up and does not read `exec.token` (the pipeline mints that symbol on first read).
  let prepares = false
  const { outputSchema: _output, ...announced } = tool
  return Object.freeze({
    tool: mcpName,
    announced: announced as Tool,
    registered: name,
    settle(result: CallToolResult, exec: ToolExecution): JsonValue {
      const blocks = (result.content as unknown as readonly McpContentBlock[] | undefined) ?? NO_BLOCKS
      if (result.isError === true) {
        const text = errorText(blocks)
        throw new ToolError('MCP_TOOL_ERROR', text === '' ? `MCP tool "${mcpName}" on server "${server.name}" reported an error without a message` : text)
      }
      let value: JsonValue
      if (structured) {
        // Named and quoted as the model saw the tool (the batch's nameMap), like the pipeline's own texts.
        if (result.structuredContent === undefined) throw new ToolError('INVALID_TOOL_OUTPUT', `Tool ${quoteText(shownToolName(exec))} declares an outputSchema but MCP server "${server.name}" returned no structuredContent`)
        value = result.structuredContent as JsonValue
      } else if (blocks.length === 0 && result.structuredContent !== undefined) {
        // No outputSchema, no content, the data only in structuredContent: that data is the
        // value, and the default render shows it as JSON text (nothing is dropped).
        value = result.structuredContent as JsonValue
      } else {
        value = valueOf(blocks)
      }
      // One text block of a tool without outputSchema: the value is its text, and the default
      // render (`renderJsonValue`) shows exactly that block; nothing to prepare.
      if (blocks.length > 1 || (blocks.length === 1 && (structured || blocks[0]!.type !== 'text'))) {
        prepares = true
        prepared.set(exec.token, mapContent(blocks))
      }
      return value
    },
    take(exec: ToolExecution): readonly ContentBlock[] | undefined {
      if (!prepares) return undefined
      const token = exec.token
      const content = prepared.get(token)
      if (content !== undefined) prepared.delete(token)
      return content
    },
  })
}

/** Builds the frozen definition of `tool` registered as `name`. */
export function toDefinition(server: ResolvedServerConfig, name: string, tool: Tool, call: McpCaller): McpToolDefinition {
  const annotations: McpToolAnnotations = Object.freeze({ ...(tool.annotations ?? {}) }) as McpToolAnnotations
  const structured = tool.outputSchema !== undefined
  const title = tool.title ?? annotations.title
  const info: McpToolInfo = Object.freeze({ server: server.name, tool: tool.name, ...(title === undefined ? {} : { title }), annotations, structured })
  const parallel = server.parallel === true || (server.parallel === 'readOnlyHint' && annotations.readOnlyHint === true)
  const timeoutMs = server.toolTimeoutsMs[tool.name] ?? server.timeoutMs
  const target = callTarget(server, name, tool)
  const definition: McpToolDefinition = {
    name,
    description: tool.description ?? '',
    parameters: tool.inputSchema as JsonSchemaNode,
    output: Object.freeze({ schema: (tool.outputSchema as JsonSchemaNode | undefined) ?? Object.freeze({}), render }),
    execute(args: JsonObject, exec: ToolExecution): Promise<JsonValue> {
      return call(target, args, exec)
    },
    projectContent(_args: JsonObject, _value: JsonValue, exec: ToolExecution): readonly ContentBlock[] | undefined {
      return target.take(exec)
    },
    source: 'raw',
    mcp: info,
    ...(server.validateArguments ? {} : { validateArguments: false }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(parallel ? { isConcurrencySafe: always } : {}),
  }
  return Object.freeze(definition)
}
