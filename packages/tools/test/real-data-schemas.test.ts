/**
 * Every real schema in `tool-testkit/fixtures/real/` passes `checkSchema` and validates what it
 * should (ARCHITECTURE §11: "Every schema in the real-data fixtures registers without
 * throwing"). Counts are the ones measured on the fixtures as copied (see SOURCES.md).
 */
import { describe, expect, test } from 'vitest'
import type { JsonObject } from '../src/contracts'
import { checkSchema, detectDialect, formatIssues, getValidator } from '../src/json-schema'
import { repairArguments } from '../src/repair'
import {
  BFCL_TYPE_MAP,
  loadBfclMismatches,
  loadBfclRawEntries,
  loadBfclRawFunctions,
  loadBfclSubset,
  loadMcpCallSamples,
  loadMcpToolLists,
  normalizeBfclSchema,
  type BfclMismatch,
} from '../../tool-testkit/src/real-data'

const mcpLists = loadMcpToolLists()

describe('MCP tool lists (fixtures/real/mcp/*.tools*.json)', () => {
  test('15 files, 189 tools, with the servers and counts of SOURCES.md', () => {
    expect(mcpLists.map((list) => `${list.server}${list.variant === undefined ? '' : `.${list.variant}`}:${list.tools.length}`)).toEqual([
      'everything.full-caps:16',
      'everything:13',
      'fetch:1',
      'filesystem:14',
      'git:12',
      'github:26',
      'memory:9',
      'sequential-thinking:1',
      'time:2',
      'brave__brave-search-mcp-server:8',
      'chrome-devtools-mcp:32',
      'mcp-server-kubernetes:23',
      'playwright__mcp:25',
      'tavily-mcp:5',
      'upstash__context7-mcp:2',
    ])
    expect(mcpLists.reduce((sum, list) => sum + list.tools.length, 0)).toBe(189)
  })

  test('dialects: 67 tools (brave, chrome-devtools, playwright, context7) are 2020-12, 122 are draft-07', () => {
    const dialects = mcpLists.flatMap((list) => list.tools.map((tool) => detectDialect(tool.inputSchema)))
    expect(dialects.filter((dialect) => dialect === '2020-12')).toHaveLength(67)
    expect(dialects.filter((dialect) => dialect === 'draft-07')).toHaveLength(122)
  })

  describe.each(mcpLists.map((list) => [list.file, list] as const))('%s', (_file, list) => {
    test('every inputSchema (and outputSchema) passes checkSchema and compiles', () => {
      const problems: string[] = []
      for (const tool of list.tools) {
        const problem = checkSchema(tool.inputSchema)
        if (problem !== undefined) problems.push(`${tool.name} ${problem.pointer}: ${problem.message}`)
        const compiled = getValidator(tool.inputSchema)({}).filter((issue) => issue.keyword === 'schema')
        if (compiled.length > 0) problems.push(`${tool.name} does not compile: ${compiled[0]!.message}`)
        if (tool.outputSchema !== undefined) {
          const outputProblem = checkSchema(tool.outputSchema)
          if (outputProblem !== undefined) problems.push(`${tool.name} output ${outputProblem.pointer}: ${outputProblem.message}`)
        }
      }
      expect(problems).toEqual([])
    })
  })
})

