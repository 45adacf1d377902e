/**
 * Example: an agent loop on the AI SDK (`ai@6`) with a real provider package (`@ai-sdk/anthropic`),
 * a manager in the `ai-sdk` format plugged in with `makeContextSettings`: `generateText` runs the
 * tool loop itself; before each step `prepareStep` hands the model the manager's view (its system
 * messages as `system`), after it `onStepFinish` feeds the step's usage and adds its response
 * messages. The SDK keeps the whole conversation (`result.response.messages`); the manager's
 * history follows it. `test/sdk-loops.test.ts` runs it against a local fake server that checks
 * every request against the Anthropic rules; point `baseURL` at the real API to run it for real.
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai'
import { ContextManager, makeContextSettings, makeMittHooks, memoryLogger } from '../src/index.js'
import { readFile, SYSTEM_PROMPT, TASK, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** What `run` reports: the common loop report, the SDK's own conversation and the last step's usage. */
export interface AiSdkLoopResult extends AgentLoopReport {
  /** Messages the SDK holds after the run (`[user, ...result.response.messages]`). */
  readonly sdkMessages: number
  /** Whether every tool result the SDK holds is the tool's whole output (the SDK's conversation is never compacted). */
  readonly sdkToolResultsIntact: boolean
  /** The last step's `usage.inputTokens` (the whole prompt, cache reads and writes included). */
  readonly lastInputTokens: number | null
}

const tools = {
  read_file: tool({
    description: 'Read a source file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => readFile(path),
  }),
}

export async function run(options: AgentLoopOptions): Promise<AiSdkLoopResult> {
  const anthropic = createAnthropic({ baseURL: `${options.baseURL}/v1`, apiKey: options.apiKey ?? 'sk-ant-local-test' })
  const logger = memoryLogger()
  const hooks = makeMittHooks()
  let compactions = 0
  hooks.register('context:compaction', () => {
    compactions += 1
  })
  const context = new ContextManager({}, { format: 'ai-sdk', logger, hooks })
  const tokenBudget = options.tokenBudget ?? 6_000
  const messages: ModelMessage[] = [{ role: 'user', content: TASK }]
  const result = await generateText({
    model: anthropic(options.model ?? 'claude-sonnet-4-5'),
    system: SYSTEM_PROMPT,
    messages,
    tools,
    maxRetries: 0,
    stopWhen: stepCountIs(options.maxRequests ?? 20),
    ...makeContextSettings(context, { tokenBudget }),
  })
  const conversation = [...messages, ...result.response.messages]
  const results = conversation.flatMap((message) => (message.role === 'tool' ? message.content : []))
  const calls = new Map(conversation.flatMap((message) => (message.role === 'assistant' && Array.isArray(message.content) ? message.content : [])).flatMap((part) => (part.type === 'tool-call' ? [[part.toolCallId, (part.input as { path: string }).path] as const] : [])))
  await context.getMessagesForRequest({ tokenBudget })
  return {
    requests: result.steps.length,
    finalText: result.text,
    historyMessages: (await context.getMessages()).length,
    compactions,
    lastMeasuredTokens: context.lastTokenMeterStats?.measured_tokens ?? null,
    cacheAggregates: context.lastTokenMeterStats?.cache_aggregates ?? null,
    warnings: logger.messages('warning'),
    sdkMessages: conversation.length,
    sdkToolResultsIntact:
      results.length > 0 &&
      results.every((part) => part.type === 'tool-result' && part.output.type === 'text' && part.output.value === readFile(calls.get(part.toolCallId) ?? '')),
    lastInputTokens: result.usage.inputTokens ?? null,
  }
}
