/**
 * Result budgets: a tool's own budget and the registry's per-tool and per-batch budgets cut the
 * model-facing text with an exact marker naming a store handle; the value stays whole; the
 * in-memory store keeps, refreshes and evicts by bytes; `read_result` pages through a stored
 * result back to the exact text, and names the field of a bad handle, offset or length.
 */
import { afterEach, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { Context } from 'cordis'
import {
  createSuspension,
  allocateBudget,
  budgetMarker,
  createMemoryResultStore,
  defineTool,
  estimateTokens,
  readResultTool,
  ToolRegistry,
  ToolRegistrationError,
  type ResultStore,
  type ToolRegistryConfig,
  type ToolResult,
} from '@deepseek-ai/dsh-tools'
import { toAnthropicToolResultMessage, toOpenAIChatToolMessages } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createPtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { registerAskPolicy, registerSuspendTools, TEST_KEY } from './fixtures/suspend-tools'
import { cutPoint, fullText, keepPrefix, textChars } from '../src/budget/cut'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** 200,000 characters without line breaks: `0123456789` repeated. */
const BIG = '0123456789'.repeat(20_000)

const logs = defineTool({
  name: 'logs',
  description: 'Return a long log.',
  parameters: {},
  execute: () => BIG,
  resultBudget: { maxChars: 2_000 },
})

const texts = (r: ToolResult | undefined): string[] => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))

function handleOf(r: ToolResult | undefined): string {
  const handle = r?.meta?.cut?.handle
  if (handle === undefined) throw new Error('the result was not cut')
  return handle
}

