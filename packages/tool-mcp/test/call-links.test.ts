import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { CallLinks, LinkedCall } from '../src/call'

/** A call in flight that records its cancellation (the first one only, as a direct call settles once). */
class TestCall extends LinkedCall {
  aborted = false
  reason: unknown = undefined
  constructor(
    private readonly name: string,
    private readonly cancelled: string[],
  ) {
    super()
  }
  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.cancelled.push(this.name)
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }
}

/** Links a call on `signal` and records, in `cancelled`, when it is cancelled. */
function linkCall(links: CallLinks, signal: AbortSignal, name: string, cancelled: string[]): TestCall {
  const call = new TestCall(name, cancelled)
  links.add(signal, call)
  return call
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('CallLinks', () => {
  it('cancels exactly the calls still in flight on the aborted signal, each once, with its reason', () => {
    const links = new CallLinks()
    const controller = new AbortController()
    const other = new AbortController()
    const cancelled: string[] = []
    const a = linkCall(links, controller.signal, 'a', cancelled)
    const b = linkCall(links, controller.signal, 'b', cancelled)
    const c = linkCall(links, controller.signal, 'c', cancelled)
    const d = linkCall(links, controller.signal, 'd', cancelled)
    const x = linkCall(links, other.signal, 'x', cancelled)
    links.unlink(controller.signal, b)
    links.unlink(controller.signal, d)
    links.unlink(controller.signal, d)
    controller.abort('stop')
    expect(cancelled.sort()).toEqual(['a', 'c'])
    expect([a.aborted, b.aborted, c.aborted, d.aborted, x.aborted]).toEqual([true, false, true, false, false])
    expect(a.reason).toBe('stop')
    expect(() => c.throwIfAborted()).toThrow('stop')
    a.abort('again')
    expect(cancelled.sort()).toEqual(['a', 'c'])
    expect(a.reason).toBe('stop')
  })

  it('cancels the calls on a signal in the order they were linked (oldest first), on two signals interleaved', () => {
    const links = new CallLinks()
    const one = new AbortController()
    const two = new AbortController()
    const cancelled: string[] = []
    const a = linkCall(links, one.signal, 'a', cancelled)
    linkCall(links, two.signal, 'x', cancelled)
    linkCall(links, one.signal, 'b', cancelled)
    linkCall(links, two.signal, 'y', cancelled)
    linkCall(links, one.signal, 'c', cancelled)
    links.unlink(one.signal, a)
    linkCall(links, one.signal, 'd', cancelled)
    one.abort('stop')
    expect(cancelled).toEqual(['b', 'c', 'd'])
    two.abort('stop')
    expect(cancelled).toEqual(['b', 'c', 'd', 'x', 'y'])
  })

  it('keeps one listener per signal while calls are in flight and removes it a turn after the last one settles', async () => {
    const links = new CallLinks()
    const controller = new AbortController()
    const cancelled: string[] = []
    for (let i = 0; i < 3; i++) links.unlink(controller.signal, linkCall(links, controller.signal, `seq${i}`, cancelled))
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    await turn()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    // A call linked again after the sweep gets a listener again and is cancelled by an abort.
    const late = linkCall(links, controller.signal, 'late', cancelled)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    const early = linkCall(links, controller.signal, 'early', cancelled)
    links.unlink(controller.signal, late)
    await turn()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    controller.abort('bye')
    expect(cancelled).toEqual(['early'])
    expect(early.reason).toBe('bye')
  })
})
