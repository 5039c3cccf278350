/**
 * The sandbox's `console` (guest JavaScript, interpolated into the prelude by `prelude.ts`): the
 * methods a program written for Node or a browser calls, each printing lines through the
 * prelude's `print` (one `hostPrint` per call, its lines joined with `\n`).
 *
 * - `log`, `info`, `debug`, `warn`, `error`, `dirxml`: the arguments formatted (strings raw,
 *   objects as JSON, errors as `Name: message`) and joined by a space; a first argument that is a
 *   string takes Node's substitutions `%s %d %i %f %j %o %O %c %%`.
 * - `dir(value)`: one value (a string quoted as JSON).
 * - `table(data, columns?)`: a text table as Node draws it (box characters, an `(index)` column,
 *   one column per key in first-seen order, `Values` for rows that are not objects; cells as
 *   JSON); data that is not an object prints as `log` does.
 * - `group(...label)` / `groupCollapsed` print the label and indent what follows by two spaces;
 *   `groupEnd` undoes one level.
 * - `time(label)`, `timeLog(label, ...data)`, `timeEnd(label)`: `label: 1.234ms` (seconds from
 *   1,000 ms: `1.234s`), the run's clock (`now()`, ms); a repeated or unknown label prints Node's
 *   warning (`Warning: Label 'x' already exists for console.time()`, `Warning: No such label 'x'
 *   for console.timeEnd()`).
 * - `count(label)` / `countReset(label)`: `label: 1`; `Warning: Count for 'x' does not exist`.
 * - `assert(condition, ...data)`: nothing when truthy, else `Assertion failed` or `Assertion
 *   failed: <data>`; it does not throw.
 * - `trace(...data)`: `Trace: <data>` and one line `    at line N: <source>` per frame of the
 *   program (a position mark, placed after the run: `positions.ts`).
 * - `clear`, `profile`, `profileEnd`, `timeStamp`: no output (as in Node without an inspector).
 * - Any other name is a function that throws `TypeError: console.<name> is not a function (the
 *   console has: …)`, instead of QuickJS's `not a function` naming nothing.
 *
 * Needs from the prelude: `print(text)`, `format(value)`, `positionsOf(error)` (the marks of the
 * error's program frames), `now()` (ms since the program started), and the captured intrinsics.
 */
