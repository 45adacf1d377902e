/**
 * Effects: what the core asks the shell to do, as plain data (JSON-serializable, comparable with
 * `toEqual`). Effects with an answer carry an id or path; the answer comes back as an event.
 */

import type { ContextLengthDetails } from './errors.js'

/**
 * Emit a hook event with the contract's name and payload (SPEC 9). A failing handler is logged by
 * the shell, never thrown to the caller.
 *
 * @example
 * const effect: EmitHook = { type: 'emit_hook', name: 'context:post_summarize', data: { summary_length: 812 } }
 */
export interface EmitHook {
  readonly type: 'emit_hook'
  readonly name: string
  readonly data: unknown
}

/**
 * Log a line; `level` is `debug`, `info` or `warning`. Wording is not part of the contract, except
 * the substrings SPEC 3 requires in warnings (e.g. `unknown token_meter`).
 *
 * @example
 * const effect: Log = { type: 'log', level: 'warning', message: `context-simple: unknown token_meter 'tokens'; falling back to "estimate" (expected "estimate", "actual" or "hybrid")` }
 */
export interface Log {
  readonly type: 'log'
  readonly level: 'debug' | 'info' | 'warning'
  readonly message: string
  /** Logged once per manager (a problem every later request finds again, such as a `provider_rules` warning). */
  readonly once?: boolean
}

/**
 * Write the full original tool result `content` (UTF-8) to `path` inside `directory`
 * (SPEC 11.5). Answered by `spill_written` or `spill_failed`.
 *
 * @example
 * const effect: WriteSpill = { type: 'write_spill', directory: '/tmp/spill', path: '/tmp/spill/tool-result-000004-ba7816bf8f01cfea.txt', content: 'abc' }
 */
export interface WriteSpill {
  readonly type: 'write_spill'
  readonly directory: string
  readonly path: string
  readonly content: string
}

/**
 * Ask the summarizer to summarize `transcript` (SPEC 12.3). `prompt` is the default prompt;
 * `promptPath`, when set, names a file whose text replaces it (read by the runner). `seqs` are
 * the `_seq` values of the summarized messages. `model` is
 * null for the provider default; `timeoutSeconds` bounds the call (seconds). `messageCount` is the payload of
 * `context:pre_summarize`. Answered by `summary_call_started` then `summary_completed` or
 * `summary_failed` with the same `id`. `id` is `summary-<n>` from the state's counter.
 *
 * @example
 * const effect: RequestSummary = {
 *   type: 'request_summary', id: 'summary-1', seqs: [0, 1], messageCount: 2, transcript: '[user]: hi\n\n[assistant]: hello',
 *   prompt: DEFAULT_SUMMARY_PROMPT, promptPath: null, model: null, timeoutSeconds: 30,
 * }
 */
export interface RequestSummary {
  readonly type: 'request_summary'
  readonly id: string
  readonly seqs: ReadonlyArray<number>
  readonly messageCount: number
  readonly transcript: string
  readonly prompt: string
  readonly promptPath: string | null
  readonly model: string | null
  readonly timeoutSeconds: number
}

/**
 * Abandon summary request `id` (clear / set_messages, SPEC 17.6); any later answer is ignored.
 *
 * @example
 * const effect: CancelSummary = { type: 'cancel_summary', id: 'summary-1' }
 */
export interface CancelSummary {
  readonly type: 'cancel_summary'
  readonly id: string
}

/**
 * Fail the current request with a typed error, one shape per error class: the worth-the-rebuild
 * fail-loud error of SPEC 14.4 (`CompactionSkipLimitError`) or, under `strict_fit`, a view over
 * the budget (`ContextLengthError` with `details`, tokens), or a view `provider_rules: "refuse"`
 * refuses (`InvalidMessageError` with the view path `field`). The shell throws the class its table
 * maps `name` to (src/shell/raised-errors.ts) with this `message`; the step that carries it has no view.
 *
 * @example
 * const effect: RaiseError = { type: 'raise_error', name: 'CompactionSkipLimitError', message: 'context-simple: compact_clear_at_least=20000 could not be satisfied 3 consecutive times (cap: 3). …' }
 */
export type RaiseError =
  | { readonly type: 'raise_error'; readonly name: 'CompactionSkipLimitError'; readonly message: string; readonly details?: undefined }
  | { readonly type: 'raise_error'; readonly name: 'ContextLengthError'; readonly message: string; readonly details: ContextLengthDetails }
  /** `provider_rules: "refuse"` (docs/formats.md): `field` the view path, `message` what is wrong and the fix. */
  | { readonly type: 'raise_error'; readonly name: 'InvalidMessageError'; readonly message: string; readonly field: string; readonly details?: undefined }

/**
 * Every effect the core produces, tagged by `type`; plain data that survives `JSON.stringify`.
 *
 * @example
 * const effects: ReadonlyArray<Effect> = [{ type: 'cancel_summary', id: 'summary-1' }, { type: 'log', level: 'debug', message: 'hi' }]
 */
export type Effect = EmitHook | Log | WriteSpill | RequestSummary | CancelSummary | RaiseError
