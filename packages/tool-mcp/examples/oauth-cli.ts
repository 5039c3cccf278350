/**
 * The README's OAuth walk-through for a CLI user (Authorization): a bridge whose tokens live in a
 * file store, and a consent handler that prints the authorization link and waits for the
 * redirect on 127.0.0.1. Typechecked with the repository; not run by the tests (it names a remote
 * server) — oauth.test.ts runs the same flow against a real server on 127.0.0.1.
 */
import { Context } from 'cordis'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'

const ctx = new Context()
await ctx.plugin(ToolRegistry)

import { FileTokenStore, createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
const bridge = await createMcpBridge(ctx, {
  servers: [{
    name: 'notes', transport: 'http', url: 'https://notes.example.com/mcp',
    auth: {
      store: new FileTokenStore(`${process.env.HOME}/.config/my-agent/mcp-tokens.json`),
      redirectUrl: 'http://127.0.0.1:8976/callback',
      authorize: consentInBrowser, // (authorizationUrl) => Promise<{ code, iss? }>
    },
  }],
})

import { createServer } from 'node:http'
async function consentInBrowser(authorizationUrl: URL): Promise<{ code: string; iss?: string }> {
  console.log(`Open this link to let the agent use the server:\n${authorizationUrl.href}`)
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1:8976')
      const code = url.searchParams.get('code')
      res.end(code === null ? 'Authorization failed; you can close this tab.' : 'Done; you can close this tab.')
      server.close()
      if (code === null) reject(new Error(url.searchParams.get('error') ?? 'no code'))
      else resolve({ code, ...(url.searchParams.has('iss') ? { iss: url.searchParams.get('iss')! } : {}) })
    }).listen(8976, '127.0.0.1')
  })
}

export { bridge }