describe('a tool with its own budget', () => {
  test('is cut at its budget with the exact marker; the value, the meta and the store keep the whole', async () => {
    const store = createMemoryResultStore()
    h = await createHarness({ registry: { resultBudget: { store, readTool: 'read_result' } } })
    h.ctx.tools.register(logs)
    const [r] = await h.execute([call('logs', {}, 'c1')])
    const handle = handleOf(r)
    expect(handle).toMatch(/^res_[0-9a-f]{16}$/)
    expect(texts(r)).toEqual([
      BIG.slice(0, 2_000),
      `[Result cut by its budget: showing characters 0–2,000 of 200,000 (≈500 of ≈50,000 tokens). The full result is stored under handle "${handle}". To read on, call read_result with {"handle":"${handle}","offset":2000,"length":2000}.]`,
    ])
    expect(r?.isError === false ? r.value : undefined).toBe(BIG)
    expect(r?.meta).toEqual({ toolName: 'logs', cut: { handle, shownChars: 2_000, totalChars: 200_000 } })
    expect(Object.isFrozen(r?.meta?.cut)).toBe(true)
    expect(await store.get(handle)).toEqual({ text: BIG, callId: 'c1', toolName: 'logs' })
  })

  test('the suggested page length stays within read_result\'s limit (20,000) and at least 1,000', async () => {
    h = await createHarness({ registry: { resultBudget: { readTool: 'read_result' } } })
    h.ctx.tools.register(defineTool({ name: 'wide', description: 'd', parameters: {}, execute: () => BIG, resultBudget: { maxChars: 30_000 } }))
    h.ctx.tools.register(defineTool({ name: 'narrow', description: 'd', parameters: {}, execute: () => BIG, resultBudget: { maxChars: 10 } }))
    const [wide, narrow] = await h.execute([call('wide', {}, 'c1'), call('narrow', {}, 'c2')])
    expect(texts(wide)[1]).toContain(`{"handle":"${handleOf(wide)}","offset":30000,"length":20000}`)
    expect(texts(narrow)[1]).toContain(`{"handle":"${handleOf(narrow)}","offset":10,"length":1000}`)
  })

  test('without a paging tool the marker names the handle and says it cannot be paged; the default store has it', async () => {
    h = await createHarness()
    h.ctx.tools.register(logs)
    const [r] = await h.execute([call('logs', {}, 'c1')])
    const handle = handleOf(r)
    expect((await h.tools.config.resultBudget?.store.get(handle))?.text).toBe(BIG)
    expect(texts(r)[1]).toBe(
      `[Result cut by its budget: showing characters 0–2,000 of 200,000 (≈500 of ≈50,000 tokens). The full result is stored under handle "${handle}". The application can retrieve it; it cannot be paged here.]`,
    )
  })

  test('a result within its budget is untouched (no handle, nothing stored), even over contentLimits.maxChars', async () => {
    const store = createMemoryResultStore()
    h = await createHarness({ registry: { contentLimits: { maxChars: 100 }, resultBudget: { store } } })
    h.ctx.tools.register(defineTool({ name: 'mid', description: 'd', parameters: {}, execute: () => 'x'.repeat(1_500), resultBudget: { maxChars: 2_000 } }))
    const [r] = await h.execute([call('mid', {}, 'c1')])
    expect(texts(r)).toEqual(['x'.repeat(1_500)])
    expect(r?.meta).toEqual({ toolName: 'mid' })
    expect(store.size).toBe(0)
  })

  test('contentLimits.maxLines still cuts a budgeted result first when it comes first, with the budget marker', async () => {
    h = await createHarness({ registry: { contentLimits: { maxLines: 3 } } })
    h.ctx.tools.register(defineTool({ name: 'lines', description: 'd', parameters: {}, execute: () => 'a\nb\nc\nd\ne', resultBudget: { maxChars: 1_000 } }))
    const [r] = await h.execute([call('lines', {}, 'c1')])
    expect(texts(r)[0]).toBe('a\nb\nc')
    expect(r?.meta?.cut).toEqual({ handle: handleOf(r), shownChars: 5, totalChars: 9 })
  })

  test('a tool without a budget keeps the contentLimits cap and its marker exactly as before', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 10 } } })
    h.ctx.tools.register(defineTool({ name: 'plain', description: 'd', parameters: {}, execute: () => 'y'.repeat(30) }))
    const [r] = await h.execute([call('plain', {}, 'c1')])
    expect(texts(r)).toEqual(['yyyyyyyyyy\n[output truncated: showing 10 of 30 characters (1 line); request a narrower range or page to see the rest]'])
    expect(r?.meta).toEqual({ toolName: 'plain' })
  })

  test('the registry toolMaxChars budgets every tool without its own; a tool budget wins', async () => {
    h = await createHarness({ registry: { resultBudget: { toolMaxChars: 50 } } })
    h.ctx.tools.register(defineTool({ name: 'a', description: 'd', parameters: {}, execute: () => 'a'.repeat(80) }))
    h.ctx.tools.register(defineTool({ name: 'b', description: 'd', parameters: {}, execute: () => 'b'.repeat(80), resultBudget: { maxChars: 70 } }))
    const [a, b] = await h.execute([call('a', {}, 'c1'), call('b', {}, 'c2')])
    expect([texts(a)[0], texts(b)[0]]).toEqual(['a'.repeat(50), 'b'.repeat(70)])
    expect([a?.meta?.cut?.shownChars, b?.meta?.cut?.shownChars]).toEqual([50, 70])
  })

  test('text blocks are cut in order, the joining line break counts as a character, images stay', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'blocks',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'string' }, render: () => [{ type: 'text', text: 'abcde' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: 'fghij' }] },
        execute: () => 'v',
        resultBudget: { maxChars: 8 },
      }),
    )
    const [r] = await h.execute([call('blocks', {}, 'c1')])
    expect(texts(r).slice(0, 3)).toEqual(['abcde', '[image]', 'fg'])
    expect(r?.meta?.cut).toEqual({ handle: handleOf(r), shownChars: 8, totalChars: 11 })
  })
})

