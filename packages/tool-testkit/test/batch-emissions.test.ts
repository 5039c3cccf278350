/**
 * Raw-batch builders and the provider emission fixtures.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, type JsonSchemaNode } from '@deepseek-ai/dsh-tools'
import {
  call,
  calls,
  createHarness,
  emissionBatch,
  expectedCalls,
  loadProviderEmissions,
  objectCall,
  providerEmission,
  resetCallIds,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

describe('raw-batch builders', () => {
  test('call stringifies objects and keeps strings verbatim; objectCall keeps parsed arguments', () => {
    expect(call('read', { path: 'a' }, 'c1')).toEqual({ callId: 'c1', name: 'read', arguments: '{"path":"a"}' })
    expect(call('read', '{"path":', 'c2')).toEqual({ callId: 'c2', name: 'read', arguments: '{"path":' })
    expect(call('read', '', 'c3').arguments).toBe('')
    expect(objectCall('read', { path: 'a' }, 'c4')).toEqual({ callId: 'c4', name: 'read', arguments: { path: 'a' } })
  })

  test('ids are automatic and resettable; calls() numbers its ids from a prefix', () => {
    resetCallIds()
    expect([call('a').callId, objectCall('b', {}).callId]).toEqual(['call_1', 'call_2'])
    resetCallIds()
    expect(call('a').callId).toBe('call_1')
    expect(calls('echo', 3, (i) => ({ i }), 'x')).toEqual([
      { callId: 'x0', name: 'echo', arguments: '{"i":0}' },
      { callId: 'x1', name: 'echo', arguments: '{"i":1}' },
      { callId: 'x2', name: 'echo', arguments: '{"i":2}' },
    ])
  })
})

describe('provider emissions', () => {
  test('the file loads: 22 examples, each with id, provider, kind and expected outcome', () => {
    const { meta, examples } = loadProviderEmissions()
    expect(examples).toHaveLength(22)
    expect(Object.keys(meta.kinds as object).sort()).toEqual(['documented-shape', 'observed-quirk', 'observed-raw-output'])
    expect(examples.map((e) => e.id)).toEqual(['E01', 'E02', 'E03', 'E04', 'E05', 'E06', 'E07', 'E08', 'E09', 'E10', 'E11', 'E12', 'E13', 'E14', 'E15', 'E16', 'E17', 'E18', 'E19', 'E24', 'E25', 'E26'])
    const count = (kind: string) => examples.filter((e) => e.kind === kind).length
    expect([count('documented-shape'), count('observed-quirk'), count('observed-raw-output')]).toEqual([10, 10, 2])
  })

  test('providerEmission looks one up by id and names the available ids when it is missing', () => {
    expect(providerEmission('E06').provider).toBe('anthropic')
    expect(() => providerEmission('E99')).toThrow(/^no provider emission "E99"; available: E01, E02, .*E26$/)
  })

  test('expectedCalls lists the calls an adapter must extract; [] for rule-only examples', () => {
    expect(expectedCalls(providerEmission('E01'))).toEqual([{ id: 'call_a1', name: 'get_weather', arguments: { city: 'Oslo', unit: 'celsius' } }])
    expect(expectedCalls(providerEmission('E09'))).toEqual([{ id: 'toolu_z', arguments: {} }])
    expect(expectedCalls(providerEmission('E02'))).toEqual([])
    expect(expectedCalls(providerEmission('E10'))).toEqual([])
  })

  test('every expected call of the documented shapes runs through the pipeline against the example’s own tool schema', async () => {
    h = await createHarness()
    const examples = loadProviderEmissions().examples.filter((e) => expectedCalls(e).length > 0)
    expect(examples.map((e) => e.id)).toEqual(['E01', 'E03', 'E04', 'E05', 'E06', 'E08', 'E09'])
    const seen: string[] = []
    for (const example of examples) {
      const name = `weather_${example.id}`
      h.ctx.tools.register(
        defineRawTool({
          name,
          description: 'weather',
          inputSchema: (example.tool_schema ?? { type: 'object' }) as JsonSchemaNode,
          execute: (args) => {
            seen.push(`${example.id}:${JSON.stringify(args)}`)
            return 'sunny'
          },
        }),
      )
      const batch = emissionBatch(example, name).map((c) => ({ ...c, name }))
      const results = await h.execute(batch)
      expect(results.map((r) => [r.callId, r.isError])).toEqual(batch.map((c) => [c.callId, false]))
    }
    expect(seen).toEqual([
      'E01:{"city":"Oslo","unit":"celsius"}',
      'E03:{"city":"Oslo"}',
      'E04:{"city":"Oslo"}',
      'E04:{"city":"Lima"}',
      'E05:{"city":"Oslo"}',
      'E06:{"city":"Oslo"}',
      'E08:{"city":"Oslo"}',
      'E09:{}',
    ])
  })

  test('emissionBatch mints ids and needs a name when the example omits them', () => {
    expect(emissionBatch(providerEmission('E04'), 'get_weather')).toEqual([
      { callId: 'call_i0', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'call_i1', name: 'get_weather', arguments: { city: 'Lima' } },
    ])
    expect(() => emissionBatch(providerEmission('E04'))).toThrow('emission E04: expected call 0 has no name; pass defaultName')
  })
})
