/**
 * The Python side of the runtime: evaluated once per interpreter (in a private namespace) by
 * the worker (`worker.ts`). `install(host_call, host_print, host_pending, config_json)` returns the object
 * the worker drives: `start(run_json)` begins one run and returns a future of the outcome JSON,
 * `abort()` stops it, `baseline()` records the state every run is reset to; after each run the
 * young generation of the garbage collector is collected, and `collect_all()` collects every one.
 *
 * Settlement (the TypeScript runtime's contract in Python's terms): a task or future the program
 * made whose exception nobody retrieved by the time the program ends fails the run
 * (`Task exception was never retrieved: …`); a program still waiting when no loop callback is
 * scheduled and no host call is pending is cancelled at once and the run ends as `timeout` with
 * the stalled message. Both, and the loop's scheduling, live in `loop.ts` (evaluated first).
 *
 * Contract with `worker.ts`:
 * - `host_call(name, json)` sends a host call and returns its id (0: no run is active); the
 *   worker answers it with `deliver(id, text)`, `text` being `T<json result>` or
 *   `E<json {kind, toolName?, message}>` (`kind`: `tool` → ToolCallError, `limit` →
 *   RuntimeError, `invalid` → TypeError, `abort` → the run stops), and then calls `flush()`,
 *   which runs what the replies made ready within the same JavaScript callback.
 * - `host_pending()` is the number of host calls of the current run not yet answered.
 * - `host_print(text)` forwards printed lines (joined with `\n`) as they are produced at each
 *   sub-call, so the host keeps them if it must terminate the worker.
 * - `start(run_json)` takes `{code, tools: [{name, py, renamed}], valueBytes, outputBytes,
 *   maxSubCalls, messageChars}` and resolves to `{value?: json text, error?: {kind, message},
 *   logs: [...], tainted: bool}`; `tainted` says state outside the run's namespace could not be
 *   reset (the worker is then replaced).
 */
import { PY_LOOP } from './loop'