describe('cutting (property)', () => {
  test('the kept blocks are the full text\'s prefix, the cut never splits a surrogate pair, images stay in place', () => {
    const block = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', '\n', '😀', 'é'), maxLength: 12 }).map((text) => ({ type: 'text' as const, text })),
      fc.constant({ type: 'image' as const, data: 'AA==', mimeType: 'image/png' }),
    )
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), fc.nat({ max: 80 }), fc.nat({ max: 8 }), (content, maxChars, maxLines) => {
        const text = fullText(content)
        expect(textChars(content)).toBe(text.length)
        const keep = cutPoint(text, maxChars, maxLines)
        expect(keep).toBeLessThanOrEqual(Math.min(maxChars, text.length))
        const high = text.charCodeAt(keep - 1)
        if (keep > 0 && keep < text.length) expect(high >= 0xd800 && high <= 0xdbff).toBe(false)
        if (maxLines > 0) expect(text.slice(0, keep).split('\n').length).toBeLessThanOrEqual(maxLines)
        const kept = keepPrefix(content, keep, 'M')
        expect(kept.at(-1)).toEqual({ type: 'text', text: 'M' })
        const shown = fullText(kept.slice(0, -1))
        // The prefix, or the prefix without the line break that joined it to the next block.
        expect([text.slice(0, keep), text.slice(0, keep - 1)]).toContain(shown)
        expect(kept.filter((b) => b.type === 'image').length).toBe(content.filter((b) => b.type === 'image').length)
      }),
    )
  })
})

