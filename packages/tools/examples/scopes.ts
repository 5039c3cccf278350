import { Context } from 'cordis'
import { ToolRegistry, createAgent, createScope, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const tool = (name: string) =>
  defineTool({ name, description: `The ${name} tool.`, parameters: {}, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: () => name })

const deployment = new Context()
await deployment.plugin(ToolRegistry)
await deployment.plugin(NativeExecutor)
deployment.tools.register(tool('search'))
deployment.tools.register(tool('shell'))
deployment.tools.register(tool('browse'), { when: ({ modelSelection }) => modelSelection?.model !== 'small-model' })

// A preset narrows what its agents inherit; an agent may add its own tools (never masked by its own restriction).
const reviewer = createScope(deployment, 'reviewer', 'preset')
reviewer.tools.restrict({ deny: ['shell'] })
const { agent, ctx: agentCtx } = createAgent(reviewer, 'reviewer-1')
agentCtx.tools.register(tool('comment'))

// Per model step: resolve once (conditions run once), describe and execute with the same set, then dispose it.
const toolSet = await deployment.tools.resolve({ agent, modelSelection: { provider: 'deepseek', model: 'small-model' } })
console.log(deployment.tools.describe({ agent, toolSet }).tools.map((t) => t.name)) // ['search', 'comment']
const results = await deployment.tools.execute({ agent, toolSet, calls: [{ callId: '1', name: 'shell', arguments: '' }] })
console.log(results[0]?.isError && results[0].error.message) // Unknown tool "shell". Available tools: comment, search
toolSet.dispose()
