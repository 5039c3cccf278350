/**
 * The guest-side prelude evaluated in every fresh QuickJS context before the program.
 *
 * It evaluates to a function `(hostPrint, names, config) => api` that installs the program's
 * globals — `tools`, `console`, `ToolCallError`, and `__async` when asked (esbuild's helper for
 * the program's lowered `async` functions, see `async-helper.ts`) — and returns the helpers the host uses
 * afterwards (`serialize`, `describe`, …). The host function itself is only reachable
 * through closures, never as globals. Intrinsics are captured before the program runs, so a
 * program that overwrites `JSON` or `Object.keys` only changes its own output, never what the
 * host accepts (the host parses every string it receives and checks its size).
 *
 * Contract with `quickjs.ts`:
 * - Sub-calls never call the host: a tool call checks its argument (JSON, `valueBytes` in
 *   characters, `maxSubCalls`, the program not finished), rejects at once when a check fails, and
 *   otherwise queues `id:index:length:json` (`index`: the tool's position in
 *   `names`, counted in pairs; `length` in UTF-16 units) and returns a promise made here. The host
 *   counts the argument's UTF-8 bytes (Buffer.byteLength: counting them here cost a string per
 *   byte of the sandbox's heap) and refuses a call over `valueBytes` as `limit` without
 *   forwarding it; a refused call still counts against `maxSubCalls` here. The host
 *   takes the queue after running the jobs of each entry (`api.afterJobs()`) and later settles
 *   each call with `api.deliver(id, json)` (the JSON text of the result) or
 *   `api.refuse(id, rejection)` (`{ kind: 'tool' | 'limit' | 'invalid', toolName, message }`).
 * - `hostPrint(line)` records one printed line.
 * - `names` alternates tool names and their accessors (`tools.a`, `tools["a.b"]`).
 * - `config = { valueBytes, outputBytes, messageChars, maxSubCalls, asyncHelper }`; `asyncHelper`
 *   is `true` when the program's own `__async` was dropped and the prelude must define it.
 * - `api.serialize(value)` returns the JSON text of a return value, `undefined` for
 *   `undefined`, or the text's length (a number) when it exceeds `outputBytes` characters; it
 *   throws `TypeError` for a value that is not JSON.
 * - `api.describe(error)` returns a one-line description of a thrown value, at most
 *   `messageChars` characters.
 * - `api.afterJobs()` returns the calls queued since its last call (`undefined` when there are
 *   none, so an empty text can only mean the host could not copy it out) and empties the queue.
 * - `api.deliver(id, json)` / `api.refuse(id, rejection)` settle the promise of a queued
 *   sub-call (the value parsed from `json`, or the error made from `rejection`: `tool` →
 *   ToolCallError, `limit` → RangeError, `invalid` → TypeError); an unknown id is ignored.
 * - Once the host calls `serialize`, `describe` or `unhandled`, the program is over: a tool call
 *   made from then on (a `toJSON` or getter the host's reading runs) rejects with
 *   `the program has finished; tools.x was not called`.
 * - `api.unhandled(main)` returns `Uncaught (in promise) <description>` for the first promise
 *   rejection the program left unhandled (`(and N more …)` when there are several), ignoring the
 *   program's own promise `main`, or `undefined` when there is none.
 *
 * Unhandled rejections: the QuickJS build exposes no host rejection tracker, so the prelude
 * tracks them in JavaScript. Programs are compiled with `async`/`await` lowered to generators
 * (`strip.ts`), so every promise a program makes comes from the global `Promise` or from
 * `then`: the prelude replaces the global by a tracking constructor over the intrinsic one (same
 * prototype, same static methods, `instanceof` and `constructor` agree) and wraps
 * `Promise.prototype.then`. A rejection is recorded when it happens (a `reject` call, an executor
 * or `then` callback that throws, a rejection passed through `then`, a promise adopting a
 * rejected one) and forgotten as soon as a handler is attached (`then`, hence `catch`,
 * `finally`, `await`, `Promise.all` and friends). Tool-call promises are tracked the same way. A
 * program that replaces `Promise.prototype.then` or the global `Promise` itself only changes its
 * own reports.
 */
import { transformSync } from 'esbuild'
import { PRELUDE_ASYNC_HELPER } from './async-helper'
import { PRELUDE_CONSOLE } from './prelude-console'
import { PRELUDE_TIMERS } from './prelude-timers'

let minified: string | undefined

