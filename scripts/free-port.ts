/**
 * A free TCP port on 127.0.0.1 for the tests that start real servers (PostgreSQL, Restate, MCP
 * servers over HTTP): bind port 0, read the port the kernel chose, close. Another process may
 * take it before the caller binds it; the callers bind within milliseconds.
 */
import { createServer } from 'node:net'

/** Resolves with a port number that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
