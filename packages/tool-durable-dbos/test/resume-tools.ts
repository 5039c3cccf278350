/** The tools and policy of the shared-ledger resume test, registered alike in every process. */
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Harness } from '@deepseek-ai/dsh-tool-testkit'

/** The deployment key every process of the test shares (test only). */
export const RACE_KEY = 'r'.repeat(32)

/**
 * `read` (parallel-safe, no effect) and `write` (exclusive; `effect(text)` records each run);
 * every `write` asks for approval, and the approval service defers.
 */
export function registerRaceTools(ctx: Harness['ctx'], effect: (text: string) => void): void {
  ctx.tools.register(defineTool({ name: 'read', description: 'Reads.', parameters: { path: { type: 'string', required: true } }, isConcurrencySafe: () => true, execute: ({ path }) => `contents of ${path}` }))
  ctx.tools.register(
    defineTool({
      name: 'write',
      description: 'Writes.',
      parameters: { text: { type: 'string', required: true } },
      execute: ({ text }) => {
        effect(text)
        return `wrote ${text}`
      },
    }),
  )
  ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'write' ? { type: 'ask', reason: 'It writes.' } : next()))
  ctx.tools.approval({ request: async () => ({ type: 'defer' }) })
}
