/**
 * The name a tool's own model-facing texts should give it (`shownToolName`): the name the model
 * saw, through the batch's `nameMap` (`ToolNameMap`), as the pipeline's own texts do.
 */
import type { ToolExecution } from './contracts'
import { Execution } from './pipeline/execution'

/**
 * The name the model saw for the tool of the call `exec` belongs to: `exec.name` (the registry
 * name) through the batch's `nameMap` — `math_factorial` for `math.factorial` declared under that
 * name — else `exec.name` itself (no map, a name the map does not know, a PTC sub-call, or an
 * `exec` the pipeline did not make). Library texts a tool throws from its body use it (the
 * Standard Schema checks that run there, the MCP bridge), so they name the tool as the
 * pipeline's own texts do; a tool author may use it the same way. Code-facing names
 * (`exec.name`, `error.info.toolName`, `meta.toolName`) stay registry names.
 *
 * @example throw new ToolError('NOT_FOUND', `Tool ${JSON.stringify(shownToolName(exec))} found no note named "${args.name}"`)
 */
export function shownToolName(exec: ToolExecution): string {
  return Execution.shownName(exec) ?? exec.name
}