/**
 * The prelude as evaluated: {@link PRELUDE_SOURCE} with whitespace and local names minified
 * once per process (QuickJS parses it on every run; the smaller text parses ≈30% faster).
 */
export function preludeCode(): string {
  if (minified === undefined) {
    try {
      minified = transformSync(PRELUDE_SOURCE, { minifyWhitespace: true, minifyIdentifiers: true, target: 'es2020', logLevel: 'silent' }).code
    } catch {
      minified = PRELUDE_SOURCE
    }
  }
  return minified
}

/** The readable prelude source (see the module comment for its contract). */
export const PRELUDE_SOURCE = String.raw`(function (hostPrint, names, config, hostTimer) {
  'use strict';
  var G = globalThis;
  var keys = Object.keys, isArray = Array.isArray, stringify = JSON.stringify, parse = JSON.parse;
  var defineProperty = Object.defineProperty, freeze = Object.freeze, create = Object.create;
  var ErrorCtor = Error, TypeErrorCtor = TypeError, RangeErrorCtor = RangeError, StringCtor = String;
  var apply = Reflect.apply, slice = String.prototype.slice, split = String.prototype.split, join = Array.prototype.join;
  var symbolToString = Symbol.prototype.toString;
  var indexOf = String.prototype.indexOf, repeat = String.prototype.repeat, hasOwnProperty = Object.prototype.hasOwnProperty;
  var regexExec = RegExp.prototype.exec;
  function hasOwn(o, k) { return apply(hasOwnProperty, o, [k]); }
  var NativePromise = Promise, promiseProto = NativePromise.prototype, nativeThen = promiseProto.then, construct = Reflect.construct;
  var handledSet = new WeakSet(), unhandledMap = new Map();
  var weakHas = WeakSet.prototype.has, weakAdd = WeakSet.prototype.add;
  var mapSet = Map.prototype.set, mapDelete = Map.prototype.delete, mapForEach = Map.prototype.forEach;
  var valueChars = config.valueBytes, outputChars = config.outputBytes, messageChars = config.messageChars;
  var maxSubCalls = config.maxSubCalls, issued = 0;

  class ToolCallError extends ErrorCtor {
    constructor(toolName, message) {
      super(message);
      defineProperty(this, 'name', { value: 'ToolCallError', writable: true, configurable: true, enumerable: false });
      this.toolName = toolName;
    }
  }
  defineProperty(ToolCallError, 'name', { value: 'ToolCallError' });

  function clip(text, max) {
    return text.length > max ? apply(slice, text, [0, max]) + '… (truncated)' : text;
  }
  function escapeKey(key) {
    return apply(join, apply(split, apply(join, apply(split, key, ['~']), ['~0']), ['/']), ['~1']);
  }
  function errorLine(e) {
    var name, message;
    try { name = e.name; message = e.message; } catch (x) { return 'Error'; }
    name = typeof name === 'string' && name !== '' ? name : 'Error';
    message = typeof message === 'string' ? message : StringCtor(message);
    if (e instanceof ToolCallError) return 'ToolCallError (' + StringCtor(e.toolName) + '): ' + message;
    return message === '' ? name : name + ': ' + message;
  }
  // Positions of an error's program frames (QuickJS: 'program.js:<line>:<column>'), as marks the
  // host replaces with the model's own line after the run (positions.ts).
  function positionsOf(e) {
    var stack, marks = [];
    try { stack = e.stack; } catch (x) { return marks; }
    if (typeof stack !== 'string') return marks;
    var re = /program\.js:(\d+):(\d+)/g, m, last = '';
    while ((m = apply(regexExec, re, [stack])) !== null) {
      var mark = '\u0001' + m[1] + ':' + m[2] + '\u0001';
      if (mark !== last) marks[marks.length] = mark;
      last = mark;
    }
    return marks;
  }
  function withPosition(text, e) {
    if (e === null || typeof e !== 'object') return text;
    var marks = positionsOf(e);
    return marks.length === 0 ? text : text + ' (' + marks[0] + ')';
  }
  function format(v) {
    switch (typeof v) {
      case 'string': return v;
      case 'bigint': return StringCtor(v) + 'n';
      case 'symbol': return apply(symbolToString, v, []);
      case 'function': return '[Function ' + (typeof v.name === 'string' && v.name !== '' ? v.name : 'anonymous') + ']';
      case 'object': {
        if (v === null) return 'null';
        if (v instanceof ErrorCtor) return errorLine(v);
        var seen = [];
        try {
          var text = stringify(v, function (key, x) {
            if (typeof x === 'bigint') return StringCtor(x) + 'n';
            if (typeof x === 'function') return '[Function]';
            if (typeof x === 'symbol') return apply(symbolToString, x, []);
            if (typeof x === 'object' && x !== null) {
              for (var i = 0; i < seen.length; i++) if (seen[i] === x) return '[Circular]';
              seen[seen.length] = x;
            }
            return x;
          });
          return typeof text === 'string' ? text : StringCtor(text);
        } catch (e) {
          return '[object that cannot be printed]';
        }
      }
      default: return StringCtor(v);
    }
  }
  // A thrown value's one line, without its position (inside another message).
  function describeText(e) {
    try {
      return clip(e instanceof ErrorCtor ? errorLine(e) : typeof e === 'string' ? 'Uncaught ' + e : 'Uncaught ' + format(e), messageChars);
    } catch (x) {
      return 'Uncaught exception (it could not be described)';
    }
  }
  function describe(e) {
    var text, placed;
    try {
      if (e instanceof ErrorCtor) text = errorLine(e);
      else if (typeof e === 'string') text = 'Uncaught ' + e;
      else text = 'Uncaught ' + format(e);
      placed = withPosition(clip(text, messageChars), e);
    } catch (x) {
      placed = 'Uncaught exception (it could not be described)';
    }
    return placed;
  }

  // ---- promise rejection tracking (see the module comment) ----
  function isObjectLike(v) {
    return v !== null && (typeof v === 'object' || typeof v === 'function');
  }
  // Whether any rejection was ever recorded: until then a handled promise has nothing to forget.
  var anyNoted = false;
  function markHandled(p) {
    apply(weakAdd, handledSet, [p]);
    if (anyNoted) apply(mapDelete, unhandledMap, [p]);
  }
  function noteRejection(p, reason) {
    if (!apply(weakHas, handledSet, [p])) {
      anyNoted = true;
      apply(mapSet, unhandledMap, [p, reason]);
    }
  }
  // Wraps a capability's resolve/reject so a rejection is recorded against the promise; a
  // promise resolved with a native promise is recorded if that one rejects (it adopts it).
  var TrackedPromise = function Promise(executor) {
    if (new.target === undefined) throw new TypeErrorCtor("Promise constructor cannot be invoked without 'new'");
    var target = new.target === TrackedPromise ? NativePromise : new.target;
    if (typeof executor !== 'function') return construct(NativePromise, [executor], target);
    var promise, early, settled = false;
    var record = function (reason) {
      if (promise === undefined) early = [reason];
      else noteRejection(promise, reason);
    };
    promise = construct(NativePromise, [function (resolve, reject) {
      var onResolve = function (value) {
        if (!settled) {
          settled = true;
          if (isObjectLike(value) && value instanceof NativePromise) apply(nativeThen, value, [undefined, record]);
        }
        return resolve(value);
      };
      var onReject = function (reason) {
        if (!settled) {
          settled = true;
          record(reason);
        }
        return reject(reason);
      };
      try { executor(onResolve, onReject); } catch (e) { onReject(e); }
    }], target);
    if (early !== undefined) noteRejection(promise, early[0]);
    return promise;
  };
  defineProperty(TrackedPromise, 'name', { value: 'Promise', configurable: true });
  defineProperty(TrackedPromise, 'prototype', { value: promiseProto, writable: false, enumerable: false, configurable: false });
  // Promises derived by then() are made by the intrinsic constructor (no wrapper to run per
  // then): thenTracked records their rejections through the callbacks instead. Subclasses keep
  // their own species.
  defineProperty(TrackedPromise, Symbol.species, { get: function () { return this === TrackedPromise ? NativePromise : this; }, configurable: true });
  var promiseStatics = ['all', 'allSettled', 'any', 'race', 'resolve', 'reject', 'withResolvers'];
  for (var ps = 0; ps < promiseStatics.length; ps++) {
    var staticName = promiseStatics[ps];
    if (typeof NativePromise[staticName] === 'function') defineProperty(TrackedPromise, staticName, { value: NativePromise[staticName], writable: true, configurable: true, enumerable: false });
  }
  defineProperty(promiseProto, 'constructor', { value: TrackedPromise, writable: true, configurable: true, enumerable: false });
  // then() with the derived promise's rejection recorded: a callback that throws, a callback
  // whose returned native promise rejects (adopted), or a rejection passed through.
  // A callback's returned native promise is adopted by derived: its rejection is derived's.
  function adoptInto(derived, value) {
    if (isObjectLike(value) && value instanceof NativePromise) apply(nativeThen, value, [undefined, function (reason) { noteRejection(derived, reason); }]);
    return value;
  }
  function thenTracked(p, onFulfilled, onRejected) {
    var derived;
    var wrapFulfilled = typeof onFulfilled !== 'function' ? undefined : function (value) {
      try { return adoptInto(derived, onFulfilled(value)); } catch (e) { noteRejection(derived, e); throw e; }
    };
    var wrapRejected = typeof onRejected !== 'function'
      ? function (reason) { noteRejection(derived, reason); throw reason; }
      : function (reason) {
        try { return adoptInto(derived, onRejected(reason)); } catch (e) { noteRejection(derived, e); throw e; }
      };
    derived = apply(nativeThen, p, [wrapFulfilled, wrapRejected]);
    return derived;
  }
  var trackedThen = { then: function (onFulfilled, onRejected) {
    if (isObjectLike(this)) markHandled(this);
    return thenTracked(this, onFulfilled, onRejected);
  } }.then;
  defineProperty(promiseProto, 'then', { value: trackedThen, writable: true, configurable: true, enumerable: false });
  // esbuild's __async helper (async functions lowered to generators; the program's copy is
  // dropped, see async-helper.ts), with the same steps and global lookups (Promise is the global
  // binding at call time, as in the program), except that an await on a promise whose then() is
  // trackedThen marks it handled and attaches the callbacks with the intrinsic then(): they never
  // throw (they reject the function's own promise), so the promise then() derives, which nothing
  // holds, needs no tracking. Installed as a global only when config.asyncHelper is true (the
  // program's copy was dropped), with the attributes of the script-level var it replaces.
  function awaitThen(p, onFulfilled, onRejected) {
    var then = p.then;
    if (then !== trackedThen) return apply(then, p, [onFulfilled, onRejected]);
    if (isObjectLike(p)) markHandled(p);
    return apply(nativeThen, p, [onFulfilled, onRejected]);
  }
  ${PRELUDE_ASYNC_HELPER}
  var rejectWith = NativePromise.reject;
  function rejected(error) {
    return apply(rejectWith, TrackedPromise, [error]);
  }
  function unhandled(main) {
    finished = true;
    if (uncaughtInJobs.length > 0) {
      var thrown = uncaughtInJobs[0], said = describe(thrown);
      return thrown instanceof ErrorCtor ? 'Uncaught ' + said : said;
    }
    apply(mapDelete, unhandledMap, [main]);
    var count = 0, first;
    apply(mapForEach, unhandledMap, [function (reason) { if (count++ === 0) first = reason; }]);
    if (count === 0) return undefined;
    var text;
    try {
      text = first instanceof ErrorCtor ? errorLine(first) : typeof first === 'string' ? first : format(first);
    } catch (x) {
      text = 'exception (it could not be described)';
    }
    var more = count === 1 ? '' : ' (and ' + (count - 1) + ' more unhandled rejection' + (count === 2 ? '' : 's') + ')';
    return withPosition(clip('Uncaught (in promise) ' + text, messageChars - more.length), first) + more;
  }

  // Copies a value as plain JSON data, reading every property once. The JSON pointer of the
  // current position is kept as a key stack and only turned into text for an error message.
  function toPlain(v, keysStack, stack, what) {
    if (v !== null && typeof v === 'object' && typeof v.toJSON === 'function') v = v.toJSON();
    switch (typeof v) {
      case 'string': case 'boolean': return v;
      case 'undefined': return undefined;
      case 'number':
        if (v !== v || v === Infinity || v === -Infinity) throw new TypeErrorCtor(what + ' is not JSON: ' + StringCtor(v) + ' at ' + pointerOf(keysStack));
        return v;
      case 'object': {
        if (v === null) return null;
        for (var i = 0; i < stack.length; i++) {
          if (stack[i] === v) throw new TypeErrorCtor(what + ' is not JSON: circular reference at ' + pointerOf(keysStack));
        }
        stack[stack.length] = v;
        var out, depth = keysStack.length;
        if (isArray(v)) {
          out = [];
          var n = v.length;
          for (var j = 0; j < n; j++) {
            keysStack[depth] = j;
            var item = toPlain(read(v, j, keysStack, what), keysStack, stack, what);
            defineProperty(out, j, { value: item === undefined ? null : item, writable: true, enumerable: true, configurable: true });
          }
        } else {
          out = {};
          var ks = keys(v);
          for (var k = 0; k < ks.length; k++) {
            var key = ks[k];
            keysStack[depth] = key;
            var plain = toPlain(read(v, key, keysStack, what), keysStack, stack, what);
            if (plain !== undefined) defineProperty(out, key, { value: plain, writable: true, enumerable: true, configurable: true });
          }
        }
        keysStack.length = depth;
        stack.length = stack.length - 1;
        return out;
      }
      default:
        throw new TypeErrorCtor(what + ' is not JSON: ' + (typeof v) + ' at ' + pointerOf(keysStack));
    }
  }
  function pointerOf(keysStack) {
    if (keysStack.length === 0) return '/';
    var text = '';
    for (var i = 0; i < keysStack.length; i++) text += '/' + escapeKey(StringCtor(keysStack[i]));
    return text;
  }
  function read(holder, key, keysStack, what) {
    try { return holder[key]; } catch (e) { throw new TypeErrorCtor(what + ' is not JSON: reading ' + pointerOf(keysStack) + ' threw ' + describeText(e)); }
  }
  // Fast path: native JSON.stringify with a replacer that refuses what JSON would silently drop
  // or mangle. On any refusal the slow copy runs to report the exact JSON pointer.
  function strict(key, x) {
    var t = typeof x;
    if (t === 'function' || t === 'symbol' || t === 'bigint' || (t === 'number' && (x !== x || x === Infinity || x === -Infinity))) throw refused;
    return x;
  }
  var refused = freeze({});
  function toJson(v, what) {
    try {
      return stringify(v, strict);
    } catch (e) {
      var plain = toPlain(v, [], [], what);
      // The slow copy accepted what the fast path refused (a getter that changed its mind).
      if (e === refused) throw new TypeErrorCtor(what + ' is not JSON');
      return plain === undefined ? undefined : stringify(plain);
    }
  }

  function toError(name, e) {
    if (e !== null && typeof e === 'object') {
      if (e.kind === 'tool') return new ToolCallError(StringCtor(e.toolName), StringCtor(e.message));
      if (e.kind === 'limit') return new RangeErrorCtor(StringCtor(e.message));
      if (e.kind === 'invalid') return new TypeErrorCtor(StringCtor(e.message));
    }
    return new ToolCallError(name, StringCtor(e));
  }
  // Sub-calls issued since the host last took them ('id:index:length:json' each), and the
  // promises of those not settled yet, by call id. The promise is made here with the intrinsic
  // constructor (no host call and no then() per call); a rejection is recorded against the
  // promise the program holds, so a failure nobody handles is reported like any other rejection.
  var queued = '', nextCallId = 0, finished = false, takenUpTo = 0;
  var awaiting = create(null);
  function awaitReply(id, name, accessor) {
    var entry = { name: name, accessor: accessor, resolve: undefined, reject: undefined, promise: undefined };
    entry.promise = new NativePromise(function (resolve, reject) { entry.resolve = resolve; entry.reject = reject; });
    awaiting[id] = entry;
    return entry.promise;
  }
  function take(id) {
    var entry = awaiting[id];
    if (entry !== undefined) delete awaiting[id];
    return entry;
  }
  function rejectEntry(entry, error) {
    noteRejection(entry.promise, error);
    entry.reject(error);
  }
  function deliver(id, text) {
    var entry = take(id);
    if (entry === undefined) return;
    var value;
    try { value = parse(text); } catch (e) { rejectEntry(entry, e); return; }
    entry.resolve(value);
  }
  function refuse(id, rejection) {
    var entry = take(id);
    if (entry !== undefined) rejectEntry(entry, toError(entry.name, rejection));
  }
  function afterJobs() {
    if (queued === '') return undefined;
    var calls = queued;
    queued = '';
    takenUpTo = nextCallId;
    return calls;
  }
  function makeTool(name, accessor, index) {
    var label = 'the argument of ' + accessor;
    var onFailure = function (e) { throw toError(name, e); };
    // A check that fails after the guest's own ones: the same error one job later, recorded.
    var refuseLate = function (rejection) { return thenTracked(apply(rejectWith, NativePromise, [rejection]), undefined, onFailure); };
    var tool = function (args) {
      var json;
      try {
        json = toJson(args === undefined ? {} : args, label);
        if (json === undefined) throw new TypeErrorCtor(label + ' is not JSON: undefined');
        if (json.length > valueChars) throw new RangeErrorCtor(label + ' is ' + json.length + ' characters, over the valueBytes limit of ' + valueChars + ' bytes');
        if (issued >= maxSubCalls) throw new RangeErrorCtor('sub-call limit reached: a run may make at most ' + maxSubCalls + ' tool calls (' + accessor + ' was not called)');
      } catch (e) {
        return rejected(e);
      }
      issued++;
      if (finished) return refuseLate({ kind: 'invalid', message: 'the program has finished; ' + accessor + ' was not called' });
      var id = ++nextCallId;
      queued += id + ':' + index + ':' + json.length + ':' + json;
      return awaitReply(id, name, accessor);
    };
    defineProperty(tool, 'name', { value: name });
    return tool;
  }

  var known = create(null);
  var toolNames = [];
  for (var t = 0; t + 1 < names.length; t += 2) {
    defineProperty(known, names[t], { value: makeTool(names[t], names[t + 1], t / 2), enumerable: true });
    toolNames.push(names[t]);
  }
  freeze(known);
  toolNames.sort();
  var listed = toolNames.length === 0 ? 'No tools are available.' : 'Available tools: ' + apply(join, apply(Array.prototype.slice, toolNames, [0, 40]), [', ']) + (toolNames.length > 40 ? ', … (' + (toolNames.length - 40) + ' more)' : '');
  // A name outside the SDK is a function that rejects with ToolCallError naming the available
  // tools (as a native call gets UNKNOWN_TOOL), rather than QuickJS's bare "not a function".
  // 'then' stays undefined so the object is not mistaken for a promise; 'in' and keys are exact.
  var unknownTools = create(null);
  var tools = new Proxy(known, {
    get: function (target, key) {
      if (key in target || typeof key !== 'string' || key === 'then' || key === 'toJSON') return target[key];
      if (!(key in unknownTools)) {
        var message = 'Unknown tool ' + stringify(key) + '. ' + listed;
        unknownTools[key] = function () { return rejected(new ToolCallError(key, message)); };
      }
      return unknownTools[key];
    },
  });

  // One printed text (lines joined with '\n'); longer than the output budget, it is cut just past
  // it (the host fails the run as output-limit anyway).
  function print(line) {
    if (line.length > outputChars) line = apply(slice, line, [0, outputChars + 1]);
    hostPrint(line);
  }
  // The run's clock: ms since the program started (the host's performance.now()).
  function now() {
    return hostTimer(3, 0, 0);
  }
${PRELUDE_CONSOLE}
${PRELUDE_TIMERS}
  // What the program left running when it ended (notes for the model; see pendingWork in the API).
  function pendingWork() {
    var lines = [];
    var ids = keys(awaiting);
    for (var i = 0; i < ids.length; i++) {
      var entry = awaiting[ids[i]];
      lines[lines.length] = +ids[i] <= takenUpTo
        ? 'the call ' + entry.accessor + '(…) was still running when the program ended: it was cancelled'
        : 'the call ' + entry.accessor + '(…) was never awaited and the program ended first: it was cancelled before it started';
    }
    var timerLines = pendingTimerLines();
    for (var t = 0; t < timerLines.length; t++) lines[lines.length] = timerLines[t];
    return lines.length === 0 ? undefined : apply(join, lines, ['\n']);
  }

  defineProperty(G, 'tools', { value: tools, writable: true, configurable: true, enumerable: false });
  defineProperty(G, 'console', { value: consoleObject, writable: true, configurable: true, enumerable: false });
  defineProperty(G, 'ToolCallError', { value: ToolCallError, writable: true, configurable: true, enumerable: false });
  defineProperty(G, 'Promise', { value: TrackedPromise, writable: true, configurable: true, enumerable: false });
  var timerNames = keys(timerGlobals);
  for (var tg = 0; tg < timerNames.length; tg++) {
    defineProperty(timerGlobals[timerNames[tg]], 'name', { value: timerNames[tg] });
    defineProperty(G, timerNames[tg], { value: timerGlobals[timerNames[tg]], writable: true, configurable: true, enumerable: false });
  }
  if (config.asyncHelper === true) defineProperty(G, '__async', { value: asyncHelper, writable: true, configurable: false, enumerable: true });

  return freeze({
    serialize: function (value) {
      finished = true;
      var json = toJson(value, 'the return value');
      if (json === undefined) return undefined;
      return json.length > outputChars ? json.length : json;
    },
    describe: function (e) {
      finished = true;
      return describe(e);
    },
    unhandled: unhandled,
    pendingWork: pendingWork,
    fire: fire,
    afterJobs: afterJobs,
    deliver: deliver,
    refuse: refuse,
  });
})`
