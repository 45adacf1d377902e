/**
 * Example: an agent loop on the OpenAI SDK (`openai@6`, Responses API) with a manager in the
 * `openai-responses` format. The loop is stateless (`store: false`): every request sends the
 * whole `input` the manager hands back, and the model's `reasoning` items come back with their
 * `encrypted_content` (`include: ['reasoning.encrypted_content']`). Every output item (reasoning,
 * function calls, the final message) goes into the history as it is, each tool output as a
 * `function_call_output` item, and `response.usage` to `onLlmResponse` as it is.
 * `test/sdk-loops.test.ts` runs it against a local fake server that checks every request against
 * the provider's rules (a reasoning item stays, unaltered, right before the item that followed
 * it); point `baseURL` at the real API to run it for real.
 */
import OpenAI from 'openai'
import type { FunctionTool } from 'openai/resources/responses/responses'
import { READ_FILE_PARAMETERS, readFile, startLoop, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** What `run` reports: the common loop report, the last answer's `input_tokens` and the reasoning items added. */
export interface OpenAIResponsesLoopResult extends AgentLoopReport {
  readonly lastInputTokens: number | null
  readonly reasoningItems: number
}

const tools: Array<FunctionTool> = [{ type: 'function', name: 'read_file', description: 'Read a source file', parameters: READ_FILE_PARAMETERS, strict: false }]

export async function run(options: AgentLoopOptions): Promise<OpenAIResponsesLoopResult> {
  const client = new OpenAI({ baseURL: `${options.baseURL}/v1`, apiKey: options.apiKey ?? 'sk-local-test', maxRetries: 0 })
  const { context, tokenBudget, report } = await startLoop('openai-responses', options)
  let finalText: string | null = null
  let lastInputTokens: number | null = null
  let reasoningItems = 0
  let requests = 0

  while (requests < (options.maxRequests ?? 20)) {
    const input = await context.getMessagesForRequest({ tokenBudget })
    const response = await client.responses.create({
      model: options.model ?? 'gpt-5',
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'medium', summary: 'auto' },
    })
    requests += 1
    // input_tokens is the whole prompt; cached_tokens is the part of it read from the cache
    await context.onLlmResponse({ usage: response.usage })
    lastInputTokens = response.usage?.input_tokens ?? null
    for (const item of response.output) await context.addMessage(item)
    reasoningItems += response.output.filter((item) => item.type === 'reasoning').length
    const calls = response.output.filter((item) => item.type === 'function_call')
    if (calls.length === 0) {
      finalText = response.output_text
      break
    }
    for (const call of calls) {
      const { path } = JSON.parse(call.arguments) as { path: string }
      await context.addMessage({ type: 'function_call_output', call_id: call.call_id, output: readFile(path) })
    }
  }
  return { ...(await report({ requests, finalText })), lastInputTokens, reasoningItems }
}
