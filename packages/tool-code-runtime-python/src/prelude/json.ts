/**
 * The prelude's JSON (Python source, part of `install()` in `prelude.ts`): a program's values
 * converted to plain JSON with the TypeScript runtime's texts (`to_plain`, `dumps`).
 */

/** `install()`: conversion of a program's values to JSON. */
export const PY_PRELUDE_JSON = String.raw`
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
`
