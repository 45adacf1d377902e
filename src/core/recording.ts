/**
 * Recordings (the input of replay) and replay output lines, as plain data. The format is fixed
 * by `shared/RECORDING.md`; decoding from JSON Lines lives in `codecs.ts`.
 */
import type { Message } from './message.js'

/** The provider-reported usage of one `llm:response`, as RECORDING.md shapes it (tokens). */
export interface RecordedUsage {
  readonly input_tokens: number
  readonly output_tokens?: number
  readonly cache_read_tokens?: number
  readonly cache_write_tokens?: number
  readonly [key: string]: unknown
}

/** A provider's model window as recorded: `context_window` and `max_output_tokens` in tokens. */
export interface RecordedProvider {
  readonly context_window?: unknown
  readonly max_output_tokens?: unknown
}

/** One operation of a recording, applied in order to one context manager (RECORDING.md). */
export type RecordingOp =
  | { readonly op: 'add_message'; readonly message: Message }
  | { readonly op: 'llm_response'; readonly usage: unknown }
  | { readonly op: 'get_messages_for_request'; readonly token_budget?: number | null; readonly provider?: RecordedProvider | null }
  | { readonly op: 'set_messages'; readonly messages: ReadonlyArray<Message> }
  | { readonly op: 'clear' }
  | { readonly op: 'set_system_prompt'; readonly content: string }
  | { readonly op: 'summary_result'; readonly text?: string; readonly error?: string }

/**
 * A whole recording: configuration (contract snake_case keys, raw, decoded at replay), the fixed
 * clock value `now` (`YYYY-MM-DDTHH:MM:SS.mmm+00:00`), the operations, and for files that hold
 * several sessions the session name (`<task_id>-t<trial>`).
 */
export interface Recording {
  readonly config: Readonly<Record<string, unknown>>
  readonly now: string
  readonly ops: ReadonlyArray<RecordingOp>
  readonly session?: string
}

/** The module's default replay clock value (RECORDING.md). */
export const DEFAULT_REPLAY_NOW = '2026-01-01T00:00:00.000+00:00'

/** One hook event as reported in replay output: its contract name and payload. */
export interface ReplayEvent {
  readonly name: string
  readonly data: unknown
}

/**
 * One replay output line, produced per `get_messages_for_request` (RECORDING.md). `view` is
 * `null` and `error` is set when the request raised the fail-loud error of SPEC 14.4.
 */
export interface ReplayOutputLine {
  readonly session?: string
  readonly op_index: number
  readonly view: ReadonlyArray<Message> | null
  readonly events: ReadonlyArray<ReplayEvent>
  readonly token_meter_stats: unknown
  readonly compaction_stats: unknown
  readonly error?: { readonly message: string }
}