describe('the per-batch budget', () => {
  test('max-min fair shares: a small result is whole, the large ones split the rest evenly', async () => {
    h = await createHarness({ registry: { resultBudget: { batchMaxChars: 6_000, readTool: 'read_result' } } })
    h.ctx.tools.register(defineTool({ name: 'sized', description: 'd', parameters: { n: { type: 'integer', required: true } }, execute: ({ n }) => 'z'.repeat(n), isConcurrencySafe: () => true }))
    const results = await h.execute([call('sized', { n: 100 }, 'c1'), call('sized', { n: 5_000 }, 'c2'), call('sized', { n: 20_000 }, 'c3')])
    expect(results.map((r) => texts(r)[0]!.length)).toEqual([100, 2_950, 2_950])
    expect(results.map((r) => r.meta?.cut?.shownChars)).toEqual([undefined, 2_950, 2_950])
    const handle = handleOf(results[2])
    expect(texts(results[2])[1]).toBe(
      `[Result cut by its budget: showing characters 0–2,950 of 20,000 (≈738 of ≈5,000 tokens). The full result is stored under handle "${handle}". To read on, call read_result with {"handle":"${handle}","offset":2950,"length":2950}.]`,
    )
    expect(results.map((r) => (r.isError ? -1 : (r.value as string).length))).toEqual([100, 5_000, 20_000])
  })

  test('the cut is the same whatever order the calls complete in', async () => {
    const run = async (releaseOrder: readonly number[]): Promise<string[][]> => {
      const gates = new Map<number, () => void>()
      const started: Promise<void>[] = []
      const ready = [0, 1, 2, 3].map(() => {
        let resolve!: () => void
        started.push(new Promise<void>((r) => (resolve = r)))
        return resolve
      })
      const harness = await createHarness({ registry: { resultBudget: { batchMaxChars: 1_000 } } })
      try {
        harness.ctx.tools.register(
          defineTool({
            name: 'gated',
            description: 'd',
            parameters: { i: { type: 'integer', required: true }, n: { type: 'integer', required: true } },
            isConcurrencySafe: () => true,
            execute: ({ i, n }) =>
              new Promise<string>((resolve) => {
                gates.set(i, () => resolve(String.fromCharCode(97 + i).repeat(n)))
                ready[i]!()
              }),
          }),
        )
        const sizes = [300, 900, 50, 2_000]
        const pending = harness.execute(sizes.map((n, i) => call('gated', { i, n }, `c${i}`)))
        await Promise.all(started)
        for (const i of releaseOrder) gates.get(i)!()
        const results = await pending
        return results.map((r) => texts(r).map((t) => t.replace(/res_[0-9a-f]{16}/g, 'res_H')))
      } finally {
        await harness.dispose()
      }
    }
    const inOrder = await run([0, 1, 2, 3])
    expect(inOrder.map((t) => t[0]!.length)).toEqual([300, 325, 50, 325])
    expect(await run([3, 2, 1, 0])).toEqual(inOrder)
    expect(await run([2, 0, 3, 1])).toEqual(inOrder)
  })

  test('a result its tool budget cut already keeps its handle and gets a new marker; failures are not counted', async () => {
    const store = createMemoryResultStore()
    h = await createHarness({ registry: { resultBudget: { batchMaxChars: 1_000, store } } })
    h.ctx.tools.register(logs)
    const [bad, r] = await h.execute([call('nope', {}, 'c0'), call('logs', {}, 'c1')])
    expect(bad?.isError).toBe(true)
    const handle = handleOf(r)
    expect(texts(r)).toEqual([
      BIG.slice(0, 1_000),
      `[Result cut by its budget: showing characters 0–1,000 of 200,000 (≈250 of ≈50,000 tokens). The full result is stored under handle "${handle}". The application can retrieve it; it cannot be paged here.]`,
    ])
    expect(r?.meta?.cut).toEqual({ handle, shownChars: 1_000, totalChars: 200_000 })
    expect(store.size).toBe(1)
  })

  test('a suspended batch: the pending call is neither counted nor cut, the completed ones share the budget', async () => {
    h = await createHarness({ registry: { resultBudget: { batchMaxChars: 40 } } })
    registerSuspendTools(h.ctx, [])
    registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
    const suspension = createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
    const echo = (callId: string, text: string) => ({ callId, name: 'echo', arguments: JSON.stringify({ text }) })
    const out = await h.tools.executeSuspendable({ calls: [echo('a', 'ask-a'), echo('b', 'x'.repeat(30)), echo('c', 'y'.repeat(30))], suspension })
    expect(out.status).toBe('suspended')
    expect(out.results[0]).toBeUndefined()
    expect(out.results.slice(1).map((r) => texts(r)[0])).toEqual([`echo(${'x'.repeat(15)}`, `echo(${'y'.repeat(15)}`])
    expect(out.results.slice(1).map((r) => r?.meta?.cut?.totalChars)).toEqual([36, 36])
  })

  test('allocateBudget: shares never exceed sizes, sum to min(budget, total), do not depend on order, and give every cut result at least an equal share', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 10_000 }), { minLength: 1, maxLength: 12 }), fc.nat({ max: 30_000 }), (sizes, budget) => {
        const shares = allocateBudget(sizes, budget)
        const total = sizes.reduce((a, b) => a + b, 0)
        expect(shares.every((s, i) => s >= 0 && s <= sizes[i]!)).toBe(true)
        expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.min(budget, total))
        for (let i = 0; i < sizes.length; i++) if (shares[i]! < sizes[i]!) expect(shares[i]).toBeGreaterThanOrEqual(Math.floor(budget / sizes.length))
        // Reversing the calls reverses the shares of distinct sizes (ties go by call order).
        if (new Set(sizes).size === sizes.length) expect(allocateBudget([...sizes].reverse(), budget)).toEqual([...shares].reverse())
      }),
    )
  })
})

