import { readFileSync } from 'node:fs'
import { ChatAnthropic } from '@langchain/anthropic'
import { createAgent, tool } from 'langchain'
import { z } from 'zod'
import { ContextManager, makeContextLangChainMiddleware } from '../../../src/index.js'

const readFile = tool(async ({ path }: { path: string }) => readFileSync(path, 'utf8'), {
  name: 'read_file',
  description: 'Read a file of the repository',
  schema: z.object({ path: z.string() }),
})
const context = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
const agent = createAgent({
  model: new ChatAnthropic({ model: 'claude-sonnet-4-5' }),
  tools: [readFile],
  systemPrompt: 'You are a careful coding agent.',
  middleware: [makeContextLangChainMiddleware(context, { tokenBudget: 120_000 })],
})
await agent.invoke({ messages: [{ role: 'user', content: 'Where is the tokenizer built?' }] })
