/**
 * `ToolDefinitionError`, what `defineTool` and `defineRawTool` throw for a malformed definition,
 * and the function-member check both raise it with.
 */
import { capPointer } from '../limits'

/** Thrown by `defineTool` / `defineRawTool` for a malformed definition (code `INVALID_TOOL_DEFINITION`). */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError'
  readonly code = 'INVALID_TOOL_DEFINITION'
  /** The tool's name as given. */
  readonly toolName: string
  /** JSON pointer into the definition (`/parameters/properties/x/type`, `/output/schema`, `/execute`). */
  readonly pointer: string
  constructor(toolName: string, pointer: string, detail: string) {
    super(`tool ${JSON.stringify(toolName)}: ${capPointer(pointer)}: ${detail}`)
    this.toolName = toolName
    this.pointer = pointer
  }
}

export function requireFunction(toolName: string, pointer: string, value: unknown): void {
  if (typeof value !== 'function') throw new ToolDefinitionError(toolName, pointer, `must be a function (got ${typeof value})`)
}
