/**
 * The sanitizers over every real MCP tool list (and the BFCL functions): file snapshots of
 * every change, structural invariants per provider, and exact warnings for a few tools.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, test } from 'vitest'
import type { JsonValue, ToolSchema } from '@deepseek-ai/dsh-tools'
import {
  toAnthropicTools,
  toGeminiTools,
  toOpenAIChatTools,
  toOpenAICompatibleTools,
  toOpenAIResponsesTools,
  type ConversionWarning,
  type Declarations,
} from '../src/providers'
import { bfclFunctions, mcpToolLists } from './providers-fixtures'

type Json = JsonValue
type Sent = { readonly name: string; readonly parameters: Json | undefined; readonly strict?: boolean }

/** Each provider as: declare → (wire name, schema sent, strict flag) per declared tool. */
const PROVIDERS: Record<string, (tools: ToolSchema[]) => { result: Declarations<unknown>; sent: Sent[] }> = {
  openai: (tools) => {
    const result = toOpenAIChatTools({ tools })
    return { result, sent: result.tools.map((t) => ({ name: t.function.name, parameters: t.function.parameters })) }
  },
  'openai-strict': (tools) => {
    const result = toOpenAIResponsesTools({ tools }, { strict: true })
    return { result, sent: result.tools.map((t) => ({ name: t.name, parameters: t.parameters, strict: t.strict })) }
  },
  anthropic: (tools) => {
    const result = toAnthropicTools({ tools })
    return { result, sent: result.tools.map((t) => ({ name: t.name, parameters: t.input_schema })) }
  },
  gemini: (tools) => {
    const result = toGeminiTools({ tools })
    return { result, sent: result.tools.map((t) => ({ name: t.name, parameters: t.parameters })) }
  },
  compatible: (tools) => {
    const result = toOpenAICompatibleTools({ tools })
    return { result, sent: result.tools.map((t) => ({ name: t.function.name, parameters: t.function.parameters })) }
  },
}

const lists = mcpToolLists()

function collectDescriptions(value: unknown, out: Set<string>): Set<string> {
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'description' && typeof v === 'string') out.add(v)
      collectDescriptions(v, out)
    }
  }
  return out
}

/** Descriptions copied verbatim are elided to keep the snapshots about the changes. */
function elide(value: unknown, known: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => elide(v, known))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'description' && typeof v === 'string' && known.has(v) ? '…' : elide(v, known)]))
  }
  return value
}

function render(tools: ToolSchema[]): string {
  let out = ''
  for (const [provider, declare] of Object.entries(PROVIDERS)) {
    const { result, sent } = declare(tools)
    out += `## ${provider}: ${sent.length} declared, ${result.errors.length} excluded, ${result.warnings.length} warnings\n`
    sent.forEach((s, i) => {
      const original = tools.find((t) => t.name === result.nameMap.toOriginal(s.name)) as ToolSchema
      if (isDeepStrictEqual(s.parameters, original.parameters) && s.name === original.name) return
      out += `${original.name}${s.name === original.name ? '' : ` → ${s.name}`}${s.strict === undefined ? '' : ` strict=${s.strict}`}: ${JSON.stringify(elide(s.parameters, collectDescriptions(original.parameters, new Set()))) ?? '(no parameters)'}\n`
      void i
    })
    for (const w of result.warnings) out += `! ${w.tool} ${w.code} ${w.pointer}\n`
    for (const e of result.errors) out += `x ${e.tool} ${e.code} ${e.pointer}: ${e.message}\n`
  }
  return out
}

describe('snapshots: every MCP tool list through every provider', () => {
  for (const { file, tools } of lists) {
    test(file, async () => {
      await expect(render(tools)).toMatchFileSnapshot(`./__snapshots__/providers-mcp/${file.replace(/\.json$/, '.txt')}`)
    })
  }
})

const GEMINI_KEYS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum'])
const STRICT_KEYS = new Set(['type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems'])

