/**
 * Issue 34 item 8: the first README example of each package, run as a reader runs it (its own
 * program, from the repository root, tsx with the workspace sources), ends by itself within a
 * bounded wait, writes nothing to stderr and prints what its comments say. Each example ends
 * with `await ctx.fiber.dispose()`, which the test also checks. (The MCP bridge's example has
 * its own test in packages/tool-mcp; each package's readme test checks its block is the file.)
 */
import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { REPO_ROOT, runExample } from '../run-example'

const examples: [file: string, expected: unknown[]][] = [
  ['examples/scripts/hello.ts', ['c1 5', 'c2 INVALID_ARGS']],
  ['packages/tools/examples/quick-start.ts', [
    "[ 'read_file' ]",
    expect.stringMatching(/^call_1 (ok: \S+|TOOL_FAILED: Error: ENOENT: .*)$/),
    'call_2 INVALID_ARGS: Error: Invalid arguments for tool "read_file": /path: must be string (got number)',
    'call_3 UNKNOWN_TOOL: Error: Unknown tool "read_fiel". Available tools: read_file',
  ]],
  ['packages/tool-call-retry-policy/examples/basic.ts', [
    expect.stringMatching(/^c1: attempt 1 failed \(ECONNRESET\); retrying in \d+ms$/),
    "[ { type: 'text', text: 'Lisbon: 21°C, clear' } ]",
    expect.stringMatching(/^\{ attempts: 2, delaysMs: \[ \d+ \], errors: \[ 'ECONNRESET' \] \}$/),
  ]],
  ['packages/tool-call-timeout-policy/examples/basic.ts', [
    "[ { type: 'text', text: 'Error: tool call timed out after 200ms' } ] TOOL_TIMEOUT",
    '{ timedOut: 1, abandoned: 0, abandonedRunning: 0 }',
  ]],
  ['packages/tool-otel/examples/basic.ts', ['execute_tool add c1 ', 'execute_tool add c2 INVALID_ARGS', 'execute_tools  ']],
  ['packages/tool-executor-native/examples/usage/quick-start.ts', [
    '[',
    '  {',
    "    name: 'get_weather',",
    "    description: 'Current weather for a city.',",
    "    parameters: { type: 'object', properties: [Object], required: [Array] }",
    '  }',
    ']',
    '[',
    "  [ { type: 'text', text: 'Paris: 20°' } ],",
    '  [',
    '    {',
    "      type: 'text',",
    `      text: 'Error: Invalid arguments for tool "get_weather": /unit: must be one of "celsius", "fahrenheit"'`,
    '    }',
    '  ]',
    ']',
  ]],
]

test.each(examples)('%s runs to completion by itself and prints what its comments say', async (file, expected) => {
  expect(readFileSync(`${REPO_ROOT}${file}`, 'utf8').trimEnd().endsWith('\nawait ctx.fiber.dispose()')).toBe(true)
  const run = await runExample(file, { timeoutMs: 60_000 })
  expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr, lines: run.stdout.split('\n') }).toEqual({ timedOut: false, code: 0, stderr: '', lines: [...expected, ''] })
}, 90_000) // tsx start-up: seconds on an idle machine, more on a loaded one

const ptcOutput = `    text: 'skipped: Invalid arguments for tool "lookup_order": /id: must match pattern "^ORD-[0-9]{4}$"\\n' +\n      '{\\n' +\n      '  "count": 3,\\n' +\n      '  "total": 300.6\\n' +\n      '}'\n  }\n]\n`

test('packages/tool-code-runtime-python/examples/quick-start.ts runs to completion by itself (after disposing the runtime\'s Pyodide workers)', async () => {
  const file = 'packages/tool-code-runtime-python/examples/quick-start.ts'
  expect(readFileSync(`${REPO_ROOT}${file}`, 'utf8').trimEnd().endsWith('\nawait ctx.fiber.dispose()\nruntime.dispose()')).toBe(true)
  const run = await runExample(file, { timeoutMs: 90_000 })
  expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
  expect(run.stdout.startsWith('Execute a Python program that calls the tools of the SDK')).toBe(true)
  expect(run.stdout).toContain('\nclass LookupOrderArgs(TypedDict):\n    id: str\n')
  expect(run.stdout.endsWith(ptcOutput)).toBe(true)
}, 120_000) // Pyodide start-up on top of tsx

test('packages/tool-mcp-server/examples/basic.ts stops its server and client and exits by itself', async () => {
  const file = 'packages/tool-mcp-server/examples/basic.ts'
  expect(readFileSync(`${REPO_ROOT}${file}`, 'utf8').trimEnd().endsWith('\nawait bridge.close()\nawait server.close()')).toBe(true)
  const run = await runExample(file, { timeoutMs: 60_000 })
  expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
  // The printed lines are compared with the comments by packages/tool-mcp-server/test/readme-examples.test.ts.
  expect(run.stdout.startsWith('a {"words":6}\n')).toBe(true)
}, 90_000)

test('packages/tool-executor-ptc/examples/quick-start.ts runs to completion by itself (a sandbox worker leaves nothing running)', async () => {
  const file = 'packages/tool-executor-ptc/examples/quick-start.ts'
  expect(readFileSync(`${REPO_ROOT}${file}`, 'utf8').trimEnd().endsWith('\nawait ctx.fiber.dispose()')).toBe(true)
  const run = await runExample(file, { timeoutMs: 60_000 })
  expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
  expect(run.stdout.startsWith("[ 'run_code' ] // Tools callable from run_code programs:")).toBe(true)
  expect(run.stdout.endsWith(ptcOutput)).toBe(true)
}, 90_000)
