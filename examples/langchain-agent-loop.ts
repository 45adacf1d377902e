/**
 * Example: a LangChain.js v1 agent (`createAgent` of `langchain`, the chat model
 * `ChatAnthropic` of `@langchain/anthropic`) with the library's middleware. The agent runs its own
 * loop (model call, tools, model call, ...); before every model call the middleware brings a
 * manager in the `openai-chat` format up to the agent's messages and hands the model the view,
 * after it the answer's `usage_metadata` goes to the meter. The agent's own message list is never
 * rewritten: `run` checks it after every step. `test/framework-loops.test.ts` runs it against a
 * local fake server that checks every request against the Anthropic rules; point `baseURL` at the
 * real API to run it for real.
 *
 * `middleware: 'none'` runs the same loop without it, `'trim'` with LangChain's own answer
 * (`trimMessages` in a `wrapModelCall` keeping the last `tokenBudget` tokens as LangChain counts
 * them, `countTokensApproximately`), and `'summarization'` with its `summarizationMiddleware`
 * (triggered at `tokenBudget` tokens, keeping the last 6 messages), for comparison.
 */
import { ChatAnthropic } from '@langchain/anthropic'
import { createAgent, createMiddleware, countTokensApproximately, summarizationMiddleware, tool, trimMessages, type BaseMessage } from 'langchain'
import { z } from 'zod'
import { makeContextLangChainMiddleware } from '../src/index.js'
import { SYSTEM_PROMPT, TASK, readFile, startLoop, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** What `run` reports beyond the common loop report. */
export interface LangChainLoopResult extends AgentLoopReport {
  /** The agent's final message list: its length, and whether every tool result in it is the tool's full output. */
  readonly stateMessages: number
  readonly stateToolResultsIntact: boolean
  /** True when every model call saw the previous call's state messages as the same objects, extended (never edited or shortened). */
  readonly stateOnlyGrew: boolean
  /** The last answer's `usage_metadata.input_tokens` (LangChain: fresh + cache read + cache write). */
  readonly lastInputTokens: number | null
  /** The sum over the answers of `input_token_details.cache_read` and `.cache_creation`. */
  readonly cacheReadTokens: number
  readonly cacheCreationTokens: number
}

/** Options of the LangChain loop: the common ones and which middleware runs (default the library's). */
export interface LangChainLoopOptions extends AgentLoopOptions {
  readonly middleware?: 'context-simple' | 'trim' | 'summarization' | 'none'
  /** Where `summarizationMiddleware`'s own model calls go (default `baseURL`). */
  readonly summarizerBaseURL?: string
}

export async function run(options: LangChainLoopOptions): Promise<LangChainLoopResult> {
  // The manager: the common loop setup's counters, in the openai-chat format the middleware needs.
  // startLoop adds the system prompt and the task; the agent gives both itself, so clear them:
  // the middleware's first call replaces the history with the agent's (system first).
  const { context, tokenBudget, report } = await startLoop('openai-chat', options)
  await context.clear()

  const readFileTool = tool(async ({ path }: { path: string }) => readFile(path), {
    name: 'read_file',
    description: 'Read a source file',
    schema: z.object({ path: z.string() }),
  })
  const model = new ChatAnthropic({ model: options.model ?? 'claude-opus-4-6', anthropicApiUrl: options.baseURL, apiKey: options.apiKey ?? 'sk-ant-local-test', maxRetries: 0, maxTokens: 1024 })

  // A watcher that sees the agent's own messages at every model call (outermost: before any
  // change), to check they only ever grow, and the answers' usage.
  let previous: ReadonlyArray<BaseMessage> = []
  let stateOnlyGrew = true
  let requests = 0
  let lastInputTokens: number | null = null
  let cacheReadTokens = 0
  let cacheCreationTokens = 0
  const watcher = createMiddleware({
    name: 'StateWatcher',
    wrapModelCall: async (request, handler) => {
      const messages = request.state.messages
      if (messages.length < previous.length || previous.some((message, index) => messages[index] !== message)) stateOnlyGrew = false
      previous = [...messages]
      const answer = await handler(request)
      requests += 1
      lastInputTokens = answer.usage_metadata?.input_tokens ?? null
      cacheReadTokens += answer.usage_metadata?.input_token_details?.cache_read ?? 0
      cacheCreationTokens += answer.usage_metadata?.input_token_details?.cache_creation ?? 0
      return answer
    },
  })
  const trim = createMiddleware({
    name: 'TrimMessages',
    wrapModelCall: async (request, handler) =>
      handler({ ...request, messages: await trimMessages(request.messages, { maxTokens: tokenBudget, strategy: 'last', tokenCounter: countTokensApproximately, startOn: 'human', includeSystem: true }) }),
  })
  const summarizer = new ChatAnthropic({ model: options.model ?? 'claude-opus-4-6', anthropicApiUrl: options.summarizerBaseURL ?? options.baseURL, apiKey: options.apiKey ?? 'sk-ant-local-test', maxRetries: 0, maxTokens: 1024 })
  const middleware =
    options.middleware === 'none'
      ? [watcher]
      : options.middleware === 'trim'
        ? [watcher, trim]
        : options.middleware === 'summarization'
          ? [summarizationMiddleware({ model: summarizer, trigger: { tokens: tokenBudget }, keep: { messages: 6 } }), watcher]
          : [watcher, makeContextLangChainMiddleware(context, { tokenBudget })]

  const agent = createAgent({ model, tools: [readFileTool], systemPrompt: SYSTEM_PROMPT, middleware })
  let finalText: string | null = null
  let stateMessages = 0
  let stateToolResultsIntact = false
  try {
    const result = await agent.invoke({ messages: [{ role: 'user', content: TASK }] }, { recursionLimit: 2 * (options.maxRequests ?? 20) + 1 })
    const messages = result.messages
    stateMessages = messages.length
    const last = messages.at(-1)
    finalText = last === undefined ? null : typeof last.content === 'string' ? last.content : last.text
    const results = messages.filter((message) => message.type === 'tool')
    stateToolResultsIntact = results.length > 0 && results.every((message) => message.content === readFile(String(message.name === 'read_file' ? (findCall(messages, message) ?? '') : '')))
  } catch (error) {
    finalText = `failed: ${error instanceof Error ? error.message : String(error)}`
  }
  const common = await report({ requests, finalText })
  return { ...common, stateMessages, stateToolResultsIntact, stateOnlyGrew, lastInputTokens, cacheReadTokens, cacheCreationTokens }
}

/** The `path` argument of the call a tool message answers. */
const findCall = (messages: ReadonlyArray<BaseMessage>, result: BaseMessage): string | null => {
  const id = (result as BaseMessage & { readonly tool_call_id?: string }).tool_call_id
  for (const message of messages) {
    const calls = (message as BaseMessage & { readonly tool_calls?: ReadonlyArray<{ readonly id?: string; readonly args: Record<string, unknown> }> }).tool_calls ?? []
    for (const call of calls) if (call.id === id) return String(call.args.path)
  }
  return null
}
