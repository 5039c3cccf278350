import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, Gate, gatedTool, ScriptedApproval, signalIgnoringTool, sleep, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const tick = () => new Promise((r) => setImmediate(r))

interface Run {
  result: ToolResult
  stages: string[]
}

/**
 * Runs one call of a traced tool with an abort injected by `at`; returns the result and the
 * stages that ran.
 */
async function matrix(at: (h: Harness, controller: AbortController, stages: string[]) => void, options: { body?: 'cooperative' | 'ignore' | 'throw-own' } = {}): Promise<Run> {
  h = await createHarness()
  const stages: string[] = []
  const controller = new AbortController()
  h.ctx.tools.register(
    defineTool({
      name: 'work',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      async execute(_args, exec) {
        stages.push('body')
        h.ctx.emit('test/body' as never, controller as never)
        if (options.body === 'ignore') {
          await sleep(5)
          stages.push('body-finished')
          return 'late value'
        }
        if (options.body === 'throw-own') {
          await sleep(1)
          throw new Error('disk full')
        }
        await sleep(10_000, exec.signal)
        return 'never'
      },
      finalizeContent(content) {
        stages.push('finalize')
        return content
      },
    }),
  )
  at(h, controller, stages)
  h.ctx.on('tools/pre-execute', async (_e, next) => {
    stages.push('pre')
    return next()
  })
  h.ctx.tools.guard(() => {
    stages.push('guard')
    return undefined
  })
  h.ctx.on('tools/post-execute', async (_e, _d, next) => {
    stages.push('post')
    return next()
  })
  const [result] = await h.execute([call('work', {}, 'c1')], { signal: controller.signal })
  return { result: result!, stages }
}

function code(r: ToolResult): string | undefined {
  return r.isError ? r.error.info?.code : undefined
}

