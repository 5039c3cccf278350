// The NodeNext consumer of the pack check (scripts/pack-check.mjs). Under
// `moduleResolution: "NodeNext"` TypeScript cannot read cordis 4.0.0-rc.10's own typings (its
// `.d.ts` files use extensionless relative imports, which NodeNext rejects in an ES module), so
// `import { Context } from 'cordis'` has no value export there — see docs/install.md. This file
// therefore uses only our packages' own types; the pack check fails on any error in it or in our
// `.d.ts` files other than those cordis's unreadable typings cause.
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { packages } from './packages.js'
import { add } from './tools.js'

export { add }

export function codes(results: readonly ToolResult[]): Array<string | undefined> {
  return results.map((r) => (r.isError ? r.error.info.code : 'ok'))
}

export const loaded: number = packages.length
