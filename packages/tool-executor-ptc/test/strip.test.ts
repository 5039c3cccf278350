import { describe, expect, it } from 'vitest'
import { PROGRAM_FUNCTION, stripProgram, stripProgramCached, stripTypes } from '../src/strip'

describe('stripTypes', () => {
  it('removes annotations, interfaces, generics and as-casts', () => {
    const result = stripTypes('interface A { a: number }\nconst x: A = { a: 1 } as A\nfunction id<T>(v: T): T { return v }\nexport {}\n')
    expect(result).toEqual({ code: 'const x = { a: 1 };\nfunction id(v) {\n  return v;\n}\nexport {};\n' })
  })

  it('turns enums into objects', () => {
    const result = stripTypes('enum E { A = "a" }\nconsole.log(E.A)')
    expect('code' in result && result.code).toContain('E2["A"] = "a"')
  })

  it('keeps modern syntax QuickJS runs natively (no down-levelling of async or classes)', () => {
    const result = stripTypes('class C { #p = 1; static s = 2; get p() { return this.#p } }\nasync function f() { await 1; return a?.b ?? c }')
    expect('code' in result && result.code).toContain('#p = 1')
    expect('code' in result && result.code).toContain('await 1')
    expect('code' in result && result.code).toContain('a?.b ?? c')
  })

  it('reports a syntax error with esbuild message, line and column', () => {
    expect(stripTypes('let a = 1\nlet b = ;')).toEqual({ error: { message: 'SyntaxError: Unexpected ";" (line 2, column 9)', line: 2, column: 8 } })
  })
})

describe('stripProgram', () => {
  it('wraps the program as an async function body so top-level await and return work, with async/await lowered', () => {
    const result = stripProgram('const v: number = await f()\nreturn v')
    const code = 'code' in result ? result.code : ''
    // esbuild's helper makes the promise through the global Promise (which the prelude tracks).
    expect(code.startsWith('var __async = (__this, __arguments, generator) => {\n  return new Promise((resolve, reject) => {')).toBe(true)
    expect(code.endsWith(`(function ${PROGRAM_FUNCTION}() {\n  return __async(this, null, function* () {\n    const v = yield f();\n    return v;\n  });\n});\n`)).toBe(true)
  })

  it('reports positions in the program, not in the wrapper', () => {
    expect(stripProgram('const a = 1\nconst b: = 2')).toEqual({
      error: { message: 'SyntaxError: Unexpected "=" (line 2, column 10)', line: 2, column: 9 },
    })
  })

  it('points at the end of the program for an unterminated construct', () => {
    expect(stripProgram('if (x) {\n  y()')).toEqual({
      error: { message: 'SyntaxError: unexpected end of the program (an unclosed block, bracket or string?) (line 2)', line: 2, column: 5 },
    })
  })

  it('rejects module syntax inside the body', () => {
    const result = stripProgram('import fs from "fs"\nreturn fs')
    expect('error' in result && result.error.line).toBe(1)
  })
})

describe('stripProgramCached', () => {
  it('gives what stripProgram gives, and the kept result for a program seen again', async () => {
    const source = `const n: number = await f()\nreturn n // ${Math.random()}`
    const first = await stripProgramCached(source)
    expect(first).toEqual(stripProgram(source))
    expect(await stripProgramCached(source)).toBe(first)
    const broken = 'const a = 1\nconst b: = 2'
    expect(await stripProgramCached(broken)).toEqual(stripProgram(broken))
    expect(await stripProgramCached(broken)).toBe(await stripProgramCached(broken))
  })
})
