/**
 * `@deepseek-ai/dsh-tool-mcp` — mounts MCP servers' tools (stdio, Streamable HTTP, or a custom
 * transport) into the dsh-tools registry through the official MCP TypeScript SDK client.
 *
 * Plugin entry: `await ctx.plugin(McpPlugin, { servers: [...] })`; with a handle for the status
 * API: `const bridge = await createMcpBridge(ctx, { servers: [...] })`.
 */
export { McpBridge, McpPlugin, createMcpBridge, MCP_BRIDGE_NAME } from './bridge'
export type { McpBridgeOptions, McpEvents, McpPluginConfig } from './bridge'
export { McpConfigError, resolveBridgeConfig } from './config'
export type { McpBridgeConfig, McpServerConfig, McpStdioServerConfig, McpHttpServerConfig, McpCustomServerConfig, McpServerCommonConfig, McpRetryConfig, McpProtocolChoice, ResolvedBridgeConfig, ResolvedServerConfig } from './config'
export { mapContent, mapContentBlock, valueOf, errorText, base64Bytes } from './content'
export type { McpContentBlock } from './content'
export { mcpToolInfo, registeredName } from './definition'
export type { McpToolAnnotations, McpToolDefinition, McpToolInfo } from './definition'
export type { McpProgress, McpProgressEvent } from './progress'
export { MAX_TOOL_LIST_PAGES, McpToolListError, McpToolNameCollisionError } from './server'
export { childEnvironment } from './transport'
export { clientCapabilities } from './requests'
export type { McpElicitation, McpElicitationApprovalRequest, McpElicitationDecision } from './requests'
export { headerDeclarationProblem } from './headers'
export { FileTokenStore, McpAuthError, MemoryTokenStore } from './auth'
export type { McpAuthorize, McpOAuthConfig, McpStoredCredentials, McpTokenStore } from './auth'
export type { McpServerState, McpServerStatus, McpSkippedTool } from './server'
export { McpPlugin as default } from './bridge'
