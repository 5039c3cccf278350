/**
 * The Python side's event-loop layer (evaluated with `prelude.ts`, whose `install()` calls
 * `_loop_hooks(...)` once per interpreter): how the asyncio loop schedules, and how a run
 * settles when its program leaves work behind.
 *
 * - Scheduling: Pyodide's `WebLoop` runs every ready callback in a `setImmediate` of its own;
 *   here ready callbacks are queued and one JavaScript callback runs all that were ready when it
 *   started (asyncio's `_run_once` rule). Host-call replies resolve plain futures through
 *   `deliver(id, text)`, and `flush()` runs what they made ready within the same JavaScript
 *   callback.
 * - Exceptions nobody retrieved: tasks and futures made through the loop (and `gather`'s own
 *   future) are noted per run; `never_retrieved(run, code)` gives the failure text
 *   (`Task exception was never retrieved: …`, unclipped) or `None`; `forget(run)` silences what a
 *   run left unretrieved when it ends.
 * - Left pending: `creation_order(task)` ranks tasks by when the loop made them (the notes'
 *   order); `pending_timers()` cancels the run's live timers when the program has ended and
 *   names those the program armed itself (`loop.call_later` / `call_at`; asyncio's own, behind
 *   `sleep` and timeouts, belong to tasks, which are named instead).
 * - Stall: after every loop callback, a program still waiting while nothing is ready, no timer is
 *   live and no host call is pending (`host_pending()`) is cancelled and its run fails as
 *   `timeout` with `stalled_message` — or, when a host call of the run was parked
 *   (`host_parked()`: its approval deferred), ends as `suspended`. `check()` runs that test
 *   outside a loop callback (the worker calls it when a reply parks a call).
 *
 * `state['run']` is the current run (`prelude/run.ts`'s `Run`: `program`, `events`, `waiting`,
 * `stopped`, `fail(kind, message)`).
 */
