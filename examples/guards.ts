/**
 * Example: the production guards of issue 12 in an agent loop. A manager with a budget cap and
 * its provenance, strict fit, human anchors, notice hygiene and foreground usage; a newest tool
 * result too large for any view makes the request throw `ContextLengthError` instead of sending
 * an oversized view, and the loop recovers by raising its budget. See docs/configuration.md,
 * "Production guards".
 */
import { ContextLengthError, ContextManager, fixedClock, makeMittHooks, memoryLogger, type Message } from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface GuardsResult {
  readonly budgetEvents: ReadonlyArray<unknown>
  readonly errorName: string | null
  readonly errorFloorTokens: number | null
  readonly historyAfterError: number
  readonly viewAfterRetry: number
  readonly measuredTokens: number | null
  readonly observedOnly: number | null
}

export const run = async (): Promise<GuardsResult> => {
  const hooks = makeMittHooks()
  const budgetEvents: unknown[] = []
  hooks.register('context:budget', (_event, data) => {
    budgetEvents.push(data)
  })
  const manager = new ContextManager(
    {
      budget_cap_tokens: 150_000,
      budget_provenance: true,
      strict_fit: true,
      human_anchors: true,
      compaction_notice_repeat: 'standing',
      usage_intake: 'foreground',
    },
    { hooks, clock: fixedClock('2026-12-01T00:00:00Z'), logger: memoryLogger() },
  )
  const messages: Message[] = [
    { role: 'user', content: 'Summarise the build log.' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'log line\n'.repeat(20_000) }, // ~45,000 tokens
  ]
  for (const message of messages) await manager.addMessage(message)
  let errorName: string | null = null
  let errorFloorTokens: number | null = null
  try {
    // A 20,000-token view is asked for: the ~45,000-token newest result (protected) cannot fit.
    await manager.getMessagesForRequest({ tokenBudget: 20_000 })
  } catch (error) {
    if (!(error instanceof ContextLengthError)) throw error
    errorName = error.name
    errorFloorTokens = error.details.floor_tokens
  }
  const historyAfterError = (await manager.getMessages()).length
  // Retry against a provider reporting a 1M window: the cap makes the budget 150,000.
  const view = await manager.getMessagesForRequest({ provider: { getModelInfo: () => ({ contextWindow: 1_000_000, maxOutputTokens: 64_000 }) } })
  // The loop's own call is marked foreground; a title generator's is only observed.
  await manager.onLlmResponse({ usage: { input_tokens: 46_000, output_tokens: 200 }, foreground: true })
  await manager.onLlmResponse({ usage: { input_tokens: 30, output_tokens: 8 } })
  await manager.getMessagesForRequest({ provider: { getModelInfo: () => ({ contextWindow: 1_000_000, maxOutputTokens: 64_000 }) } })
  const stats = manager.lastTokenMeterStats
  return {
    budgetEvents,
    errorName,
    errorFloorTokens,
    historyAfterError,
    viewAfterRetry: view.length,
    measuredTokens: stats?.measured_tokens ?? null,
    observedOnly: stats?.usage_observed_only ?? null,
  }
}
