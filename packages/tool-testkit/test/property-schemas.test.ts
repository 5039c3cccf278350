/**
 * Properties over random DSL schemas and random arguments (ARCHITECTURE §4.1, §11):
 *
 * 1. Any DSL parameters record defines, registers and projects: `schemas()` shows exactly
 *    `{ name, description, parameters }`, parameters equal `projectParameters(spec)`, are JSON,
 *    deep-frozen, deterministic, and accepted by `checkSchema`.
 * 2. Any value the schema admits reaches the body unchanged (as a JSON string or as a parsed
 *    object), and the call succeeds.
 * 3. Any single-point violation (a missing required property, a wrong JSON type at any depth)
 *    is `INVALID_ARGS` naming the tool, the JSON pointer and what was expected; the body never runs.
 *
 * Seeded: FC_SEED / FC_NUM_RUNS / FC_PATH (see propertyParameters).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { checkSchema, defineTool, projectParameters, type JsonValue } from '@deepseek-ai/dsh-tools'
import { call, createHarness, objectCall, propertyParameters, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { mutationsOf, objectArb, parametersArb, parametersOf, type Prop } from './support/arbitraries'

const SEED = 20_251_130

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(async () => {
  await h.dispose()
})

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

/** Registers a tool with `props` whose body records what it received; returns the records and the disposer. */
function register(props: readonly Prop[]) {
  const received: JsonValue[] = []
  const definition = defineTool({
    name: 'probe',
    description: 'Records its arguments.',
    parameters: parametersOf(props),
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'ok' }] },
    execute(args) {
      received.push(args as JsonValue)
      return null
    },
  })
  const dispose = h.ctx.tools.register(definition)
  return { definition, received, dispose }
}

describe('property: random DSL schemas', () => {
  test('every parameters record defines, registers and projects deterministically to a frozen JSON Schema', async () => {
    await fc.assert(
      fc.asyncProperty(parametersArb(3, 5), async (props) => {
        const spec = parametersOf(props)
        const { definition, dispose } = register(props)
        try {
          const [schema, ...rest] = h.tools.schemas()
          expect(rest).toEqual([])
          expect(Object.keys(schema!).sort()).toEqual(['description', 'name', 'parameters'])
          expect(schema!.parameters).toEqual(projectParameters(spec))
          expect(JSON.parse(JSON.stringify(schema!.parameters))).toEqual(schema!.parameters)
          expect(JSON.stringify(projectParameters(spec))).toBe(JSON.stringify(definition.parameters))
          expect(isDeepFrozen(schema)).toBe(true)
          expect(checkSchema(schema!.parameters)).toBeUndefined()
          // `required` lists the required properties in property order (JavaScript puts integer-like keys first).
          const { required = [], properties = {} } = schema!.parameters as { required?: string[]; properties?: object }
          const requiredNames = new Set(props.filter((p) => p.required).map((p) => p.name))
          expect(required).toEqual(Object.keys(properties).filter((n) => requiredNames.has(n)))
          expect(Object.keys(properties).sort()).toEqual(props.map((p) => p.name).sort())
        } finally {
          await dispose()
        }
      }),
      propertyParameters({ numRuns: 150, defaultSeed: SEED }),
    )
  })

  test('every admitted value reaches the body unchanged, as a JSON string and as a parsed object', async () => {
    const case_ = parametersArb(2, 4).chain((props) => fc.tuple(fc.constant(props), objectArb(props)))
    await fc.assert(
      fc.asyncProperty(case_, async ([props, value]) => {
        const { received, dispose } = register(props)
        try {
          const results = await h.execute([call('probe', value, 's'), objectCall('probe', value, 'o')])
          expect(results.map((r) => (r.isError ? r.error.message : 'ok'))).toEqual(['ok', 'ok'])
          expect(received).toEqual([value, value])
          expect(received.every(isDeepFrozen)).toBe(true)
        } finally {
          await dispose()
        }
      }),
      propertyParameters({ numRuns: 150, defaultSeed: SEED + 1 }),
    )
  })

  test('every single-point violation is INVALID_ARGS naming the tool, the pointer and the expectation; the body never runs', async () => {
    const case_ = parametersArb(2, 4)
      .chain((props) => fc.tuple(fc.constant(props), objectArb(props)))
      .filter(([props, value]) => mutationsOf(props, value as Record<string, JsonValue>).length > 0)
      .chain(([props, value]) => fc.tuple(fc.constant(props), fc.constantFrom(...mutationsOf(props, value as Record<string, JsonValue>))))
    await fc.assert(
      fc.asyncProperty(case_, async ([props, mutation]) => {
        const { received, dispose } = register(props)
        try {
          const [r] = await h.execute([call('probe', mutation.value, 'm')])
          expect(received).toEqual([])
          expect(r!.isError).toBe(true)
          if (!r!.isError) return
          expect(r!.error.info?.code).toBe('INVALID_ARGS')
          expect(r!.error.message).toBe(`Invalid arguments for tool "probe": ${mutation.pointer}: ${mutation.message}`)
          expect(r!.content).toEqual([{ type: 'text', text: `Error: ${r!.error.message}` }])
        } finally {
          await dispose()
        }
      }),
      propertyParameters({ numRuns: 200, defaultSeed: SEED + 2 }),
    )
  })
})

describe('propertyParameters', () => {
  test('reads FC_SEED / FC_NUM_RUNS / FC_PATH, and a failing property’s report names the seed to replay', () => {
    expect(propertyParameters({ numRuns: 50, defaultSeed: 7 }, {})).toEqual({ seed: 7, numRuns: 50 })
    expect(propertyParameters({ numRuns: 50, defaultSeed: 7 }, { FC_SEED: '-12', FC_NUM_RUNS: '3', FC_PATH: '2:1' })).toEqual({ seed: -12, numRuns: 3, path: '2:1' })
    expect(() => propertyParameters({ numRuns: 50, defaultSeed: 7 }, { FC_SEED: 'abc' })).toThrow('FC_SEED must be an integer, got "abc"')
    expect(() => propertyParameters({ numRuns: 50, defaultSeed: 7 }, { FC_NUM_RUNS: '0' })).toThrow('FC_NUM_RUNS must be a positive integer, got "0"')
    const details = fc.check(
      fc.property(fc.integer(), (n) => n < 100),
      propertyParameters({ numRuns: 200, defaultSeed: 99 }, {}),
    )
    expect(details.failed).toBe(true)
    expect(fc.defaultReportMessage(details)).toContain('seed: 99')
  })
})
