/**
 * A realistic tool set over the bundled sample workspace (`examples/demo/sample/`): the names
 * and shapes follow the MCP filesystem server, plus an order lookup, a calculator and a slow,
 * exclusive report. Everything is read-only except `write_file`, which the demo's policy denies.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { defineTool, ToolError, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import { sleep } from '@deepseek-ai/dsh-tool-testkit'

/** Resolves `path` inside `root`, refusing anything outside it (like the MCP filesystem server). */
function inside(root: string, path: string): string {
  const full = resolve(root, path.replace(/^\/+/, ''))
  if (full !== root && !full.startsWith(root + sep)) {
    throw new ToolError('ACCESS_DENIED', `Access denied - path outside allowed directories: ${path}`)
  }
  return full
}

/** One record of `sample/data/orders.json`. */
interface Order {
  id: string
  customer: string
  total: number
  currency: string
  status: string
  items: number
}

/** The demo's tools for a workspace rooted at `root`. */
export function workspaceTools(root: string): AnyToolDefinition[] {
  const list_allowed_directories = defineTool({
    name: 'list_allowed_directories',
    description: 'List the directories this assistant may read.',
    parameters: {},
    output: { schema: { type: 'array', items: { type: 'string' } }, render: (_a, v) => [{ type: 'text', text: `Allowed directories:\n${v.join('\n')}` }] },
    isConcurrencySafe: () => true,
    execute: () => ['/'],
  })

  const list_directory = defineTool({
    name: 'list_directory',
    description: 'List the files and directories at a path of the workspace.',
    parameters: { path: { type: 'string', required: true, description: 'Path relative to the workspace root, "." for the root.' } },
    output: {
      schema: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', required: true }, kind: { type: 'string', enum: ['file', 'dir'], required: true } } } },
      render: (_a, v) => [{ type: 'text', text: v.map((e) => `[${e.kind === 'dir' ? 'DIR' : 'FILE'}] ${e.name}`).join('\n') }],
    },
    isConcurrencySafe: () => true,
    async execute(args) {
      const entries = await readdir(inside(root, args.path), { withFileTypes: true })
      return entries.map((e) => ({ name: e.name, kind: e.isDirectory() ? ('dir' as const) : ('file' as const) })).sort((a, b) => a.name.localeCompare(b.name))
    },
    presentCall: (args) => ({ title: `List ${args.path}`, kind: 'read' }),
  })

  const read_text_file = defineTool({
    name: 'read_text_file',
    description: 'Read a text file of the workspace. Use head or tail to read only the first or last N lines.',
    parameters: {
      path: { type: 'string', required: true, description: 'Path relative to the workspace root.' },
      head: { type: 'integer', minimum: 1, description: 'Only the first N lines.' },
      tail: { type: 'integer', minimum: 1, description: 'Only the last N lines.' },
    },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      if (args.head !== undefined && args.tail !== undefined) throw new ToolError('BAD_REQUEST', 'Cannot specify both head and tail parameters simultaneously')
      const text = await readFile(inside(root, args.path), { encoding: 'utf8', signal: exec.signal })
      const lines = text.replace(/\n$/, '').split('\n')
      if (args.head !== undefined) return lines.slice(0, args.head).join('\n')
      if (args.tail !== undefined) return lines.slice(-args.tail).join('\n')
      return text
    },
    presentCall: (args) => ({ title: `Read ${args.path}`, kind: 'read' }),
  })

  const search_files = defineTool({
    name: 'search_files',
    description: 'Search the text files of the workspace for a case-insensitive substring.',
    parameters: { query: { type: 'string', required: true, minLength: 1 } },
    output: {
      schema: { type: 'array', items: { type: 'object', properties: { file: { type: 'string', required: true }, line: { type: 'integer', required: true }, text: { type: 'string', required: true } } } },
      render: (_a, v) => [{ type: 'text', text: v.length === 0 ? 'No matches.' : v.map((m) => `${m.file}:${m.line}: ${m.text}`).join('\n') }],
    },
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      const matches: { file: string; line: number; text: string }[] = []
      const walk = async (dir: string): Promise<void> => {
        for (const e of await readdir(dir, { withFileTypes: true })) {
          exec.signal.throwIfAborted()
          const full = join(dir, e.name)
          if (e.isDirectory()) await walk(full)
          else if ((await stat(full)).size < 1_000_000) {
            const lines = (await readFile(full, 'utf8')).split('\n')
            lines.forEach((text, i) => {
              if (text.toLowerCase().includes(args.query.toLowerCase())) matches.push({ file: relative(root, full), line: i + 1, text: text.trim() })
            })
          }
        }
      }
      await walk(root)
      return matches.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
    },
  })

  const lookup_order = defineTool({
    name: 'lookup_order',
    description: 'Look up one order record by id (ORD-nnnn).',
    parameters: { id: { type: 'string', required: true, pattern: '^ORD-[0-9]{4}$' } },
    output: {
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string', required: true },
          customer: { type: 'string', required: true },
          total: { type: 'number', required: true },
          currency: { type: 'string', required: true },
          status: { type: 'string', required: true },
          items: { type: 'integer', required: true },
        },
      },
      render: (_a, v) => [{ type: 'text', text: `${v.id}: ${v.customer}, ${v.items} item(s), ${v.total.toFixed(2)} ${v.currency}, ${v.status}` }],
    },
    isConcurrencySafe: () => true,
    async execute(args) {
      const orders = JSON.parse(await readFile(join(root, 'data', 'orders.json'), 'utf8')) as Order[]
      const found = orders.find((o) => o.id === args.id)
      if (found === undefined) throw new ToolError('NOT_FOUND', `No order ${args.id}. Known ids: ${orders.map((o) => o.id).join(', ')}`)
      return { ...found }
    },
  })

  const get_sum = defineTool({
    name: 'get_sum',
    description: 'Add two numbers.',
    parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
    output: { schema: { type: 'number' }, render: (args, v) => [{ type: 'text', text: `The sum of ${args.a} and ${args.b} is ${v}.` }] },
    isConcurrencySafe: () => true,
    execute: (args) => args.a + args.b,
  })

  const write_file = defineTool({
    name: 'write_file',
    description: 'Create or overwrite a file of the workspace.',
    parameters: { path: { type: 'string', required: true }, content: { type: 'string', required: true } },
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'written' }] },
    // Exclusive: a write is a barrier for every other call in the batch.
    execute(): null {
      throw new ToolError('UNREACHABLE', 'the demo policy denies every write')
    },
  })

  const slow_report = defineTool({
    name: 'slow_report',
    description: 'Build the weekly support report (slow). delayMs simulates the backend latency.',
    parameters: { delayMs: { type: 'integer', minimum: 0, maximum: 10_000, required: true } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    timeoutMs: 250,
    // Exclusive: the reporting backend builds one report at a time, so the call runs alone (a
    // barrier: earlier calls finish first, later ones start after it).
    async execute(args, exec) {
      await sleep(args.delayMs, exec.signal)
      return `Weekly report: 4 orders, 1 refund (ORD-1002), backend took ${args.delayMs}ms.`
    },
  })

  return [list_allowed_directories, list_directory, read_text_file, search_files, lookup_order, get_sum, write_file, slow_report]
}
