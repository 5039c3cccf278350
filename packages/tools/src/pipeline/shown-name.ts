/**
 * The names the library's model-facing texts give tools (internal): with a runner's name map
 * (`RunnerOptions.nameMap`, the provider names the model saw), `Invalid arguments for tool
 * "math_factorial": …` rather than the registry's `math.factorial`; without one, the registry
 * name itself, with nothing computed.
 */
import type { RunContext } from './types'

/**
 * The name texts show for registry tool `name`: `run.nameMap.toWire(name)`, else `name`. Only
 * failure texts ask, so a call that succeeds never does; with a map, each name is asked once per
 * runner (kept in `run.shownNames`), so every text of a call, and of every call of that tool in
 * the batch, shows the same name. A map that throws (reported as `nameMap`) or answers anything
 * but a non-empty string shows `name`.
 */
export function shownName(name: string, run: RunContext): string {
  const map = run.nameMap
  if (map === undefined) return name
  const known = run.shownNames?.get(name)
  if (known !== undefined) return known
  let shown = name
  try {
    const wire: unknown = map.toWire(name)
    if (typeof wire === 'string' && wire !== '') shown = wire
  } catch (error) {
    run.host.report('nameMap', error)
  }
  ;(run.shownNames ??= new Map()).set(name, shown)
  return shown
}

/** The names `UNKNOWN_TOOL` lists for the registry's `available` tools: each {@link shownName} (the message sorts them). */
export function shownNames(available: readonly string[], run: RunContext): readonly string[] {
  return run.nameMap === undefined ? available : available.map((name) => shownName(name, run))
}
