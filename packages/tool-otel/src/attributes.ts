/**
 * Attribute and span names. The `gen_ai.*` and `error.type` names follow the OpenTelemetry
 * semantic conventions for generative AI ("execute_tool" spans); `dsh.*` names are this
 * package's own. Declared here so the package depends on `@opentelemetry/api` only.
 */

/** `gen_ai.operation.name`: always `execute_tool` on call spans. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name'
/** `gen_ai.tool.name`: the tool's name. */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name'
/** `gen_ai.tool.call.id`: the call id the model emitted (`<id>:code:<n>` for a PTC sub-call). */
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id'
/** `gen_ai.tool.description`: the definition's description (when the call resolved). */
export const ATTR_GEN_AI_TOOL_DESCRIPTION = 'gen_ai.tool.description'
/** `gen_ai.tool.type`: `function` (every dsh tool is a client-side function). */
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type'
/** `gen_ai.tool.call.arguments`: the arguments as emitted (opt-in: `captureContent`). */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments'
/** `gen_ai.tool.call.result`: the canonical value of a success (opt-in: `captureContent`). */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result'
/** `gen_ai.agent.id`: the calling agent's id. */
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id'
/** `error.type`: the failed result's code (`TOOL_DENIED`, `TOOL_TIMEOUT`, `ABORTED`, …). */
export const ATTR_ERROR_TYPE = 'error.type'

/** `dsh.tools.batch.id`: `batch-<n>`, on the batch span and every call span of it. */
export const ATTR_DSH_BATCH_ID = 'dsh.tools.batch.id'
/** `dsh.tools.batch.size`: calls in the batch. */
export const ATTR_DSH_BATCH_SIZE = 'dsh.tools.batch.size'
/** `dsh.tools.batch.errors`: failed results in the batch (set when it ends). */
export const ATTR_DSH_BATCH_ERRORS = 'dsh.tools.batch.errors'
/** `dsh.tools.executor`: the executor that ran the batch (`native`, `ptc`, …). */
export const ATTR_DSH_EXECUTOR = 'dsh.tools.executor'
/** `dsh.scope.id`: the scope the batch ran in. */
export const ATTR_DSH_SCOPE_ID = 'dsh.scope.id'
/** `dsh.tool.call.parent_id`: a PTC sub-call's `run_code` call id. */
export const ATTR_DSH_PARENT_CALL_ID = 'dsh.tool.call.parent_id'

/** The value of `gen_ai.operation.name` on call spans. */
export const OPERATION_EXECUTE_TOOL = 'execute_tool'
/** The batch span's name. */
export const BATCH_SPAN_NAME = 'execute_tools'
/** The name of span events recorded for `tools/progress`. */
export const PROGRESS_EVENT_NAME = 'dsh.tool.progress'
/** The name of span events recorded for `tools/preliminary` (a generator body's yields). */
export const PRELIMINARY_EVENT_NAME = 'dsh.tool.preliminary'

/** The call-duration histogram (seconds) of the GenAI semantic conventions' tool metrics. */
export const METRIC_EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration'
