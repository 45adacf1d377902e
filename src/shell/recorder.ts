/**
 * Records a live session as the inputs of a recording (`docs/recording-format.md`): the manager hands
 * every input, in the order applied, to a recorder, so the session can be saved and replayed.
 */
import type { ContextConfig } from '../core/config.js'
import type { Recording, RecordingOp } from '../core/replay/recording.js'
import type { MessageFormat, ProviderFormat } from '../core/formats/carrier.js'
import { DEFAULT_REPLAY_NOW } from '../core/replay/recording.js'
import { serializeRecording } from './recording-file.js'
import { copyJson as copy } from './json-values.js'

/**
 * Receives every input the manager applies, as a recording op, in the order applied.
 *
 * @example
 * const recorder: Recorder = { record: (op) => console.log(JSON.stringify(op)) }
 */
export interface Recorder {
  readonly record: (op: RecordingOp) => void
  /**
   * The message format its ops are written for (`makeRecorder`'s `format`, `contract` when none was
   * given). When present, a manager of another format refuses the recorder (`InvalidRequestError`,
   * field `recorder`): its recording would replay the messages as that other format's. Absent (a
   * recorder of your own): not checked.
   */
  readonly format?: MessageFormat
}

/**
 * A recorder that keeps its ops: `ops` in order, `toRecording()` the whole recording (a snapshot),
 * `toJsonLines()` the docs/recording-format.md file text (header line, then one op per line, each line ending
 * with `\n`).
 *
 * @example
 * import { writeFile } from 'node:fs/promises'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const recorder: SessionRecorder = makeRecorder({})
 * recorder.record({ op: 'add_message', message: { role: 'user', content: 'hi' } })
 * await writeFile(join(tmpdir(), 'session.jsonl'), recorder.toJsonLines())
 * recorder.ops.length // => 1
 */
export interface SessionRecorder extends Recorder {
  readonly ops: ReadonlyArray<RecordingOp>
  readonly toRecording: () => Recording
  readonly toJsonLines: () => string
}

/**
 * Options of `makeRecorder`: the replay clock value `now` (module format) and a session name.
 *
 * @example
 * makeRecorder({}, { now: '2026-03-01T12:00:00.000+00:00', session: 'task-1-t0' })
 */
export interface RecorderOptions {
  readonly now?: string
  readonly session?: string
  /** The manager's message format (docs/formats.md), written to the header; absent: contract. */
  readonly format?: ProviderFormat
}

/**
 * Makes a recorder for a manager built with the raw configuration `config` (the contract's
 * snake_case keys, stored in the header as given). Each op is deep-copied when recorded, so later
 * mutation of the caller's objects does not change the recording. `now` defaults to
 * `DEFAULT_REPLAY_NOW`; the manager stamps each added message's own timestamp into the recorded
 * message, so `now` only matters for summary messages.
 *
 * @example
 * const recorder = makeRecorder({ max_tokens: 1000 })
 * const manager = new ContextManager({ max_tokens: 1000 }, { recorder })
 * await manager.addMessage({ role: 'user', content: 'hi' })
 * recorder.toRecording().ops[0].op // => 'add_message'
 */
export const makeRecorder = (config: ContextConfig | Readonly<Record<string, unknown>> = {}, options: RecorderOptions = {}): SessionRecorder => {
  const ops: Array<RecordingOp> = []
  const header: Readonly<Record<string, unknown>> = copy({ ...config })
  const now = options.now ?? DEFAULT_REPLAY_NOW
  const toRecording = (): Recording => ({
    config: copy(header),
    now,
    ops: ops.map(copy),
    ...(options.session === undefined ? {} : { session: options.session }),
    ...(options.format === undefined ? {} : { format: options.format }),
  })
  return {
    ops,
    format: options.format ?? 'contract',
    record: (op) => {
      ops.push(copy(op))
    },
    toRecording,
    toJsonLines: () => serializeRecording(toRecording()),
  }
}
