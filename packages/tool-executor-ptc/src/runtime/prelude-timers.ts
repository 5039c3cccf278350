/**
 * The sandbox's timers (guest JavaScript, interpolated into the prelude by `prelude.ts`):
 * `setTimeout`, `setInterval`, `setImmediate`, their `clear…` functions and `queueMicrotask`.
 *
 * The guest keeps each timer's callback; the host keeps its due time (`execution/timers.ts`):
 * arming one calls `hostTimer(1, id, delayMs)`, clearing it `hostTimer(2, id)`. When a timer is
 * due the host enters the sandbox with `api.fire(id)`, which runs the callback (an interval arms
 * itself again first; what the callback throws reaches the host, which fails the run with it as
 * an uncaught exception); the host then runs the jobs that follow, as after a sub-call's reply. A timer keeps the program alive as a pending sub-call
 * does (the host's stall check counts armed timers), within the run's wall budget; when the
 * program ends, armed timers are dropped and `api.pendingWork()` names them.
 *
 * Timer ids are numbers from 1 (as in browsers); a delay that is not a finite number ≥ 0 counts
 * as 0; `clearTimeout` and `clearInterval` clear either kind. A callback that is not a function
 * throws `TypeError: setTimeout: the callback must be a function, got <type>`.
 * `queueMicrotask(fn)` runs `fn` as a job after the current one; what it throws fails the run
 * when the program ends (`Uncaught <error>`, reported before unhandled rejections).
 *
 * Needs from the prelude: `hostTimer`, `nativeThen`, `NativePromise`, `describe` and the
 * captured intrinsics.
 */
export const PRELUDE_TIMERS = String.raw`
  var timerTable = create(null), nextTimerId = 0, timerCount = 0, uncaughtInJobs = [];
  var resolvedNative = NativePromise.resolve();
  function delayOf(ms) {
    var n = +ms;
    return n === n && n > 0 && n !== Infinity ? n : 0;
  }
  function arm(kind, fn, ms, args) {
    if (typeof fn !== 'function') throw new TypeErrorCtor(kind + ': the callback must be a function, got ' + (fn === null ? 'null' : typeof fn));
    if (finished) return 0;
    var id = ++nextTimerId, delay = kind === 'setImmediate' ? 0 : delayOf(ms);
    timerTable[id] = { kind: kind, fn: fn, delay: delay, args: args };
    timerCount++;
    hostTimer(1, id, delay);
    return id;
  }
  function disarm(id) {
    var key = +id;
    if (key === key && timerTable[key] !== undefined) {
      delete timerTable[key];
      timerCount--;
      hostTimer(2, key, 0);
    }
  }
  function argsFrom(list, from) {
    var out = [];
    for (var i = from; i < list.length; i++) out[out.length] = list[i];
    return out;
  }
  function fire(id) {
    var timer = timerTable[id];
    if (timer === undefined) return undefined;
    if (timer.kind === 'setInterval') hostTimer(1, id, timer.delay);
    else { delete timerTable[id]; timerCount--; }
    apply(timer.fn, undefined, timer.args);
  }
  var timerGlobals = {
    setTimeout: function (fn, ms) { return arm('setTimeout', fn, ms, argsFrom(arguments, 2)); },
    setInterval: function (fn, ms) { return arm('setInterval', fn, ms, argsFrom(arguments, 2)); },
    setImmediate: function (fn) { return arm('setImmediate', fn, 0, argsFrom(arguments, 1)); },
    clearTimeout: disarm, clearInterval: disarm, clearImmediate: disarm,
    queueMicrotask: function (fn) {
      if (typeof fn !== 'function') throw new TypeErrorCtor('queueMicrotask: the callback must be a function, got ' + (fn === null ? 'null' : typeof fn));
      apply(nativeThen, resolvedNative, [function () { try { fn(); } catch (e) { uncaughtInJobs[uncaughtInJobs.length] = e; } }]);
    },
  };
  function pendingTimerLines() {
    var lines = [];
    var ids = keys(timerTable);
    for (var i = 0; i < ids.length; i++) {
      var t = timerTable[ids[i]], callback = typeof t.fn.name === 'string' && t.fn.name !== '' ? ', callback ' + t.fn.name : '';
      if (t.kind === 'setInterval') lines[lines.length] = 'the setInterval timer ' + ids[i] + ' (every ' + t.delay + ' ms' + callback + ') was still active when the program ended: it was cancelled';
      else lines[lines.length] = 'the ' + t.kind + ' timer ' + ids[i] + ' (' + (t.kind === 'setImmediate' ? 'immediate' : t.delay + ' ms') + callback + ') had not fired when the program ended: it was cancelled';
    }
    return lines;
  }
`
