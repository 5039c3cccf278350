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

test('beforeEvent is awaited before each event and before the end; a rejection cuts the body there', async () => {
  const seen: number[] = []
  const server = await startReplayServer([
    { kind: 'sse', events: [{ n: 1 }, { n: 2 }], done: true, beforeEvent: (index) => void seen.push(index) },
    { kind: 'sse', events: [{ n: 1 }, { n: 2 }], done: true, beforeEvent: (index) => (index === 1 ? Promise.reject(new Error('cut')) : undefined) },
  ])
  try {
    expect(await (await fetch(server.origin)).text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n')
    expect(seen).toEqual([0, 1, 2])
    const cut = await fetch(server.origin)
    const reader = cut.body!.getReader()
    let text = ''
    const failure = await (async () => {
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value)
        return 'ended'
      } catch {
        return 'connection cut'
      }
    })()
    // The client sees the connection fail (what it had buffered may be dropped with it), never a normal end.
    expect(failure).toBe('connection cut')
    expect(text.includes('[DONE]')).toBe(false)
  } finally {
    await server.close()
  }
})