describe('MCP call samples (fixtures/real/mcp/calls.sample.json)', () => {
  const samples = loadMcpCallSamples()
  const toolOf = (server: string, name: string) =>
    mcpLists.find((list) => list.server === server && list.variant === undefined)?.tools.find((tool) => tool.name === name)

  /** What our validator says about each sample's arguments ('' = valid), in file order. */
  const expected: readonly (readonly [string, string])[] = [
    ['echo', ''],
    ['get-sum', ''],
    ['get-sum', '/a: must be number (got string)'],
    ['get-sum', '/b: is required'],
    ['get-sum', ''],
    ['no-such-tool', 'no such tool'],
    ['get-structured-content', ''],
    ['get-structured-content', '/location: must be one of "New York", "Chicago", "Los Angeles"'],
    ['trigger-long-running-operation', ''],
    ['list_directory', ''],
    ['read_text_file', ''],
    ['read_text_file', ''],
    ['read_text_file', ''],
    ['read_text_file', '/head: must be number (got string)'],
    ['read_text_file', ''],
    ['edit_file', '/edits: must be array (got string)'],
    ['edit_file', ''],
    ['read_multiple_files', '/paths: must NOT have fewer than 1 items'],
    ['directory_tree', ''],
    ['create_entities', ''],
    ['create_entities', '/entities/0/observations: must be array (got null)'],
    ['search_nodes', ''],
    ['read_graph', ''],
    ['sequentialthinking', ''],
    ['sequentialthinking', '/thoughtNumber: must be integer (got string)'],
    ['sequentialthinking', '/thoughtNumber: must be integer (got number)'],
  ]

  test('26 samples; each one’s issues are exact', () => {
    const actual = samples.map((sample) => {
      const tool = toolOf(sample.server, sample.request.name)
      return [sample.request.name, tool === undefined ? 'no such tool' : formatIssues(getValidator(tool.inputSchema)(sample.request.arguments))] as const
    })
    expect(actual).toEqual(expected)
  })

  test('our verdict matches the server’s wherever it rejected or accepted the arguments by schema', () => {
    // The file states the server's verdict: an isError result with "Input validation error" is
    // a schema rejection; anything else accepted the arguments (later failures such as "Access
    // denied" are the tool's, not the schema's). One sample differs by design: the
    // sequential-thinking server coerces "1" to 1 (zod preprocess); we reject it unless the
    // numericStrings repair is on.
    const disagreements: string[] = []
    samples.forEach((sample, index) => {
      const tool = toolOf(sample.server, sample.request.name)
      const text = sample.result.content.map((block) => String(block.text)).join('\n')
      if (tool === undefined) {
        expect(text).toBe(`MCP error -32602: Tool ${sample.request.name} not found`)
        return
      }
      const serverRejected = sample.result.isError === true && text.includes('Input validation error')
      const weReject = getValidator(tool.inputSchema)(sample.request.arguments).length > 0
      if (serverRejected !== weReject) disagreements.push(`#${index} ${sample.request.name}`)
    })
    expect(disagreements).toEqual(['#24 sequentialthinking'])
    const coerced = samples[24]!
    const schema = toolOf(coerced.server, coerced.request.name)!.inputSchema
    const repaired = repairArguments(schema, coerced.request.arguments, { numericStrings: true })
    expect(repaired.repairs).toEqual(['/thoughtNumber: numeric string "1" read as 1'])
    expect(getValidator(schema)(repaired.value)).toEqual([])
  })

  test('the double-encoded edits array (B07 in the wild) validates after the jsonStrings repair', () => {
    const sample = samples[15]!
    const schema = toolOf(sample.server, sample.request.name)!.inputSchema
    const repaired = repairArguments(schema, sample.request.arguments, { jsonStrings: true })
    expect(repaired.repairs).toEqual(['/edits: JSON string decoded as array'])
    expect(getValidator(schema)(repaired.value)).toEqual([])
    expect((repaired.value as JsonObject).edits).toEqual(samples[16]!.request.arguments.edits)
  })
})

/** Pointers named by a recorded ajv message: `/x must …` → `/x`; ` must have required property 'f'` → `/f`. */
function recordedPointer(message: string): string {
  const required = /^(\S*) must have required property '(.+)'$/.exec(message)
  if (required !== null) return `${required[1]}/${required[2]}`
  return message.slice(0, message.indexOf(' must'))
}

describe('BFCL subset (fixtures/real/bfcl/bfcl_subset.json)', () => {
  const subset = loadBfclSubset()
  const mismatches = loadBfclMismatches()

  test('131 entries, 206 JSON Schema functions, all pass checkSchema', () => {
    const functions = subset.entries.flatMap((entry) => entry.functions_json_schema)
    expect(subset.entries).toHaveLength(131)
    expect(functions).toHaveLength(206)
    expect(functions.map((fn) => checkSchema(fn.parameters)).filter((problem) => problem !== undefined)).toEqual([])
  })

  test('211 example calls: 209 validate; the 2 listed mismatches that apply fail naming their fields', () => {
    let valid = 0
    const failed: { id: string; name: string; pointers: string[] }[] = []
    const applicable: BfclMismatch[] = []
    for (const entry of subset.entries) {
      for (const call of entry.example_call) {
        const fn = entry.functions_json_schema.find((candidate) => candidate.name === call.name)
        expect(fn, `${entry.id}: ${call.name}`).toBeDefined()
        const found = getValidator(fn!.parameters)(call.arguments)
        // A listed mismatch applies to the call with the same entry, function and arguments.
        const mismatch = mismatches.find(
          (candidate) =>
            candidate.id === entry.id && candidate.fn === call.name && JSON.stringify(candidate.args) === JSON.stringify(call.arguments),
        )
        if (mismatch !== undefined) applicable.push(mismatch)
        if (found.length === 0) valid++
        else failed.push({ id: entry.id, name: call.name, pointers: found.map((issue) => issue.pointer) })
      }
    }
    expect(valid).toBe(209)
    expect(applicable.map((mismatch) => mismatch.id)).toEqual(['simple_python_200', 'parallel_multiple_94'])
    expect(failed).toEqual(
      applicable.map((mismatch) => ({ id: mismatch.id, name: mismatch.fn, pointers: mismatch.errors.map(recordedPointer) })),
    )
    expect(failed.map((entry) => entry.pointers)).toEqual([['/fuel_efficiency'], ['/elements/0', '/elements/1', '/elements/2', '/elements/3', '/elements/4']])
  })

  test('the BFCL-dialect functions, normalised, give the same verdict on every example call', () => {
    const differences: string[] = []
    for (const entry of subset.entries) {
      for (const call of entry.example_call) {
        const dialect = normalizeBfclSchema(entry.functions.find((fn) => fn.name === call.name)!.parameters)
        const converted = entry.functions_json_schema.find((fn) => fn.name === call.name)!.parameters
        expect(checkSchema(dialect)).toBeUndefined()
        const a = formatIssues(getValidator(dialect)(call.arguments))
        const b = formatIssues(getValidator(converted)(call.arguments))
        if (a !== b) differences.push(`${entry.id} ${call.name}: ${a} ≠ ${b}`)
      }
    }
    expect(differences).toEqual([])
  })
})

