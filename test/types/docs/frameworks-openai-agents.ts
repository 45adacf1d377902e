import { readFileSync } from 'node:fs'
import { Agent, MemorySession, OpenAIProvider, Runner, tool } from '@openai/agents'
import { z } from 'zod'
import { ContextManager, makeContextCallModelInputFilter, makeContextModelProvider } from '../../../src/index.js'

const readFile = tool({
  name: 'read_file',
  description: 'Read a file of the repository',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => readFileSync(path, 'utf8'),
})
const agent = new Agent({ name: 'Coder', instructions: 'You are a careful coding agent.', tools: [readFile] })
const context = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
const runner = new Runner({
  callModelInputFilter: makeContextCallModelInputFilter(context, { tokenBudget: 120_000 }),
  modelProvider: makeContextModelProvider(context, new OpenAIProvider()),
})
const session = new MemorySession()
await runner.run(agent, 'Where is the tokenizer built?', { session })
