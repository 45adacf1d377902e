/**
 * Recordings (the input of replay) and replay output lines, as plain data. The format is fixed
 * by `docs/recording-format.md`; decoding from JSON Lines lives in `src/shell/recording-file.ts`.
 */
import type { Message } from '../messages/message.js'
import type { ProviderFormat } from '../formats/carrier.js'

/**
 * The provider-reported usage of one `llm:response`, as docs/recording-format.md shapes it (tokens;
 * `cache_read_tokens` is included in `input_tokens`, SPEC 10.2).
 *
 * @example
 * const usage: RecordedUsage = { input_tokens: 11518, output_tokens: 13, cache_read_tokens: 11515, cache_write_tokens: 13835 }
 */
export interface RecordedUsage {
  readonly input_tokens: number
  readonly output_tokens?: number
  readonly cache_read_tokens?: number
  readonly cache_write_tokens?: number
  readonly [key: string]: unknown
}

/**
 * A provider's model window as recorded: `context_window` and `max_output_tokens` in tokens.
 *
 * @example
 * const provider: RecordedProvider = { context_window: 128000, max_output_tokens: 16384 }
 */
export interface RecordedProvider {
  readonly context_window?: unknown
  readonly max_output_tokens?: unknown
}

/**
 * One operation of a recording, applied in order to one context manager (docs/recording-format.md).
 * `token_budget` is in tokens; `summary_result` answers the in-flight summary request;
 * `spill_result` (SPEC 17.9) follows the op whose spill write at `path` did not succeed (`ok`
 * false, `error` the reason); without one a write is taken as written.
 *
 * @example
 * const op: RecordingOp = { op: 'get_messages_for_request', token_budget: 10000 }
 */
export type RecordingOp =
  | { readonly op: 'add_message'; readonly message: Message }
  | { readonly op: 'llm_response'; readonly usage: unknown }
  | { readonly op: 'get_messages_for_request'; readonly token_budget?: number | null; readonly provider?: RecordedProvider | null }
  | { readonly op: 'set_messages'; readonly messages: ReadonlyArray<Message> }
  | { readonly op: 'clear' }
  | { readonly op: 'set_system_prompt'; readonly content: string }
  | { readonly op: 'summary_result'; readonly text?: string; readonly error?: string }
  | { readonly op: 'spill_result'; readonly path: string; readonly ok: boolean; readonly error?: string }

/**
 * A whole recording: configuration (contract snake_case keys, raw, decoded at replay), the fixed
 * clock value `now` (`YYYY-MM-DDTHH:MM:SS.mmm+00:00`), the operations, and for files that hold
 * several sessions the session name (`<task_id>-t<trial>`).
 *
 * @example
 * const recording: Recording = { config: { max_tokens: 3000 }, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }] }
 */
export interface Recording {
  readonly config: Readonly<Record<string, unknown>>
  readonly now: string
  readonly ops: ReadonlyArray<RecordingOp>
  readonly session?: string
  /**
   * The model the recorded agent talked to, when the source names it (imported Claude Code
   * sessions: the most used `message.model` of the main chain). Not part of the recording file
   * format; replay's cost model uses it unless `--model` is given.
   */
  readonly model?: string
  /**
   * The message format of the recorded manager (docs/formats.md): absent for the contract shape.
   * Replay stores the recorded messages through that format (`iterateReplay` uses it unless its
   * deps name a format). Header field `format`.
   */
  readonly format?: ProviderFormat
  /**
   * What an importer wants the reader to know about this recording (a Codex rollout without
   * usage or window replays at the configured budget, say). Not part of the recording file
   * format; the CLI prints each on stderr.
   */
  readonly notices?: ReadonlyArray<string>
}

/**
 * The module's default replay clock value (docs/recording-format.md), in the module timestamp format.
 *
 * @example
 * DEFAULT_REPLAY_NOW // => '2026-01-01T00:00:00.000+00:00'
 */
export const DEFAULT_REPLAY_NOW = '2026-01-01T00:00:00.000+00:00'

/**
 * One hook event as reported in replay output: its contract name and payload (SPEC 9).
 *
 * @example
 * const event: ReplayEvent = { name: 'context:post_summarize', data: { summary_length: 812 } }
 */
export interface ReplayEvent {
  readonly name: string
  readonly data: unknown
}

/**
 * One replay output line, produced per `get_messages_for_request` (docs/recording-format.md). `view` is
 * `null` and `error` is set when the request raised the fail-loud error of SPEC 14.4. `op_index`
 * is the 0-based index of the request op; `events` are the hook events since the previous line.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const line: ReplayOutputLine = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }).lines[0]
 * line.op_index // => 1
 * line.view // => [{ role: 'user', content: 'hi', metadata: { timestamp: DEFAULT_REPLAY_NOW } }]
 * line.compaction_stats // => null
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
