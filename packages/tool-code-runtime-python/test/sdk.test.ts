/**
 * The Python SDK: golden texts, determinism, identifier sanitising, and every real MCP/BFCL
 * tool list rendered and then compiled and executed under the interpreter (the generated module
 * must define `tools` with exactly the sanitised function names the runtime maps back).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonSchemaNode, JsonValue } from '@deepseek-ai/dsh-tools'
import type { SdkTool } from '@deepseek-ai/dsh-tool-executor-ptc'
import { loadBfclRawEntries, loadMcpToolLists, normalizeBfclSchema } from '@deepseek-ai/dsh-tool-testkit'
import { createPythonRuntime, generatePythonSdk, PY_SDK_PREAMBLE, pythonToolNames } from '../src/index'
import { BOOT_MS, plain, runPython } from './helpers'

const tool = (name: string, parameters: JsonSchemaNode, outputSchema?: JsonSchemaNode, description = ''): SdkTool => ({
  name,
  description,
  parameters,
  ...(outputSchema === undefined ? {} : { outputSchema }),
})

/** A tool set exercising every construct the renderer knows. */
const FEATURES: readonly SdkTool[] = [
  tool(
    'search_files',
    {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for.' },
        limit: { type: 'integer', description: 'At most this many hits.' },
        mode: { enum: ['exact', 'fuzzy', null] },
        scope: {
          type: 'object',
          description: 'Where to search.',
          properties: { root: { type: 'string' }, 'max-depth': { type: 'integer' } },
          required: ['root'],
        },
        tags: { type: 'array', items: { type: 'string' } },
        when: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        class: { type: 'boolean', description: 'A keyword as an argument name.' },
      },
      required: ['query'],
    },
    { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, score: { type: 'number', nullable: true } }, required: ['path'] } },
    'Search the workspace for files.\nReturns the best hits first, e.g. """quoted""" text and a \\ backslash.',
  ),
  tool('tree.walk', { type: 'object', properties: { node: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['name'] } } }),
  tool('merge', { type: 'object', allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { const: 1 } } }] }),
  tool('ping', { type: 'object', properties: {}, additionalProperties: false }, { type: 'string' }, 'Check the service.'),
  tool('données', { type: 'object', properties: { 'clé': { type: 'string' } } }),
  tool('class', { type: 'object', properties: { from: { type: 'string' }, from_: { type: 'string' } }, required: ['from'] }),
  tool('Class', { type: 'object', additionalProperties: { type: 'number' } }),
]

describe('generatePythonSdk: golden texts', () => {
  it('renders the feature set exactly', () => {
    expect(generatePythonSdk(FEATURES)).toMatchSnapshot()
  })

  it('renders the filesystem MCP server exactly', () => {
    const list = loadMcpToolLists().find((l) => l.file === 'server-filesystem.tools.json')!
    expect(generatePythonSdk(list.tools.map((t) => tool(t.name, t.inputSchema, t.outputSchema, t.description)))).toMatchSnapshot()
  })

  it('an empty set is the preamble and an empty tools class', () => {
    expect(generatePythonSdk([])).toBe(`${PY_SDK_PREAMBLE}\n\nclass tools:\n    pass`)
  })
})