/** Visits every schema node under `node` (properties, items, anyOf). */
function eachNode(node: unknown, pointer: string, visit: (n: Record<string, Json>, p: string) => void): void {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return
  const n = node as Record<string, Json>
  visit(n, pointer)
  if (n.properties && typeof n.properties === 'object') for (const [k, v] of Object.entries(n.properties)) eachNode(v, `${pointer}/properties/${k}`, visit)
  if (n.items) eachNode(n.items, `${pointer}/items`, visit)
  if (Array.isArray(n.anyOf)) n.anyOf.forEach((v, i) => eachNode(v, `${pointer}/anyOf/${i}`, visit))
  if (n.$defs && typeof n.$defs === 'object') for (const [k, v] of Object.entries(n.$defs)) eachNode(v, `${pointer}/$defs/${k}`, visit)
}

const corpora: { label: string; tools: ToolSchema[] }[] = [
  ...lists.map(({ file, tools }) => ({ label: file, tools })),
  { label: 'bfcl_subset.json', tools: [...new Map(bfclFunctions().map((f) => [f.name, f.tool])).values()] },
]

describe('invariants over the real tool lists (MCP and BFCL)', () => {
  test('nothing is excluded, and a tool without warnings is sent exactly as registered', () => {
    for (const { label, tools } of corpora) {
      for (const [provider, declare] of Object.entries(PROVIDERS)) {
        const { result, sent } = declare(tools)
        expect(result.errors, `${label} ${provider}`).toEqual([])
        expect(sent).toHaveLength(tools.length)
        sent.forEach((s, i) => {
          const tool = tools[i] as ToolSchema
          if (!result.warnings.some((w) => w.tool === tool.name)) expect(s.parameters, `${label} ${provider} ${tool.name}`).toEqual(tool.parameters)
        })
      }
    }
  })

  test('Gemini: only subset keywords, single types, string enums, objects with properties, arrays with items', () => {
    for (const { label, tools } of corpora) {
      for (const s of PROVIDERS.gemini?.(tools).sent ?? []) {
        eachNode(s.parameters, `${label}:${s.name}`, (n, p) => {
          for (const key of Object.keys(n)) expect(GEMINI_KEYS.has(key), `${p}: ${key}`).toBe(true)
          if (n.anyOf === undefined) expect(['string', 'number', 'integer', 'boolean', 'array', 'object'], p).toContain(n.type)
          if (Array.isArray(n.enum)) expect(n.enum.every((v) => typeof v === 'string'), p).toBe(true)
          if (n.type === 'object') expect(Object.keys(n.properties as object).length, p).toBeGreaterThan(0)
          if (n.type === 'object' && Array.isArray(n.required)) for (const r of n.required) expect(Object.keys(n.properties as object), p).toContain(r)
          if (n.type === 'array') expect(n.items, p).toBeDefined()
        })
      }
    }
  })

  test('OpenAI-family roots are plain objects; OpenAI-compatible has no type arrays', () => {
    for (const { label, tools } of corpora) {
      for (const provider of ['openai', 'anthropic', 'compatible']) {
        for (const s of PROVIDERS[provider]?.(tools).sent ?? []) {
          const root = s.parameters as Record<string, Json>
          expect(root.type, `${label} ${provider} ${s.name}`).toBe('object')
          for (const k of ['anyOf', 'oneOf', 'allOf', 'enum', 'not', '$ref']) expect(root[k], `${label} ${provider} ${s.name} ${k}`).toBeUndefined()
          if (provider !== 'anthropic') expect(root.properties).toBeDefined()
          if (provider === 'compatible') eachNode(root, s.name, (n, p) => expect(Array.isArray(n.type), p).toBe(false))
        }
      }
    }
  })

  test('strict: every strict tool closes every object, requires every property and uses only strict keywords', () => {
    let strictTools = 0
    for (const { label, tools } of corpora) {
      const { result, sent } = PROVIDERS['openai-strict']?.(tools) as { result: Declarations<unknown>; sent: Sent[] }
      for (const s of sent) {
        const unavailable = result.warnings.filter((w: ConversionWarning) => w.tool === result.nameMap.toOriginal(s.name) && w.code === 'STRICT_UNAVAILABLE')
        expect(unavailable.length, `${label} ${s.name}`).toBe(s.strict ? 0 : 1)
        if (!s.strict) continue
        strictTools++
        eachNode(s.parameters, `${label}:${s.name}`, (n, p) => {
          for (const key of Object.keys(n)) expect(STRICT_KEYS.has(key), `${p}: ${key}`).toBe(true)
          const types = Array.isArray(n.type) ? n.type : [n.type]
          if (types.includes('object')) {
            expect(n.additionalProperties, p).toBe(false)
            expect(n.required, p).toEqual(Object.keys(n.properties as object))
          }
        })
      }
    }
    expect(strictTools).toBe(378 - 5) // 189 MCP + 189 BFCL tools, minus the 5 free-form ones (kubernetes 4, playwright 1)
  })
})

