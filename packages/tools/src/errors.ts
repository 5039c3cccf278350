/**
 * Error classes and the exact model-facing messages of every failure code
 * (docs/design.md, "The batch and the pipeline"; every code with its
 * exact model-facing text is listed in docs/glossary.md, "Failure codes").
 */
import type { ContentBlock, ToolErrorCode, ToolErrorInfo } from './contracts'
import { escapeInvisible } from './limits'

/**
 * An error a tool body, wrapper or policy throws to choose its code. The pipeline turns it into
 * a failure result with `error.message = message` and `error.info = { name, code, reason }`.
 *
 * @example throw new ToolError('TOOL_TIMEOUT', 'tool call timed out after 5000ms')
 */
export class ToolError extends Error {
  override readonly name: string = 'ToolError'
  readonly code: ToolErrorCode | (string & {})
  /** User-facing reason, never model-facing. */
  readonly reason?: string
  constructor(code: ToolErrorCode | (string & {}), message: string, options?: { reason?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options?.reason !== undefined) this.reason = options.reason
  }
}

/**
 * Thrown by `register`, `restrict`, `guard` and `mount` for invalid input. The message names the
 * tool and, for schema problems, the JSON pointer (docs/design.md, "Definitions and schemas").
 */
export class ToolRegistrationError extends Error {
  override readonly name = 'ToolRegistrationError'
  /** The tool concerned, when there is one. */
  readonly toolName?: string
  /** JSON pointer into the definition, e.g. `/parameters/properties/path`. */
  readonly pointer?: string
  constructor(message: string, options?: { toolName?: string; pointer?: string }) {
    super(message)
    if (options?.toolName !== undefined) this.toolName = options.toolName
    if (options?.pointer !== undefined) this.pointer = options.pointer
  }
}

/** Thrown by `resolve` when a `when` condition throws (code `TOOL_ACTIVATION_FAILED`). */
export class ToolActivationError extends Error {
  override readonly name = 'ToolActivationError'
  readonly code = 'TOOL_ACTIVATION_FAILED' as const
  readonly toolName: string
  constructor(toolName: string, cause: unknown) {
    super(`Tool activation failed for "${toolName}": ${describeThrown(cause)}`, { cause })
    this.toolName = toolName
  }
}

/**
 * Thrown by `ctx.tools.execute` (a rejection) and `ctx.tools.describe` while no executor is
 * mounted for the scope (code `NO_EXECUTOR`); the message names what was asked (`action`).
 */
export class NoExecutorError extends Error {
  override readonly name = 'NoExecutorError'
  readonly code = 'NO_EXECUTOR' as const
  constructor(scopeId: string, action: 'execute' | 'describe' = 'execute') {
    super(`No tool executor is mounted for scope "${scopeId}" or its ancestors; mount one (native or PTC) before ${action === 'describe' ? 'describing the tools' : 'executing a batch'}`)
  }
}

/** How many names an `UNKNOWN_TOOL` message lists before it summarises the rest. */
export const UNKNOWN_TOOL_NAME_LIMIT = 40

/**
 * A name or other model-supplied text quoted for a message: JSON string syntax (controls as
 * `\n`, `\u0000`, …) with every other invisible character escaped too, so a byte-order mark
 * or zero-width space in a name reads `\uFEFF` / `\u200B` instead of vanishing.
 */
export function quoteText(text: string): string {
  return escapeInvisible(JSON.stringify(text))
}

/** Author text when there is some (not empty or only whitespace), else `undefined`. */
function authored(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text
}

/**
 * Exact model-facing messages, one builder per code. Library text names the tool; where a
 * policy author supplied the text (a deny reason, a guard's verdict, an `ask` reason, an
 * approver's rejection reason, block feedback) that text is the whole message, verbatim, and
 * the tool name stays in `error.info.toolName`.
 */
