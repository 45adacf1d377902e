/**
 * Example: embedding `ContextManager` in an agent loop. Adds a short tool-heavy conversation,
 * asks for a view under a small budget so compaction fires, feeds the provider's usage back and
 * reads the meter and compaction statistics. See docs/embedding.md.
 */
import { ContextManager, fixedClock, makeMittHooks, memoryLogger, type Message } from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface EmbeddingResult {
  readonly historyMessages: number
  readonly viewMessages: number
  readonly viewRoles: ReadonlyArray<string>
  readonly noticeAtTail: boolean
  readonly truncatedInView: number
  readonly firstTruncatedContent: string | null
  readonly strategyLevel: number | null
  readonly secondViewSameAsFirst: boolean
  readonly hookEvents: ReadonlyArray<string>
  readonly usedTokensBeforeUsage: number | null
  readonly measuredTokensAfterUsage: number | null
  readonly budget: number | null
}

const toolCall = (id: string, path: string): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }],
})

const toolResult = (id: string, lines: number): Message => ({
  role: 'tool',
  tool_call_id: id,
  content: Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(4)} | const value${i} = compute(${i})`).join('\n'),
})

export async function run(): Promise<EmbeddingResult> {
  // A hook bus to watch the contract's events; a fixed clock and a memory logger keep it quiet and repeatable.
  const hooks = makeMittHooks()
  const hookEvents: string[] = []
  for (const name of ['context:token_meter', 'context:compaction', 'context:compaction-skipped'] as const) {
    hooks.register(name, (event) => {
      hookEvents.push(event)
    })
  }
  const context = new ContextManager(
    { target_usage: 0.7, tool_result_budget_tokens: 40, tool_result_shape: 'head_tail', protected_tool_results: 1 },
    { hooks, clock: fixedClock('2026-01-01T00:00:00.000+00:00'), logger: memoryLogger() },
  )

  await context.addMessage({ role: 'system', content: 'You are a careful coding agent.' })
  await context.addMessage({ role: 'user', content: 'Find where the parser loses the last token and fix it.' })
  for (const [i, path] of ['src/parser.ts', 'src/lexer.ts', 'src/token.ts', 'test/parser.test.ts'].entries()) {
    await context.addMessage(toolCall(`call_${i}`, path))
    await context.addMessage(toolResult(`call_${i}`, 60))
  }
  await context.addMessage({ role: 'assistant', content: 'The lexer drops the final token when the input has no trailing newline.' })
  await context.addMessage({ role: 'user', content: 'Good, patch the lexer and rerun the tests.' })

  // Before every model call: a view that fits the budget (tokens). 3,400 minus the 800-token notice
  // reserve leaves an effective budget of 2,600; the history (~2,650 tokens) is over 92 % of it, so
  // compaction fires and truncates the two oldest tool results to reach the 70 % target.
  const view = await context.getMessagesForRequest({ tokenBudget: 3_400 })
  const usedTokensBeforeUsage = context.lastTokenMeterStats?.used_tokens ?? null

  // After the model call: the provider's usage anchors the meter (input_tokens + cache_write_tokens).
  await context.onLlmResponse({ usage: { input_tokens: 2_900, output_tokens: 120, cache_read_tokens: 2_000, cache_write_tokens: 100 } })
  // The next request re-applies the same (sticky) decisions: same view, no new compaction event.
  const again = await context.getMessagesForRequest({ tokenBudget: 3_400 })

  const history = await context.getMessages()
  const last = view[view.length - 1]
  const lastMetadata = (last?.metadata ?? {}) as Record<string, unknown>
  return {
    historyMessages: history.length,
    viewMessages: view.length,
    viewRoles: view.map((message) => String(message.role)),
    noticeAtTail: lastMetadata.source === 'context-compaction' && lastMetadata.ephemeral === true,
    truncatedInView: view.filter((message) => message._truncated === true).length,
    firstTruncatedContent: String(view.find((message) => message._truncated === true)?.content ?? '') || null,
    strategyLevel: context.lastCompactionStats?.strategy_level ?? null,
    secondViewSameAsFirst: JSON.stringify(again) === JSON.stringify(view),
    hookEvents,
    usedTokensBeforeUsage,
    measuredTokensAfterUsage: context.lastTokenMeterStats?.measured_tokens ?? null,
    budget: context.lastTokenMeterStats?.budget ?? null,
  }
}
