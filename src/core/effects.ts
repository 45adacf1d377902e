/**
 * Effects: what the core asks the shell to do, as plain data (JSON-serializable, comparable with
 * `toEqual`). Effects with an answer carry an id or path; the answer comes back as an event.
 */

/** Emit a hook event with the contract's name and payload (SPEC 9). */
export interface EmitHook {
  readonly type: 'emit_hook'
  readonly name: string
  readonly data: unknown
}

/** Log a line; `level` is `debug`, `info` or `warning`. Wording is not part of the contract. */
export interface Log {
  readonly type: 'log'
  readonly level: 'debug' | 'info' | 'warning'
  readonly message: string
}

/**
 * Write the full original tool result `content` (UTF-8) to `path` inside `directory`
 * (SPEC 11.5). Answered by `spill_written` or `spill_failed`.
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
 * null for the provider default; `timeoutSeconds` bounds the call. `messageCount` is the payload of
 * `context:pre_summarize`. Answered by `summary_call_started` then `summary_completed` or
 * `summary_failed` with the same `id`.
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

/** Abandon summary request `id` (clear / set_messages); any later answer is ignored. */
export interface CancelSummary {
  readonly type: 'cancel_summary'
  readonly id: string
}

/**
 * Fail the current request with the error the contract requires (the worth-the-rebuild
 * fail-loud error of SPEC 14.4). The shell throws it as a typed error.
 */
export interface RaiseError {
  readonly type: 'raise_error'
  readonly name: 'CompactionSkipLimitError'
  readonly message: string
}

/** Every effect the core produces. */
export type Effect = EmitHook | Log | WriteSpill | RequestSummary | CancelSummary | RaiseError