describe('cancellation matrix (native)', () => {
  test('pre-aborted: ABORTED_BEFORE_DISPATCH at prepare; no policy, no post', async () => {
    const { result, stages } = await matrix((_h, c) => c.abort())
    expect(code(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(result.content).toEqual([{ type: 'text', text: 'Error: Tool call was cancelled before it started' }])
    expect(stages).toEqual(['finalize'])
  })

  test('abort during pre-execute, then allow: ABORTED_BEFORE_DISPATCH; guards and body skipped, post runs', async () => {
    const { result, stages } = await matrix((h, c) => {
      h.ctx.on('tools/pre-execute', (_e, next) => {
        c.abort()
        return next()
      })
    })
    expect(code(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(stages).toEqual(['pre', 'post', 'finalize'])
  })

  test('abort during pre-execute, then deny: the denial stays', async () => {
    const { result, stages } = await matrix((h, c) => {
      h.ctx.on('tools/pre-execute', () => {
        c.abort()
        return { type: 'deny', reason: 'no' }
      })
    })
    expect(code(result)).toBe('TOOL_DENIED')
    expect(stages).toEqual(['post', 'finalize'])
  })

  test('abort during pre-execute, then throw: the policy failure stays', async () => {
    const { result } = await matrix((h, c) => {
      h.ctx.on('tools/pre-execute', () => {
        c.abort()
        throw new Error('policy crashed')
      })
    })
    expect(code(result)).toBe('TOOL_DENIED')
    expect(result.isError && result.error.message).toBe('Tool "work" could not be checked by policy (tools/pre-execute): policy crashed')
  })

  test('abort in a wrapper before next(): ABORTED_BEFORE_DISPATCH; body never ran', async () => {
    const { result, stages } = await matrix((h, c, trace) => {
      h.ctx.on('tools/execute', (_e, next) => {
        trace.push('wrap')
        c.abort()
        return next()
      })
    })
    expect(code(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(stages).toEqual(['pre', 'guard', 'wrap', 'post', 'finalize'])
  })

  test('abort during a cooperative body: ABORTED', async () => {
    const { result, stages } = await matrix((h) => {
      h.ctx.on('test/body' as never, ((c: AbortController) => setTimeout(() => c.abort(), 1)) as never)
    })
    expect(code(result)).toBe('ABORTED')
    expect(result.content).toEqual([{ type: 'text', text: 'Error: Tool call was cancelled' }])
    expect(stages).toEqual(['pre', 'guard', 'body', 'post', 'finalize'])
  })

  test('abort during a body that ignores it: the body is awaited and its late value dropped', async () => {
    const { result, stages } = await matrix((h) => {
      h.ctx.on('test/body' as never, ((c: AbortController) => c.abort()) as never)
    }, { body: 'ignore' })
    expect(code(result)).toBe('ABORTED')
    expect(JSON.stringify(result)).not.toContain('late value')
    expect(stages).toEqual(['pre', 'guard', 'body', 'body-finished', 'post', 'finalize'])
  })

  test('abort during a body that then fails on its own: the tool failure stays', async () => {
    const { result } = await matrix((h) => {
      h.ctx.on('test/body' as never, ((c: AbortController) => c.abort()) as never)
    }, { body: 'throw-own' })
    expect(code(result)).toBe('TOOL_FAILED')
    expect(result.isError && result.error.message).toBe('disk full')
  })

  test('abort after the body (during post-execute): the success stays', async () => {
    const { result } = await matrix((h, c) => {
      h.ctx.on('tools/post-execute', (_e, _d, next) => {
        c.abort()
        return next()
      })
    }, { body: 'ignore' })
    expect(result).toMatchObject({ isError: false, value: 'late value' })
  })

  test('abort while waiting for approval: ABORTED_BEFORE_DISPATCH', async () => {
    const approval = new ScriptedApproval('hold')
    const { result, stages } = await matrix((h, c) => {
      h.ctx.tools.approval(approval)
      h.ctx.on('tools/pre-execute', () => {
        setTimeout(() => c.abort(), 1)
        return { type: 'ask', reason: 'danger' }
      })
    })
    expect(code(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(approval.pending).toBe(0)
    expect(stages).toEqual(['post', 'finalize'])
  })

  test('abort while waiting for approval, the service then answers something malformed (undefined): ABORTED_BEFORE_DISPATCH, as when it throws', async () => {
    const { result, stages } = await matrix((h, c) => {
      // A dialog closed by the abort resolves with nothing.
      h.ctx.tools.approval({ request: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined as never), { once: true })) })
      h.ctx.on('tools/pre-execute', () => {
        setTimeout(() => c.abort(), 1)
        return { type: 'ask', reason: 'danger' }
      })
    })
    expect(code(result)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(stages).toEqual(['post', 'finalize'])
  })
})

describe('cancellation across a batch', () => {
  test('queued calls settle as ABORTED_BEFORE_DISPATCH, running ones as ABORTED, and the batch does not hang (B02)', async () => {
    h = await createHarness({ native: { maxParallelCalls: 2 } })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const controller = new AbortController()
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b'), call('gated', {}, 'c')], { signal: controller.signal })
    await gate.started(2)
    await tick()
    controller.abort()
    const results = await pending
    expect(results.map((r) => [r.callId, code(r)])).toEqual([
      ['a', 'ABORTED'],
      ['b', 'ABORTED'],
      ['c', 'ABORTED_BEFORE_DISPATCH'],
    ])
    expect(gate.aborted).toEqual(['a', 'b'])
    expect(gate.starts).toEqual(['a', 'b'])
  })

  test('bodies that ignore the signal are awaited before the batch settles', async () => {
    h = await createHarness()
    const { tool, finished } = signalIgnoringTool({ ms: 15 })
    h.ctx.tools.register(tool)
    const controller = new AbortController()
    const pending = h.execute([call('stubborn', {}, 'a'), call('stubborn', {}, 'b')], { signal: controller.signal })
    await tick()
    controller.abort()
    const results = await pending
    expect(finished).toEqual(['a', 'b'])
    expect(results.map(code)).toEqual(['ABORTED', 'ABORTED'])
  })

  test('the body sees the caller signal itself when no wrapper replaced it', async () => {
    h = await createHarness()
    const seen: boolean[] = []
    const controller = new AbortController()
    h.ctx.tools.register(
      defineTool({ name: 'sig', description: 'd', parameters: {}, output: { schema: { type: 'null' }, render: () => [] }, execute: (_a, exec) => (seen.push(exec.signal === controller.signal), null) }),
    )
    await h.execute([call('sig', {})], { signal: controller.signal })
    expect(seen).toEqual([true])
  })

  test('a wrapper-replaced signal is fused with the caller signal before the body', async () => {
    h = await createHarness()
    const controller = new AbortController()
    const wrapperController = new AbortController()
    h.ctx.on('tools/execute', async (exec, next) => {
      const caller = exec.signal
      exec.signal = wrapperController.signal
      try {
        return await next()
      } finally {
        exec.signal = caller
      }
    })
    h.ctx.tools.register(
      defineTool({
        name: 'sig',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'string' }, render: () => [] },
        async execute(_a, exec) {
          const isCaller = exec.signal === controller.signal
          const isWrapper = exec.signal === wrapperController.signal
          setTimeout(() => controller.abort(), 1)
          await sleep(10_000, exec.signal)
          return `${isCaller}/${isWrapper}`
        },
      }),
    )
    const [r] = await h.execute([call('sig', {})], { signal: controller.signal })
    expect(code(r!)).toBe('ABORTED')
  })
})
