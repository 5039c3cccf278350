import { readdirSync, readFileSync } from 'node:fs'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import type { JsonSchemaNode } from '@deepseek-ai/dsh-tools'
import { generateSdk, SDK_PREAMBLE, type SdkTool } from '../src/sdk'

const MCP_DIR = new URL('../../tool-testkit/fixtures/real/mcp/', import.meta.url)

interface McpTool {
  readonly name: string
  readonly description?: string
  readonly inputSchema: JsonSchemaNode
  readonly outputSchema?: JsonSchemaNode
}

const fixtureSets: readonly { readonly file: string; readonly tools: readonly SdkTool[] }[] = readdirSync(MCP_DIR)
  .filter((f) => f.includes('.tools') && f.endsWith('.json'))
  .sort()
  .map((file) => {
    const data = JSON.parse(readFileSync(new URL(file, MCP_DIR), 'utf8')) as { tools: McpTool[] }
    return {
      file,
      tools: data.tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        parameters: t.inputSchema,
        ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
      })),
    }
  })

const tool = (name: string, parameters: JsonSchemaNode, outputSchema?: JsonSchemaNode, description = ''): SdkTool => ({
  name,
  description,
  parameters,
  ...(outputSchema === undefined ? {} : { outputSchema }),
})

/** The `tools` member lines of an SDK for one tool. */
const member = (t: SdkTool): string => {
  const text = generateSdk([t])
  return text.slice(text.indexOf('declare const tools: {\n') + 'declare const tools: {\n'.length, text.length - '\n}'.length)
}