export const messages = {
  unknownTool(name: string, available: readonly string[], hint?: string): string {
    const shown = quoteText(name.length > 200 ? `${name.slice(0, 200)}…` : name)
    if (hint !== undefined) return `Unknown tool ${shown}. ${hint}`
    if (available.length === 0) return `Unknown tool ${shown}. No tools are available.`
    const sorted = [...available].sort()
    const listed = sorted.slice(0, UNKNOWN_TOOL_NAME_LIMIT).join(', ')
    const more = sorted.length > UNKNOWN_TOOL_NAME_LIMIT ? `, … (${sorted.length - UNKNOWN_TOOL_NAME_LIMIT} more)` : ''
    return `Unknown tool ${shown}. Available tools: ${listed}${more}`
  },
  malformedCall(index: number, problem: string): string {
    return `Invalid tool call at position ${index}: ${problem}`
  },
  argumentsTooLarge(tool: string, bytes: number, limit: number): string {
    return `Invalid arguments for tool ${quoteText(tool)}: the arguments are ${bytes} bytes, over the limit of ${limit} bytes`
  },
  argumentsNotJson(tool: string, parseError: string): string {
    return `Invalid arguments for tool ${quoteText(tool)}: not valid JSON (${escapeInvisible(parseError)})`
  },
  argumentsTruncated(tool: string, length: number): string {
    return `Invalid arguments for tool ${quoteText(tool)}: the JSON ends before it is complete (cut off after ${length} characters, likely at the model's output limit); the call was not run`
  },
  argumentsNotObject(tool: string, got: string): string {
    return `Invalid arguments for tool ${quoteText(tool)}: expected a JSON object, got ${got}`
  },
  argumentsNotLossless(tool: string, problem: string): string {
    return `Invalid arguments for tool ${quoteText(tool)}: ${problem}`
  },
  argumentsInvalid(tool: string, issues: string): string {
    return `Invalid arguments for tool ${quoteText(tool)}: ${issues}`
  },
  invalidOutput(tool: string, problem: string): string {
    return `Tool ${quoteText(tool)} returned an invalid value: ${problem}`
  },
  renderFailed(tool: string, problem: string): string {
    return `Tool ${quoteText(tool)} failed to render its result: ${problem}`
  },
  abortedBeforeDispatch(): string {
    return 'Tool call was cancelled before it started'
  },
  aborted(): string {
    return 'Tool call was cancelled'
  },
  /** A `deny` decision's or a guard's reason verbatim; `Tool "x" was denied` when it is empty. */
  denied(tool: string, reason: string): string {
    return authored(reason) ?? `Tool ${quoteText(tool)} was denied`
  },
  /** The `ask` reason verbatim; without one, library text saying approval was needed. */
  askWithoutApproval(tool: string, reason: string | undefined): string {
    return authored(reason) ?? `Tool ${quoteText(tool)} needs approval and no approval service is available`
  },
  /** The approver's rejection reason verbatim; `Tool "x" was not approved` without one. */
  approvalRejected(tool: string, reason: string | undefined): string {
    return authored(reason) ?? `Tool ${quoteText(tool)} was not approved`
  },
  /** An approval deferred in a batch that cannot suspend (plain `ctx.tools.execute()`). */
  approvalDeferred(tool: string): string {
    return `Tool ${quoteText(tool)} needs approval and its approval was deferred, but this batch cannot suspend`
  },
  policyFailed(tool: string, stage: string, problem: string): string {
    return `Tool ${quoteText(tool)} could not be checked by policy (${stage}): ${problem}`
  },
  /** The message of a block without feedback (feedback, when given, is the content itself). */
  blocked(tool: string): string {
    return `Tool ${quoteText(tool)} result was blocked`
  },
  toolTimeout(ms: number): string {
    return `tool call timed out after ${ms}ms`
  },
  /** A definition's own argument check (`checkArguments`, a Standard Schema library) threw: `TOOL_FAILED`. */
  argumentCheckFailed(tool: string, problem: string): string {
    return `Tool ${quoteText(tool)} could not check its arguments: ${problem}`
  },
} as const

