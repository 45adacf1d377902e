/**
 * Events: the facts the shell feeds the core, in the order they happened. Time and ids arrive as
 * event fields; the core never reads a clock.
 */
import type { Message } from './message.js'

/** `add_message(message)` happened at `timestamp` (module format `YYYY-MM-DDTHH:MM:SS.mmm+00:00`). */
export interface MessageAdded {
  readonly type: 'message_added'
  readonly message: Message
  readonly timestamp: string
}

/** `set_messages(messages)` replaced the history (session resume, SPEC 2.4). */
export interface MessagesReplaced {
  readonly type: 'messages_replaced'
  readonly messages: ReadonlyArray<Message>
}

/** `clear()` emptied the history (SPEC 2.5). */
export interface HistoryCleared {
  readonly type: 'history_cleared'
}

/**
 * The model window a provider reported, in tokens, from `get_model_info()` or
 * `get_info().defaults` (SPEC 4 step 2): the shell reads the provider, the core does the arithmetic.
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
 * stamped on a summary message swapped in during this request.
 */
export interface RequestReceived {
  readonly type: 'request_received'
  readonly tokenBudget: number | null
  readonly provider: ProviderWindow | null
  readonly providerGiven: boolean
  readonly systemPrompt: string | null
  readonly now: string
}

/** An `llm:response` hook event was observed; `data` is its raw payload (SPEC 10.2, 17.6). */
export interface UsageObserved {
  readonly type: 'usage_observed'
  readonly data: unknown
}

/** The summarizer call of request `id` is starting (the runner is about to call the model). */
export interface SummaryCallStarted {
  readonly type: 'summary_call_started'
  readonly id: string
}

/** The summarizer answered request `id` with `text`. */
export interface SummaryCompleted {
  readonly type: 'summary_completed'
  readonly id: string
  readonly text: string
}

/** The summarizer call of request `id` failed (exception, timeout or no provider). */
export interface SummaryFailed {
  readonly type: 'summary_failed'
  readonly id: string
  readonly error: string
}

/** The spill file at `path` exists with the full content (written now or earlier). */
export interface SpillWritten {
  readonly type: 'spill_written'
  readonly path: string
}

/** Writing the spill file at `path` failed; it is retried on a later request (SPEC 11.5). */
export interface SpillFailed {
  readonly type: 'spill_failed'
  readonly path: string
  readonly error: string
}

/** Every event the core reduces. */
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