describe('no budget', () => {
  test('a registry with an empty resultBudget config gives the same results as one without', async () => {
    const batch = [call('plain', {}, 'c1'), call('nope', {}, 'c2'), call('plain', {}, 'c3')]
    const plain = defineTool({ name: 'plain', description: 'd', parameters: {}, execute: () => 'p'.repeat(30_000) })
    const outcomes: ToolResult[][] = []
    for (const registry of [undefined, { resultBudget: {} }, { resultBudget: { toolMaxChars: 0, batchMaxChars: 0 } }]) {
      const harness = await createHarness(registry === undefined ? {} : { registry })
      try {
        harness.ctx.tools.register(plain)
        outcomes.push([...(await harness.execute(batch))])
      } finally {
        await harness.dispose()
      }
    }
    expect(outcomes[1]).toEqual(outcomes[0])
    expect(outcomes[2]).toEqual(outcomes[0])
    expect(texts(outcomes[0]![0])[0]!.endsWith('[output truncated: showing 25,000 of 30,000 characters (1 line); request a narrower range or page to see the rest]')).toBe(true)
  })
})

describe('the in-memory store', () => {
  test('put and get; least recently used entries are evicted by bytes; too large an entry is not kept', () => {
    const store = createMemoryResultStore({ maxBytes: 100 })
    const a = store.put({ text: 'a'.repeat(20), callId: 'c1', toolName: 't' })
    const b = store.put({ text: 'b'.repeat(20), callId: 'c2', toolName: 't' })
    expect([store.size, store.bytes]).toEqual([2, 80])
    expect(store.get(a)).toEqual({ text: 'a'.repeat(20), callId: 'c1', toolName: 't' })
    const c = store.put({ text: 'c'.repeat(20), callId: 'c3', toolName: 't' })
    expect([store.get(a) !== undefined, store.get(b), store.get(c) !== undefined]).toEqual([true, undefined, true])
    expect([store.size, store.bytes]).toEqual([2, 80])
    const huge = store.put({ text: 'h'.repeat(51), callId: 'c4', toolName: 't' })
    expect([store.get(huge), store.size]).toEqual([undefined, 2])
    store.delete(a)
    expect([store.get(a), store.size, store.bytes]).toEqual([undefined, 1, 40])
  })

  test('entries expire ttlMs after put', () => {
    let now = 1_000
    const store = createMemoryResultStore({ ttlMs: 50, now: () => now })
    const a = store.put({ text: 'x', callId: 'c1', toolName: 't' })
    now = 1_050
    expect(store.get(a)?.text).toBe('x')
    now = 1_051
    expect([store.get(a), store.size]).toEqual([undefined, 0])
  })

  test('bad options name the option', () => {
    expect(() => createMemoryResultStore({ maxBytes: 0 })).toThrow(new RangeError('createMemoryResultStore: maxBytes must be a positive integer, got 0'))
    expect(() => createMemoryResultStore({ ttlMs: 1.5 })).toThrow(new RangeError('createMemoryResultStore: ttlMs must be a positive integer, got 1.5'))
  })
})

