/**
 * The prelude's run objects (Python source, part of `install()` in `prelude.ts`): the output
 * capture (`Capture`), the state of one run (`Run`) and the `tools` object a program calls
 * (`make_tool`, `Tools`, `make_tools`).
 */

/** `install()`: one run's output capture, state and `tools` object. */
export const PY_PRELUDE_RUN = String.raw`
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
            # Note items on work the program left pending when it ended (cancelled).
            self.notes = []
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
`
