/** The replay server: JSON and SSE framing, request recording, an exhausted script, loopback only. */
import { expect, test } from 'vitest'
import { startReplayServer } from '../src'

test('answers in script order, frames SSE as scripted, records requests, and 500s when exhausted', async () => {
  const server = await startReplayServer([
    { kind: 'json', status: 201, body: { ok: true } },
    { kind: 'sse', events: [{ type: 'message_start' }, { event: 'custom', data: 'raw' }], namedEvents: true, done: true },
  ])
  try {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const first = await fetch(`${server.origin}/v1/x?y=1`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"a":1}' })
    expect([first.status, await first.json()]).toEqual([201, { ok: true }])
    const second = await fetch(`${server.origin}/v1/s`, { method: 'POST', body: 'not json' })
    expect(second.headers.get('content-type')).toBe('text/event-stream')
    expect(await second.text()).toBe('event: message_start\ndata: {"type":"message_start"}\n\nevent: custom\ndata: raw\n\ndata: [DONE]\n\n')
    expect(server.remaining).toBe(0)
    const third = await fetch(`${server.origin}/v1/z`)
    expect([third.status, await third.json()]).toEqual([500, { error: { message: 'replay script exhausted after 2 responses' } }])
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization, r.body])).toEqual([
      ['POST', '/v1/x?y=1', 'Bearer k', { a: 1 }],
      ['POST', '/v1/s', undefined, 'not json'],
      ['GET', '/v1/z', undefined, undefined],
    ])
  } finally {
    await server.close()
  }
})
