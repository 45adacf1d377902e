/**
 * Example: an agent loop on the OpenAI SDK (`openai@6`, Chat Completions). Before each call the
 * manager hands back a view that fits the budget; after it, the completion's `usage` goes to
 * `onLlmResponse` as it is and the assistant message into the history; tool results are added
 * as `tool` messages. `test/sdk-loops.test.ts` runs it against a local fake server that checks
 * every request against the provider's rules; point `baseURL` at the real API to run it for real.
 */
import OpenAI from 'openai'
import type { ChatCompletionTool } from 'openai/resources/chat/completions'
import { READ_FILE_PARAMETERS, readFile, startLoop, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** What `run` reports: the common loop report and the last completion's `prompt_tokens`. */
export interface OpenAILoopResult extends AgentLoopReport {
  readonly lastPromptTokens: number | null
}

const tools: Array<ChatCompletionTool> = [{ type: 'function', function: { name: 'read_file', description: 'Read a source file', parameters: READ_FILE_PARAMETERS } }]

export async function run(options: AgentLoopOptions): Promise<OpenAILoopResult> {
  const client = new OpenAI({ baseURL: `${options.baseURL}/v1`, apiKey: options.apiKey ?? 'sk-local-test', maxRetries: 0 })
  // Messages in the SDK's own shape; the estimate meter drives compaction and the provider's usage
  // is recorded beside it (measured_tokens, cache aggregates).
  const { context, tokenBudget, report } = await startLoop('openai-chat', options)
  let finalText: string | null = null
  let lastPromptTokens: number | null = null
  let requests = 0

  while (requests < (options.maxRequests ?? 20)) {
    const messages = await context.getMessagesForRequest({ tokenBudget })
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
  return { ...(await report({ requests, finalText })), lastPromptTokens }
}
