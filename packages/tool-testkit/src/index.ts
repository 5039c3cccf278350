/**
 * `@deepseek-ai/dsh-tool-testkit` — fixtures for testing tools, policies and executors built
 * on dsh-tools (docs/design.md, "Testkit").
 */
export * from './harness'
export * from './log'
export * from './approval'
export * from './fixtures'
export * from './batch'
export * from './real-data'
export * from './tracer'
export * from './clock'
export * from './code-runtime'
export * from './emissions'
export * from './leaks'
export * from './property'
export * from './replay-server'
