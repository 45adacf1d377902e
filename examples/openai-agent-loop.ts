/**
 * Example: an agent loop on the OpenAI SDK (`openai@6`, Chat Completions). Before each call the
 * manager hands back a view that fits the budget; after it, the completion's `usage` goes to
 * `onLlmResponse` as it is and the assistant message into the history; tool results are added
 * as `tool` messages. `test/examples.test.ts` runs it against a local fake server that checks
 * every request against the provider's rules; point `baseURL` at the real API to run it for real.
 */
import OpenAI from 'openai'
import type { ChatCompletionTool } from 'openai/resources/chat/completions'
import { ContextManager, makeMittHooks, memoryLogger } from '../src/index.js'

/** Where to send requests, and the conversation's size. */
export interface OpenAILoopOptions {
  readonly baseURL: string
  readonly apiKey?: string
  readonly model?: string
  readonly tokenBudget?: number
  readonly maxRequests?: number
}

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface OpenAILoopResult {
  readonly requests: number
  readonly finalText: string | null
  readonly historyMessages: number
  readonly compactions: number
  readonly lastMeasuredTokens: number | null
  readonly lastPromptTokens: number | null
  readonly cacheAggregates: unknown
  readonly warnings: ReadonlyArray<string>
}

const tools: Array<ChatCompletionTool> = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a source file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
]

/** The tool: a long file listing, so that old results get truncated as the conversation grows. */
const readFile = (path: string): string =>
  Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${i} = compute(${i})`).join('\n')

export async function run(options: OpenAILoopOptions): Promise<OpenAILoopResult> {
  const client = new OpenAI({ baseURL: `${options.baseURL}/v1`, apiKey: options.apiKey ?? 'sk-local-test', maxRetries: 0 })
  const logger = memoryLogger()
  // Messages in the SDK's own shape; the estimate meter drives compaction and the provider's usage
  // is recorded beside it (measured_tokens, cache aggregates).
  // each compaction pass emits context:compaction once; count those (the stats persist between passes)
  const hooks = makeMittHooks()
  let compactions = 0
  hooks.register('context:compaction', () => {
    compactions += 1
  })
  const context = new ContextManager({}, { format: 'openai-chat', logger, hooks })
  let finalText: string | null = null
  let lastPromptTokens: number | null = null
  let requests = 0

  await context.addMessage({ role: 'system', content: 'You are a careful coding agent. Read files before answering.' })
  await context.addMessage({ role: 'user', content: 'Read the parser sources and tell me where the tokenizer is built.' })
  while (requests < (options.maxRequests ?? 20)) {
    const messages = await context.getMessagesForRequest({ tokenBudget: options.tokenBudget ?? 6_000 })
    const completion = await client.chat.completions.create({ model: options.model ?? 'gpt-4o', messages, tools })
    requests += 1
    await context.onLlmResponse({ usage: completion.usage })
    lastPromptTokens = completion.usage?.prompt_tokens ?? null
    const message = completion.choices[0].message
    await context.addMessage(message)
    if (message.tool_calls === undefined || message.tool_calls.length === 0) {
      finalText = message.content
      break
    }
    for (const call of message.tool_calls) {
      const path = call.type === 'function' ? (JSON.parse(call.function.arguments) as { path: string }).path : ''
      await context.addMessage({ role: 'tool', tool_call_id: call.id, content: readFile(path) })
    }
  }
  await context.getMessagesForRequest({ tokenBudget: options.tokenBudget ?? 6_000 })
  return {
    requests,
    finalText,
    historyMessages: (await context.getMessages()).length,
    compactions,
    lastMeasuredTokens: context.lastTokenMeterStats?.measured_tokens ?? null,
    lastPromptTokens,
    cacheAggregates: context.lastTokenMeterStats?.cache_aggregates ?? null,
    warnings: logger.messages('warning'),
  }
}
