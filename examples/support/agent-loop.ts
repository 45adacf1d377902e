/**
 * What the SDK agent-loop examples (examples/*-agent-loop.ts) share: their options, the task and
 * its tool, a manager wired to a memory logger and a compaction counter, and the common part of
 * the report each `run` returns. The SDK calls stay in the examples.
 */
import { ContextManager, makeMittHooks, memoryLogger, type MessageFormat } from '../../src/index.js'

/** Where to send requests, and the conversation's size (`tokenBudget` in tokens, default 6,000). */
export interface AgentLoopOptions {
  readonly baseURL: string
  readonly apiKey?: string
  readonly model?: string
  readonly tokenBudget?: number
  readonly maxRequests?: number
}

/**
 * What every loop reports; `test/sdk-loops.test.ts` asserts on it. `lastMeasuredTokens` is the
 * token meter's `measured_tokens` after the loop (the provider's last usage reading, in tokens);
 * `compactions` counts `context:compaction` hook events (one per compaction pass).
 */
export interface AgentLoopReport {
  readonly requests: number
  readonly finalText: string | null
  readonly historyMessages: number
  readonly compactions: number
  readonly lastMeasuredTokens: number | null
  readonly cacheAggregates: unknown
  readonly warnings: ReadonlyArray<string>
}

/** The system prompt of every loop. */
export const SYSTEM_PROMPT = 'You are a careful coding agent. Read files before answering.'

/** The user's task of every loop: it makes the scripted model read files. */
export const TASK = 'Read the parser sources and tell me where the tokenizer is built.'

/** The JSON schema of the `read_file` tool's arguments (`{ path }`). */
export const READ_FILE_PARAMETERS = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }

/** The tool: a long file listing, so that old results get truncated as the conversation grows. */
export const readFile = (path: string): string =>
  Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${i} = compute(${i})`).join('\n')

/** A loop's manager in `format`, with the system prompt and the task added, and its counters. */
export interface LoopContext<F extends MessageFormat> {
  readonly context: ContextManager<F>
  readonly tokenBudget: number
  /** The loop's report once it has ended: one more request view is taken, then the stats read. */
  readonly report: (loop: { readonly requests: number; readonly finalText: string | null }) => Promise<AgentLoopReport>
}

/**
 * Starts a loop: a manager in `format` with a memory logger (its warnings are reported) and a
 * `context:compaction` counter; each compaction pass emits the event once.
 */
export const startLoop = async <F extends MessageFormat>(format: F, options: AgentLoopOptions): Promise<LoopContext<F>> => {
  const logger = memoryLogger()
  const hooks = makeMittHooks()
  let compactions = 0
  hooks.register('context:compaction', () => {
    compactions += 1
  })
  const context = new ContextManager<F>({}, { format, logger, hooks })
  const tokenBudget = options.tokenBudget ?? 6_000
  await context.addMessage({ role: 'system', content: SYSTEM_PROMPT })
  await context.addMessage({ role: 'user', content: TASK })
  const report = async (loop: { readonly requests: number; readonly finalText: string | null }): Promise<AgentLoopReport> => {
    await context.getMessagesForRequest({ tokenBudget })
    return {
      ...loop,
      historyMessages: (await context.getMessages()).length,
      compactions,
      lastMeasuredTokens: context.lastTokenMeterStats?.measured_tokens ?? null,
      cacheAggregates: context.lastTokenMeterStats?.cache_aggregates ?? null,
      warnings: logger.messages('warning'),
    }
  }
  return { context, tokenBudget, report }
}
