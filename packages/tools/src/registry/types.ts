/**
 * The registry's public option and configuration types (docs/design.md, "Scopes" and "The
 * registry"): the plugin's config, restriction filters, registration and resolution options,
 * scope references, disposers and tool groups.
 */
import type { Context } from 'cordis'
import type { Agent, AnyToolDefinition, ModelSelection, Scope, ToolCondition } from '../contracts'
import type { ContentLimits } from '../content'
import type { RepairModes } from '../repair'
import type { ResultBudgetConfig } from '../budget/types'
import type { UnknownKeysMode } from '../unknown-keys'
import type { DEFAULT_PROGRESS_INTERVAL_MS } from '../progress'
import type { ToolRegistry } from './tool-registry'

/**
 * Registry configuration (the plugin's config). Every field is optional; an invalid one makes
 * plugin start throw a `RangeError` naming it (`tools config: maxArgumentBytes must be …`), and so
 * does an unknown key, here or in `repair` / `contentLimits` (`tools config: /maxArgumentByte is
 * not a known option (expected …; did you mean "maxArgumentBytes"?)`).
 */
export interface ToolRegistryConfig {
  /** Raw argument strings over this many UTF-8 bytes are `INVALID_ARGS` before parsing. An integer of at least 2; default 1,048,576. */
  readonly maxArgumentBytes?: number
  /** Opt-in schema-guided argument repair (booleans `jsonStrings`, `nullAsAbsent`, `numericStrings`) of objects sent as JSON strings, `null` for optional fields and numbers sent as strings (bug cases B07, B11, B12 of docs/glossary.md). All off by default. */
  readonly repair?: RepairModes
  /** Model-facing content caps (bug case B18: one huge result must not flood the context): `maxChars` and `maxLines`, non-negative integers, default 25,000 characters and 1,000 lines; `0` disables one. */
  readonly contentLimits?: Partial<ContentLimits>
  /**
   * Argument keys a schema does not declare. `'allow'` (default): as the schema says (JSON
   * Schema allows them unless `additionalProperties` says otherwise). `'reject'`: every object
   * of an input schema that declares `properties` and says nothing about other keys is closed
   * at registration (`additionalProperties: false` in the projection the model, the provider
   * declarations, the PTC SDK and validation all use; see `closeObjects`), so a call with an
   * unknown key is `INVALID_ARGS` naming it and the closest declared key. A schema that says
   * `additionalProperties: true` (or `closed: false` in `defineTool`) stays open.
   */
  readonly unknownKeys?: UnknownKeysMode
  /**
   * Minimum spacing of two `tools/progress` events of one call, in ms; updates in between are
   * coalesced to the latest. `0` delivers every update. A number from 0 to `MAX_TIMER_MS`
   * (2,147,483,647); default 100 ({@link DEFAULT_PROGRESS_INTERVAL_MS}).
   */
  readonly progressIntervalMs?: number
  /**
   * Result budgets: `toolMaxChars` (every tool without its own `resultBudget`) and `batchMaxChars`
   * (one `ctx.tools.execute()` batch, shared by fair shares), in characters (`0`, the default: none),
   * the `store` that keeps cut results (default: in memory, 64 MiB, LRU) and the `readTool` name
   * the marker offers for paging. Errors name the field: `tools config: /resultBudget/batchMaxChars
   * must be a non-negative integer (0 disables it), got -1`.
   */
  readonly resultBudget?: ResultBudgetConfig
}

/**
 * An allow or deny mask over inherited tools, or a predicate (docs/design.md, "Scopes"). Masks of a
 * scope and its ancestors intersect; a scope's own registrations are exempt from its masks.
 */
export type ToolFilter =
  | { readonly allow: readonly string[] }
  | { readonly deny: readonly string[] }
  | ((name: string, definition: AnyToolDefinition) => boolean)

/** Options of {@link ToolRegistry.register}. */
export interface RegisterOptions {
  /** A conditional tool's predicate, evaluated once per model step inside `resolve`. */
  readonly when?: ToolCondition
}

/** Input of {@link ToolRegistry.resolve}. */
export interface ResolveInput {
  /** The agent the step is for; passed to every `when` condition (and selects its scope's tools). */
  readonly agent?: Agent
  /** The model about to be called (provider, model id); passed to every `when` condition. */
  readonly modelSelection?: ModelSelection
  /** Aborts the resolution: `resolve` rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** Where an inspection looks: a scope, an agent (its scope), a scope's context, or the caller's scope when absent. */
export type ScopeRef = Scope | Agent | Context | undefined

/** A disposer returned by effect-owned registry methods; awaitable. */
export type Disposer = () => Promise<void>

/**
 * A set of tools registered and swapped as one unit ({@link ToolRegistry.registerGroup}): a
 * bridge whose source announces a new tool list (MCP `notifications/tools/list_changed`) swaps
 * its tools without a window in which some are missing.
 */
export interface ToolGroup {
  /** The names the group holds now, in the order last given. */
  readonly names: readonly string[]
  /**
   * Swaps the group's tools for `definitions` in one step with one `tools/change`
   * `{ type: 'replace' }` (none when nothing changed). A definition identical (`===`) to the one
   * registered under its name keeps that registration, so resolved sets that pinned it keep
   * executing it; a changed definition keeps its prompt position; new names go last.
   *
   * @throws ToolRegistrationError (and leaves the group as it was) for an invalid definition, a
   *   name listed twice, a name another registration holds in the scope (naming its owner), a
   *   throwing `tools/change` listener, or a disposed group.
   */
  replace(definitions: readonly AnyToolDefinition[]): void
  /** Unregisters every tool of the group (one `tools/change`); also runs when the owning fiber is disposed. */
  dispose: Disposer
}
