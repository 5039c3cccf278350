/**
 * The span bookkeeping behind the plugin: a batch span per `ctx.tools.execute()` call, a call
 * span per call (child of its batch span, or of its `run_code` call span for a PTC sub-call).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'
import type { JsonValue, PolicyDecision, RawToolCall, ToolBatchEvent, ToolExecution, ToolPreliminaryEvent, ToolProgressEvent, ToolResult, ToolResultEvent } from '@deepseek-ai/dsh-tools'
import * as A from './attributes'

/** Options of {@link ToolSpans}. */
export interface ToolSpansOptions {
  /**
   * The tracer spans are started with (the plugin passes `config.tracer`, else the configured or
   * global provider's `getTracer(TOOL_TRACING_NAME, TOOL_TRACING_VERSION)`).
   */
  readonly tracer: Tracer
  /** Record arguments and successful values on call spans. Default false. */
  readonly captureContent: boolean
  /**
   * Captured strings longer than this many characters (UTF-16 code units) are cut and end with
   * `…[N more chars]`. The plugin's default is 8192.
   */
  readonly maxCaptureChars: number
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more chars]`
}

function json(value: string | JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * The listener implementations behind {@link ToolTracing}; one instance per plugin. Exported for
 * wiring the same spans into a custom plugin: call `batchStart`/`batchEnd`, `preExecute`,
 * `progress` and `result` from the matching dsh-tools events. Span names and attributes follow
 * the OpenTelemetry GenAI semantic conventions (`execute_tool <tool name>`, `gen_ai.tool.*`,
 * `error.type`; see `attributes.ts`). No method throws for an unknown batch or call (it is
 * ignored); a failed result sets `error.type` to its code and the span status to ERROR.
 */
export class ToolSpans {
  readonly #batches = new Map<string, Context>()
  readonly #batchSpans = new Map<string, Span>()
  /** The agent of each open batch that has one: the agent of its calls that fail before policy (no execution view). */
  readonly #batchAgents = new Map<string, string>()
  /** Open call spans by the execution's token (shared by an execution and its views). */
  readonly #calls = new Map<symbol, Span>()

  constructor(private readonly options: ToolSpansOptions) {}

  /** `tools/batch-start`: opens the batch span under the active context. */
  batchStart(event: ToolBatchEvent): void {
    const attributes: Attributes = {
      [A.ATTR_DSH_BATCH_ID]: event.batchId,
      [A.ATTR_DSH_BATCH_SIZE]: event.calls.length,
      [A.ATTR_DSH_EXECUTOR]: event.executor,
      [A.ATTR_DSH_SCOPE_ID]: event.scope.id,
    }
    if (event.agent !== undefined) attributes[A.ATTR_GEN_AI_AGENT_ID] = event.agent.id
    const active = context.active()
    const span = this.options.tracer.startSpan(A.BATCH_SPAN_NAME, { kind: SpanKind.INTERNAL, attributes }, active)
    this.#batchSpans.set(event.batchId, span)
    if (event.agent !== undefined) this.#batchAgents.set(event.batchId, event.agent.id)
    this.#batches.set(event.batchId, trace.setSpan(active, span))
  }

  /**
   * `tools/batch-end`: closes the batch span with the count of failed results (a streaming
   * batch's `dsh.tools.batch.size` becomes its final call count: its start knew only the first).
   */
  batchEnd(event: ToolBatchEvent, results: readonly ToolResult[]): void {
    const span = this.#batchSpans.get(event.batchId)
    if (span === undefined) return
    this.#batchSpans.delete(event.batchId)
    this.#batches.delete(event.batchId)
    this.#batchAgents.delete(event.batchId)
    let errors = 0
    for (const r of results) if (r.isError) errors++
    span.setAttribute(A.ATTR_DSH_BATCH_ERRORS, errors)
    if (event.streaming === true) span.setAttribute(A.ATTR_DSH_BATCH_SIZE, event.calls.length)
    span.end()
  }

  #parent(batchId: string | undefined, parent: ToolExecution | undefined): Context {
    if (parent !== undefined) {
      const span = this.#calls.get(parent.token)
      if (span !== undefined) return trace.setSpan(context.active(), span)
    }
    return (batchId === undefined ? undefined : this.#batches.get(batchId)) ?? context.active()
  }

  #open(call: RawToolCall, description: string | undefined, batchId: string | undefined, parent: ToolExecution | undefined, agentId: string | undefined): Span {
    const attributes: Attributes = {
      [A.ATTR_GEN_AI_OPERATION_NAME]: A.OPERATION_EXECUTE_TOOL,
      [A.ATTR_GEN_AI_TOOL_NAME]: call.name,
      [A.ATTR_GEN_AI_TOOL_CALL_ID]: call.callId,
      [A.ATTR_GEN_AI_TOOL_TYPE]: 'function',
    }
    if (description !== undefined) attributes[A.ATTR_GEN_AI_TOOL_DESCRIPTION] = description
    if (batchId !== undefined) attributes[A.ATTR_DSH_BATCH_ID] = batchId
    if (parent !== undefined) attributes[A.ATTR_DSH_PARENT_CALL_ID] = parent.callId
    if (agentId !== undefined) attributes[A.ATTR_GEN_AI_AGENT_ID] = agentId
    if (this.options.captureContent) attributes[A.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = cut(json(call.arguments), this.options.maxCaptureChars)
    return this.options.tracer.startSpan(`${A.OPERATION_EXECUTE_TOOL} ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, this.#parent(batchId, parent))
  }

  /** `tools/pre-execute` (first stage after prepare): opens the call span, then defers. */
  preExecute(exec: ToolExecution, next: () => Promise<PolicyDecision>): Promise<PolicyDecision> {
    if (!this.#calls.has(exec.token)) {
      const call: RawToolCall = { callId: exec.callId, name: exec.name, arguments: exec.rawArguments }
      this.#calls.set(exec.token, this.#open(call, exec.definition.description, exec.batchId, exec.parent, exec.agent?.id))
    }
    return next()
  }

  /** `tools/progress`: a span event on the call span. */
  progress(event: ToolProgressEvent): void {
    const span = this.#calls.get(event.exec.token)
    if (span === undefined) return
    const attributes: Attributes = { progress: event.progress }
    if (event.total !== undefined) attributes.total = event.total
    if (event.message !== undefined) attributes.message = event.message
    span.addEvent(A.PROGRESS_EVENT_NAME, attributes)
  }

  /**
   * `tools/preliminary`: a span event on the call span with the yield's `sequence`; its value
   * (JSON, cut at `maxCaptureChars`) only with `captureContent`, as for results.
   */
  preliminary(event: ToolPreliminaryEvent): void {
    const span = this.#calls.get(event.exec.token)
    if (span === undefined) return
    const attributes: Attributes = { sequence: event.sequence }
    if (this.options.captureContent) attributes.value = cut(json(event.value), this.options.maxCaptureChars)
    span.addEvent(A.PRELIMINARY_EVENT_NAME, attributes)
  }

  /**
   * `tools/result`: closes the call span (opening it first for a call that failed before
   * policy: unknown tool, invalid arguments). A failure sets `error.type` to its code and the
   * span status to ERROR with the message; a success leaves the status unset.
   */
  result(result: ToolResult, event: ToolResultEvent): void {
    const exec = event.exec
    let span = exec === undefined ? undefined : this.#calls.get(exec.token)
    if (span === undefined) {
      // A call that failed before policy has no execution view: its agent is its run_code call's
      // (a PTC sub-call) or its batch's.
      const agentId = exec?.agent?.id ?? event.parent?.agent?.id ?? (event.batchId === undefined ? undefined : this.#batchAgents.get(event.batchId))
      span = this.#open(event.call, exec?.definition.description, event.batchId, event.parent, agentId)
    }
    else this.#calls.delete(exec!.token)
    if (result.isError) {
      span.setAttribute(A.ATTR_ERROR_TYPE, result.error.info.code)
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message })
    } else if (this.options.captureContent) {
      span.setAttribute(A.ATTR_GEN_AI_TOOL_CALL_RESULT, cut(json(result.value), this.options.maxCaptureChars))
    }
    span.end()
  }
}
