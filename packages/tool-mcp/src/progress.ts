/**
 * Where MCP progress notifications go. One function, so the route is a one-line change.
 *
 * A call's `notifications/progress` reach, in this order: the pipeline's progress API
 * (`exec.reportProgress`, which the core registry delivers as throttled `tools/progress` events
 * with the call's id, scope and agent), then the bridge's own unthrottled `mcp/progress` event
 * and its `onProgress` callback (with the server's name).
 */
import type { ToolExecution, ToolProgress } from '@deepseek-ai/dsh-tools'

/** One progress notification of a running call (MCP `notifications/progress`): the core's {@link ToolProgress}. */
export type McpProgress = ToolProgress

/** What `mcp/progress` listeners and `onProgress` receive. */
export interface McpProgressEvent extends McpProgress {
  /** The bridge's name of the server. */
  readonly server: string
  /** The registered (prefixed) tool name. */
  readonly tool: string
  /** The pipeline call id (`<callId>:code:<n>` for a PTC sub-call). */
  readonly callId: string
}

/** Hands `update` to the pipeline's progress API (`tools/progress`). */
export function forwardProgress(exec: ToolExecution, update: McpProgress): void {
  exec.reportProgress(update)
}
