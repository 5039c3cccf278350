/**
 * The scoped tool registry service at `ctx.tools` (docs/design.md, "Scopes" and
 * "The registry"). Every method that takes no explicit scope acts on the scope of the context it is
 * called through, and everything it creates is disposed with that context's fiber.
 *
 * The implementation is in `registry/`, one concept a file, and this file is its entry: the
 * public types (`registry/types.ts`), the tool name rule (`registry/names.ts`), the
 * configuration check (`registry/config.ts`) and the `ToolRegistry` class
 * (`registry/tool-registry.ts`).
 */
export type { ToolRegistryConfig, ToolFilter, RegisterOptions, ResolveInput, ScopeRef, Disposer, ToolGroup } from './registry/types'
export { MAX_TOOL_NAME_LENGTH, toolNameProblem, RESERVED_TOOL_NAMES } from './registry/names'
export { MAX_TIMER_MS } from './registry/config'
export { ToolRegistry } from './registry/tool-registry'
