/**
 * Events: the facts the shell feeds the core, in the order they happened. Time and ids arrive as
 * event fields; the core never reads a clock.
 */
import type { Message, Messages } from './messages/message.js'
import type { MessageFormat } from './formats/carrier.js'

/**
 * The shape a caller asked its view in: the format (`contract` or a provider format) and whether
 * interrupted tool turns are repaired (the manager option `repair`, docs/formats.md).
 *
 * @example
 * const shape: ViewShape = { format: 'anthropic', repair: false }
 */
export interface ViewShape {
  readonly format: MessageFormat
  readonly repair: boolean
}

/**
 * `add_message(message)` happened at `timestamp` (module format `YYYY-MM-DDTHH:MM:SS.mmm+00:00`,
 * SPEC 1.4). The message is stored as given plus timestamp and `_seq`; any shape is accepted.
 *
 * @example
 * const event: MessageAdded = { type: 'message_added', message: { role: 'user', content: 'hi' }, timestamp: '2026-02-06T10:00:00.123+00:00' }
 */
export interface MessageAdded {
  readonly type: 'message_added'
  readonly message: Message
  readonly timestamp: string
}

/**
 * `set_messages(messages)` replaced the history (session resume, SPEC 2.4): renumbered `_seq`
 * 0..n−1, no timestamps added.
 *
 * @example
 * const event: MessagesReplaced = { type: 'messages_replaced', messages: [{ role: 'user', content: 'hi' }] }
 */
export interface MessagesReplaced {
  readonly type: 'messages_replaced'
  readonly messages: ReadonlyArray<Message>
}

/**
 * `clear()` emptied the history (SPEC 2.5).
 *
 * @example
 * const event: HistoryCleared = { type: 'history_cleared' }
 */
export interface HistoryCleared {
  readonly type: 'history_cleared'
}

/**
 * The model window a provider reported, in tokens, from `get_model_info()` or
 * `get_info().defaults` (SPEC 4 step 2): the shell reads the provider, the core does the arithmetic.
 * Values are raw; only truthy numbers for both yield a provider-derived budget.
 *
 * @example
 * const window: ProviderWindow = { context_window: 200000, max_output_tokens: 64000 } // budget 163904 at the defaults
 */
export interface ProviderWindow {
  readonly context_window?: unknown
  readonly max_output_tokens?: unknown
}

/**
 * `get_messages_for_request` was called (SPEC 2.3). `tokenBudget` is the explicit budget in tokens
 * (null when not given); `provider` the window the shell read from the provider (null when none or
 * reading it failed); `providerGiven` whether a provider object was passed at all (the summary
 * strategy caches it); `systemPrompt` the factory's result (null in static mode); `now` the time,
 * stamped on a summary message swapped in during this request (module timestamp format).
 *
 * @example
 * const event: RequestReceived = { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now: '2026-02-06T10:00:00.123+00:00' }
 */
export interface RequestReceived {
  readonly type: 'request_received'
  readonly tokenBudget: number | null
  readonly provider: ProviderWindow | null
  readonly providerGiven: boolean
  readonly systemPrompt: string | null
  readonly now: string
  /**
   * The shape the caller wants its view in (docs/formats.md); with it the step's `output` is the
   * view in that shape (the finish stage, or the `spills_answered` event of a request that spilled).
   */
  readonly shape?: ViewShape
}

/**
 * An `llm:response` hook event was observed; `data` is its raw payload (SPEC 10.2, 17.6), whose
 * `usage` counts are tokens. A malformed payload is ignored with a warning, never thrown.
 *
 * @example
 * const event: UsageObserved = { type: 'usage_observed', data: { usage: { input_tokens: 1200, cache_write_tokens: 300 } } }
 */
export interface UsageObserved {
  readonly type: 'usage_observed'
  readonly data: unknown
}

/**
 * The summarizer call of request `id` is starting (the runner is about to call the model); the
 * core answers with `context:pre_summarize` (SPEC 12.3 step 4).
 *
 * @example
 * const event: SummaryCallStarted = { type: 'summary_call_started', id: 'summary-1' }
 */
export interface SummaryCallStarted {
  readonly type: 'summary_call_started'
  readonly id: string
}

/**
 * The summarizer answered request `id` with `text` (empty text counts as a failure, SPEC 12.3).
 *
 * @example
 * const event: SummaryCompleted = { type: 'summary_completed', id: 'summary-1', text: '## Current Task State\n...' }
 */
export interface SummaryCompleted {
  readonly type: 'summary_completed'
  readonly id: string
  readonly text: string
}

/**
 * The summarizer call of request `id` failed (exception, timeout or no provider); `error` is the
 * error text.
 *
 * @example
 * const event: SummaryFailed = { type: 'summary_failed', id: 'summary-1', error: 'summarization timed out after 30 s' }
 */
export interface SummaryFailed {
  readonly type: 'summary_failed'
  readonly id: string
  readonly error: string
}

/**
 * The spill file at `path` exists with the full content (written now or earlier); the path is
 * not requested again until `clear` empties the memo.
 *
 * @example
 * const event: SpillWritten = { type: 'spill_written', path: '/tmp/spill/tool-result-000004-ba7816bf8f01cfea.txt' }
 */
export interface SpillWritten {
  readonly type: 'spill_written'
  readonly path: string
}

/**
 * Writing the spill file at `path` failed; it is retried on a later request (SPEC 11.5). The core
 * logs `error` as a warning; the pointer text is unchanged.
 *
 * @example
 * const event: SpillFailed = { type: 'spill_failed', path: '/tmp/spill/tool-result-000004-ba7816bf8f01cfea.txt', error: 'EACCES: permission denied' }
 */
export interface SpillFailed {
  readonly type: 'spill_failed'
  readonly path: string
  readonly error: string
}

/**
 * The answers to the spill writes one call asked for, applied together at the end of that call
 * (SPEC 17.9: the call that spills waits for its writes): each answer as `spill_written` /
 * `spill_failed` would be, in order; then `view`, the view that call built (or undefined for a
 * call without one), comes back without the pointers to the paths that failed, so a failed write
 * leaves no pointer in that view. The shell's request job applies it; replay folds the same way.
 *
 * @example
 * const event: SpillsAnswered = { type: 'spills_answered', answers: [{ type: 'spill_failed', path: '/tmp/spill/a.txt', error: 'EACCES' }], view: [] }
 */
export interface SpillsAnswered {
  readonly type: 'spills_answered'
  readonly answers: ReadonlyArray<SpillWritten | SpillFailed>
  readonly view: Messages | undefined
  /** The shape the request asked its view in: the step's `output` is that view, in that shape. */
  readonly shape?: ViewShape
}

/**
 * Every event the core reduces, tagged by `type` (facts in the past tense).
 *
 * @example
 * const events: ReadonlyArray<Event> = [{ type: 'history_cleared' }, { type: 'summary_call_started', id: 'summary-1' }]
 */
export type Event =
  | MessageAdded
  | MessagesReplaced
  | HistoryCleared
  | RequestReceived
  | UsageObserved
  | SummaryCallStarted
  | SummaryCompleted
  | SummaryFailed
  | SpillWritten
  | SpillFailed
  | SpillsAnswered
