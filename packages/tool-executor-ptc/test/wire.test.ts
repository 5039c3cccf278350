/**
 * The string framing of the worker placement's sub-call and reply messages (`wire.ts`): exact
 * round trips whatever the texts hold, every malformed frame named, and a malformed message
 * on either side ends the run as an internal error instead of hanging it.
 */
import { MessageChannel, Worker } from 'node:worker_threads'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { validateLimits } from '../src/limits'
import { EntryMonitor } from '../src/runtime/entry-monitor'
import type { HostReply } from '../src/runtime/host-call'
import { preludeCode } from '../src/runtime/prelude'
import { SpinGate } from '../src/runtime/reply-spin'
import { EngineWorker } from '../src/runtime/worker-host'
import { WORKER_MARKER, type EngineWorkerData, type FromEngine } from '../src/runtime/worker-main'
import { bundleWorkerEntry } from '../src/runtime/worker-script'
import { callFrame, parseCallsMessage, parseRepliesMessage, replyFrame } from '../src/runtime/wire'

const TRICKY = ['😀 astral 𝄞', 'line\u2028separator\u2029', '12:34:5:{}', '', '"quoted" \\ back', '0:0:0:']

describe('calls messages', () => {
  it('round-trip every call exactly, whatever its JSON holds', () => {
    const jsons = TRICKY.map((t) => JSON.stringify({ t, n: 7 }))
    const text = `42:${jsons.map((json, i) => callFrame(i + 1, i % 3, json)).join('')}`
    expect(parseCallsMessage(text, 3)).toEqual({ runId: 42, calls: jsons.map((json, i) => ({ id: i + 1, index: i % 3, json })) })
    expect(parseCallsMessage('7:', 1)).toEqual({ runId: 7, calls: [] })
  })

  it.each([
    ['', 'bad run id at 0'],
    ['x:1:0:2:{}', 'bad run id at 0'],
    ['07:1:0:2:{}', 'bad run id at 0'],
    ['3:1:0:9:{}', 'length 9 past the end'],
    ['3:1:4:2:{}', 'tool index 4 of 2 tools'],
    ['3:2:0:2:{}1:0:2:{}', 'id 1 after 2'],
    ['3:1:0:2:{}junk', 'bad id at 10'],
  ])('name the first malformed frame of %j', (text, malformed) => {
    const parsed = parseCallsMessage(text, 2)
    expect(parsed.malformed).toBe(malformed)
    expect(parsed.calls.length).toBeLessThanOrEqual(1)
  })
})

describe('replies messages', () => {
  const replies: { callId: number; reply: HostReply }[] = [
    ...TRICKY.map((t, i) => ({ callId: i + 1, reply: { text: t === '' ? '' : JSON.stringify(t) } })),
    { callId: 20, reply: { rejection: { kind: 'tool', toolName: 'a:1:b 😀', message: 'failed: 3:4:\u2028' } } },
    { callId: 21, reply: { rejection: { kind: 'tool', message: '' } } },
    { callId: 22, reply: { rejection: { kind: 'limit', message: 'the result of tools.x is 9 bytes, over the valueBytes limit of 8 bytes' } } },
    { callId: 23, reply: { rejection: { kind: 'invalid', message: 'tools["a.b"] is not a tool of this run' } } },
    { callId: 24, reply: { rejection: { kind: 'limit', toolName: '', message: '𝄞' } } },
    { callId: 25, reply: { rejection: { kind: 'invalid', toolName: '9', message: '0:' } } },
  ]

  it('round-trip results and rejections of each kind exactly, in order', () => {
    const text = `3:${replies.map((r) => replyFrame(r.callId, r.reply)).join('')}`
    expect(parseRepliesMessage(text)).toEqual({ runId: 3, replies })
  })

  it('frame a result as code 0 and a rejection by kind, plus 3 with a toolName', () => {
    expect(replyFrame(5, { text: '{"a":1}' })).toBe('5:0:7:{"a":1}')
    expect(replyFrame(5, { rejection: { kind: 'tool', toolName: 'add', message: 'no' } })).toBe('5:4:2:no3:add')
    expect(replyFrame(5, { rejection: { kind: 'invalid', message: 'no' } })).toBe('5:3:2:no')
  })

  it('frame a parked call (its approval deferred) as code 7 with an empty text', () => {
    expect(replyFrame(5, { parked: true })).toBe('5:7:0:')
    expect(parseRepliesMessage('2:5:7:0:6:0:1:1')).toEqual({ runId: 2, replies: [{ callId: 5, reply: { parked: true } }, { callId: 6, reply: { text: '1' } }] })
  })

  it.each([
    ['', 'bad run id at 0'],
    ['-1:1:0:2:{}', 'bad run id at 0'],
    ['1:x:0:2:{}', 'bad call id at 2'],
    ['1:1:8:2:no', 'bad reply code at 4'],
    ['1:1:0:3:{}', 'length 3 past the end'],
    ['1:1:0:', 'bad length at 6'],
    ['1:1:4:2:no', 'bad length at 10'],
    ['1:1:4:2:no5:add', 'length 5 past the end'],
    ['1:1:0:2:{}2:0', 'bad reply code at 12'],
  ])('name the first malformed frame of %j', (text, malformed) => {
    const parsed = parseRepliesMessage(text)
    expect(parsed.malformed).toBe(malformed)
    expect(parsed.replies.length).toBeLessThanOrEqual(1)
  })
})