describe('generateSdk: structure', () => {
  it('starts with the usage header and the ToolCallError declaration', () => {
    expect(generateSdk([])).toBe(`${SDK_PREAMBLE}\ndeclare const tools: {\n}`)
    expect(SDK_PREAMBLE).toContain('declare class ToolCallError extends Error {\n  constructor(toolName: string, message: string)\n  readonly toolName: string\n}')
  })

  it('orders tools lexicographically by UTF-16 code units and is byte-identical for any input order', () => {
    const tools = [tool('b', { type: 'object' }), tool('B', { type: 'object' }), tool('a_b', { type: 'object' }), tool('a.b', { type: 'object' }), tool('é', { type: 'object' })]
    const text = generateSdk(tools)
    const names = [...text.slice(text.indexOf('declare const tools')).matchAll(/^ {2}("?[^\s(]+"?)\(/gm)].map((m) => m[1])
    expect(names).toEqual(['B', '"a.b"', 'a_b', 'b', '"é"'])
    expect(generateSdk([...tools].reverse())).toBe(text)
    expect(generateSdk(tools)).toBe(text)
  })

  it('quotes exotic names and keeps identifiers bare', () => {
    expect(member(tool('math.factorial', { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }))).toBe(
      '  "math.factorial"(args: { n: number }): Promise<unknown>',
    )
    expect(member(tool('get-sum', { type: 'object', additionalProperties: false }))).toBe('  "get-sum"(args?: {}): Promise<unknown>')
    expect(member(tool('$ok_1', { type: 'object', additionalProperties: false }))).toBe('  $ok_1(args?: {}): Promise<unknown>')
  })

  it('writes descriptions as JSDoc and escapes comment terminators', () => {
    const text = member(
      tool(
        'evil',
        { type: 'object', properties: { p: { type: 'string', description: 'ends */ here' } }, required: ['p'], additionalProperties: false },
        undefined,
        'first line */ injected();\nsecond line',
      ),
    )
    expect(text).toBe(['  /**', '   * first line *\\/ injected();', '   * second line', '   */', '  evil(args: {', '    /** ends *\\/ here */', '    p: string', '  }): Promise<unknown>'].join('\n'))
    expect(text).not.toMatch(/\*\/ (injected|here)/)
  })
})

describe('generateSdk: JSON Schema to TypeScript', () => {
  const args = (parameters: JsonSchemaNode): string => {
    const line = member(tool('t', parameters))
    return line.slice(line.indexOf('(args') + 1, line.lastIndexOf('): Promise<'))
  }
  const out = (outputSchema: JsonSchemaNode): string => {
    const line = member(tool('t', { type: 'object', additionalProperties: false }, outputSchema))
    return line.slice(line.indexOf('Promise<') + 'Promise<'.length, -1)
  }

  it('maps primitives, type arrays and nullable', () => {
    expect(out({ type: 'string' })).toBe('string')
    expect(out({ type: 'integer' })).toBe('number')
    expect(out({ type: ['string', 'null'] })).toBe('string | null')
    expect(out({ type: 'number', nullable: true })).toBe('number | null')
    expect(out({ type: 'boolean' })).toBe('boolean')
    expect(out({ type: 'null' })).toBe('null')
  })

  it('maps enum and const to literal unions', () => {
    expect(out({ enum: ['a', 1, true, null] })).toBe('"a" | 1 | true | null')
    expect(out({ const: 'fixed' })).toBe('"fixed"')
    expect(out({ type: 'string', enum: ['x "quoted"'] })).toBe('"x \\"quoted\\""')
  })

  it('maps oneOf/anyOf to unions and allOf to intersections', () => {
    expect(out({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] })).toBe('string | number[]')
    expect(out({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null')
    expect(out({ allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }, { type: 'object', properties: { b: { type: 'number' } }, additionalProperties: false }] })).toBe(
      '{ a: string } & { b?: number }',
    )
    expect(out({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).toBe('(string | number)[]')
  })

  it('gives open objects an index signature and typed additionalProperties', () => {
    expect(args({ type: 'object', properties: { a: { type: 'string' } } })).toBe('args?: { a?: string; [key: string]: unknown }')
    expect(args({ type: 'object', additionalProperties: { type: 'number' } })).toBe('args?: { [key: string]: number }')
    expect(args({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: { type: 'number' } })).toBe('args: { a: string; [key: string]: unknown }')
    expect(args({ type: 'object', required: ['x'], additionalProperties: false })).toBe('args: { x: unknown }')
    expect(args({ type: 'object', properties: { 'a-b': { type: 'string' } }, required: ['a-b'], additionalProperties: false })).toBe('args: { "a-b": string }')
  })

  it('maps tuples from prefixItems and draft-07 array items', () => {
    expect(out({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 })).toBe('[string, number]')
    expect(out({ type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'number' }, minItems: 1 })).toBe('[string, ...number[]]')
    expect(out({ type: 'array', prefixItems: [{ type: 'string' }], minItems: 0, items: false })).toBe('[string?]')
    expect(out({ type: 'array', prefixItems: [{ type: 'string' }], minItems: 0 })).toBe('unknown[]')
  })

  it('resolves local $ref, $defs and definitions, and names recursive schemas', () => {
    expect(out({ $defs: { Id: { type: 'string' } }, type: 'object', properties: { id: { $ref: '#/$defs/Id' } }, required: ['id'], additionalProperties: false })).toBe('{ id: string }')
    expect(out({ definitions: { N: { type: 'number' } }, type: 'array', items: { $ref: '#/definitions/N' } })).toBe('number[]')
    const text = generateSdk([
      tool(
        'tree',
        { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, required: ['root'], additionalProperties: false, $defs: { Node: { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['value'], additionalProperties: false } } },
      ),
    ])
    expect(text).toContain('type TreeNode = { value: number; children?: TreeNode[] }')
    expect(text).toContain('  tree(args: { root: TreeNode }): Promise<unknown>')
    expect(out({ $ref: 'https://example.com/remote.json' })).toBe('unknown')
    expect(out({ $ref: '#/$defs/missing' })).toBe('unknown')
  })

  it('degrades unsupported or malformed schemas to unknown and never throws', () => {
    expect(out({ not: { type: 'string' } })).toBe('unknown')
    expect(out({ type: 'bogus' })).toBe('unknown')
    expect(out(true)).toBe('unknown')
    expect(out(false)).toBe('never')
    let deep: JsonSchemaNode = { type: 'string' }
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep }
    expect(out(deep)).toBe(`${'unknown'}${'[]'.repeat(25)}`)
    const weird = [
      tool('a', null as unknown as JsonSchemaNode),
      tool('b', { type: 'object', properties: 'nope', required: 'x' } as unknown as JsonSchemaNode),
      tool('c', { type: 'object', properties: { p: null } } as unknown as JsonSchemaNode),
      { name: 42, description: undefined, parameters: {} } as unknown as SdkTool,
    ]
    expect(generateSdk(weird)).toBe(
      [
        SDK_PREAMBLE,
        'declare const tools: {',
        '  "42"(args?: unknown): Promise<unknown>',
        '  a(args?: unknown): Promise<unknown>',
        '  b(args?: { [key: string]: unknown }): Promise<unknown>',
        '  c(args?: { p?: unknown; [key: string]: unknown }): Promise<unknown>',
        '}',
      ].join('\n'),
    )
  })
})

describe('generateSdk: real MCP tool lists', () => {
  it.each(fixtureSets.map((s) => [s.file, s] as const))('%s matches its snapshot and is deterministic', (_file, set) => {
    const text = generateSdk(set.tools)
    expect(text).toMatchSnapshot()
    const shuffled = [...set.tools].sort((a, b) => (hash(a.name) < hash(b.name) ? -1 : 1))
    expect(generateSdk(shuffled)).toBe(text)
    expect(text.split('\n').some((l) => l.trim() === '')).toBe(false)
  })

  it('type-checks: every SDK plus a program calling each tool compiles with zero diagnostics', () => {
    const files = new Map<string, string>()
    fixtureSets.forEach((set, i) => files.set(`/virtual/sdk${i}.ts`, `${generateSdk(set.tools)}\n${callingProgram(set.tools)}\nexport {}\n`))
    expect(diagnostics(files)).toEqual([])
  })

  it('type-checks: wrong arguments are rejected, so the check is not vacuous', () => {
    const set = fixtureSets.find((s) => s.file === 'server-everything.tools.json')
    expect(set).toBeDefined()
    const sdk = generateSdk(set?.tools ?? [])
    const files = new Map([
      ['/virtual/bad.ts', `${sdk}\nasync function main() {\n  await tools["get-sum"]({ a: "one", b: 2 })\n  await tools["get-annotated-message"]({ messageType: "nope" })\n  await tools.echo()\n}\nvoid main\nexport {}\n`],
    ])
    expect(diagnostics(files).length).toBe(3)
  })
})

function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0
  return h
}

