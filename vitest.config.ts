import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { conditions: ['dsh-source'] },
  ssr: { resolve: { conditions: ['dsh-source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One retry on this 2-core CI machine for the few tests whose inputs are real time (sandbox
    // limits, child processes); a test that fails twice fails the run.
    retry: 1,
  },
})
