/**
 * Deterministic replay of a program's time and randomness (the PTC side of suspension: a run
 * whose sub-call is deferred ends as *suspended*, and resuming it runs the program again from the
 * start in a fresh sandbox, see `replay.ts`). For the second run to take the same path as the
 * first up to the point where it stopped, everything the program reads that is not a sub-call
 * result must read the same:
 *
 * - `Math.random()` is a seeded generator (mulberry32, two 32-bit draws per number, 53 bits):
 *   the seed is drawn per run on the host and kept in the suspended state; the replayed run
 *   uses it again, so its sequence is the same from the first draw on (also past the point of
 *   suspension).
 * - The clock (`Date.now()`, `new Date()`, `Date()`, and `performance.now()` when the sandbox
 *   has a `performance` object) is journaled: every read is recorded, run-length encoded as
 *   `[value, count, value, count, …]` (a busy loop reading one millisecond many times costs one
 *   pair). A replayed run answers its reads from the journal in order; once the journal is used
 *   up it reads the real clock again (and records on, so a run that suspends a second time
 *   carries the whole journal). `performance.now()` values are journaled separately (they are
 *   not epoch ms).
 *
 * Within one run (suspended or not) the program sees ordinary behaviour: random numbers in
 * `[0, 1)`, a clock that advances. Only replay makes them repeat.
 */

/** What a run needs to replay, or recorded so it can be replayed: the random seed and the clock journal. */
export interface RunDeterminism {
  /** Seed of `Math.random()` (an unsigned 32-bit integer). */
  readonly seed: number
  /** `Date` reads, run-length encoded: `[epochMs, count, epochMs, count, …]`. */
  readonly clock: readonly number[]
  /** `performance.now()` reads (ms), run-length encoded like {@link RunDeterminism.clock}; empty when the sandbox has no `performance`. */
  readonly perf: readonly number[]
}

/** A fresh seed for a run that is not a replay (an unsigned 32-bit integer from the platform's CSPRNG). */
export function newSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] as number
}

/**
 * Checks a {@link RunDeterminism} that came from a stored state: `seed` an unsigned 32-bit
 * integer, `clock` and `perf` arrays of pairs (a finite number, then a positive integer count).
 * Returns the text of the first problem (`/seed must be an unsigned 32-bit integer, got -1`),
 * `undefined` when it is valid.
 */
export function checkDeterminism(value: unknown, at = ''): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `${at} must be an object ({ seed, clock, perf })`
  const v = value as Record<string, unknown>
  if (typeof v.seed !== 'number' || !Number.isInteger(v.seed) || v.seed < 0 || v.seed > 0xffffffff) return `${at}/seed must be an unsigned 32-bit integer, got ${JSON.stringify(v.seed)}`
  for (const key of ['clock', 'perf'] as const) {
    const list = v[key]
    if (!Array.isArray(list) || list.length % 2 !== 0) return `${at}/${key} must be an array of [value, count] pairs`
    for (let i = 0; i < list.length; i += 2) {
      if (typeof list[i] !== 'number' || !Number.isFinite(list[i])) return `${at}/${key}/${i} must be a finite number, got ${JSON.stringify(list[i])}`
      const count: unknown = list[i + 1]
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return `${at}/${key}/${i + 1} must be a positive integer count, got ${JSON.stringify(count)}`
    }
  }
  return undefined
}

/**
 * The guest side, a function `(config) => journal` run once per context before the prelude:
 * `config.seed` seeds `Math.random`, `config.clock` / `config.perf` (JSON texts of the journals
 * to replay, or `undefined`) answer the first clock reads; `journal()` returns the JSON text
 * `[clock, perf]` of every read so far (replayed ones included).
 */
