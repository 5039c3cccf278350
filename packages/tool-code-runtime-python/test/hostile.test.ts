/**
 * Hostile Python programs: each is contained with an exact outcome, and the run after it works
 * (a fresh namespace, the baseline modules, files and builtins). One warmed runtime serves the
 * whole file; a program that cannot be stopped by an interrupt costs a worker replacement.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { STALLED_MESSAGE, type RunOutput } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createPythonRuntime } from '../src/index'
import { BOOT_MS, COMPUTE_LIMITED, LIMITS, NO_WALL, plain, runPython, WALL_LIMITED, type RunOptions } from './helpers'

// A grace of 1 s instead of the default 200 ms: the last test counts the workers replaced, and on
// a loaded host a program that does stop at its interrupt can take longer than 200 ms to unwind,
// which would replace its worker too. The two programs that never stop are replaced either way.
const runtime = createPythonRuntime({ graceMs: 1000 })
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

const bindings = {
  echo: async (args: JsonValue) => args,
  hang: () => new Promise<JsonValue>(() => undefined),
}

/** A run that needs 20 MiB of the 32 MiB budget ({@link LIMITS}). */
const TWENTY_MIB = 'x = "y" * (20 * 1024 * 1024)\nreturn len(x)'

const exception = (message: string): Pick<RunOutput, 'logs' | 'error'> => ({ logs: [], error: { kind: 'exception', message } })
const blocked = (module: string, line: number, source: string) =>
  exception(`ModuleNotFoundError: module '${module}' is not available in run_code programs (line ${line}: ${source})`)

interface Row {
  readonly name: string
  readonly program: string
  readonly expected: ReturnType<typeof plain>
  readonly options?: RunOptions
  /** A second program whose exact outcome shows nothing of the first survived. */
  readonly then?: { readonly program: string; readonly expected: ReturnType<typeof plain> }
}

/** The lines `for i in range(10000): print(i)` gets out before a 4,096-byte budget. */
function linesWithin(budget: number): string[] {
  const lines: string[] = []
  let bytes = 0
  for (let i = 0; ; i++) {
    const next = bytes + String(i).length + (lines.length > 0 ? 1 : 0)
    if (next > budget) return lines
    lines.push(String(i))
    bytes = next
  }
}