const LIMITS = validateLimits({ computeMs: 5_000, wallMs: 20_000, memoryBytes: 8 * 1024 * 1024 })

describe('a malformed message fails the run as an internal error', () => {
  it('from the main thread: the engine ends the run instead of waiting for the reply', async () => {
    const script = await bundleWorkerEntry(fileURLToPath(new URL('../src/runtime/worker-main.ts', import.meta.url)))
    if (!script.eval) throw new Error('expected a bundled worker script')
    const monitor = new EntryMonitor()
    const channel = new MessageChannel()
    const data: EngineWorkerData = { marker: WORKER_MARKER, prelude: preludeCode(), monitor: monitor.buffer, recycle: false, replies: channel.port2, replySpinMs: 0.2, spinGate: new SpinGate().buffer }
    const worker = new Worker(script.code, { eval: true, workerData: data, transferList: [channel.port2], execArgv: [] })
    try {
      const seen: FromEngine[] = []
      const done = new Promise<FromEngine>((resolve) => {
        worker.on('message', (message: FromEngine) => {
          seen.push(message)
          if (typeof message === 'string') {
            // A frame whose length runs past the end of the message.
            channel.port1.postMessage('1:1:0:99:{}')
            monitor.wakeEngine()
          } else if (message.type === 'done') resolve(message)
        })
      })
      worker.postMessage({ type: 'run', runId: 1, code: '(async () => { return await tools.add({ a: 1 }) })', names: ['add'], limits: LIMITS, graceMs: 1_000 })
      const message = await done
      expect(seen[0]).toBe('1:1:0:7:{"a":1}')
      expect(message).toMatchObject({
        type: 'done',
        runId: 1,
        output: { logs: [], error: { kind: 'exception', message: 'sandbox internal error: malformed reply message (length 99 past the end)' } },
      })
    } finally {
      channel.port1.close()
      await worker.terminate()
    }
  })

  it('from the engine: the main thread ends the run and terminates the worker', async () => {
    const fake = `const { parentPort } = require('node:worker_threads')
parentPort.on('message', (m) => { if (m.type === 'run') parentPort.postMessage(m.runId + ':1:0:99:{}') })`
    const engine = new EngineWorker({ eval: true, code: fake }, { marker: WORKER_MARKER, prelude: '', recycle: false, replySpinMs: 0.2, spinGate: new SpinGate().buffer })
    let called = 0
    const out = await engine.run(
      {
        code: 'return 1',
        input: { program: 'return 1', bindings: { add: async () => ++called }, signal: new AbortController().signal, limits: LIMITS },
        limits: LIMITS,
        started: performance.now(),
      },
      1_000,
    )
    expect(out).toMatchObject({ logs: [], error: { kind: 'exception', message: 'sandbox internal error: malformed sub-call message (length 99 past the end)' } })
    expect(called).toBe(0)
    expect(engine.dead).toBe(true)
  })

  it('from an engine terminated while it spun for a reply: the main thread gives its spin-gate place back once it exited', async () => {
    const script = await bundleWorkerEntry(fileURLToPath(new URL('./fixtures/spinning-engine.ts', import.meta.url)))
    const gate = new SpinGate(1)
    const engine = new EngineWorker(script, { marker: WORKER_MARKER, prelude: '', recycle: false, replySpinMs: 0.2, spinGate: gate.buffer })
    const out = await engine.run(
      {
        code: 'return 1',
        input: { program: 'return 1', bindings: {}, signal: new AbortController().signal, limits: LIMITS },
        limits: LIMITS,
        started: performance.now(),
      },
      1_000,
    )
    expect(out).toMatchObject({ logs: [], error: { kind: 'exception', message: 'sandbox internal error: malformed sub-call message (tool index 0 of 0 tools)' } })
    expect(engine.dead).toBe(true)
    // The place the fake engine took is held until its thread has exited.
    const deadline = Date.now() + 10_000
    while (gate.spinning() !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(gate.spinning()).toBe(0)
    expect(gate.enter()).toBe(true)
    gate.leave()
  })
})