/**
 * A content array holding exactly `Error: <message>` (docs/design.md, "What the model sees": a
 * failure reaches the model as this one text block, unless a post-execute block gave feedback
 * or the definition's `finalizeContent` changed it). Callers pass a message already capped with
 * `capMessage` so `error.message` and the content agree.
 */
export function errorContent(message: string): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text: `Error: ${message}` })])
}

/**
 * `message` without the `Error: ` prefixes it already carries (`Error: Error: x` → `x`), so a
 * failure's content, which is `Error: <message>`, never repeats it: a body that throws
 * `String(err)`, a policy reason written as `Error: …`, an MCP server's (or another dsh
 * server's) error text that is already `Error: …`. A message that is nothing but the prefix is
 * kept. Pure.
 */
export function withoutErrorPrefix(message: string): string {
  if (!message.startsWith('Error: ')) return message
  let rest = message
  while (rest.startsWith('Error: ')) rest = rest.slice('Error: '.length)
  return rest.trim() === '' ? message : rest
}

/**
 * A readable message for any thrown value (bug case B17): strings verbatim, `Error` → its
 * message (or its name when the message is empty), objects through safe serialisation keeping
 * `code` and `message`, `null`/`undefined` named, cycles handled. Never throws.
 */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) {
      const message = typeof value.message === 'string' ? value.message : ''
      if (message !== '') return message
      const code = (value as { code?: unknown }).code
      return typeof code === 'string' ? `${value.name} (${code})` : value.name || 'Error'
    }
    if (typeof value === 'string') return value === '' ? 'threw an empty string' : value
    if (value === undefined) return 'threw undefined'
    if (value === null) return 'threw null'
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `threw ${String(value)}`
    if (typeof value === 'symbol') return `threw ${value.toString()}`
    if (typeof value === 'function') return `threw a function${value.name ? ` (${value.name})` : ''}`
    const record = value as Record<string, unknown>
    const message = typeof record.message === 'string' ? record.message : undefined
    const code = typeof record.code === 'string' || typeof record.code === 'number' ? String(record.code) : undefined
    if (message !== undefined && message !== '') return code === undefined ? message : `${message} (${code})`
    return `threw ${safeStringify(value)}`
  } catch {
    return 'threw a value that could not be described'
  }
}

/** JSON-ish rendering that survives cycles, BigInt, null prototypes and throwing getters. */
export function safeStringify(value: unknown, maxLength = 500): string {
  const seen = new WeakSet<object>()
  let text: string
  try {
    text = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return `${v}n`
      if (typeof v === 'function' || typeof v === 'symbol') return String(v)
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]'
        seen.add(v)
      }
      return v
    }) ?? String(value)
  } catch {
    text = Object.prototype.toString.call(value)
  }
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text
}

/** The structured info for a thrown value: an error's own `code` wins (docs/design.md, "The batch and the pipeline"). */
export function infoFromThrown(value: unknown, fallbackCode: ToolErrorCode): ToolErrorInfo {
  if (value !== null && typeof value === 'object') {
    const record = value as { name?: unknown; code?: unknown; reason?: unknown }
    const name = typeof record.name === 'string' && record.name !== '' ? record.name : value instanceof Error ? 'Error' : 'NonError'
    const code = typeof record.code === 'string' && record.code !== '' ? record.code : fallbackCode
    const reason = typeof record.reason === 'string' ? record.reason : undefined
    return reason === undefined ? { name, code } : { name, code, reason }
  }
  return { name: 'NonError', code: fallbackCode }
}

/** Whether a thrown value is a cancellation (an AbortError or the signal's own reason). */
export function isAbortLike(value: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true && value === signal.reason) return true
  return value !== null && typeof value === 'object' && (value as { name?: unknown }).name === 'AbortError'
}

/** A short type label for messages: `array`, `string`, `null`, … */
export function typeLabel(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

