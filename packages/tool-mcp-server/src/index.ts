/**
 * `@deepseek-ai/dsh-tool-mcp-server` — serves a dsh-tools scope's tools as an MCP server
 * (Streamable HTTP and stdio; protocol 2025-11-25 and 2026-07-28), every call through the full
 * pipeline. Entry: {@link createMcpToolServer}; inside a tool body, {@link mcpInput}.
 */
export {
  mcpInput,
  McpInputRequiredError,
  type McpCallInput,
  type McpClientView,
  type McpInputRequest,
  type McpInputAnswer,
  type McpElicitAnswer,
  type McpSamplingAnswer,
  type McpRootsAnswer,
} from './input'
export { defineMcpContentTool, isMcpContentTool, renderMcpBlock, MCP_CONTENT_SCHEMA, type McpContentBlock, type McpContentValue, type DefineMcpContentToolInput } from './content'
export { ERROR_META_KEY, toCallResult, outputSchemaOf, type ServedCallResult } from './result'
export type { McpToolServerOptions, McpSession, McpAuthInfo, McpCacheHint } from './options'
export { createMcpToolServer, MCP_SERVER_LOGGER, type McpToolServer, type McpListenOptions, type McpHttpListener, type McpStdioHandle } from './mcp-tool-server'
export type { HttpServeOptions } from './http'
export { LOCALHOST_NAMES, type HttpGuardOptions } from './http-guard'
