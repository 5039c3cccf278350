/**
 * The checked-in tool catalog is exactly what the generator renders: a schema, description or
 * provider conversion change without `npm run catalog` fails here.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { CATALOG_PATH, renderCatalog } from '../src/catalog'

test(`${CATALOG_PATH} is up to date (regenerate with npm run catalog)`, async () => {
  const rendered = await renderCatalog()
  const checkedIn = readFileSync(fileURLToPath(new URL(`../../../${CATALOG_PATH}`, import.meta.url)), 'utf8')
  expect(checkedIn === rendered, `${CATALOG_PATH} is stale: run \`npm run catalog\` and commit the result`).toBe(true)
  // Every provider section is there, each declaring all eight demo tools.
  expect([...rendered.matchAll(/^### (.+)$/gm)].map((m) => m[1])).toEqual([
    'OpenAI Chat Completions',
    'OpenAI Chat Completions, strict mode',
    'OpenAI Responses',
    'Anthropic Messages',
    'Google Gemini',
    'DeepSeek and other OpenAI-compatible servers',
  ])
  expect(rendered.match(/"slow_report"/g)?.length).toBe(7)
})
