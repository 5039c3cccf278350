/**
 * StageTracer: which stages each call went through, in order.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { call, createHarness, echoTool, failingTool, ScriptedApproval, StageTracer, TRACED_STAGES, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

async function traced() {
  h = await createHarness()
  const tracer = new StageTracer()
  tracer.install(h.ctx)
  h.ctx.tools.register(tracer.trace(echoTool()))
  h.ctx.tools.register(tracer.trace(failingTool()))
  return tracer
}

describe('StageTracer', () => {
  test('a success goes through every stage once, in pipeline order', async () => {
    const tracer = await traced()
    await h.execute([call('echo', {}, 'c1')])
    expect(tracer.stagesOf('c1')).toEqual(['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result'])
    expect(tracer.repeated()).toEqual([])
    expect(TRACED_STAGES.filter((s) => s !== 'approval')).toEqual(tracer.stagesOf('c1'))
  })

  test('failures skip what they must: a throwing body has no render, bad arguments skip policy and dispatch, an unknown tool is only observed', async () => {
    const tracer = await traced()
    await h.execute([call('fail', {}, 'f'), call('echo', '{"text": 1}', 'bad'), call('ghost', {}, 'u')])
    expect(tracer.stagesOf('f')).toEqual(['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'post', 'finalize', 'result'])
    expect(tracer.stagesOf('bad')).toEqual(['finalize', 'result'])
    expect(tracer.stagesOf('u')).toEqual(['result'])
    expect(tracer.orderOf('result')).toEqual(['f', 'bad', 'u'])
    expect(tracer.counts('f')).toEqual({ pre: 1, guard: 1, wrap: 1, body: 1, 'body-end': 1, unwrap: 1, post: 1, finalize: 1, result: 1 })
  })

  test('a traced approval service records the ask; a denial skips dispatch but not post-execute', async () => {
    const tracer = await traced()
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.callId === 'ask' ? { type: 'ask' } : exec.callId === 'deny' ? { type: 'deny', reason: 'no' } : next()))
    h.ctx.tools.approval(tracer.approval(new ScriptedApproval({ type: 'approve' })))
    await h.execute([call('echo', {}, 'ask'), call('echo', {}, 'deny')])
    expect(tracer.stagesOf('ask')).toEqual(['pre', 'approval', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result'])
    expect(tracer.stagesOf('deny')).toEqual(['pre', 'post', 'finalize', 'result'])
  })

  test('each entry is stamped with the tracer clock', async () => {
    h = await createHarness()
    let now = 100
    const tracer = new StageTracer({ now: () => (now += 5) })
    tracer.install(h.ctx)
    h.ctx.tools.register(tracer.trace(echoTool()))
    await h.execute([call('echo', {}, 'c1')])
    expect(tracer.events.map((e) => [e.stage, e.at])).toEqual([
      ['pre', 105],
      ['guard', 110],
      ['wrap', 115],
      ['body', 120],
      ['body-end', 125],
      ['unwrap', 130],
      ['render', 135],
      ['post', 140],
      ['finalize', 145],
      ['result', 150],
    ])
  })

  test('hooks see each entry as it is recorded (and can inject an abort there); clear() forgets, uninstall removes the listeners', async () => {
    const tracer = await traced()
    const controller = new AbortController()
    const off = tracer.on((e) => {
      if (e.callId === 'b' && e.stage === 'guard') controller.abort()
    })
    const results = await h.execute([call('echo', {}, 'a'), call('echo', {}, 'b')], { signal: controller.signal })
    off()
    // Policy runs ahead of dispatch in model order: b's guard runs while a's body is in flight,
    // so a (started) is ABORTED and b (not started) is ABORTED_BEFORE_DISPATCH.
    expect(results.map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH'])
    expect(tracer.stagesOf('b')).toEqual(['pre', 'guard', 'post', 'finalize', 'result'])
    expect(tracer.events.every((e, i) => e.seq === i)).toBe(true)
    tracer.clear()
    expect(tracer.events).toEqual([])
    const before = h.listeners()
    const h2 = new StageTracer()
    const uninstall = h2.install(h.ctx)
    expect(h.listeners()['tools/result']).toBe((before['tools/result'] ?? 0) + 1)
    uninstall()
    expect(h.listeners()).toEqual(before)
  })

  test('a post-execute value replacement re-renders: render is recorded twice, every other stage once', async () => {
    const tracer = await traced()
    h.ctx.on('tools/post-execute', (_e, draft, next) => (draft.isError ? next() : { type: 'accept', value: { text: 'replaced' } }))
    const [r] = await h.execute([call('echo', { text: 'orig' }, 'c1')])
    expect(r!.content).toEqual([{ type: 'text', text: '{"text":"replaced"}' }])
    expect(tracer.repeated()).toEqual([['c1', 'render']])
  })
})