/** A program that calls every tool with arguments built from its schema. */
function callingProgram(tools: readonly SdkTool[]): string {
  const lines = ['async function main(): Promise<void> {', '  try {']
  tools.forEach((t, i) => {
    lines.push(`    const r${i} = await tools[${JSON.stringify(t.name)}](${JSON.stringify(sample(t.parameters, t.parameters, 0))})`)
    lines.push(`    void r${i}`)
  })
  lines.push('  } catch (e) {', '    if (e instanceof ToolCallError) void e.toolName.toUpperCase()', '  }', '}', 'void main')
  return lines.join('\n')
}

/** A JSON value valid for `schema` as far as TypeScript types go (required members only). */
function sample(schema: unknown, root: unknown, depth: number): unknown {
  if (depth > 20 || schema === null || typeof schema !== 'object') return {}
  const s = schema as Record<string, unknown>
  if (typeof s.$ref === 'string') {
    const target = s.$ref === '#' ? root : s.$ref.startsWith('#/') ? s.$ref.slice(2).split('/').reduce<unknown>((n, k) => (n as Record<string, unknown> | undefined)?.[k], root) : undefined
    return sample(target, root, depth + 1)
  }
  if ('const' in s) return s.const
  if (Array.isArray(s.enum)) return s.enum[0]
  for (const k of ['oneOf', 'anyOf'] as const) {
    const branches = s[k]
    if (Array.isArray(branches) && branches.length > 0) return sample(branches[0], root, depth + 1)
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  switch (type) {
    case 'string':
      return 'x'
    case 'number':
    case 'integer':
      return 1
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array': {
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined
      if (prefix !== undefined) return prefix.slice(0, typeof s.minItems === 'number' ? s.minItems : 0).map((p) => sample(p, root, depth + 1))
      return []
    }
    default: {
      const out: Record<string, unknown> = {}
      const props = (s.properties ?? {}) as Record<string, unknown>
      for (const name of Array.isArray(s.required) ? (s.required as string[]) : []) out[name] = name in props ? sample(props[name], root, depth + 1) : 'x'
      if (Array.isArray(s.allOf)) for (const part of s.allOf) Object.assign(out, sample(part, root, depth + 1))
      return out
    }
  }
}

/** Type-checks in-memory files (strict, ES2022 lib, no emit) and returns the diagnostics as text. */
function diagnostics(files: ReadonlyMap<string, string>): string[] {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], strict: true, noEmit: true, types: [], skipLibCheck: true, module: ts.ModuleKind.ESNext }
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, onError, create) => {
    const text = files.get(name)
    return text !== undefined ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, onError, create)
  }
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => files.has(name) || fileExists(name)
  const readFile = host.readFile.bind(host)
  host.readFile = (name) => files.get(name) ?? readFile(name)
  const program = ts.createProgram([...files.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}
