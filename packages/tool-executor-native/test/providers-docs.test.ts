/** The "Connecting a model API" doc fragment: its code samples are the typechecked examples, verbatim. */
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import * as providers from '../src/providers'

const pkg = fileURLToPath(new URL('..', import.meta.url))
const doc = readFileSync(`${pkg}docs/connecting.md`, 'utf8')
const examples = readdirSync(`${pkg}examples`).filter((f) => f.endsWith('.ts')).sort()
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => m[1] as string)

test('every ts sample in docs/connecting.md is an example file, verbatim, and every example appears once', () => {
  expect(examples).toEqual(['anthropic.ts', 'deepseek.ts', 'gemini.ts', 'openai-chat.ts', 'openai-responses.ts', 'stream.ts'])
  const sources = new Map(examples.map((f) => [readFileSync(`${pkg}examples/${f}`, 'utf8').trimEnd(), f]))
  const used = blocks.map((block) => sources.get(block) ?? `<not an example: ${block.slice(0, 60)}>`)
  expect([...used].sort()).toEqual(examples)
})

test('every function or class the doc names is exported by the providers module', () => {
  const named = new Set([...doc.matchAll(/\b((?:to|parse)[A-Z]\w+|\w+Accumulator|settleParsedCalls|truncatedCallResults|nameMapFromEntries|markupErrorMessage)\b/g)].map((m) => m[1] as string))
  expect(named.size).toBeGreaterThan(25)
  for (const builder of ['toOpenAIChatAssistantMessage', 'toOpenAIResponsesAssistantItems', 'toAnthropicAssistantMessage', 'toGeminiModelContent', 'markupErrorMessage']) expect(named).toContain(builder)
  for (const name of named) expect(Object.keys(providers), name).toContain(name)
})

test('the doc starts with the section heading the package README includes, and the README embeds it verbatim', () => {
  expect(doc.startsWith('## Connecting a model API\n')).toBe(true)
  const readme = readFileSync(`${pkg}README.md`, 'utf8')
  expect(readme.includes(`${doc.trimEnd()}\n\n## Understand the implementation\n`)).toBe(true)
})

test('the doc documents the assistant-turn builder, the recovered-from-text status, the duplicate-id policy and the name-stability rule', () => {
  for (const phrase of ['**The assistant-turn builder.**', '`recovered`', 'recovered from text', '`malformed-markup`', '**Duplicate-id policy.**', '`<id>_2`', '**Name stability rule**', 'never on registration order']) {
    expect(doc, phrase).toContain(phrase)
  }
})
