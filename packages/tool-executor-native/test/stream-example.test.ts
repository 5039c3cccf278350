/**
 * The eager-start example of "Connecting a model API" (`examples/stream.ts`) runs as a reader
 * runs it (its own process, bounded wait), ends by itself and prints what its comments say.
 */
import { expect, test } from 'vitest'
import { runExample } from '../../../scripts/run-example'

test('examples/stream.ts runs to completion and prints the results in call order', async () => {
  const run = await runExample('packages/tool-executor-native/examples/stream.ts', { timeoutMs: 60_000 })
  expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr, lines: run.stdout.split('\n') }).toEqual({
    timedOut: false,
    code: 0,
    stderr: '',
    lines: ["call_1 [ { type: 'text', text: 'Paris: 20°' } ]", "call_2 [ { type: 'text', text: 'Lima: 20°' } ]", 'complete 2', "[ 'assistant', 'tool', 'tool' ]", ''],
  })
}, 90_000)