export const PRELUDE_CONSOLE = String.raw`
  var groupIndent = '';
  function indentLines(text) {
    if (groupIndent === '') return text;
    return groupIndent + apply(join, apply(split, text, ['\n']), ['\n' + groupIndent]);
  }
  function emit(text) { print(indentLines(text)); }
  function substitute(args) {
    var first = args[0];
    if (typeof first !== 'string' || args.length < 2 || apply(indexOf, first, ['%']) === -1) return args;
    var out = '', next = 1, i = 0;
    while (i < first.length) {
      var ch = first[i];
      if (ch !== '%' || i + 1 >= first.length) { out += ch; i++; continue; }
      var spec = first[i + 1];
      if (spec === '%') { out += '%'; i += 2; continue; }
      if (next >= args.length || apply(indexOf, 'sdifjoOc', [spec]) === -1) { out += ch; i++; continue; }
      var v = args[next++];
      switch (spec) {
        case 's': out += typeof v === 'string' ? v : format(v); break;
        case 'd': out += typeof v === 'bigint' ? StringCtor(v) + 'n' : typeof v === 'symbol' || (typeof v === 'object' && v !== null) ? 'NaN' : StringCtor(Number(v)); break;
        case 'i': out += typeof v === 'bigint' ? StringCtor(v) + 'n' : typeof v === 'symbol' ? 'NaN' : StringCtor(parseInt(v, 10)); break;
        case 'f': out += typeof v === 'symbol' ? 'NaN' : StringCtor(parseFloat(v)); break;
        case 'j': { var j; try { j = stringify(v); } catch (e) { j = '[Circular]'; } out += StringCtor(j); break; }
        case 'c': break;
        default: out += format(v);
      }
      i += 2;
    }
    var rest = [out];
    for (; next < args.length; next++) rest[rest.length] = args[next];
    return rest;
  }
  function joined(args) {
    var parts = substitute(args), line = '';
    for (var i = 0; i < parts.length; i++) line += (i === 0 ? '' : ' ') + format(parts[i]);
    return line;
  }
  function printer() {
    return function () { emit(joined(arguments)); };
  }
  function cell(v) {
    if (v === undefined) return '';
    if (typeof v === 'string') return stringify(v);
    return format(v);
  }
  function drawTable(header, rows) {
    var widths = [];
    for (var c = 0; c < header.length; c++) {
      var w = header[c].length;
      for (var r = 0; r < rows.length; r++) if (rows[r][c].length > w) w = rows[r][c].length;
      widths[c] = w + 2;
    }
    function rule(left, mid, right) {
      var s = left;
      for (var c = 0; c < widths.length; c++) s += (c === 0 ? '' : mid) + apply(repeat, '─', [widths[c]]);
      return s + right;
    }
    function row(cells) {
      var s = '│';
      for (var c = 0; c < widths.length; c++) s += ' ' + cells[c] + apply(repeat, ' ', [widths[c] - 1 - cells[c].length]) + '│';
      return s;
    }
    var lines = [rule('┌', '┬', '┐'), row(header), rule('├', '┼', '┤')];
    for (var r = 0; r < rows.length; r++) lines[lines.length] = row(rows[r]);
    lines[lines.length] = rule('└', '┴', '┘');
    return apply(join, lines, ['\n']);
  }
  function table(data, columns) {
    if (data === null || typeof data !== 'object') { emit(joined(arguments)); return; }
    var indexes = keys(data), cols = [], seen = create(null), hasValues = false, rowsData = [];
    var only = isArray(columns) ? columns : undefined;
    for (var i = 0; i < indexes.length; i++) {
      var item = data[indexes[i]];
      var entry = { index: indexes[i], object: item !== null && typeof item === 'object', item: item };
      rowsData[rowsData.length] = entry;
      if (!entry.object) { hasValues = true; continue; }
      if (only !== undefined) continue;
      var ks = keys(item);
      for (var k = 0; k < ks.length; k++) if (!(ks[k] in seen)) { seen[ks[k]] = true; cols[cols.length] = ks[k]; }
    }
    if (only !== undefined) for (var o = 0; o < only.length; o++) cols[cols.length] = StringCtor(only[o]);
    var header = ['(index)'];
    for (var h = 0; h < cols.length; h++) header[header.length] = cols[h];
    if (hasValues) header[header.length] = 'Values';
    var rows = [];
    for (var r = 0; r < rowsData.length; r++) {
      var e = rowsData[r], cells = [e.index];
      for (var c = 0; c < cols.length; c++) cells[cells.length] = e.object && hasOwn(e.item, cols[c]) ? cell(e.item[cols[c]]) : '';
      if (hasValues) cells[cells.length] = e.object ? '' : cell(e.item);
      rows[rows.length] = cells;
    }
    emit(drawTable(header, rows));
  }
  function labelOf(label) { return label === undefined ? 'default' : StringCtor(label); }
  var timers = create(null), counts = create(null);
  function elapsed(ms) {
    if (ms >= 60000) {
      var minutes = Math.floor(ms / 60000), seconds = (ms - minutes * 60000) / 1000;
      return minutes + ':' + (seconds < 10 ? '0' : '') + seconds.toFixed(3) + ' (m:ss.mmm)';
    }
    if (ms >= 1000) return (ms / 1000).toFixed(3) + 's';
    return ms.toFixed(3) + 'ms';
  }
  function timeLine(method, label, extra, end) {
    var name = labelOf(label);
    if (!(name in timers)) { emit("Warning: No such label '" + name + "' for console." + method + '()'); return; }
    var line = name + ': ' + elapsed(now() - timers[name]);
    if (end) delete timers[name];
    if (extra.length > 0) line += ' ' + joined(extra);
    emit(line);
  }
  function rest(args, from) {
    var out = [];
    for (var i = from; i < args.length; i++) out[out.length] = args[i];
    return out;
  }
  function noOutput() {}
  var methods = {
    log: printer(), info: printer(), debug: printer(), warn: printer(), error: printer(), dirxml: printer(),
    dir: function (value) { emit(typeof value === 'string' ? stringify(value) : format(value)); },
    table: table,
    group: function () { if (arguments.length > 0) emit(joined(arguments)); groupIndent += '  '; },
    groupCollapsed: function () { if (arguments.length > 0) emit(joined(arguments)); groupIndent += '  '; },
    groupEnd: function () { groupIndent = apply(slice, groupIndent, [0, groupIndent.length >= 2 ? groupIndent.length - 2 : 0]); },
    time: function (label) {
      var name = labelOf(label);
      if (name in timers) { emit("Warning: Label '" + name + "' already exists for console.time()"); return; }
      timers[name] = now();
    },
    timeLog: function (label) { timeLine('timeLog', label, rest(arguments, 1), false); },
    timeEnd: function (label) { timeLine('timeEnd', label, [], true); },
    count: function (label) {
      var name = labelOf(label);
      counts[name] = (name in counts ? counts[name] : 0) + 1;
      emit(name + ': ' + counts[name]);
    },
    countReset: function (label) {
      var name = labelOf(label);
      if (!(name in counts)) { emit("Warning: Count for '" + name + "' does not exist"); return; }
      counts[name] = 0;
    },
    assert: function (condition) {
      if (condition) return;
      var data = rest(arguments, 1);
      emit(data.length === 0 ? 'Assertion failed' : 'Assertion failed: ' + joined(data));
    },
    trace: function () {
      var text = arguments.length === 0 ? 'Trace' : 'Trace: ' + joined(arguments);
      var marks = positionsOf(new ErrorCtor());
      for (var i = 0; i < marks.length; i++) text += '\n    at ' + marks[i];
      emit(text);
    },
    clear: noOutput, profile: noOutput, profileEnd: noOutput, timeStamp: noOutput,
  };
  var consoleNames = keys(methods);
  apply(Array.prototype.sort, consoleNames, []);
  var consoleTarget = create(null);
  for (var cm = 0; cm < consoleNames.length; cm++) {
    defineProperty(methods[consoleNames[cm]], 'name', { value: consoleNames[cm] });
    defineProperty(consoleTarget, consoleNames[cm], { value: methods[consoleNames[cm]], writable: true, enumerable: true, configurable: true });
  }
  var missingConsole = create(null);
  var consoleObject = new Proxy(consoleTarget, {
    get: function (target, key) {
      if (key in target || typeof key !== 'string' || key === 'then' || key === 'toJSON') return target[key];
      if (!(key in missingConsole)) {
        var message = 'console.' + key + ' is not a function (the console has: ' + apply(join, consoleNames, [', ']) + ')';
        missingConsole[key] = function () { throw new TypeErrorCtor(message); };
      }
      return missingConsole[key];
    },
  });
`