export const PY_PRELUDE = PY_LOOP + String.raw`
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

def install(host_call, host_print, host_pending, config_json):
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

    # ---- baseline: what every run starts from ----------------------------------------------
    def files():
        """Every path of the in-memory file system (but /dev, /proc) → (mtime_ns, size) of files, None for directories."""
        out = {}
        for root, dirs, names in _os.walk('/'):
            dirs[:] = [d for d in dirs if _os.path.join(root, d) not in FS_SKIP]
            for d in dirs:
                out[_os.path.join(root, d)] = None
            for n in names:
                path = _os.path.join(root, n)
                try:
                    st = _os.lstat(path)
                    out[path] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    out[path] = (-1, -1)
        return out

    def restore_files(base):
        """Deletes what a run created; False when it changed or removed a baseline file."""
        now = files()
        clean = True
        for path in sorted((p for p in now if p not in base), key=len, reverse=True):
            try:
                if now[path] is None:
                    _os.rmdir(path)
                else:
                    _os.unlink(path)
            except OSError:
                clean = False
        for path, meta in base.items():
            if now.get(path, 'gone') != meta:
                clean = False
        return clean

    def module_state(d):
        """A module dict's baseline: a copy, its keys and its values (in order)."""
        return (dict(d), tuple(d), tuple(d.values()))

    def reset_dict(d, baseline_state):
        """d back to its baseline, unless its keys and values are still the same objects in the same
        order (compared by identity at C speed: map(operator.is_, …); this compare is most of a
        run's reset, over ~10,000 module attributes)."""
        snap, keys, values = baseline_state
        if len(d) != len(keys) or not all(map(_is, d.values(), values)) or not all(map(_is, d, keys)):
            d.clear()
            d.update(snap)

    def baseline():
        mods = dict(_sys.modules)
        state['base'] = {
            'modules': mods,
            'dicts': {n: module_state(m.__dict__) for n, m in mods.items() if getattr(m, '__dict__', None) is not None},
            'path': list(_sys.path), 'meta_path': list(_sys.meta_path), 'path_hooks': list(_sys.path_hooks),
            'environ': dict(_os.environ), 'recursion': _sys.getrecursionlimit(), 'cwd': _os.getcwd(),
            'tasks': set(_asyncio.all_tasks(loop)),
            'files': files(),
        }

    def collect_garbage():
        """Frees what the run left in reference cycles (a failure's traceback holds the program's
        frame and its locals; a program's own cyclic structures): otherwise it would count against
        the next run's memory budget. The young generation only (what the run made since the last
        automatic collection; a full collection costs 70-200 ms here, and freezing the baseline
        to make it cheap slowed every run by 3-4 ms); after a run that reached the memory cap the
        worker calls collect_all as well."""
        _gc.collect(0)

    bdict = _builtins.__dict__
    bsnap = dict(bdict)
    bclear = bdict.clear
    bupdate = bdict.update
    blen = bdict.__len__
    bget = bdict.get
    bitems = tuple(bsnap.items())
    bmissing = object()

    def restore_builtins():
        """builtins back to the baseline, with bound methods only (the program may have deleted len, any, …);
        untouched when unchanged (rewriting it would deoptimise CPython's specialised code)."""
        if blen() == len_bsnap:
            for k, v in bitems:
                if bget(k, bmissing) is not v:
                    break
            else:
                return
        bclear()
        bupdate(bsnap)
    len_bsnap = len(bsnap)

    core = ('json', 'json.encoder', 'json.decoder', 'math', 'traceback', 'linecache', 'io', 'sys', 'os', 'asyncio', 'asyncio.tasks', 'asyncio.futures', 'asyncio.events')

    def restore_core():
        """Builtins, the loop's hooks and the modules the runtime's own code uses, back to the baseline."""
        restore_builtins()
        hooks.install()
        base = state['base']
        for name in core:
            snap = base['dicts'].get(name)
            if snap is not None:
                reset_dict(base['modules'][name].__dict__, snap)

    def restore(files=True):
        restore_builtins()
        base = state['base']
        tainted = []
        for name in list(_sys.modules):
            if name not in base['modules']:
                del _sys.modules[name]
        for name, mod in base['modules'].items():
            if _sys.modules.get(name) is not mod:
                _sys.modules[name] = mod
        modules = base['modules']
        for name, snap in base['dicts'].items():
            reset_dict(modules[name].__dict__, snap)
        _sys.path[:] = base['path']
        _sys.meta_path[:] = base['meta_path']
        _sys.path_hooks[:] = base['path_hooks']
        _sys.path_importer_cache.clear()
        if dict(_os.environ) != base['environ']:
            _os.environ.clear()
            _os.environ.update(base['environ'])
        _sys.setrecursionlimit(base['recursion'])
        try:
            _os.chdir(base['cwd'])
        except OSError as e:
            tainted.append(f'chdir: {e}')
        if files and not restore_files(base['files']):
            tainted.append('the run changed files of the baseline')
        _sys.settrace(None)
        _sys.setprofile(None)
        return tainted

    # ---- the loop: scheduling, settlement (loop.ts) ----------------------------------------
    hooks = _loop_hooks(loop, state, host_pending, stalled_message, lambda exc, code: describe(exc, code))

    # ---- JSON ------------------------------------------------------------------------------
    def pointer(keys):
        return '/' if not keys else ''.join('/' + str(k).replace('~', '~0').replace('/', '~1') for k in keys)

    def to_plain(value, what):
        """A JSON copy of value; TypeError naming the JSON pointer of the first non-JSON part."""
        stack = []
        keys = []
        def walk(v):
            if v is None or v is True or v is False or type(v) is str:
                return v
            if type(v) is int:
                return v
            if type(v) is float:
                if v != v or v in (_math.inf, -_math.inf):
                    shown = 'NaN' if v != v else ('Infinity' if v > 0 else '-Infinity')
                    raise TypeError(f'{what} is not JSON: {shown} at {pointer(keys)}')
                return v
            if isinstance(v, (bool, int, float, str)):
                return walk(bool(v) if isinstance(v, bool) else int(v) if isinstance(v, int) else float(v) if isinstance(v, float) else str(v))
            if isinstance(v, (list, tuple, dict)):
                for s in stack:
                    if s is v:
                        raise TypeError(f'{what} is not JSON: circular reference at {pointer(keys)}')
                stack.append(v)
                if isinstance(v, dict):
                    out = {}
                    for k, item in v.items():
                        if type(k) is not str:
                            raise TypeError(f'{what} is not JSON: a key of type {type(k).__name__} at {pointer(keys)}')
                        keys.append(k)
                        out[k] = walk(item)
                        keys.pop()
                else:
                    out = []
                    for i, item in enumerate(v):
                        keys.append(i)
                        out.append(walk(item))
                        keys.pop()
                stack.pop()
                return out
            raise TypeError(f'{what} is not JSON: {type(v).__name__} at {pointer(keys)}')
        return walk(value)

    def refuse_json(value):
        raise TypeError('not JSON')

    def dumps(value):
        return _json.dumps(value, ensure_ascii=False, separators=(',', ':'), allow_nan=False)

    # ---- one run ---------------------------------------------------------------------------
    class Capture(_io.TextIOBase):
        """sys.stdout/sys.stderr of a run: splits writes into lines and enforces outputBytes."""
        def __init__(self, run):
            self.run = run
        def writable(self):
            return True
        def write(self, text):
            if not isinstance(text, str):
                raise TypeError(f'write() argument must be str, not {type(text).__name__}')
            self.run.write(text)
            return len(text)
        def flush(self):
            pass

    class Run:
        def __init__(self, spec):
            self.spec = spec
            self.lines = []
            self.sent = 0
            self.partial = ''
            self.bytes = 0
            self.failure = None
            self.issued = 0
            self.task = None
            self.program = None
            self.stopped = False
            # Tasks and futures the program made through the loop, and (kind, exception) of
            # futures freed with their exception never retrieved, in the order they happened.
            self.events = []
            # Host call id → the future its reply resolves.
            self.waiting = {}

        def fail(self, kind, message):
            if self.failure is None:
                self.failure = {'kind': kind, 'message': message}

        def write(self, text):
            if self.failure is not None:
                raise _Stop()
            parts = (self.partial + text).split('\n')
            self.partial = parts.pop()
            for line in parts:
                self.add_line(line)
            # A partial line alone can already exceed the budget.
            if len(self.partial) > self.spec['outputBytes'] and len(self.partial.encode('utf-8', 'surrogatepass')) > self.spec['outputBytes']:
                self.add_line(self.partial)
                self.partial = ''

        def add_line(self, line):
            size = len(line.encode('utf-8', 'surrogatepass'))
            total = self.bytes + size + (1 if self.lines else 0)
            if total > self.spec['outputBytes']:
                self.fail('output-limit', f"output limit of {self.spec['outputBytes']} bytes exceeded by printed lines")
                raise _Stop()
            self.lines.append(line)
            self.bytes = total

        def forward(self):
            if len(self.lines) > self.sent:
                host_print('\n'.join(self.lines[self.sent:]))
                self.sent = len(self.lines)

    def make_tool(run, name, py, renamed):
        value_bytes = run.spec['valueBytes']
        max_calls = run.spec['maxSubCalls']
        label = f'the argument of tools.{py}'
        async def tool(*positional, **kwargs):
            if positional:
                if len(positional) != 1 or kwargs or not isinstance(positional[0], dict):
                    raise TypeError(f'tools.{py}() takes keyword arguments (or one dict of arguments)')
                args = positional[0]
            else:
                args = {renamed.get(k, k): v for k, v in kwargs.items()}
            try:
                # Fast path: the C encoder; anything it refuses is copied again to name the JSON pointer.
                text = _json.dumps(args, ensure_ascii=False, separators=(',', ':'), allow_nan=False, default=refuse_json)
            except (TypeError, ValueError, RecursionError):
                text = dumps(to_plain(args, label))
            # As the TypeScript runtime checks and words it: first the JSON's length in UTF-16 units
            # (a character outside the BMP counts two), then its UTF-8 bytes. (A character is at
            # most 2 units and 4 bytes: short texts skip the encodings.)
            if len(text) * 2 > value_bytes:
                units = len(text.encode('utf-16-le', 'surrogatepass')) // 2
                if units > value_bytes:
                    raise RuntimeError(f'{label} is {units} characters, over the valueBytes limit of {value_bytes} bytes')
            size = len(text) if len(text) * 4 <= value_bytes else len(text.encode('utf-8', 'surrogatepass'))
            if size > value_bytes:
                raise RuntimeError(f'{label} is {size} bytes, over the valueBytes limit of {value_bytes} bytes')
            if run.issued >= max_calls:
                raise RuntimeError(f'sub-call limit reached: a run may make at most {max_calls} tool calls (tools.{py} was not called)')
            if run.stopped:
                raise _Stop()
            run.issued += 1
            run.forward()
            call_id = host_call(name, text)
            if not call_id:
                run.stopped = True
                raise _Stop()
            # A plain future (not the loop's: no bookkeeping callback), resolved by deliver().
            fut = _asyncio.Future(loop=loop)
            run.waiting[call_id] = fut
            try:
                reply = await fut
            finally:
                run.waiting.pop(call_id, None)
            if run.stopped:
                raise _Stop()
            if reply[0] == 'T':
                return _json.loads(reply[1:])
            err = _json.loads(reply[1:])
            kind = err.get('kind')
            if kind == 'abort':
                run.stopped = True
                raise _Stop()
            if kind == 'tool':
                raise ToolCallError(err.get('toolName') or name, err.get('message', ''))
            if kind == 'limit':
                raise RuntimeError(err.get('message', ''))
            raise TypeError(err.get('message', ''))
        tool.__name__ = py
        tool.__qualname__ = f'tools.{py}'
        return tool

    class Tools:
        """The tools of this run: one async function per tool (see the SDK)."""
        __slots__ = ('_listing',)
        def __init__(self, listing):
            object.__setattr__(self, '_listing', listing)
        def __getattr__(self, key):
            if key.startswith('__'):
                raise AttributeError(key)
            message = f'Unknown tool {_json.dumps(key)}. {self._listing}'
            async def unknown(*args, **kwargs):
                raise ToolCallError(key, message)
            unknown.__name__ = key
            return unknown
        def __repr__(self):
            return '<tools>'

    def make_tools(run):
        entries = run.spec['tools']
        names = sorted(e['py'] for e in entries)
        listing = 'No tools are available.' if not names else 'Available tools: ' + ', '.join(names[:40]) + (f', … ({len(names) - 40} more)' if len(names) > 40 else '')
        attrs = {e['py']: staticmethod(make_tool(run, e['name'], e['py'], e['renamed'])) for e in entries}
        cls = type('tools', (Tools,), {**attrs, '__slots__': ()})
        return cls(listing)

    def fresh_builtins():
        b = dict(_builtins.__dict__)
        b['__import__'] = guarded_import
        b['input'] = no_input
        return b

    def star_import(module, names):
        """from <module> import * at the top of a program (the program is a function body)."""
        mod = guarded_import(module, names, None, ('*',), 0)
        public = getattr(mod, '__all__', None)
        if public is None:
            public = [k for k in mod.__dict__ if not k.startswith('_')]
        for k in public:
            names[k] = getattr(mod, k)

    class StarImports(_ast.NodeTransformer):
        def visit_ImportFrom(self, node):
            if any(a.name == '*' for a in node.names) and node.level == 0:
                call = _ast.Call(func=_ast.Name('__dsh_star_import__', _ast.Load()), args=[_ast.Constant(node.module), _ast.Call(func=_ast.Name('globals', _ast.Load()), args=[], keywords=[])], keywords=[])
                return _ast.copy_location(_ast.Expr(call), node)
            return node
        def visit_FunctionDef(self, node):
            return node
        visit_AsyncFunctionDef = visit_FunctionDef
        visit_ClassDef = visit_FunctionDef

    def compile_program(code):
        tree = _ast.parse(code, '<program>', 'exec')
        tree = StarImports().visit(tree)
        body = tree.body or [_ast.Pass()]
        fn = _ast.AsyncFunctionDef(name='__program__', args=_ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=body, decorator_list=[], returns=None, type_params=[])
        _ast.copy_location(fn, body[0])
        module = _ast.Module(body=[fn], type_ignores=[])
        _ast.fix_missing_locations(module)
        return compile(module, '<program>', 'exec')

    def describe(e, code):
        name = type(e).__name__
        if isinstance(e, ToolCallError):
            text = f'ToolCallError ({e.tool_name}): {e.message}'
        else:
            message = str(e) if not isinstance(e, SyntaxError) else (e.msg or '')
            text = f'{name}: {message}' if message else name
        line = None
        if isinstance(e, SyntaxError) and e.filename == '<program>' and e.lineno:
            line = e.lineno
        else:
            for frame in _traceback.extract_tb(e.__traceback__):
                if frame.filename == '<program>':
                    line = frame.lineno
        if line is not None:
            lines = code.split('\n')
            src = lines[line - 1].strip() if 0 < line <= len(lines) else ''
            text += f' (line {line}: {src})' if src else f' (line {line})'
        return clip(text)

    async def main(run):
        spec = run.spec
        code = spec['code']
        g = {'__name__': '__main__', '__builtins__': fresh_builtins(), 'tools': make_tools(run), 'ToolCallError': ToolCallError, '__dsh_star_import__': star_import}
        value = None
        caught = None
        capture = Capture(run)
        saved = (_sys.stdout, _sys.stderr, _sys.stdin)
        _sys.stdout = _sys.stderr = capture
        _sys.stdin = _io.StringIO('')
        _Finder.active = True
        for fn in PROCESS_FUNCTIONS:
            if hasattr(_os, fn):
                setattr(_os, fn, no_process(fn))
        _sys.setrecursionlimit = clamped_recursion_limit
        _time.sleep = interruptible_sleep
        hidden = {}
        for name in list(_sys.modules):
            if _blocked(name):
                hidden[name] = _sys.modules.pop(name)
        try:
            try:
                compiled = compile_program(code)
                exec(compiled, g)
                program = g.pop('__program__')
                value = await program()
                # A task or future of the program that failed with nobody retrieving its
                # exception fails the run, like an unhandled rejection in a TypeScript program.
                unretrieved = hooks.never_retrieved(run, code)
                if unretrieved is not None:
                    run.fail('exception', clip(unretrieved))
            except SystemExit as e:
                if e.code not in (None, 0):
                    caught = e
            except _Stop:
                pass
            except BaseException as e:
                caught = e
        finally:
            _Finder.active = False
            _sys.modules.update(hidden)
            _sys.stdout, _sys.stderr, _sys.stdin = saved
            # The program may have broken builtins or modules this code uses (del builtins.len,
            # json.dumps = None): those come back before its value is converted (the rest of the
            # baseline is restored after the run).
            restore_core()
        if caught is not None and run.failure is None:
            run.fail('exception', describe(caught, code))
        if run.failure is None and run.partial:
            try:
                run.add_line(run.partial)
            except _Stop:
                pass
            run.partial = ''
        out = None
        if run.failure is None and value is not None:
            try:
                out = dumps(to_plain(value, 'the return value'))
            except TypeError as e:
                run.fail('invalid-output', clip(str(e)))
            except RecursionError:
                run.fail('invalid-output', 'the return value is nested too deeply')
        return out

    async def settle_tasks(before):
        """Cancels what the run left behind; True when something would not stop."""
        me = _asyncio.current_task()
        leftover = [t for t in _asyncio.all_tasks(loop) if t not in before and t is not me and not t.done()]
        for t in leftover:
            t.cancel()
        for _ in range(20):
            if all(t.done() for t in leftover):
                break
            await _asyncio.sleep(0)
        for t in leftover:
            if t.done() and not t.cancelled():
                t.exception()
        return not all(t.done() for t in leftover)

    async def outer(run, before):
        out = None
        run.program = loop.create_task(main(run))
        try:
            out = await run.program
        except _asyncio.CancelledError:
            run.fail('abort', 'the run was aborted')
        except BaseException as e:
            run.fail('exception', clip(f'{type(e).__name__}: {e}'))
        # From here on the host's interrupts (a stop that arrived while the program was idle)
        # must not disturb the clean-up: SIGINT is ignored until the next run starts.
        tainted = []
        for attempt in range(5):
            try:
                _signal.signal(_signal.SIGINT, ignore_interrupt)
                _Finder.active = False
                tainted = []
                if await settle_tasks(before):
                    tainted.append('a task of the run would not stop')
                tainted += restore()
                _signal.signal(_signal.SIGINT, ignore_interrupt)
                break
            except KeyboardInterrupt:
                tainted = ['interrupted during clean-up']
            except BaseException as e:
                tainted = [f'clean-up: {e!r}']
                break
        hooks.forget(run)
        try:
            collect_garbage()
        except BaseException as e:
            tainted.append(f'clean-up: {e!r}')
        result = {'logs': run.lines, 'tainted': '; '.join(tainted)}
        if run.failure is not None:
            result['error'] = run.failure
        elif out is not None:
            result['value'] = out
        state['run'] = None
        return _json.dumps(result, ensure_ascii=False)

    def start(spec_json):
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        hooks.install()
        spec = _json.loads(spec_json)
        run = Run(spec)
        state['run'] = run
        before = set(_asyncio.all_tasks(loop))
        run.task = loop.create_task(outer(run, before))
        return run.task

    def abort():
        run = state['run']
        if run is not None:
            run.stopped = True
            run.fail('abort', 'the run was aborted')
            if run.program is not None:
                run.program.cancel()

    _sys.meta_path.insert(0, _Finder)
    hooks.install()
    return {'start': start, 'abort': abort, 'baseline': baseline, 'deliver': hooks.deliver, 'flush': hooks.flush, 'collect_all': _gc.collect}
`
