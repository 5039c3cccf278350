import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

ctx.tools.register(defineTool({
  name: 'create_issue',
  description: 'Open an issue in the tracker.',
  parameters: {
    title: { type: 'string', required: true, minLength: 1 },
    // An array of enum strings.
    labels: { type: 'array', items: { enum: ['bug', 'docs', 'question'] }, maxItems: 3 },
    // A nested object: `required: true` marks its own required properties, as at the top level.
    assignee: {
      type: 'object',
      properties: {
        login: { type: 'string', required: true },
        team: { type: 'string' },
      },
      additionalProperties: false, // a closed object: keys other than login and team are rejected
    },
    // An array of objects.
    checklist: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          text: { type: 'string', required: true },
          done: { type: 'boolean' },
        },
      },
    },
  },
  output: { schema: { type: 'integer' }, render: (_args, id) => [{ type: 'text', text: `Opened issue #${id}` }] },
  execute(args) {
    // args is typed:
    // { title: string; labels?: ('bug' | 'docs' | 'question')[];
    //   assignee?: { login: string; team?: string };
    //   checklist?: { text: string; done?: boolean }[] }
    const open = args.checklist?.filter((item) => item.done !== true).length ?? 0
    console.log(`${args.title} → ${args.assignee?.login ?? 'nobody'}, ${open} open item(s)`)
    return 42
  },
}))

// The model receives plain JSON Schema: nested `required` arrays, `items`, `additionalProperties`.
const [schema] = ctx.tools.schemas()
console.log(JSON.stringify(schema?.parameters, null, 2))

const results = await ctx.tools.execute({
  calls: [
    { callId: 'c1', name: 'create_issue', arguments: '{"title":"Crash on start","labels":["bug"],"assignee":{"login":"ada"},"checklist":[{"text":"reproduce","done":true},{"text":"fix"}]}' },
    { callId: 'c2', name: 'create_issue', arguments: '{"title":"Typo","assignee":{"name":"ada"},"checklist":[{"done":true}]}' },
  ],
  signal: AbortSignal.timeout(30_000),
})
for (const r of results) console.log(r.callId, r.content)
await ctx.fiber.dispose()
// c1 [ { type: 'text', text: 'Opened issue #42' } ]
// c2 → INVALID_ARGS, every violation with its JSON pointer:
// Error: Invalid arguments for tool "create_issue": /assignee/login: is required;
//   /assignee/name: is not a declared key (declared: "login", "team"); /checklist/0/text: is required
