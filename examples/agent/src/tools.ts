/** The agent's tools: typed declarations registered on the dsh-tools registry. */
import { defineTool, type ToolRegistry } from '@deepseek-ai/dsh-tools'

/** Registers `get_weather` and `math.factorial` (a dotted name: sent to the model as `math_factorial`). */
export function registerTools(tools: ToolRegistry): void {
  tools.register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city (a fixed table in this example).',
      parameters: { city: { type: 'string', required: true }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
      isConcurrencySafe: () => true,
      execute: async (args) => {
        const celsius = { oslo: 4, lima: 19, tokyo: 12 }[args.city.toLowerCase()] ?? 15
        return args.unit === 'fahrenheit' ? `${args.city}: ${Math.round((celsius * 9) / 5 + 32)}°F` : `${args.city}: ${celsius}°C`
      },
    }),
  )
  tools.register(
    defineTool({
      name: 'math.factorial',
      description: 'The factorial of n (0 to 20).',
      parameters: { n: { type: 'integer', required: true, minimum: 0, maximum: 20 } },
      output: { schema: { type: 'integer' }, render: (args, value) => [{ type: 'text', text: `${args.n}! = ${value}` }] },
      isConcurrencySafe: () => true,
      execute: async (args) => Array.from({ length: args.n }, (_, i) => i + 1).reduce((a, b) => a * b, 1),
    }),
  )
}
