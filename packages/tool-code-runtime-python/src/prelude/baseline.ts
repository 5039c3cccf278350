/**
 * The prelude's baseline (Python source, part of `install()` in `prelude.ts`): what every run
 * starts from — the in-memory file system, module state and builtins recorded by `baseline()`, and
 * `restore()`, which puts them back after a run and reports state it could not reset.
 */

/** `install()`: the baseline every run starts from, and its restoration. */
export const PY_PRELUDE_BASELINE = String.raw`
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
`
