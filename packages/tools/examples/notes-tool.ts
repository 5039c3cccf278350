import { appendFile, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { defineTool, ToolError } from '@deepseek-ai/dsh-tools'

/** Tools over a directory of Markdown notes (`<name>.md`). */
export function noteTools(dir: string) {
  const pathOf = (name: string): string => join(dir, `${name}.md`)
  const name = { type: 'string', required: true, pattern: '^[a-z0-9-]{1,40}$', description: 'The note name, e.g. "groceries".' } as const

  const readNote = defineTool({
    name: 'read_note',
    description: 'Read one note by name.',
    parameters: {
      name,
      maxLines: { type: 'integer', minimum: 1, description: 'Return at most this many lines.' },
    },
    output: {
      schema: {
        type: 'object',
        properties: {
          lines: { type: 'array', items: { type: 'string' }, required: true },
          truncated: { type: 'boolean', required: true },
        },
      },
      render: (_args, note) => [{ type: 'text', text: note.lines.join('\n') + (note.truncated ? '\n[more lines not shown]' : '') }],
    },
    // Reads may run side by side with other parallel-safe calls.
    isConcurrencySafe: () => true,
    // Declared here, enforced by @deepseek-ai/dsh-tool-call-timeout-policy when it is loaded.
    timeoutMs: 2_000,
    async execute(args, exec) {
      // args is typed: { name: string; maxLines?: number }
      let text: string
      try {
        text = await readFile(pathOf(args.name), { encoding: 'utf8', signal: exec.signal })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolError('NOT_FOUND', `No note named "${args.name}".`)
        throw error
      }
      const lines = text.replace(/\n$/, '').split('\n')
      const max = args.maxLines ?? lines.length
      return { lines: lines.slice(0, max), truncated: lines.length > max }
    },
    presentCall: (args) => ({ title: `Read note ${args.name}`, kind: 'read' }),
  })

  const appendNote = defineTool({
    name: 'append_note',
    description: 'Append one line to a note, creating the note if needed.',
    parameters: {
      name,
      line: { type: 'string', required: true, minLength: 1, maxLength: 500 },
    },
    output: { schema: { type: 'integer' }, render: (args, bytes) => [{ type: 'text', text: `Appended ${bytes} bytes to ${args.name}.` }] },
    // No isConcurrencySafe: a write is exclusive, so it runs alone (a barrier in its batch).
    async execute(args, exec) {
      exec.signal.throwIfAborted()
      const text = `${args.line}\n`
      await appendFile(pathOf(args.name), text, 'utf8')
      return Buffer.byteLength(text)
    },
    presentCall: (args) => ({ title: `Append to note ${args.name}`, kind: 'edit' }),
  })

  return [readNote, appendNote]
}

/** The tools as a cordis plugin: registered in the scope it is loaded on, removed when it is disposed. */
export const NotesPlugin = {
  name: 'notes',
  inject: ['tools'],
  apply(ctx: Context, config: { dir: string }): void {
    for (const tool of noteTools(config.dir)) ctx.tools.register(tool)
  },
}
