/**
 * The prelude's program handling (Python source, the end of `install()` in `prelude.ts`): the
 * program compiled into an async function, its exceptions described, run and settled (`main`,
 * `settle_tasks`, `outer`), `start` and `abort`, and the object `install()` returns.
 */

/** The end of `install()`: compiling, running and settling a program; `start`, `abort`, and what `install()` returns. */
export const PY_PRELUDE_PROGRAM = String.raw`
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
        install_determinism(run)
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

    def task_note(t):
        coro = t.get_coro()
        name = (getattr(coro, '__qualname__', None) or getattr(coro, '__name__', None) or type(coro).__name__).replace('__program__.<locals>.', '')
        task = f'the task {_json.dumps(t.get_name())} (coroutine {name})' if not _re_default_task(t.get_name()) else f'the task running {name}()'
        return f'{task} was still pending when the program ended: it was cancelled'

    def _re_default_task(name):
        """Whether name is asyncio's default (Task-<n>): the note then names the coroutine only."""
        return name.startswith('Task-') and name[5:].isdigit()

    async def settle_tasks(before, run):
        """Cancels what the run left behind, noting it for the model (run.notes); True when something would not stop."""
        me = _asyncio.current_task()
        leftover = sorted((t for t in _asyncio.all_tasks(loop) if t not in before and t is not me and not t.done()), key=hooks.creation_order)
        if run.program is not None and run.program.done() and not run.stopped:
            run.notes = [task_note(t) for t in leftover if t is not run.program] + hooks.pending_timers()
        else:
            hooks.pending_timers()
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
                if await settle_tasks(before, run):
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
        if run.notes:
            result['notes'] = run.notes
        if run.failure is not None and run.failure['kind'] == 'suspended':
            result['suspended'] = clock_journal(run)
        elif run.failure is not None:
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
    return {'start': start, 'abort': abort, 'baseline': baseline, 'deliver': hooks.deliver, 'flush': hooks.flush, 'check': hooks.check, 'collect_all': _gc.collect}
`
