import { describe, expect, it } from 'vitest'
import { parseQueuedCalls } from '../src/runtime/call-queue'

describe('parseQueuedCalls', () => {
  it('splits frames by their lengths, whatever the JSON holds', () => {
    expect(parseQueuedCalls('1:0:9:{"a":":"}12:1:2:[]', 2)).toEqual({
      calls: [
        { id: 1, index: 0, json: '{"a":":"}' },
        { id: 12, index: 1, json: '[]' },
      ],
    })
    expect(parseQueuedCalls('', 1)).toEqual({ calls: [] })
  })

  it.each([
    ['1:0:-5:x', 'bad length at 4'],
    ['1:0:99:{}', 'length 99 past the end'],
    ['x:0:2:{}', 'bad id at 0'],
    [':0:2:{}', 'bad id at 0'],
    ['1:0:2', 'bad length at 4'],
    ['1:0', 'bad tool index at 2'],
    ['1:5:2:{}', 'tool index 5 of 2 tools'],
    ['1:0:02:{}', 'bad length at 4'],
    ['1e3:0:2:{}', 'bad id at 0'],
    ['1234567890123456:0:2:{}', 'bad id at 0'],
    ['0:0:2:{}', 'id 0 after 0'],
  ])('stops at the first malformed frame of %j', (text, malformed) => {
    expect(parseQueuedCalls(text, 2)).toEqual({ calls: [], malformed })
  })

  it('keeps the calls before a malformed frame', () => {
    expect(parseQueuedCalls('1:0:2:{}2:1:-1:', 2)).toEqual({ calls: [{ id: 1, index: 0, json: '{}' }], malformed: 'bad length at 12' })
    expect(parseQueuedCalls('1:0:2:{}1:1:2:[]', 2)).toEqual({ calls: [{ id: 1, index: 0, json: '{}' }], malformed: 'id 1 after 1' })
  })
})
