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
import { READ_FILE_PARAMETERS, readFile, startLoop, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** What `run` reports: the common loop report and the last message's billed input (fresh + cache read + cache write). */
export interface AnthropicLoopResult extends AgentLoopReport {
  readonly lastBilledTokens: number | null
}

const tools: Array<Tool> = [{ name: 'read_file', description: 'Read a source file', input_schema: { ...READ_FILE_PARAMETERS, type: 'object' } }]

export async function run(options: AgentLoopOptions): Promise<AnthropicLoopResult> {
  const client = new Anthropic({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'sk-ant-local-test', maxRetries: 0 })
  const { context, tokenBudget, report } = await startLoop('anthropic', options)
  let finalText: string | null = null
  let lastBilledTokens: number | null = null
  let requests = 0

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
  return { ...(await report({ requests, finalText })), lastBilledTokens }
}
