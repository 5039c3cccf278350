/** The README's example is the file it shows, and it runs to completion against a real PostgreSQL, printing what its comment says. */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startCluster, type Cluster } from './cluster'

const here = dirname(fileURLToPath(import.meta.url))
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8')
const example = join(here, '..', 'examples', 'basic.ts')
let cluster: Cluster

beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
}, 60_000)

test('README example: shown verbatim, runs and prints the charged call with its idempotency key', async () => {
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(example, 'utf8')}\`\`\``)
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--conditions=dsh-source', example], {
    cwd: join(here, '..', '..', '..'),
    env: { ...process.env, DSH_DATABASE_URL: cluster.url('dsh_readme') },
    timeout: 60_000,
  })
  expect(stdout).toMatch(/^\[ \{ type: 'text', text: 'charged 500 \(key checkout-\d+:1\/c1\)' \} \]\n$/)
}, 90_000)

test('README example of the shared resume ledger: shown verbatim, resumes once, refuses the second resume', async () => {
  const shared = join(here, '..', 'examples', 'shared-ledger.ts')
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(shared, 'utf8')}\`\`\``)
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--conditions=dsh-source', shared], {
    cwd: join(here, '..', '..', '..'),
    env: { ...process.env, DSH_DATABASE_URL: cluster.url('postgres') },
    timeout: 60_000,
  })
  expect(stdout).toBe("complete [ { type: 'text', text: 'deployed api' } ]\nSTATE_REPLAYED\n")
}, 90_000)