describe('read_result', () => {
  /** 30,000 characters with astral characters (2 code units each) across the budget's and a page's end. */
  const EMOJI = `${'x'.repeat(9_999)}😀${'y'.repeat(9_997)}😀${'z'.repeat(10_000)}`

  async function paged(store: ResultStore): Promise<Harness> {
    const harness = await createHarness({ registry: { resultBudget: { store, readTool: 'read_result' } } })
    harness.ctx.tools.register(readResultTool(store))
    harness.ctx.tools.register(defineTool({ name: 'emoji', description: 'd', parameters: {}, execute: () => EMOJI, resultBudget: { maxChars: 10_000 } }))
    return harness
  }

  test('paging from the marker offset through to the end reconstructs the text exactly', async () => {
    const store = createMemoryResultStore()
    h = await paged(store)
    const [first] = await h.execute([call('emoji', {}, 'c1')])
    const handle = handleOf(first)
    // The budget does not split the pair at 9,999–10,000: the first page ends before it.
    expect(first?.meta?.cut?.shownChars).toBe(9_999)
    let text = texts(first)[0]!
    let offset: number | null = first!.meta!.cut!.shownChars
    const pages: string[] = []
    while (offset !== null) {
      const [page] = await h.execute([call('read_result', { handle, offset, length: 10_000 }, `p${pages.length}`)])
      if (page?.isError !== false) throw new Error(texts(page).join())
      const v = page.value as { text: string; nextOffset: number | null }
      text += v.text
      pages.push(texts(page)[0]!.slice(v.text.length))
      offset = v.nextOffset
    }
    expect(text).toBe(EMOJI)
    // The second page ends before the pair at 19,998–19,999 too.
    expect(pages).toEqual([
      '\n[characters 9,999–19,998 of 30,000; call read_result with offset 19998 to read on]',
      '\n[characters 19,998–29,998 of 30,000; call read_result with offset 29998 to read on]',
      '\n[characters 29,998–30,000 of 30,000; end of result]',
    ])
  })

  test('the registry toolMaxChars does not cut a page (read_result has its own budget)', async () => {
    const store = createMemoryResultStore()
    h = await createHarness({ registry: { resultBudget: { store, readTool: 'read_result', toolMaxChars: 300 } } })
    h.ctx.tools.register(readResultTool(store))
    h.ctx.tools.register(logs)
    const [first] = await h.execute([call('logs', {}, 'c1')])
    const handle = handleOf(first)
    const [page] = await h.execute([call('read_result', { handle, offset: 2_000, length: 5_000 }, 'p1')])
    expect(texts(page)).toEqual([`${BIG.slice(2_000, 7_000)}\n[characters 2,000–7,000 of 200,000; call read_result with offset 7000 to read on]`])
    expect(page?.meta?.cut).toBeUndefined()
    expect(store.size).toBe(1)
  })

  test('bad handle, offset and length fail INVALID_ARGS naming the field', async () => {
    const store = createMemoryResultStore()
    h = await paged(store)
    const [first] = await h.execute([call('emoji', {}, 'c1')])
    const handle = handleOf(first)
    const results = await h.execute([
      call('read_result', { handle: 'res_0000000000000000' }, 'e1'),
      call('read_result', { handle, offset: 30_000 }, 'e2'),
      call('read_result', { handle, offset: -1 }, 'e3'),
      call('read_result', { handle, length: 0 }, 'e4'),
      call('read_result', { handle, length: 20_001 }, 'e5'),
    ])
    expect(results.map((r) => (r.isError ? r.error.info.code : 'ok'))).toEqual(Array<string>(5).fill('INVALID_ARGS'))
    expect(results.map((r) => (r.isError ? r.error.message : ''))).toEqual([
      'Invalid arguments for tool "read_result": /handle: "res_0000000000000000" is unknown or expired (a stored result is kept for a limited time; run the original tool again)',
      'Invalid arguments for tool "read_result": /offset: 30000 is past the end of the result (30,000 characters)',
      'Invalid arguments for tool "read_result": /offset: must be >= 0',
      'Invalid arguments for tool "read_result": /length: must be >= 1',
      'Invalid arguments for tool "read_result": /length: must be <= 20000',
    ])
  })
})

