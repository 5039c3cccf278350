/**
 * Where MCP progress notifications go. One function, so the route is a one-line change.
 *
 * A call's `notifications/progress` reach, in this order: the pipeline's progress API when the
 * execution view has one (`exec.reportProgress`, the core registry's `tools/progress` event), then
 * the bridge's `mcp/progress` event and its `onProgress` callback.
 */
import type { ToolExecution } from '@deepseek-ai/dsh-tools'

/** One progress notification of a running call (MCP `notifications/progress`). */
export interface McpProgress {
  /** Increases with every notification; units are the server's. */
  readonly progress: number
  /** The total, when the server knows it. */
  readonly total?: number
  /** A human-readable status line, when the server sends one. */
  readonly message?: string
}

/** What `mcp/progress` listeners and `onProgress` receive. */
export interface McpProgressEvent extends McpProgress {
  /** The bridge's name of the server. */
  readonly server: string
  /** The registered (prefixed) tool name. */
  readonly tool: string
  /** The pipeline call id (`<callId>:code:<n>` for a PTC sub-call). */
  readonly callId: string
}

/** Hands `update` to the pipeline's progress API when the execution view offers one. */
export function forwardProgress(exec: ToolExecution, update: McpProgress): void {
  const report = (exec as { readonly reportProgress?: (update: McpProgress) => void }).reportProgress
  if (typeof report === 'function') report.call(exec, update)
}