describe('exact warnings for a few real tools', () => {
  const toolsOf = (file: string) => lists.find((l) => l.file === file)?.tools ?? []

  test('server-git (pydantic anyOf-with-null) on Gemini: nullable, hoisted, nothing else', () => {
    const result = toGeminiTools({ tools: toolsOf('server-git.tools.from-source.json') })
    expect(result.warnings.map((w) => `${w.tool} ${w.code} ${w.pointer}`)).toEqual([
      'git_log NULLABLE_REWRITTEN /parameters/properties/start_timestamp/anyOf/1',
      'git_log COMBINATOR_REWRITTEN /parameters/properties/start_timestamp/anyOf',
      'git_log NULLABLE_REWRITTEN /parameters/properties/end_timestamp/anyOf/1',
      'git_log COMBINATOR_REWRITTEN /parameters/properties/end_timestamp/anyOf',
      'git_create_branch NULLABLE_REWRITTEN /parameters/properties/base_branch/anyOf/1',
      'git_create_branch COMBINATOR_REWRITTEN /parameters/properties/base_branch/anyOf',
      'git_branch NULLABLE_REWRITTEN /parameters/properties/contains/anyOf/1',
      'git_branch COMBINATOR_REWRITTEN /parameters/properties/contains/anyOf',
      'git_branch NULLABLE_REWRITTEN /parameters/properties/not_contains/anyOf/1',
      'git_branch COMBINATOR_REWRITTEN /parameters/properties/not_contains/anyOf',
    ])
    const branch = result.tools.find((t) => t.name === 'git_branch')
    expect((branch?.parameters?.properties as Record<string, Json>).contains).toEqual({
      type: 'string',
      title: 'Contains',
      description: 'The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified',
      default: null,
      nullable: true,
    })
  })

  test('kubernetes in strict mode: exactly the four free-form tools fall back to strict: false', () => {
    const result = toOpenAIChatTools({ tools: toolsOf('thirdparty__mcp-server-kubernetes.tools.json') }, { strict: true })
    expect(result.warnings.filter((w) => w.code === 'STRICT_UNAVAILABLE').map((w) => `${w.tool} ${w.pointer}`)).toEqual([
      'kubectl_patch /parameters/properties/patchData',
      'install_helm_chart /parameters/properties/values',
      'upgrade_helm_chart /parameters/properties/values',
      'kubectl_generic /parameters/properties/flags/additionalProperties',
    ])
    expect(result.tools.filter((t) => t.function.strict === false).map((t) => t.function.name)).toEqual(['kubectl_patch', 'install_helm_chart', 'upgrade_helm_chart', 'kubectl_generic'])
  })

  test('sequential-thinking ["boolean","string"] unions: anyOf for OpenAI-compatible and Gemini, untouched for OpenAI', () => {
    const tools = toolsOf('server-sequential-thinking.tools.json')
    const pointers = ['nextThoughtNeeded', 'isRevision', 'needsMoreThoughts'].map((p) => `TYPE_ARRAY_REWRITTEN /parameters/properties/${p}/type`)
    expect(toOpenAICompatibleTools({ tools }).warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual(pointers)
    expect(toGeminiTools({ tools }).warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual(['KEYWORD_DROPPED /parameters/$schema', ...pointers])
    expect(toOpenAIChatTools({ tools }).warnings).toEqual([])
    const props = toGeminiTools({ tools }).tools[0]?.parameters?.properties as Record<string, Json>
    expect(props.nextThoughtNeeded).toEqual({ description: 'Whether another thought step is needed', anyOf: [{ type: 'boolean' }, { type: 'string' }] })
  })

  test('warning totals per provider for the whole MCP corpus', () => {
    const totals: Record<string, number> = {}
    for (const { tools } of lists) for (const [provider, declare] of Object.entries(PROVIDERS)) totals[provider] = (totals[provider] ?? 0) + declare(tools).result.warnings.length
    expect(totals).toEqual({ openai: 0, 'openai-strict': 898, anthropic: 0, gemini: 286, compatible: 3 })
  })
})