const rows: readonly Row[] = [
  // --- compute, wall, recursion ---------------------------------------------------------------
  { name: 'a tight loop stops at the compute limit', program: 'while True:\n    pass', options: { limits: COMPUTE_LIMITED }, expected: { logs: [], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } } },
  {
    name: 'a loop that catches KeyboardInterrupt and loops again is interrupted again',
    program: 'try:\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    while True:\n        pass',
    options: { limits: COMPUTE_LIMITED },
    expected: { logs: [], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } },
  },
  {
    name: 'a program that ignores SIGINT is stopped by replacing its worker',
    program: 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass',
    options: { limits: COMPUTE_LIMITED },
    expected: { logs: [], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } },
  },
  { name: 'printed lines survive a timeout', program: 'print("before")\nwhile True:\n    pass', options: { limits: COMPUTE_LIMITED }, expected: { logs: ['before'], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } } },
  {
    name: 'unbounded recursion is a RecursionError',
    program: 'def f(n):\n    return f(n + 1)\nf(0)',
    expected: exception('RecursionError: maximum recursion depth exceeded (line 2: return f(n + 1))'),
  },
  {
    name: 'a huge recursion limit is clamped, so deep recursion stays a RecursionError',
    program: 'import sys\nsys.setrecursionlimit(10 ** 6)\ndef f(n):\n    return f(n + 1)\nf(0)',
    expected: exception('RecursionError: maximum recursion depth exceeded (line 4: return f(n + 1))'),
  },
  {
    name: 'an await that can never settle ends at once, before the wall limit',
    program: 'import asyncio\nawait asyncio.Future()',
    options: { limits: NO_WALL },
    expected: { logs: [], error: { kind: 'timeout', message: STALLED_MESSAGE } },
  },
  {
    name: 'a program that breaks the loop hooks: its run ends normally and the next run has stall and exception tracking back',
    program: 'import asyncio\nloop = asyncio.get_running_loop()\nloop.call_later = None\nloop.create_task = None\nloop.set_exception_handler(None)\nreturn 1',
    expected: { value: 1, logs: [] },
    then: {
      program: 'import asyncio\nasync def f():\n    raise ValueError("seen")\nasyncio.create_task(f())\nawait asyncio.sleep(0)\nreturn 1',
      expected: { logs: [], error: { kind: 'exception', message: 'Task exception was never retrieved: ValueError: seen (line 3: raise ValueError("seen"))' } },
    },
  },
  {
    name: 'a module attribute renamed in place (same objects, same length) is restored',
    program: 'import string\nlast = list(vars(string))[-1]\nv = getattr(string, last)\ndelattr(string, last)\nsetattr(string, "renamed_attr", v)\nreturn len(vars(string)) > 0',
    expected: { value: true, logs: [] },
    then: { program: 'import string\nreturn [hasattr(string, "renamed_attr"), list(vars(string))[-1] != "renamed_attr"]', expected: { value: [false, true], logs: [] } },
  },
  {
    name: 'a program that breaks the loop hooks and then stalls still ends at once',
    program: 'import asyncio\nasyncio.get_running_loop().call_later = lambda *a, **k: None\nawait asyncio.Future()',
    options: { limits: NO_WALL },
    expected: { logs: [], error: { kind: 'timeout', message: STALLED_MESSAGE } },
  },
  {
    name: 'a task that fails after the stall cancelled the program does not hide the stall',
    program: 'import asyncio\nasync def boom():\n    try:\n        await asyncio.Future()\n    finally:\n        raise ValueError("late")\nasyncio.create_task(boom())\nawait asyncio.Future()',
    options: { limits: NO_WALL },
    expected: { logs: [], error: { kind: 'timeout', message: STALLED_MESSAGE } },
  },
  {
    name: 'a tool call that never settles ends at the wall limit',
    program: 'await tools.hang()',
    options: { limits: WALL_LIMITED },
    expected: { logs: [], error: { kind: 'timeout', message: 'wall time limit of 600 ms exceeded (1 tool call still running)' } },
  },
  // --- memory and output ----------------------------------------------------------------------
  { name: 'a 200 MiB bytearray hits the memory cap', program: 'x = bytearray(200 * 1024 * 1024)', expected: { logs: [], error: { kind: 'memory', message: 'memory limit of 33554432 bytes exceeded' } } },
  { name: 'a 100-million-element list hits the memory cap', program: 'x = [0] * (100 * 1024 * 1024)', expected: { logs: [], error: { kind: 'memory', message: 'memory limit of 33554432 bytes exceeded' } } },
  {
    name: 'a memory bomb built in a loop hits the memory cap, and the next run has the whole budget again',
    program: 'chunks = []\nwhile True:\n    chunks.append("x" * (1024 * 1024))',
    expected: { logs: [], error: { kind: 'memory', message: 'memory limit of 33554432 bytes exceeded' } },
    then: { program: TWENTY_MIB, expected: { value: 20 * 1024 * 1024, logs: [] } },
  },
  // What a run leaves in reference cycles (a failure's traceback holds the program's frame and
  // its locals) is collected after the run: the next run gets the whole memory budget.
  {
    name: 'a program that fails holding 20 MiB leaves none of it to the next run',
    program: 'x = "y" * (20 * 1024 * 1024)\nraise ValueError("after allocating")',
    expected: exception('ValueError: after allocating (line 2: raise ValueError("after allocating"))'),
    then: { program: TWENTY_MIB, expected: { value: 20 * 1024 * 1024, logs: [] } },
  },
  {
    name: 'a program stopped at the compute limit holding 20 MiB leaves none of it to the next run',
    program: 'x = "y" * (20 * 1024 * 1024)\nwhile True:\n    pass',
    options: { limits: COMPUTE_LIMITED },
    expected: { logs: [], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } },
    then: { program: TWENTY_MIB, expected: { value: 20 * 1024 * 1024, logs: [] } },
  },
  {
    name: 'a successful program that leaves 20 MiB in a reference cycle leaves none of it to the next run',
    program: 'x = {"data": "y" * (20 * 1024 * 1024)}\nx["self"] = x\nreturn 1',
    expected: { value: 1, logs: [] },
    then: { program: TWENTY_MIB, expected: { value: 20 * 1024 * 1024, logs: [] } },
  },
  // As the TypeScript runtime words them: a return value whose JSON alone is over the budget, and
  // printed lines plus a rendered return value that together are.
  {
    name: 'a huge return value is an output-limit failure, in the TypeScript runtime\'s words',
    program: 'return {"big": "x" * (1 << 20)}',
    expected: { logs: [], error: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded: the return value is 1048586 characters of JSON' } },
  },
  {
    name: 'printed lines plus the rendered return value over the budget is an output-limit failure',
    program: 'print("a" * 4000)\nreturn "b" * 96',
    expected: { logs: ['a'.repeat(4000)], error: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded: printed lines and the return value come to 4097 bytes' } },
  },
  { name: 'one huge printed line is an output-limit failure', program: 'print("x" * 5000)', expected: { logs: [], error: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' } } },
  {
    name: 'many printed lines stop at the output budget with the lines that fit',
    program: 'for i in range(10000):\n    print(i)',
    expected: { logs: linesWithin(4_096), error: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' } },
  },
  {
    name: 'a program that catches the output-limit stop still fails as output-limit',
    program: 'try:\n    print("x" * 5000)\nexcept BaseException:\n    pass\nreturn "swallowed"',
    expected: { logs: [], error: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' } },
  },
  // --- host reach -----------------------------------------------------------------------------
  { name: 'import js is blocked', program: 'import js', expected: blocked('js', 1, 'import js') },
  { name: 'import pyodide_js is blocked', program: 'import pyodide_js', expected: blocked('pyodide_js', 1, 'import pyodide_js') },
  { name: 'pyodide.ffi is blocked', program: 'from pyodide.ffi import to_js', expected: blocked('pyodide.ffi', 1, 'from pyodide.ffi import to_js') },
  { name: 'ctypes is blocked', program: 'import ctypes', expected: blocked('ctypes', 1, 'import ctypes') },
  { name: 'subprocess is blocked', program: 'import subprocess\nsubprocess.run(["ls"])', expected: blocked('subprocess', 1, 'import subprocess') },
  { name: 'micropip (package loading) is blocked', program: 'import micropip', expected: blocked('micropip', 1, 'import micropip') },
  { name: 'sockets are blocked', program: 'import socket', expected: blocked('socket', 1, 'import socket') },
  {
    name: 'importlib cannot fetch a blocked module either',
    program: 'import importlib\nimportlib.import_module("js")',
    expected: blocked('js', 2, 'importlib.import_module("js")'),
  },
  {
    name: 'sys.modules shows no Pyodide or JavaScript bridge module, nor the runtime\'s own',
    program: 'import sys\nreturn sorted(m for m in sys.modules if m.split(".")[0] in ("js", "pyodide", "_pyodide", "pyodide_js", "_pyodide_core", "_dsh_runtime"))',
    expected: { value: [], logs: [] },
  },
  {
    name: 'the runtime\'s own module (host call, print, abort) cannot be imported',
    program: 'import _dsh_runtime',
    expected: blocked('_dsh_runtime', 1, 'import _dsh_runtime'),
  },
  {
    name: 'os.system refuses to start a process',
    program: 'import os\nreturn os.system("ls")',
    expected: exception('PermissionError: os.system is not available in run_code programs (line 2: return os.system("ls"))'),
  },
  {
    name: 'open() sees no host file (the file system is in memory)',
    program: 'return open("/etc/passwd").read()',
    expected: exception("FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd' (line 1: return open(\"/etc/passwd\").read())"),
  },
  {
    name: 'the file system root holds only the in-memory tree',
    program: 'import os\nreturn sorted(os.listdir("/"))',
    expected: { value: ['dev', 'home', 'lib', 'proc', 'tmp'], logs: [] },
  },
  { name: 'threads cannot start', program: 'import threading\nthreading.Thread(target=print).start()', expected: exception("RuntimeError: can't start new thread (line 2: threading.Thread(target=print).start())") },
  { name: 'input() has no stdin', program: 'input()', expected: exception('EOFError: EOF when reading a line (run_code programs have no input) (line 1: input())') },
  // --- exits and interrupts -------------------------------------------------------------------
  { name: 'sys.exit(3) is an exception', program: 'import sys\nsys.exit(3)', expected: exception('SystemExit: 3 (line 2: sys.exit(3))') },
  { name: 'sys.exit(0) ends the program normally', program: 'print("bye")\nimport sys\nsys.exit(0)\nprint("never")', expected: { logs: ['bye'] } },
  { name: 'a KeyboardInterrupt the program raises is its own exception', program: 'raise KeyboardInterrupt', expected: exception('KeyboardInterrupt (line 1: raise KeyboardInterrupt)') },
  // --- state that must not survive ------------------------------------------------------------
  {
    name: 'deleting builtins the runtime uses breaks nothing (and nothing of it survives)',
    program: 'import builtins, json\ndel builtins.isinstance\ndel builtins.len\njson.dumps = None\nreturn {"a": [1]}',
    expected: { value: { a: [1] }, logs: [] },
    then: { program: 'import json\nprint(len("ab"))\nreturn json.dumps([isinstance(1, int)])', expected: { value: '[true]', logs: ['2'] } },
  },
  {
    name: 'deleting print in builtins does not reach the next run',
    program: 'import builtins\ndel builtins.print\nreturn 1',
    expected: { value: 1, logs: [] },
    then: { program: 'print("still works")', expected: { logs: ['still works'] } },
  },
  {
    name: 'globals, imports and module attributes do not survive',
    program: 'import json, textwrap\njson.extra = 1\nglobal leaked\nleaked = 2\nimport sys\nsys.path.append("/tmp")\nreturn "set"',
    expected: { value: 'set', logs: [] },
    then: { program: 'import json, sys\nreturn [hasattr(json, "extra"), "leaked" in globals(), "/tmp" in sys.path]', expected: { value: [false, false, false], logs: [] } },
  },
  {
    name: 'files a run writes are gone in the next run',
    program: 'import os\nopen("/tmp/x.txt", "w").write("hi")\nos.makedirs("/home/pyodide/a/b")\nopen("/lib/python3.14/site-packages/evil.py", "w").write("x = 1")\nreturn "written"',
    expected: { value: 'written', logs: [] },
    then: {
      program: 'import os\nreturn [os.path.exists(p) for p in ("/tmp/x.txt", "/home/pyodide/a", "/lib/python3.14/site-packages/evil.py")]',
      expected: { value: [false, false, false], logs: [] },
    },
  },
  {
    name: 'an exception of a background task nobody retrieves fails the program',
    program: 'import asyncio\nasync def bad():\n    raise ValueError("bg")\nasyncio.ensure_future(bad())\nawait asyncio.sleep(0)\nreturn "ok"',
    expected: exception('Task exception was never retrieved: ValueError: bg (line 3: raise ValueError("bg"))'),
  },
  {
    name: 'a background task that ignores cancellation is stopped by replacing the worker',
    program:
      'import asyncio\nasync def forever():\n    while True:\n        try:\n            await asyncio.sleep(0.01)\n        except asyncio.CancelledError:\n            pass\nasyncio.ensure_future(forever())\nreturn "spawned"',
    expected: { value: 'spawned', logs: [], notes: ['note: the task running forever() was still pending when the program ended: it was cancelled'] },
  },
  // --- values and sub-call limits -------------------------------------------------------------
  { name: 'NaN is not JSON', program: 'return {"x": [float("nan")]}', expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not JSON: NaN at /x/0' } } },
  { name: 'a non-string key is not JSON', program: 'return {"a": {1: 2}}', expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not JSON: a key of type int at /a' } } },
  { name: 'a cycle is not JSON', program: 'x = []\nx.append(x)\nreturn x', expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not JSON: circular reference at /0' } } },
  { name: 'an object is not JSON', program: 'return [1, object()]', expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not JSON: object at /1' } } },
  {
    name: 'the sub-call limit raises RuntimeError at the call past it',
    program: 'for i in range(6):\n    await tools.echo(i=i)',
    expected: exception('RuntimeError: sub-call limit reached: a run may make at most 5 tool calls (tools.echo was not called) (line 2: await tools.echo(i=i))'),
  },
  // The TypeScript runtime's texts: an argument whose JSON alone has more characters (UTF-16 units)
  // than the budget has bytes is reported in characters; one that is over only in UTF-8 bytes, in bytes.
  {
    name: 'an argument over valueBytes raises RuntimeError',
    program: 'await tools.echo(x="y" * 70000)',
    expected: exception('RuntimeError: the argument of tools.echo is 70008 characters, over the valueBytes limit of 65536 bytes (line 1: await tools.echo(x="y" * 70000))'),
  },
  {
    name: 'an argument over valueBytes only in UTF-8 bytes raises RuntimeError naming its bytes',
    program: 'await tools.echo(x="é" * 40000)',
    expected: exception('RuntimeError: the argument of tools.echo is 80008 bytes, over the valueBytes limit of 65536 bytes (line 1: await tools.echo(x="é" * 40000))'),
  },
  {
    name: 'characters outside the BMP count as two, as in JavaScript',
    program: 'await tools.echo(x="😀" * 33000)',
    expected: exception('RuntimeError: the argument of tools.echo is 66008 characters, over the valueBytes limit of 65536 bytes (line 1: await tools.echo(x="😀" * 33000))'),
  },
  {
    name: 'an unknown tool raises ToolCallError naming the available tools',
    program: 'await tools.nope()',
    expected: exception('ToolCallError (nope): Unknown tool "nope". Available tools: echo, hang (line 1: await tools.nope())'),
  },
  { name: 'a syntax error names the line', program: 'x = 1 +', expected: exception('SyntaxError: invalid syntax (line 1: x = 1 +)') },
]

describe('hostile Python programs are contained, and the next run works', () => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const out = await runPython(runtime, row.program, { bindings, ...row.options })
    expect(plain(out)).toEqual(row.expected)
    const next = row.then ?? { program: 'print("next")\nreturn {"ok": True}', expected: { value: { ok: true }, logs: ['next'] } }
    expect(plain(await runPython(runtime, next.program, { bindings }))).toEqual(next.expected)
  })

  test('an abort stops a busy program as abort, and the next run works', async () => {
    const controller = new AbortController()
    let settled = 0
    const pending = runPython(runtime, 'print("spinning")\nwhile True:\n    pass', { signal: controller.signal, onSettle: () => settled++ })
    setTimeout(() => controller.abort(new Error('user pressed stop')), 200)
    expect(plain(await pending)).toEqual({ logs: ['spinning'], error: { kind: 'abort', message: 'the run was aborted: user pressed stop' } })
    expect(settled).toBe(1)
    expect(plain(await runPython(runtime, 'return 1'))).toEqual({ value: 1, logs: [] })
  })

  // Not a row: whether its worker is replaced depends on where the interrupt lands (in the
  // program, which then ends; or in the loop's stall check between its steps, which keeps it spinning).
  let spinReplaced = 0
  test('a program that swallows every cancellation after its stall spins until the compute limit, and the next run works', async () => {
    const before = runtime.stats().workersReplaced
    const program = 'import asyncio\nwhile True:\n    try:\n        await asyncio.Future()\n    except asyncio.CancelledError:\n        pass'
    expect(plain(await runPython(runtime, program, { limits: COMPUTE_LIMITED }))).toEqual({ logs: [], error: { kind: 'timeout', message: 'compute time limit of 300 ms exceeded' } })
    spinReplaced = runtime.stats().workersReplaced - before
    expect(plain(await runPython(runtime, 'return 1'))).toEqual({ value: 1, logs: [] })
  })

  test('the suite has at least 30 hostile programs, and the workers replaced are exactly the runs that could not be stopped or reset', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30)
    // The SIGINT-ignoring loop and the cancellation-ignoring task; every other row reused its worker.
    expect(runtime.stats().workersReplaced - spinReplaced).toBe(2)
  })
})
