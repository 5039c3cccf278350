/**
 * Where the reference MCP servers (root dev dependencies) live, and helpers that start them the
 * way a user's config would: `node <their bin>` on stdio, or on a free 127.0.0.1 port for HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { freePort } from '../../../scripts/free-port'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** The absolute path of a reference server's entry script (`dist/index.js`). */
export function serverEntry(pkg: '@modelcontextprotocol/server-everything' | '@modelcontextprotocol/server-filesystem' | '@modelcontextprotocol/server-memory'): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js')
}

export { freePort }

/** A running server-everything on Streamable HTTP; `stop()` ends it and waits for the exit. */
export interface HttpServer {
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

/** Starts server-everything in Streamable HTTP mode on 127.0.0.1 and waits until it listens. */
export async function startEverythingHttp(): Promise<HttpServer> {
  const port = await freePort()
  const child = spawn(process.execPath, [serverEntry('@modelcontextprotocol/server-everything'), 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  await new Promise<void>((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8')
      if (text.includes('listening on port')) {
        child.stderr!.off('data', onData)
        child.stderr!.resume()
        resolve()
      }
    }
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`server-everything (HTTP) exited with ${code} before listening: ${text}`)))
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
