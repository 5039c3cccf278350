/**
 * The conformance report on the real fixtures, pinned: every schema registers, projects and
 * gets a typed SDK signature; every recorded MCP call gets the server's verdict but one
 * (a documented coercion); every rejected BFCL ground-truth call is a documented dataset
 * error, and every documented error is rejected naming its field.
 */
import { beforeAll, describe, expect, test } from 'vitest'
import { concreteCalls, runConformance, type ConformanceReport } from '../src/conformance'
import { formatReport, verdictLine } from '../src/report'

let report: ConformanceReport
beforeAll(async () => {
  report = await runConformance()
}, 60_000)

describe('conformance on real data', () => {
  test('MCP: 189 tools in 15 files register, project and get typed SDK signatures', () => {
    expect(report.sdk).toBe('generated')
    expect({ ...report.mcp, failures: report.mcp.failures.length }).toEqual({ definitions: 189, registered: 189, deduplicated: 0, scopes: 15, projected: 189, sdkTyped: 189, failures: 0 })
  })

  test('MCP samples: 26 recorded calls; our verdict equals the server’s except the sequential-thinking coercion', () => {
    const s = report.mcpSamples
    expect([s.calls, s.valid, s.invalid, s.unknown, s.agree]).toEqual([26, 16, 9, 1, 25])
    expect(s.disagreements).toEqual([
      '#24 sequentialthinking: server accepted {"thought":"step one","nextThoughtNeeded":"true","thoughtNumber":"1","totalThoughts":2}, we rejected (Invalid arguments for tool "sequentialthinking": /thoughtNumber: must be integer (got string))',
    ])
    expect(s.reasons).toEqual([
      ['must be number (got string)', 2],
      ['is required', 1],
      ['must NOT have fewer than 1 items', 1],
      ['must be array (got null)', 1],
      ['must be array (got string)', 1],
      ['must be integer (got number)', 1],
      ['must be integer (got string)', 1],
      ['must be one of the allowed values', 1],
      ['unknown tool', 1],
    ])
  })

  test('BFCL: 6,353 raw functions; identical re-declarations share a registration, colliding ones get their own scope; all register, project and type', () => {
    expect({ ...report.bfcl, failures: report.bfcl.failures.length }).toEqual({ definitions: 6353, registered: 3028, deduplicated: 3325, scopes: 47, projected: 3028, sdkTyped: 3028, failures: 0 })
  })

  test('BFCL ground truth: 3,058 concrete calls from 2,311 entries; the 25 rejected ones are exactly documented dataset errors', () => {
    const gt = report.bfclGroundTruth
    expect([gt.entries, gt.calls, gt.valid, gt.invalid, gt.unknown]).toEqual([2311, 3058, 3033, 25, 0])
    expect(gt.documentedRejections).toBe(25)
    expect(gt.undocumentedRejections).toEqual([])
    expect(gt.reasons[0]).toEqual(['must be one of the allowed values', 14])
  })

  test('documented dataset errors: the 25 in the copied categories are rejected as INVALID_ARGS naming every recorded field', () => {
    expect(report.mismatches).toEqual({ documented: 26, applicable: 25, rejectedNamingField: 25, notApplicable: ['live_parallel_multiple_2-2-0'], problems: [] })
  })

  test('the printed report is a readable table', () => {
    const text = formatReport(report)
    expect(text.split('\n').slice(0, 5)).toEqual([
      'Schemas (registered through ctx.tools.register, projected with ctx.tools.schemas, SDK from generateSdk)',
      'source                        definitions  registered  deduplicated  scopes  projected  SDK-typed  failed',
      '----------------------------  -----------  ----------  ------------  ------  ---------  ---------  ------',
      'MCP tools/list (15 files)             189         189             0      15        189        189       0',
      'BFCL raw functions (7 files)         6353        3028          3325      47       3028       3028       0',
    ])
    expect(text).toContain('BFCL ground truth: 25 of 25 rejected calls are documented dataset errors; undocumented: none')
    expect(text).toContain('Documented BFCL dataset errors: 25 of 25 applicable rejected as INVALID_ARGS naming the field')
    expect(text).toContain('PTC SDK column: generated\n\nTerms\n  definitions    tool definitions read from the fixture files\n')
    // It ends with one verdict line: what passed of what.
    expect(text.split('\n').at(-1)).toBe(
      'Verdict: PASS — 6,542 of 6,542 definitions registered; 25 of 26 MCP calls judged as the server did; 3,033 of 3,058 BFCL ground-truth calls valid (25 of 25 rejections documented dataset errors); 25 of 25 dataset errors rejected naming the field',
    )
    expect(verdictLine({ ...report, mcp: { ...report.mcp, failures: [{ source: 'x', tool: 'y', message: 'z' }] } }).startsWith('Verdict: FAIL — 6,541 of 6,542 definitions registered;')).toBe(true)
  })
})

describe('concreteCalls', () => {
  test('first acceptable value per parameter, "" first means omitted, recursively inside dict answers', () => {
    const schema = {
      type: 'object',
      properties: {
        prefs: { type: 'object', properties: { size: { type: 'string' }, note: { type: 'string' } } },
        items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, qty: { type: 'integer' } } } },
        tags: { type: 'array', items: { type: 'string' } },
      },
    }
    expect(
      concreteCalls(
        [
          {
            order: {
              prefs: [{ size: ['large', 'L'], note: ['', 'none'] }],
              items: [[{ id: ['a'], qty: [2, 3] }, { id: ['b'], qty: [1] }]],
              tags: [['x', 'y'], ['y', 'x']],
              optional: [''],
            },
          },
          { other: {} },
        ],
        (name) => (name === 'order' ? schema : undefined),
      ),
    ).toEqual([
      { name: 'order', arguments: { prefs: { size: 'large' }, items: [{ id: 'a', qty: 2 }, { id: 'b', qty: 1 }], tags: ['x', 'y'] } },
      { name: 'other', arguments: {} },
    ])
  })
})
