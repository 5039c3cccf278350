/**
 * What a tool's `render` returns reaches the model as a frozen copy taken at dispatch, block by
 * block, with every own key in its order; the line cap counts lines exactly whenever it could bind.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type ContentBlock, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** A tool whose `render` hands back `blocks` (the same objects on every call). */
function showing(blocks: ContentBlock[]) {
  return defineTool({
    name: 'show',
    description: 'Shows fixed content.',
    parameters: {},
    output: { schema: { type: 'string' }, render: () => blocks },
    execute: () => 'v',
  })
}

const texts = (r: ToolResult | undefined): string[] => r!.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))

describe('rendered content is copied and frozen', () => {
  test('key order and extra keys are kept; the copy is frozen; later changes to the rendered blocks do not reach the result', async () => {
    h = await createHarness()
    const reversed = { text: 'second key first', type: 'text' } as ContentBlock
    const extra = { type: 'text', text: 'with a note', note: 'kept' } as ContentBlock
    const plain: ContentBlock = { type: 'text', text: 'plain' }
    const image: ContentBlock = { type: 'image', data: 'AAAA', mimeType: 'image/png' }
    const blocks = [reversed, extra, plain, image]
    h.ctx.tools.register(showing(blocks))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(r!.isError).toBe(false)
    expect(JSON.stringify(r!.content)).toBe(
      '[{"text":"second key first","type":"text"},{"type":"text","text":"with a note","note":"kept"},{"type":"text","text":"plain"},{"type":"image","data":"AAAA","mimeType":"image/png"}]',
    )
    expect(Object.isFrozen(r!.content)).toBe(true)
    expect(r!.content.map((b) => Object.isFrozen(b))).toEqual([true, true, true, true])
    expect(r!.content.map((b, i) => b === blocks[i])).toEqual([false, false, false, false])
    ;(plain as { text: string }).text = 'changed'
    blocks.push({ type: 'text', text: 'added' })
    expect(texts(r)).toEqual(['second key first', 'with a note', 'plain', '[image]'])
    expect(Object.isFrozen(plain)).toBe(false)
  })

  test('content a render returns frozen is copied too: equal, frozen, not the same objects', async () => {
    h = await createHarness()
    const block = Object.freeze({ type: 'text', text: 'constant' }) as ContentBlock
    const blocks = Object.freeze([block]) as unknown as ContentBlock[]
    h.ctx.tools.register(showing(blocks))
    const [first] = await h.execute([call('show', {}, 'c1')])
    const [second] = await h.execute([call('show', {}, 'c2')])
    expect(JSON.stringify(first!.content)).toBe('[{"type":"text","text":"constant"}]')
    expect(JSON.stringify(second!.content)).toBe('[{"type":"text","text":"constant"}]')
    expect([Object.isFrozen(first!.content), Object.isFrozen(first!.content[0])]).toEqual([true, true])
    expect([first!.content === blocks, first!.content[0] === block, first!.content === second!.content]).toEqual([false, false, false])
  })

  test('an enumerable inherited key is not a block key: the block is copied with its own keys only', async () => {
    h = await createHarness()
    const block = Object.assign(Object.create({ inherited: 'no' }) as object, { type: 'text', text: 'own' }) as ContentBlock
    h.ctx.tools.register(showing([block]))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(JSON.stringify(r!.content)).toBe('[{"type":"text","text":"own"}]')
    expect(Object.getPrototypeOf(r!.content[0])).toBe(Object.prototype)
  })
})

describe('the line cap', () => {
  test('counts lines exactly when the text could pass it: 4 lines over a cap of 3 are cut, 3 lines are not', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 0, maxLines: 3 } } })
    const blocks: ContentBlock[] = [{ type: 'text', text: 'a\nb\nc\nd' }]
    h.ctx.tools.register(showing(blocks))
    const [cut] = await h.execute([call('show', {}, 'c1')])
    expect(texts(cut)).toEqual(['a\nb\nc\n[output truncated: showing 5 of 7 characters (4 lines); request a narrower range or page to see the rest]'])
    blocks[0] = { type: 'text', text: 'a\nb\nc' }
    const [whole] = await h.execute([call('show', {}, 'c2')])
    expect(texts(whole)).toEqual(['a\nb\nc'])
  })

  test('lines add up across text blocks (each block is at least one line); image blocks are not lines', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 0, maxLines: 2 } } })
    h.ctx.tools.register(showing([{ type: 'text', text: 'one' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'two\nthree' }]))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(texts(r)).toEqual(['one', '[image]', 'two\n[output truncated: showing 6 of 12 characters (3 lines); request a narrower range or page to see the rest]'])
  })

  test('the character cap reports the exact line count too', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 4, maxLines: 1000 } } })
    h.ctx.tools.register(showing([{ type: 'text', text: 'ab\ncd\nef' }]))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(texts(r)).toEqual(['ab\nc\n[output truncated: showing 4 of 8 characters (3 lines); request a narrower range or page to see the rest]'])
  })

  test('a single line cut by the character cap is "1 line", not "1 lines"', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 4, maxLines: 1000 } } })
    h.ctx.tools.register(showing([{ type: 'text', text: 'abcdefgh' }]))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(texts(r)).toEqual(['abcd\n[output truncated: showing 4 of 8 characters (1 line); request a narrower range or page to see the rest]'])
  })
})

describe('one rendered text block at the caps (the path that skips the general check and the caps)', () => {
  test('exactly maxChars characters pass whole; one more is cut', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 5, maxLines: 0 } } })
    const blocks: ContentBlock[] = [{ type: 'text', text: 'abcde' }]
    h.ctx.tools.register(showing(blocks))
    const [whole] = await h.execute([call('show', {}, 'c1')])
    expect(texts(whole)).toEqual(['abcde'])
    expect([Object.isFrozen(whole!.content), Object.isFrozen(whole!.content[0]), whole!.content[0] === blocks[0]]).toEqual([true, true, false])
    blocks[0] = { type: 'text', text: 'abcdef' }
    const [cut] = await h.execute([call('show', {}, 'c2')])
    expect(texts(cut)).toEqual(['abcde\n[output truncated: showing 5 of 6 characters (1 line); request a narrower range or page to see the rest]'])
  })

  test('a text shorter than the line cap takes the fast path: 2 characters in 3 lines pass a cap of 3; 3 characters in 4 lines are cut', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 0, maxLines: 3 } } })
    const blocks: ContentBlock[] = [{ type: 'text', text: '\n\n' }]
    h.ctx.tools.register(showing(blocks))
    const [whole] = await h.execute([call('show', {}, 'c1')])
    expect(texts(whole)).toEqual(['\n\n'])
    blocks[0] = { type: 'text', text: '\n\n\n' }
    const [cut] = await h.execute([call('show', {}, 'c2')])
    expect(texts(cut)).toEqual(['\n\n\n[output truncated: showing 2 of 3 characters (4 lines); request a narrower range or page to see the rest]'])
  })

  test('a single block that is not content still fails the render', async () => {
    h = await createHarness()
    h.ctx.tools.register(showing([{ type: 'text', text: 42 } as unknown as ContentBlock]))
    const [r] = await h.execute([call('show', {}, 'c1')])
    expect(r!.isError && r!.error.info?.code).toBe('TOOL_FAILED')
    expect(r!.isError && r!.error.message).toBe('Tool "show" failed to render its result: render must return an array of text or image blocks')
  })
})
