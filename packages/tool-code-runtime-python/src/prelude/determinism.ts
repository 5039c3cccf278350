/**
 * The prelude's determinism layer (Python source, part of `install()` in `prelude.ts`): what a
 * replayed run (a suspended program run again from the start, see the PTC executor's
 * `replay.ts`) needs to read the same time and random numbers as the first run.
 *
 * - The wall clock (`time.time`, `time.time_ns`, `datetime.datetime.now` / `utcnow` / `today`,
 *   `datetime.date.today`) and the monotonic clock (`time.monotonic`, `time.perf_counter` and
 *   their `_ns` forms) are journaled: each read is one integer of microseconds (exact as a
 *   JavaScript number), run-length encoded `[value, count, …]`. A replayed run answers its reads
 *   from the journal in order, then reads the real clock again (still recording).
 * - The `random` module's shared generator is seeded per run with the host's seed
 *   (`random.seed(seed)`), so `random.random()`, `randint`, `choice`, `shuffle`, … repeat.
 *
 * The event loop keeps the real monotonic clock (`loop.time`), so the loop's own reads never
 * consume the journal. Installed by `main()` before the program runs; the module attributes are
 * put back by the baseline restore after the run.
 */

/** `install()`: the journaled clocks and the seeded generator of a run. */
export const PY_PRELUDE_DETERMINISM = String.raw`
    # ---- determinism: journaled clocks, seeded random (determinism.ts) -----------------------
    import random as _random, datetime as _datetime
    real_time_ns = _time.time_ns
    real_perf_ns = _time.perf_counter_ns
    real_monotonic = _time.monotonic
    RealDatetime = _datetime.datetime
    RealDate = _datetime.date

    class Journal:
        """Clock reads in microseconds: replayed from 'replay' in order, then live; all recorded."""
        __slots__ = ('replay', 'at', 'left', 'rec', 'live')
        def __init__(self, replay, live):
            self.replay = replay or []
            self.at = 0
            self.left = self.replay[1] if self.replay else 0
            self.rec = []
            self.live = live
        def read(self):
            if self.at < len(self.replay):
                v = self.replay[self.at]
                self.left -= 1
                if self.left == 0:
                    self.at += 2
                    self.left = self.replay[self.at + 1] if self.at < len(self.replay) else 0
            else:
                v = self.live()
            rec = self.rec
            if rec and rec[-2] == v:
                rec[-1] += 1
            else:
                rec.append(v)
                rec.append(1)
            return v

    def wall_us():
        run = state['run']
        if run is None or run.clocks is None:
            return real_time_ns() // 1000
        return run.clocks[0].read()

    class datetime(RealDatetime):
        __slots__ = ()
        @classmethod
        def now(cls, tz=None):
            us = wall_us()
            return cls.fromtimestamp(us // 1000000, tz).replace(microsecond=us % 1000000)
        @classmethod
        def utcnow(cls):
            return cls.now(_datetime.timezone.utc).replace(tzinfo=None)
        @classmethod
        def today(cls):
            return cls.now()
    datetime.__module__ = 'datetime'
    datetime.__qualname__ = 'datetime'

    class date(RealDate):
        __slots__ = ()
        @classmethod
        def today(cls):
            return cls.fromtimestamp(wall_us() // 1000000)
    date.__module__ = 'datetime'
    date.__qualname__ = 'date'
    ClockedDatetime, ClockedDate = datetime, date
    del datetime, date

    def install_determinism(run):
        spec = run.spec
        wall = Journal(spec.get('clock'), lambda: real_time_ns() // 1000)
        mono = Journal(spec.get('perf'), lambda: real_perf_ns() // 1000)
        run.clocks = (wall, mono)
        _time.time = lambda: wall.read() / 1e6
        _time.time_ns = lambda: wall.read() * 1000
        _time.monotonic = _time.perf_counter = lambda: mono.read() / 1e6
        _time.monotonic_ns = _time.perf_counter_ns = lambda: mono.read() * 1000
        _datetime.datetime = ClockedDatetime
        _datetime.date = ClockedDate
        loop.time = real_monotonic
        _random.seed(spec.get('seed', 0))

    def clock_journal(run):
        return {'clock': run.clocks[0].rec, 'perf': run.clocks[1].rec} if run.clocks is not None else {'clock': [], 'perf': []}
`
