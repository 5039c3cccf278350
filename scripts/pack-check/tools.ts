// A tool both TypeScript consumers of the pack check use (consumer.ts, consumer-nodenext.ts): it
// needs only @deepseek-ai/dsh-tools' own types, so it typechecks under Bundler and NodeNext.
import { defineTool } from '@deepseek-ai/dsh-tools'

export const add = defineTool({
  name: 'add',
  description: 'Add two integers.',
  parameters: { a: { type: 'integer', required: true }, b: { type: 'integer' } },
  output: { schema: { type: 'integer' }, render: (_args, sum) => [{ type: 'text', text: String(sum) }] },
  async execute(args) {
    const a: number = args.a
    const b: number | undefined = args.b
    // @ts-expect-error -- `a` is a number, not a string
    const wrong: string = args.a
    void wrong
    return a + (b ?? 0)
  },
})
