/**
 * Example: the summary strategy (`compaction_strategy: "summary"`) with a fake provider whose
 * `complete()` returns a summary. The first request starts a background summarization; once the
 * answer has arrived, a later request whose trigger fires swaps the summary in for the oldest
 * messages. See docs/embedding.md and docs/configuration.md.
 */
import { ContextManager, fixedClock, makeMittHooks, memoryLogger, type CompletionRequest, type Message, type Provider } from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface SummarizerResult {
  readonly summaryRequestedOnFirstRequest: boolean
  readonly firstViewHasSummary: boolean
  readonly providerCalls: number
  readonly requestRoles: ReadonlyArray<string>
  readonly transcriptStart: string
  readonly pendingAfterIdle: boolean
  readonly secondViewHasSummary: boolean
  readonly secondViewMessages: number
  readonly absorbed: number | null
  readonly summaryStored: boolean
  readonly hookEvents: ReadonlyArray<string>
}

const SUMMARY = '## User Requests & Decisions\n- Migrate the billing jobs to the new queue.\n\n## Current Task State\n- Jobs 0-3 migrated; job 4 in progress.'

export async function run(): Promise<SummarizerResult> {
  const hooks = makeMittHooks()
  const hookEvents: string[] = []
  for (const name of ['context:pre_summarize', 'context:post_summarize', 'context:compaction'] as const) {
    hooks.register(name, (event, data) => {
      hookEvents.push(`${event} ${JSON.stringify(data).slice(0, 40)}`)
    })
  }

  // The provider of the model requests. The summary strategy caches the latest one it is given and
  // calls its complete() off the request path: a system prompt and the transcript of the span.
  const requests: CompletionRequest[] = []
  const provider: Provider = {
    complete: async (request) => {
      requests.push(request)
      return { content: [{ type: 'text', text: SUMMARY }] }
    },
  }

  const context = new ContextManager(
    { compaction_strategy: 'summary', summary_trigger: 0.6, summarization_timeout_s: 10 },
    { hooks, clock: fixedClock('2026-01-01T00:00:00.000+00:00'), logger: memoryLogger() },
  )
  const history: Message[] = Array.from({ length: 12 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: i % 2 === 0 ? `Migrate billing job ${i / 2} to the new queue. ${'Details. '.repeat(20)}` : `Job ${(i - 1) / 2} migrated. ${'Log line. '.repeat(20)}`,
  }))
  for (const message of history) await context.addMessage(message)

  // Effective budget 1,100 (1,900 minus the 800-token notice reserve): usage is above
  // summary_trigger (60 %) but below compact_threshold (92 %), so a summary is requested and the
  // view is the plain history.
  const first = await context.getMessagesForRequest({ tokenBudget: 1_900, provider })
  const summaryRequestedOnFirstRequest = context.state.summary.inFlight !== null
  await context.idle() // the background summarization has finished and its answer is applied
  const pendingAfterIdle = context.state.summary.pending !== null

  // A tighter budget makes the trigger fire: the compaction pass swaps the finished summary in.
  const second = await context.getMessagesForRequest({ tokenBudget: 1_600, provider })
  const isSummary = (message: Message): boolean => String(message.content).startsWith('<system-reminder source="context-summary">')
  const stored = await context.getMessages()

  return {
    summaryRequestedOnFirstRequest,
    firstViewHasSummary: first.some(isSummary),
    providerCalls: requests.length,
    requestRoles: requests[0]?.messages.map((message) => message.role) ?? [],
    transcriptStart: requests[0]?.messages[1]?.content.slice(0, 30) ?? '',
    pendingAfterIdle,
    secondViewHasSummary: second.some(isSummary),
    secondViewMessages: second.length,
    absorbed: context.lastCompactionStats?.messages_absorbed_by_summary ?? null,
    summaryStored: stored.some((message) => (message.metadata as { type?: unknown }).type === 'context_summary'),
    hookEvents,
  }
}
