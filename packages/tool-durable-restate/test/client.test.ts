/** The outside client's errors when Restate is not where it was told to look. */
import { describe, expect, test } from 'vitest'
import { RestateClient, RestateUnreachableError } from '../src/client'
import { freePort } from './support/process'

describe('RestateClient: engine unreachable', () => {
  test('a batch sent to a port nobody listens on fails naming the ingress address and the cause', async () => {
    const port = await freePort()
    const client = new RestateClient({ ingressUrl: `http://127.0.0.1:${port}/` })
    const error = await client.send({ service: 'tools', handler: 'execute' }, { calls: [] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RestateUnreachableError)
    expect((error as RestateUnreachableError).code).toBe('RESTATE_UNREACHABLE')
    expect((error as Error).message).toBe(
      `Restate ingress at http://127.0.0.1:${port}/tools/execute/send is unreachable (ECONNREFUSED): is restate-server running, and is that its address?`,
    )
  })

  test('an approval sent to an unreachable ingress names the awakeable URL', async () => {
    const port = await freePort()
    const client = new RestateClient({ ingressUrl: `http://127.0.0.1:${port}` })
    await expect(client.decide('sign_1abc', { type: 'approve' })).rejects.toThrow(
      `Restate ingress at http://127.0.0.1:${port}/restate/awakeables/sign_1abc/resolve is unreachable (ECONNREFUSED)`,
    )
  })

  test('registering a deployment against an unreachable admin API names the admin address; without adminUrl it says so', async () => {
    const port = await freePort()
    const client = new RestateClient({ ingressUrl: 'http://127.0.0.1:1', adminUrl: `http://127.0.0.1:${port}` })
    await expect(client.register('http://127.0.0.1:9080')).rejects.toThrow(`Restate admin API at http://127.0.0.1:${port}/deployments is unreachable (ECONNREFUSED)`)
    await expect(new RestateClient({ ingressUrl: 'http://127.0.0.1:1' }).register('http://x')).rejects.toThrow(
      'RestateClient.register needs adminUrl (the admin API, e.g. http://127.0.0.1:9070)',
    )
  })
})
