/**
 * Example: an agent loop on the Anthropic SDK (`@anthropic-ai/sdk`, Messages API) with a manager
 * in the `anthropic` format. Before each call the manager hands back `{ system, messages }`, which
 * spreads into `client.messages.create`; after it, `message.usage` goes to `onLlmResponse` as it
 * is (cache reads and writes included) and the assistant turn, then the tool results, into the
 * history. `test/sdk-loops.test.ts` runs it against a local fake server that checks every request
 * against the provider's rules; point `baseURL` at the real API to run it for real.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import { ContextManager, makeMittHooks, memoryLogger } from '../src/index.js'

/** Where to send requests, and the conversation's size. */
export interface AnthropicLoopOptions {
  readonly baseURL: string
  readonly apiKey?: string
  readonly model?: string
  readonly tokenBudget?: number
  readonly maxRequests?: number
}

/** What `run` reports; `test/sdk-loops.test.ts` asserts on it. */
export interface AnthropicLoopResult {
  readonly requests: number
  readonly finalText: string | null
  readonly historyMessages: number
  readonly compactions: number
  readonly lastMeasuredTokens: number | null
  readonly lastBilledTokens: number | null
  readonly cacheAggregates: unknown
  readonly warnings: ReadonlyArray<string>
}

const tools: Array<Tool> = [
  {
    name: 'read_file',
    description: 'Read a source file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
]

/** The tool: a long file listing, so that old results get truncated as the conversation grows. */
const readFile = (path: string): string =>
  Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${i} = compute(${i})`).join('\n')

export async function run(options: AnthropicLoopOptions): Promise<AnthropicLoopResult> {
  const client = new Anthropic({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'sk-ant-local-test', maxRetries: 0 })
  const logger = memoryLogger()
  // each compaction pass emits context:compaction once; count those (the stats persist between passes)
  const hooks = makeMittHooks()
  let compactions = 0
  hooks.register('context:compaction', () => {
    compactions += 1
  })
  const context = new ContextManager({}, { format: 'anthropic', logger, hooks })
  const tokenBudget = options.tokenBudget ?? 6_000
  let finalText: string | null = null
  let lastBilledTokens: number | null = null
  let requests = 0

  await context.addMessage({ role: 'system', content: 'You are a careful coding agent. Read files before answering.' })
  await context.addMessage({ role: 'user', content: 'Read the parser sources and tell me where the tokenizer is built.' })
  while (requests < (options.maxRequests ?? 20)) {
    const view = await context.getMessagesForRequest({ tokenBudget })
    const message = await client.messages.create({ model: options.model ?? 'claude-opus-4-6', max_tokens: 1024, tools, ...view })
    requests += 1
    await context.onLlmResponse({ usage: message.usage })
    const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = message.usage
    lastBilledTokens = input_tokens + (cache_read_input_tokens ?? 0) + (cache_creation_input_tokens ?? 0)
    await context.addMessage({ role: 'assistant', content: message.content })
    const calls = message.content.filter((block) => block.type === 'tool_use')
    if (message.stop_reason !== 'tool_use' || calls.length === 0) {
      finalText = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      break
    }
    const results: Array<ToolResultBlockParam> = calls.map((call) => ({
      type: 'tool_result',
      tool_use_id: call.id,
      content: readFile((call.input as { path: string }).path),
    }))
    await context.addMessage({ role: 'user', content: results })
  }
  await context.getMessagesForRequest({ tokenBudget })
  return {
    requests,
    finalText,
    historyMessages: (await context.getMessages()).length,
    compactions,
    lastMeasuredTokens: context.lastTokenMeterStats?.measured_tokens ?? null,
    lastBilledTokens,
    cacheAggregates: context.lastTokenMeterStats?.cache_aggregates ?? null,
    warnings: logger.messages('warning'),
  }
}
