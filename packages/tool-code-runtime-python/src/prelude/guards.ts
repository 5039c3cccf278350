/**
 * The prelude's start (Python source, `prelude.ts`): the module-level names (blocked modules,
 * process functions, limits), `ToolCallError`, the import finder, and the head of `install()` with the
 * guards every run is under (imports, interrupts, recursion limit, sleep, process and input
 * functions, message clipping).
 */

/** The prelude's module level, the head of `install()` and the guards of every run. */
export const PY_PRELUDE_GUARDS = String.raw`
from operator import is_ as _is
import gc as _gc, time as _time, ast as _ast, asyncio as _asyncio, builtins as _builtins, collections as _collections, io as _io, json as _json, math as _math, os as _os, signal as _signal, sys as _sys, traceback as _traceback

BLOCKED = ('_dsh_runtime', 'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'ctypes', '_ctypes', 'micropip', 'subprocess', '_posixsubprocess', 'multiprocessing', '_multiprocessing', 'pyodide_http', 'pyodide_kernel', 'socket', '_socket', 'ssl', '_ssl')

# os functions that would start processes or signal them: each raises in a program.
PROCESS_FUNCTIONS = ('system', 'popen', 'fork', 'forkpty', 'kill', 'killpg', 'execl', 'execle', 'execlp', 'execlpe', 'execv', 'execve', 'execvp', 'execvpe', 'spawnl', 'spawnle', 'spawnlp', 'spawnlpe', 'spawnv', 'spawnve', 'spawnvp', 'spawnvpe', 'posix_spawn', 'posix_spawnp', 'startfile')

# The highest recursion limit a program may set.
MAX_RECURSION = 5000

# Directories left out of the file-system baseline (device and process views).
FS_SKIP = ('/dev', '/proc')

def _blocked(name):
    top = name.partition('.')[0]
    return top in BLOCKED

class ToolCallError(Exception):
    """A tool call failed: tool_name names the tool, message is the tool's error text."""
    def __init__(self, tool_name, message):
        super().__init__(message)
        self.tool_name = tool_name
        self.message = message

class _Stop(BaseException):
    """Unwinds a run the host stopped (output limit, abort)."""

class _Finder:
    """A meta-path finder that refuses the blocked modules while a run is active."""
    active = False
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if cls.active and _blocked(name):
            raise ModuleNotFoundError(f"module {name!r} is not available in run_code programs", name=name)
        return None

def install(host_call, host_print, host_pending, config_json, host_parked):
    config = _json.loads(config_json)
    message_chars = config['messageChars']
    stalled_message = config['stalledMessage']
    real_import = _builtins.__import__
    loop = _asyncio.get_event_loop()
    state = {'run': None, 'base': None}

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and _blocked(name):
            raise ModuleNotFoundError(f"module {name!r} is not available in run_code programs", name=name)
        return real_import(name, globals, locals, fromlist, level)

    def ignore_interrupt(signum, frame):
        pass

    real_setrecursionlimit = _sys.setrecursionlimit
    real_sleep = _time.sleep

    def clamped_recursion_limit(limit):
        """sys.setrecursionlimit, clamped to MAX_RECURSION (deeper Python recursion overflows the WebAssembly stack)."""
        real_setrecursionlimit(min(int(limit), MAX_RECURSION))

    def interruptible_sleep(seconds):
        """time.sleep in 10 ms slices, so the host's interrupt stops it (it blocks: it counts as compute time)."""
        end = _time.monotonic() + seconds
        while True:
            left = end - _time.monotonic()
            if left <= 0:
                return
            real_sleep(min(left, 0.01))

    def no_process(fn):
        def refused(*args, **kwargs):
            raise PermissionError(f'os.{fn} is not available in run_code programs')
        refused.__name__ = fn
        return refused

    def no_input(*args):
        raise EOFError('EOF when reading a line (run_code programs have no input)')

    def clip(text):
        return text if len(text) <= message_chars else text[:message_chars] + '… (truncated)'
`