describe('raw BFCL question files (fixtures/real/bfcl/raw/, JSON Lines)', () => {
  const functions = loadBfclRawFunctions()

  test('6,353 functions in 7 categories; dotted names kept as published', () => {
    const perCategory: Record<string, number> = {}
    for (const fn of functions) perCategory[fn.category] = (perCategory[fn.category] ?? 0) + 1
    expect(perCategory).toEqual({
      irrelevance: 240,
      live_multiple: 4178,
      live_simple: 258,
      multiple: 557,
      parallel: 200,
      parallel_multiple: 520,
      simple_python: 400,
    })
    expect(functions).toHaveLength(6353)
    expect(functions.filter((fn) => fn.name.includes('.'))).toHaveLength(1495)
    expect(functions.find((fn) => fn.entryId === 'live_multiple_0-0-0' && fn.name === 'ChaDri.change_drink')).toBeDefined()
  })

  test('every function normalises and passes checkSchema (6,353 of 6,353)', () => {
    const problems: string[] = []
    for (const fn of functions) {
      const problem = checkSchema(normalizeBfclSchema(fn.parameters))
      if (problem !== undefined) problems.push(`${fn.entryId} ${fn.name} ${problem.pointer}: ${problem.message}`)
    }
    expect(problems).toEqual([])
  })

  test('entries: 2,551 questions, 2,311 with published ground truth (irrelevance has none)', () => {
    const entries = loadBfclRawEntries()
    expect(entries).toHaveLength(2551)
    expect(entries.filter((entry) => entry.groundTruth !== undefined)).toHaveLength(2311)
    expect(entries.filter((entry) => entry.category === 'irrelevance' && entry.groundTruth !== undefined)).toEqual([])
  })
})

describe('normalizeBfclSchema', () => {
  test('the documented mapping table, recursively through properties, items and additionalProperties', () => {
    const input = {
      type: 'dict',
      required: ['a'],
      optional: ['c'],
      properties: {
        a: { type: 'float', default: 0.5, description: 'ratio' },
        b: { type: 'tuple', items: { type: 'dict', properties: { x: { type: 'any' } } } },
        c: { type: 'any', description: 'anything' },
        d: { type: 'array', items: { type: 'integer' } },
        e: { type: 'dict', additionalProperties: { type: 'float' } },
        f: { type: 'HashMap' },
      },
    }
    const snapshot = JSON.stringify(input)
    expect(JSON.stringify(normalizeBfclSchema(input))).toBe(
      JSON.stringify({
        type: 'object',
        required: ['a'],
        optional: ['c'],
        properties: {
          a: { type: 'number', default: 0.5, description: 'ratio' },
          b: { type: 'array', items: { type: 'object', properties: { x: {} } } },
          c: { description: 'anything' },
          d: { type: 'array', items: { type: 'integer' } },
          e: { type: 'object', additionalProperties: { type: 'number' } },
          f: { type: 'HashMap' },
        },
      }),
    )
    expect(JSON.stringify(input)).toBe(snapshot)
    expect(BFCL_TYPE_MAP).toEqual({
      dict: 'object',
      float: 'number',
      tuple: 'array',
      any: null,
      integer: 'integer',
      string: 'string',
      boolean: 'boolean',
      array: 'array',
      object: 'object',
      number: 'number',
      null: 'null',
    })
  })

  test('an unknown dialect type is left for checkSchema to report', () => {
    expect(checkSchema(normalizeBfclSchema({ type: 'dict', properties: { m: { type: 'HashMap' } } }))).toEqual({
      pointer: '/properties/m/type',
      message: 'must be one of "array", "boolean", "integer", "null", "number", "object", "string"',
    })
  })
})