export const PY_LOOP = String.raw`
import asyncio as _asyncio, collections as _collections, types as _types, weakref as _weakref

def _loop_hooks(loop, state, host_pending, host_parked, stalled_message, describe_exception):
    # Every future and task made through the loop gets this done-callback (WebLoop adds
    # loop._decrement_in_progress to each). WebLoop's own version retrieves the exception of a
    # future nobody is waiting on at that moment, which would hide it from the check at the end of
    # the program (it looks at _log_traceback: set with the exception, cleared once retrieved).
    def decrement_in_progress(fut=None):
        loop._in_progress -= 1
        if loop._no_in_progress_handler and loop._in_progress == 0:
            loop._no_in_progress_handler()

    real_create_task = loop.create_task
    real_create_future = loop.create_future

    def note(fut):
        run = state['run']
        # (The runtime's own task of the program is made before run.program is set.)
        if run is not None and run.program is not None:
            run.events.append(fut)
        return fut

    # Tasks by the order they were made (asyncio.all_tasks is a set, whose order varies from run
    # to run): the notes about work left pending name it in the order the program started it.
    made = _weakref.WeakKeyDictionary()
    made_count = [0]

    def tracked_create_task(coro, **kwargs):
        task = real_create_task(coro, **kwargs)
        made_count[0] += 1
        made[task] = made_count[0]
        return note(task)

    def creation_order(task):
        """A sort key: the rank at which the loop made task (tasks made another way sort last)."""
        return made.get(task, 1 << 62)

    def tracked_create_future():
        return note(real_create_future())

    # gather's own future is made directly, not through the loop, and often sits in a reference
    # cycle with its children (freed only by a garbage collection): it is noted here. Installed
    # before the baseline is recorded, so every run gets it back.
    real_gather = _asyncio.gather

    def gather(*coros_or_futures, return_exceptions=False):
        return note(real_gather(*coros_or_futures, return_exceptions=return_exceptions))
    gather.__doc__ = real_gather.__doc__
    _asyncio.gather = _asyncio.tasks.gather = gather

    def kind_of(fut):
        return 'Task' if isinstance(fut, _asyncio.Task) else 'Future'

    def unretrieved(e):
        """Whether run event e is a task or future that failed with nobody retrieving its exception (yet)."""
        return type(e) is not tuple and e.done() and e._log_traceback

    def on_loop_exception(lp, context):
        """A future freed with its exception never retrieved (asyncio.Future(), gather) is noted for the run; the rest goes to the default handler."""
        run = state['run']
        exc = context.get('exception')
        fut = context.get('future', context.get('task'))
        if run is not None and fut is not None and exc is not None and 'never retrieved' in str(context.get('message', '')):
            run.events.append((kind_of(fut), exc))
            return
        lp.default_exception_handler(context)

    # The loop's scheduling. WebLoop runs every ready callback (call_soon) in a JavaScript
    # callback (setImmediate) of its own; here the ready callbacks are queued and one JavaScript
    # callback runs all that were ready when it started (asyncio's own _run_once rule), so the
    # host calls of many tasks (asyncio.gather) leave in one message. Timers (call_later with a
    # delay; call_at goes through call_later) keep WebLoop's setTimeout. With no ready callback,
    # no live timer and no host call pending, nothing can ever wake the program again.
    ready = _collections.deque()
    timers = set()
    # The program's own timer callbacks (not asyncio's: sleep, timeouts) by handle, for the notes
    # on what a run left pending (pending_timers).
    callbacks = {}
    real_call_later = loop.call_later
    drain_pending = [False]

    def schedule_drain():
        if not drain_pending[0]:
            drain_pending[0] = True
            real_call_later(0, drain)

    def drain():
        drain_pending[0] = False
        n = len(ready)
        try:
            while n:
                n -= 1
                h = ready.popleft()
                if not h._cancelled:
                    h._run()
        finally:
            # (A KeyboardInterrupt or SystemExit leaves the rest queued, as WebLoop would.)
            if ready:
                schedule_drain()
        after_step()

    def tracked_call_later(delay, callback, *args, context=None):
        if delay == 0:
            h = _asyncio.Handle(callback, args, loop, context=context)
            ready.append(h)
            schedule_drain()
            return h
        def fire(*a):
            timers.discard(handle)
            callbacks.pop(handle, None)
            try:
                return callback(*a)
            finally:
                after_step()
        handle = real_call_later(delay, fire, *args, context=context)
        timers.add(handle)
        if not str(getattr(callback, '__module__', None) or '').startswith('asyncio'):
            # (WebLoop's handles are plain Handles, without when(): the due time is kept here.)
            callbacks[handle] = (callback, loop.time() + delay)
        return handle

    def pending_timers():
        """Cancels every live timer of the run; returns a note item for each the program armed itself (loop.call_later / call_at)."""
        items = []
        now = loop.time()
        for h in sorted(timers, key=lambda h: callbacks.get(h, (None, 0.0))[1]):
            if h._cancelled:
                continue
            entry = callbacks.get(h)
            if entry is not None:
                cb, due = entry
                name = getattr(cb, '__qualname__', None) or type(cb).__name__
                items.append(f'the loop.call_later timer (callback {name}, due in {max(0.0, due - now):.1f} s) had not fired when the program ended: it was cancelled')
            h.cancel()
        timers.clear()
        callbacks.clear()
        return items

    def after_step():
        """After every loop callback: a run whose program is pending while nothing is ready, no timer is live and no host call is pending has stalled."""
        run = state['run']
        if run is None or run.program is None or run.program.done():
            return
        for h in ready:
            if not h._cancelled:
                return
        dead = None
        for h in timers:
            if not h._cancelled:
                return
            dead = dead or []
            dead.append(h)
        if dead:
            timers.difference_update(dead)
        if host_pending() > 0:
            return
        # What it waits on includes a parked call (its approval deferred): the run suspends.
        run.fail(*(('suspended', '') if host_parked() > 0 else ('timeout', stalled_message)))
        run.stopped = True
        # (The program may have replaced the loop's call_later: the cancellation must be delivered.)
        install()
        run.program.cancel()

    def install():
        """(Re)installs the hooks on the loop (a program may have replaced them)."""
        loop._decrement_in_progress = decrement_in_progress
        loop.create_task = tracked_create_task
        loop.create_future = tracked_create_future
        loop.call_later = tracked_call_later
        loop.set_exception_handler(on_loop_exception)

    def never_retrieved(run, code):
        """The failure for exceptions of the run's tasks and futures that nobody retrieved, or None."""
        found = []
        for e in run.events:
            if type(e) is tuple:
                found.append(e)
            elif unretrieved(e):
                found.append((kind_of(e), e.exception()))
        run.events = []
        if not found:
            return None
        kind, exc = found[0]
        more = len(found) - 1
        text = f'{kind} exception was never retrieved: {describe_exception(exc, code)}'
        if more:
            text += f" (and {more} more exception{'s' if more > 1 else ''} never retrieved)"
        return text

    def forget(run):
        """Silences what the run left unretrieved (asyncio would log it when it is freed)."""
        for e in run.events:
            if unretrieved(e):
                e.exception()
        run.events = []

    def deliver(call_id, text):
        """The reply of host call call_id; the loop runs at flush()."""
        run = state['run']
        if run is None:
            return
        fut = run.waiting.pop(call_id, None)
        if fut is not None and not fut.done():
            # What becomes ready runs in flush(), within this JavaScript callback.
            drain_pending[0] = True
            fut.set_result(text)

    def flush():
        """Runs the loop's ready callbacks now (after deliver()), instead of in a JavaScript callback of their own."""
        if drain_pending[0]:
            loop._install_running_loop()
            loop._install_asyncgen_hooks()
            drain()

    return _types.SimpleNamespace(install=install, never_retrieved=never_retrieved, forget=forget, deliver=deliver, flush=flush, pending_timers=pending_timers, check=after_step, creation_order=creation_order)
`
