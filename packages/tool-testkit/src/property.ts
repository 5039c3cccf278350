/**
 * Seeded, reproducible property-test parameters (docs/design.md, "Reliability"): one place that reads the
 * seed and the run count from the environment, so a failure printed by fast-check (which
 * reports `{ seed, path }`) can be replayed with `FC_SEED=<seed> npx vitest run <file>`.
 * The testkit does not depend on fast-check: the result is a plain object to pass as
 * `fc.assert(property, parameters)`.
 */

/** What {@link propertyParameters} returns: a subset of fast-check's `Parameters`. */
export interface PropertyParameters {
  /** The seed (an integer). */
  readonly seed: number
  /** How many runs. */
  readonly numRuns: number
  /** The replay path of a (shrunk) counterexample, when `FC_PATH` is set. */
  readonly path?: string
}

/**
 * Parameters for `fc.assert`: `seed` from `FC_SEED` (else `defaultSeed`), `numRuns` from
 * `FC_NUM_RUNS` (else `numRuns`), `path` from `FC_PATH`.
 *
 * @throws RangeError naming the variable when `FC_SEED` is not an integer or `FC_NUM_RUNS` not a positive integer.
 *
 * @example
 * fc.assert(fc.asyncProperty(arb, check), propertyParameters({ numRuns: 200, defaultSeed: 20251130 }))
 * // on failure fast-check prints: "Property failed after 12 tests { seed: 20251130, path: "11:3", endOnFailure: true }"
 * // replay: FC_SEED=20251130 FC_PATH=11:3 npx vitest run packages/tool-testkit/test/property-pipeline.test.ts
 */
export function propertyParameters(options: { readonly numRuns: number; readonly defaultSeed: number }, env: Readonly<Record<string, string | undefined>> = process.env): PropertyParameters {
  const seedText = env.FC_SEED
  const seed = seedText === undefined || seedText === '' ? options.defaultSeed : Number(seedText)
  if (!Number.isInteger(seed)) throw new RangeError(`FC_SEED must be an integer, got ${JSON.stringify(seedText)}`)
  const runsText = env.FC_NUM_RUNS
  const numRuns = runsText === undefined || runsText === '' ? options.numRuns : Number(runsText)
  if (!Number.isInteger(numRuns) || numRuns < 1) throw new RangeError(`FC_NUM_RUNS must be a positive integer, got ${JSON.stringify(runsText)}`)
  const path = env.FC_PATH
  return Object.freeze({ seed, numRuns, ...(path === undefined || path === '' ? {} : { path }) })
}