describe('generatePythonSdk: determinism and names', () => {
  it('is byte-identical for any input order', () => {
    const text = generatePythonSdk(FEATURES)
    expect(generatePythonSdk([...FEATURES].reverse())).toBe(text)
    expect(generatePythonSdk([FEATURES[3]!, ...FEATURES.slice(0, 3), ...FEATURES.slice(4)])).toBe(text)
  })

  it('sanitises tool and argument names and maps them back', () => {
    const names = pythonToolNames(FEATURES)
    expect(names.map((n) => [n.name, n.py])).toEqual([
      ['search_files', 'search_files'],
      ['tree.walk', 'tree_walk'],
      ['merge', 'merge'],
      ['ping', 'ping'],
      ['données', 'donn_es'],
      ['class', 'class_'],
      ['Class', 'Class'],
    ])
    expect(names.find((n) => n.name === 'search_files')!.renamed).toEqual({ class_: 'class' })
    // `from` becomes `from__2` (`from_` + `_2`) because `from_` is a real argument name of the same tool.
    expect(names.find((n) => n.name === 'class')!.renamed).toEqual({ from__2: 'from' })
  })

  it('separates tool names that sanitise to the same identifier', () => {
    const names = pythonToolNames([tool('a.b', {}), tool('a-b', {}), tool('a_b', {}), tool('1x', {}), tool('__init__', {}), tool('', {})])
    expect(Object.fromEntries(names.map((n) => [n.name, n.py]))).toEqual({ '': 'tool', '1x': '_1x', '__init__': 't__init__', 'a-b': 'a_b', 'a.b': 'a_b_2', a_b: 'a_b_3' })
  })

  it('never throws on malformed schemas: the tool degrades to Any', () => {
    const text = generatePythonSdk([tool('odd', { type: 'object', properties: { x: { $ref: '#/nowhere' }, y: { type: 42 } } } as unknown as JsonSchemaNode), tool('null', null as unknown as JsonSchemaNode)])
    expect(text).toContain('class OddArgs(TypedDict):\n    x: NotRequired[Any]\n    y: NotRequired[Any]')
    expect(text).toContain('    async def null(**args: Any) -> Any:\n        ...')
  })
})

// ---- compiled under the interpreter ----------------------------------------------------------

interface Case {
  readonly name: string
  readonly text: string
  readonly fns: readonly string[]
}

function cases(): Case[] {
  const out: Case[] = [{ name: 'features', text: generatePythonSdk(FEATURES), fns: pythonToolNames(FEATURES).map((n) => n.py).sort() }]
  for (const list of loadMcpToolLists()) {
    const tools = list.tools.map((t) => tool(t.name, t.inputSchema, t.outputSchema, t.description))
    out.push({ name: list.file, text: generatePythonSdk(tools), fns: pythonToolNames(tools).map((n) => n.py).sort() })
  }
  for (const entry of loadBfclRawEntries()) {
    const tools = entry.functions.map((f) => tool(f.name, normalizeBfclSchema(f.parameters), undefined, f.description))
    out.push({ name: `bfcl ${entry.id}`, text: generatePythonSdk(tools), fns: pythonToolNames(tools).map((n) => n.py).sort() })
  }
  return out
}

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

const COMPILE_ALL = `
checked = 0
bad = []
n = (await tools.count())["n"]
for i in range(n):
    case = await tools.case(i=i)
    try:
        ns = {}
        exec(compile(case["text"], case["name"], "exec"), ns)
        fns = sorted(k for k in vars(ns["tools"]) if not k.startswith("__"))
        if fns != case["fns"]:
            bad.append(f'{case["name"]}: functions {fns}')
        if not issubclass(ns["ToolCallError"], Exception):
            bad.append(f'{case["name"]}: ToolCallError')
    except Exception as e:
        bad.append(f'{case["name"]}: {type(e).__name__}: {e}')
    checked += 1
return {"checked": checked, "bad": bad}
`

describe('every real tool list renders, compiles and executes under the interpreter', () => {
  it('MCP fixtures and every BFCL entry', async () => {
    const all = cases()
    expect(all.length).toBeGreaterThan(1_000)
    const bindings = {
      count: async () => ({ n: all.length }),
      case: async (args: JsonValue) => {
        const c = all[(args as { i: number }).i]!
        return { name: c.name, text: c.text, fns: [...c.fns] }
      },
    }
    const out = await runPython(runtime, COMPILE_ALL, { bindings, limits: { maxSubCalls: all.length + 1, valueBytes: 4 * 1024 * 1024, computeMs: 120_000, wallMs: 240_000 } })
    expect(plain(out)).toEqual({ value: { checked: all.length, bad: [] }, logs: [] })
  }, 300_000)
})