describe('PTC', () => {
  test('a program sees the whole value of a budgeted tool; run_code\'s own output is budgeted like any tool', async () => {
    const store = createMemoryResultStore()
    h = await createHarness({ executor: createPtcExecutor(), registry: { resultBudget: { toolMaxChars: 300, store } } })
    h.ctx.tools.register(logs)
    const program = 'const s = await tools.logs({}); return `length ${s.length}, ends ${s.slice(-3)}`'
    const [r] = await h.execute([call('run_code', { code: program, description: 'measure the log' }, 'p1')])
    expect(r?.isError).toBe(false)
    expect(texts(r).join('\n')).toContain('length 200000, ends 789')
    // The sub-call was never cut, so nothing was stored for it.
    expect(store.size).toBe(0)
    const [big] = await h.execute([call('run_code', { code: 'return "q".repeat(5000)', description: 'print a lot' }, 'p2')])
    const handle = handleOf(big)
    expect(big?.meta?.cut).toEqual({ handle, shownChars: 300, totalChars: store.get(handle)!.text.length })
    expect(store.get(handle)!.text).toContain('q'.repeat(5_000))
    expect(texts(big).at(-1)).toMatch(/^\[Result cut by its budget: showing characters 0–300 of /)
  })
})

describe('configuration', () => {
  const start = (config: unknown): Promise<unknown> => Promise.resolve(new Context().plugin(ToolRegistry, config as ToolRegistryConfig))

  test('registry errors name the field by JSON pointer', async () => {
    await expect(start({ resultBudget: { batchMaxChars: -1 } })).rejects.toThrow(new RangeError('tools config: /resultBudget/batchMaxChars must be a non-negative integer (0 disables it), got -1'))
    await expect(start({ resultBudget: { toolMaxChars: '9' } })).rejects.toThrow(new RangeError('tools config: /resultBudget/toolMaxChars must be a non-negative integer (0 disables it), got "9"'))
    await expect(start({ resultBudget: { batchMaxChar: 5 } })).rejects.toThrow(
      new RangeError('tools config: /resultBudget/batchMaxChar is not a known option (expected toolMaxChars, batchMaxChars, store, readTool; did you mean "batchMaxChars"?)'),
    )
    await expect(start({ resultBudget: { store: {} } })).rejects.toThrow(new RangeError('tools config: /resultBudget/store must be a ResultStore with a put() method, got an object'))
    await expect(start({ resultBudget: { readTool: '' } })).rejects.toThrow(new RangeError('tools config: /resultBudget/readTool must be a tool name (the paging tool\'s, e.g. "read_result"), got ""'))
    await expect(start({ resultBudget: 5 })).rejects.toThrow(new RangeError('tools config: /resultBudget must be an object, got 5'))
  })

  test('a tool budget is checked at registration, naming the tool and the pointer', async () => {
    h = await createHarness()
    const bad = (resultBudget: unknown) => () => h!.ctx.tools.register({ ...logs, resultBudget } as unknown as typeof logs)
    const error = (pointer: string, problem: string) => new ToolRegistrationError(`Cannot register tool "logs": ${pointer} ${problem}`, { toolName: 'logs', pointer })
    expect(bad({ maxChars: 0 })).toThrow(error('/resultBudget/maxChars', 'must be a positive integer of characters, got 0'))
    expect(bad({ maxChar: 5 })).toThrow(error('/resultBudget/maxChar', 'is not a known option (expected "maxChars")'))
    expect(bad(7)).toThrow(error('/resultBudget', 'must be an object { maxChars }, got 7'))
  })
})

describe('what reaches the model', () => {
  test('provider result messages carry the cut content and its marker', async () => {
    h = await createHarness()
    h.ctx.tools.register(logs)
    const calls = [{ callId: 'c1', name: 'logs', arguments: '{}' }]
    const results = await h.execute(calls)
    const marker = texts(results[0])[1]!
    expect(toOpenAIChatToolMessages(calls, results)).toEqual([{ role: 'tool', tool_call_id: 'c1', content: `${BIG.slice(0, 2_000)}\n${marker}` }])
    const anthropic = toAnthropicToolResultMessage(calls, results)
    expect(JSON.stringify(anthropic)).toContain(JSON.stringify(marker))
    expect(JSON.stringify(anthropic)).not.toContain(BIG.slice(0, 2_001))
  })

  test('estimateTokens is characters over four, rounded up; budgetMarker as documented', () => {
    expect([estimateTokens(0), estimateTokens(1), estimateTokens(4), estimateTokens(5), estimateTokens(200_000)]).toEqual([0, 1, 1, 2, 50_000])
    expect(budgetMarker({ shownChars: 10, totalChars: 15, handle: 'res_h', readTool: 'more', pageChars: 1_000 })).toBe(
      '[Result cut by its budget: showing characters 0–10 of 15 (≈3 of ≈4 tokens). The full result is stored under handle "res_h". To read on, call more with {"handle":"res_h","offset":10,"length":5}.]',
    )
  })
})