export const DETERMINISM_SOURCE = String.raw`(function (config) {
  'use strict';
  var RealDate = Date, realNow = Date.now, construct = Reflect.construct, apply = Reflect.apply;
  var defineProperty = Object.defineProperty, parse = JSON.parse, stringify = JSON.stringify;
  var dateToString = RealDate.prototype.toString, imul = Math.imul;
  function journal(text) {
    var replay = text === undefined ? [] : parse(text), at = 0, left = replay.length > 0 ? replay[1] : 0, rec = [];
    return {
      read: function (live) {
        var v;
        if (at < replay.length) {
          v = replay[at];
          if (--left === 0) { at += 2; left = at < replay.length ? replay[at + 1] : 0; }
        } else v = live();
        var n = rec.length;
        if (n > 0 && rec[n - 2] === v) rec[n - 1]++;
        else { rec[n] = v; rec[n + 1] = 1; }
        return v;
      },
      rec: rec,
    };
  }
  var clock = journal(config.clock), perf = journal(config.perf);
  function now() { return clock.read(function () { return apply(realNow, RealDate, []); }); }

  // Math.random: mulberry32, two draws per number (53 random bits).
  var state = config.seed >>> 0;
  function next32() {
    state = (state + 0x6D2B79F5) >>> 0;
    var t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  var random = { random: function () { return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992; } }.random;
  defineProperty(Math, 'random', { value: random, writable: true, configurable: true, enumerable: false });

  // Date: the same prototype, statics and instanceof; only the reads of "now" go through the journal.
  var ClockedDate = function Date(a, b, c, d, e, f, g) {
    if (new.target === undefined) return apply(dateToString, construct(RealDate, [now()]), []);
    if (arguments.length === 0) return construct(RealDate, [now()], new.target);
    return construct(RealDate, arguments, new.target);
  };
  defineProperty(ClockedDate, 'prototype', { value: RealDate.prototype, writable: false, enumerable: false, configurable: false });
  defineProperty(RealDate.prototype, 'constructor', { value: ClockedDate, writable: true, enumerable: false, configurable: true });
  defineProperty(ClockedDate, 'now', { value: { now: function () { return now(); } }.now, writable: true, enumerable: false, configurable: true });
  defineProperty(ClockedDate, 'parse', { value: RealDate.parse, writable: true, enumerable: false, configurable: true });
  defineProperty(ClockedDate, 'UTC', { value: RealDate.UTC, writable: true, enumerable: false, configurable: true });
  defineProperty(globalThis, 'Date', { value: ClockedDate, writable: true, enumerable: false, configurable: true });

  var P = globalThis.performance;
  if (P !== null && typeof P === 'object' && typeof P.now === 'function') {
    var realPerfNow = P.now;
    defineProperty(P, 'now', { value: { now: function () { return perf.read(function () { return apply(realPerfNow, P, []); }); } }.now, writable: true, enumerable: true, configurable: true });
  }
  return function () { return stringify([clock.rec, perf.rec]); };
})`

/**
 * The prelude text with the determinism layer in front: a function `(hostPrint, names, config,
 * hostTimer)` like the prelude's own (every argument handed on to it), which first installs {@link DETERMINISM_SOURCE} with `config` and
 * returns the prelude's API with one more member, `journal()` (the clock journals' JSON text).
 */
export function withDeterminism(preludeSource: string): string {
  return `(function () {
  var determinism = ${DETERMINISM_SOURCE};
  var prelude = ${preludeSource.trim()};
  return function (hostPrint, names, config, hostTimer) {
    var journal = determinism(config);
    var api = prelude(hostPrint, names, config, hostTimer);
    var out = Object.create(api);
    out.journal = journal;
    return out;
  };
})()`
}

/** Reads the guest's `journal()` text (`[clock, perf]`) into the recorded part of a {@link RunDeterminism}; `undefined` when it is not that shape. */
export function parseJournal(text: string): { readonly clock: number[]; readonly perf: number[] } | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined
  const [clock, perf] = parsed as unknown[]
  if (!Array.isArray(clock) || !Array.isArray(perf)) return undefined
  return { clock: clock as number[], perf: perf as number[] }
}
