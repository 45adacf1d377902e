/**
 * Input format recognition (`--format auto`, docs/recording-format.md) and loading any supported input into
 * recordings.
 */
import * as t from 'io-ts'
import type { Recording } from '../../core/replay/recording.js'
import { RecordingFormatError, describeValue, iterateJsonLines, parseRecordingJsonl } from '../recording-file.js'
import type { ModelTable, ModelWindow } from '../../core/economics/prices.js'
import { importClaudeCodeSessions } from './claude-code.js'
import { CODEX_LINE_TYPES, importCodexRollout } from './codex.js'
import { importOpenAiChatTrajectories } from './openai-chat.js'

/**
 * A format `loadRecordings` reads.
 *
 * @example
 * const format: InputFormat = 'claude-code'
 */
export type InputFormat = 'recording' | 'claude-code' | 'openai-chat' | 'codex'

/**
 * A format choice (`--format`): a known format or `auto` (recognised by `detectFormat`).
 *
 * @example
 * const choice: InputFormatChoice = 'auto'
 */
export type InputFormatChoice = InputFormat | 'auto'

/**
 * The `--format` choices, `auto` first.
 *
 * @example
 * INPUT_FORMAT_CHOICES.includes('openai-chat') // => true
 */
export const INPUT_FORMAT_CHOICES: ReadonlyArray<InputFormatChoice> = ['auto', 'recording', 'claude-code', 'openai-chat', 'codex']

const NONE_MATCHES =
  'not a recognised format: expected a recording (JSON Lines with a {"type":"recording"} header or {"op":...} lines), ' +
  'a Claude Code session (JSON Lines events with "type", "sessionId", "message"), ' +
  'a Codex rollout (JSON Lines {timestamp, type, payload} with type session_meta, response_item, event_msg, turn_context or compacted) or ' +
  'OpenAI chat trajectories (a JSON array of {task_id, trial, traj})'

/** Recognises one JSON Lines line; `undefined` when the line alone does not decide. */
const classifyLine = (value: unknown): InputFormat | undefined => {
  if (!t.UnknownRecord.is(value)) return undefined
  if (value.type === 'recording' || typeof value.op === 'string') return 'recording'
  if (typeof value.type === 'string' && CODEX_LINE_TYPES.has(value.type) && 'payload' in value && !('sessionId' in value)) return 'codex'
  if (typeof value.type === 'string' && (typeof value.sessionId === 'string' || t.UnknownRecord.is(value.message))) {
    return 'claude-code'
  }
  return undefined
}

/**
 * Recognises the format of an input text (docs/recording-format.md `--format auto`):
 * - `openai-chat`: a JSON array whose first item is an object holding `traj`;
 * - `recording`: JSON Lines whose first deciding line is the `{"type":"recording"}` header or an
 *   object with a string `op`;
 * - `claude-code`: JSON Lines whose first deciding line is an event with a string `type` and a
 *   `sessionId` or an object `message`;
 * - `codex`: JSON Lines whose first deciding line is a Codex rollout line: a `type` among
 *   `session_meta`, `response_item`, `event_msg`, `turn_context`, `compacted`, with a `payload`.
 * Lines that decide nothing (a `file-history-snapshot` or `summary` event, say) are passed over.
 *
 * Throws `RecordingFormatError` for an empty text, a line that is not JSON before any deciding
 * line (with its line number), and a text that matches no format.
 *
 * @example
 * detectFormat('{"op":"clear"}\n') // => 'recording'
 * detectFormat('[{"task_id":0,"trial":0,"traj":[]}]') // => 'openai-chat'
 * detectFormat('{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}') // => 'claude-code'
 * detectFormat('{"timestamp":"2025-10-06T20:15:35.486Z","type":"session_meta","payload":{"id":"s"}}') // => 'codex'
 */
export const detectFormat = (text: string, sourceName = 'input'): InputFormat => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const start = body.trimStart()
  if (start === '') throw new RecordingFormatError(sourceName, undefined, 'empty file: nothing to read')
  if (start.startsWith('[')) {
    let document: unknown
    try {
      document = JSON.parse(body)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new RecordingFormatError(sourceName, undefined, `starts like a JSON array but is not valid JSON (${reason})`)
    }
    if (Array.isArray(document) && document.length > 0 && t.UnknownRecord.is(document[0]) && 'traj' in document[0]) {
      return 'openai-chat'
    }
    throw new RecordingFormatError(
      sourceName,
      undefined,
      `${NONE_MATCHES}; got a JSON array whose first item is ${describeValue(Array.isArray(document) ? document[0] : document)}`,
    )
  }
  if (start.startsWith('{') && start.includes('\n') && isWholeJsonObject(start)) {
    // one JSON object over several lines (a pretty-printed file) is not JSON Lines
    throw new RecordingFormatError(sourceName, undefined, `${NONE_MATCHES}; got one JSON object spread over several lines`)
  }
  for (const { value } of iterateJsonLines(body, sourceName)) {
    const format = classifyLine(value)
    if (format !== undefined) return format
  }
  throw new RecordingFormatError(sourceName, undefined, NONE_MATCHES)
}

/** Whether the whole text (which starts with `{`) is one JSON object while its first line alone is not JSON. */
const isWholeJsonObject = (text: string): boolean => {
  const firstLine = text.slice(0, text.indexOf('\n'))
  try {
    JSON.parse(firstLine)
    return false
  } catch {
    try {
      return t.UnknownRecord.is(JSON.parse(text))
    } catch {
      return false
    }
  }
}

/**
 * What `loadRecordings` read: the format used (resolved when `auto` was asked) and the
 * recordings, in file order.
 *
 * @example
 * const loaded: LoadedRecordings = { format: 'recording', recordings: [] }
 */
export interface LoadedRecordings {
  readonly format: InputFormat
  readonly recordings: ReadonlyArray<Recording>
}

/**
 * Reads any supported input into recordings: a recording file gives one recording, a Claude Code
 * session one per conversation (the main chain, and each side chain inside the file, named
 * `<sessionId>` and `<sessionId>/<agentId or first uuid>` when there are side chains), a Codex rollout one (`openai-responses` format; `options.model` and
 * `options.windows` as `importCodexRollout` takes them), an OpenAI chat trajectories file one per
 * item (named `<task_id>-t<trial>`). With `format: 'auto'` the format comes from `detectFormat`.
 *
 * Throws `RecordingFormatError` when the format is not recognised or the text is not valid for
 * the format (see `parseRecordingJsonl`, `importClaudeCodeSession`,
 * `importOpenAiChatTrajectories`, `importCodexRollout`).
 *
 * @example
 * const loaded = loadRecordings('{"op":"get_messages_for_request"}\n', 'r.jsonl', 'auto')
 * loaded.format // => 'recording'
 * loaded.recordings.length // => 1
 */
export const loadRecordings = (
  text: string,
  sourceName: string,
  format: InputFormatChoice,
  options: { readonly model?: string | null; readonly windows?: ModelTable<ModelWindow> } = {},
): LoadedRecordings => {
  const resolved = format === 'auto' ? detectFormat(text, sourceName) : format
  switch (resolved) {
    case 'recording':
      return { format: resolved, recordings: [parseRecordingJsonl(text, sourceName)] }
    case 'claude-code':
      return { format: resolved, recordings: importClaudeCodeSessions(text, sourceName) }
    case 'openai-chat':
      return { format: resolved, recordings: importOpenAiChatTrajectories(text, sourceName) }
    case 'codex':
      return { format: resolved, recordings: [importCodexRollout(text, sourceName, options)] }
  }
}
