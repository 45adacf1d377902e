/**
 * OpenAI chat trajectories import (tau-bench style): a JSON array of `{task_id, trial, traj, ...}`
 * becomes one `Recording` per item, named `<task_id>-t<trial>`.
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/lib/Either.js'
import type { Message } from '../../core/messages/message.js'
import { DEFAULT_REPLAY_NOW } from '../../core/replay/recording.js'
import type { Recording, RecordingOp } from '../../core/replay/recording.js'
import { RecordingFormatError, describeValue } from '../recording-file.js'

/**
 * One trajectory item: `task_id` (string or number) and `traj` (message objects) are required,
 * `trial` (string or number) names the session, other fields (`reward`, `info`) are ignored.
 *
 * @example
 * OpenAiChatTrajectoryCodec.is({ task_id: 0, trial: 0, reward: 1, traj: [{ role: 'user', content: 'hi' }] }) // => true
 */
export const OpenAiChatTrajectoryCodec = t.intersection([
  t.type({ task_id: t.union([t.string, t.number]), traj: t.array(t.UnknownRecord) }),
  t.partial({ trial: t.union([t.string, t.number]) }),
])

/**
 * A decoded trajectory item (see `OpenAiChatTrajectoryCodec`).
 *
 * @example
 * const item: OpenAiChatTrajectory = { task_id: 3, trial: 1, traj: [] }
 */
export type OpenAiChatTrajectory = t.TypeOf<typeof OpenAiChatTrajectoryCodec>

/** Turns `JSON.parse`'s "at position N" into "line L, column C" of the text when it says so. */
const describeJsonError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const match = /at position (\d+)/.exec(message)
  if (match === null) return message
  const position = Number(match[1])
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  return `${message} (line ${line}, column ${column})`
}

const whyNotTrajectory = (item: unknown): string => {
  if (!t.UnknownRecord.is(item)) return `expected an object with "task_id" and "traj", got ${describeValue(item)}`
  if (!Array.isArray(item.traj)) return `needs an array "traj", got ${describeValue(item.traj)}`
  const bad = item.traj.findIndex((message) => !t.UnknownRecord.is(message))
  if (bad >= 0) return `traj[${bad}]: a message must be an object, got ${describeValue(item.traj[bad])}`
  if (typeof item.task_id !== 'string' && typeof item.task_id !== 'number') {
    return `needs a string or number "task_id", got ${describeValue(item.task_id)}`
  }
  return `"trial" must be a string or a number, got ${describeValue(item.trial)}`
}

/**
 * The session name of a trajectory: `<task_id>-t<trial>` (`trial` 0 when absent).
 *
 * @example
 * toSessionName({ task_id: 3, trial: 1, traj: [] }) // => '3-t1'
 */
export const toSessionName = (trajectory: OpenAiChatTrajectory): string =>
  `${trajectory.task_id}-t${trajectory.trial ?? 0}`

/**
 * Builds the recording of one trajectory: every message becomes `add_message` as it is (all
 * fields kept in their order, `content: null` included, no timestamp added: replay stamps
 * `now`), each assistant message is preceded by `get_messages_for_request` (no budget), and one
 * more request ends the recording. There is no `llm_response`: trajectories carry no usage.
 * Messages are not repaired: the history holds exactly what the trajectory holds.
 *
 * @example
 * toTrajectoryRecording({ task_id: 0, trial: 0, traj: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }).ops.map((op) => op.op)
 * // ['add_message', 'get_messages_for_request', 'add_message', 'get_messages_for_request']
 */
export const toTrajectoryRecording = (trajectory: OpenAiChatTrajectory): Recording => {
  const ops: RecordingOp[] = []
  for (const message of trajectory.traj) {
    if (message.role === 'assistant') ops.push({ op: 'get_messages_for_request' })
    ops.push({ op: 'add_message', message: message as Message })
  }
  ops.push({ op: 'get_messages_for_request' })
  return { config: {}, now: DEFAULT_REPLAY_NOW, ops, session: toSessionName(trajectory) }
}

/**
 * Turns an OpenAI chat trajectories file (a JSON array of `{task_id, reward, info, traj, trial}`,
 * `traj` an OpenAI Chat Completions message list: system, user, assistant with `tool_calls`,
 * tool with `tool_call_id`) into one recording per item, in file order, each named
 * `<task_id>-t<trial>` (`Recording.session`). See `toTrajectoryRecording` for the op sequence.
 * `config` is `{}` and `now` is `DEFAULT_REPLAY_NOW`: budgets come from the caller (`--budget`,
 * `--window`) or the configuration's `max_tokens`.
 *
 * Throws `RecordingFormatError` when the text is not JSON (with line and column when known), is
 * not an array, or an item is not an object with a `task_id` (string or number), an array `traj`
 * of message objects and an optional `trial` (string or number); the message names the item as
 * `item [i]`.
 *
 * @example
 * const recordings = importOpenAiChatTrajectories(
 *   '[{"task_id":7,"trial":0,"reward":1,"info":{},"traj":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}]',
 *   'tau.json',
 * )
 * recordings[0].session // => '7-t0'
 */
export const importOpenAiChatTrajectories = (text: string, sourceName: string): Recording[] => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body.trim() === '') throw new RecordingFormatError(sourceName, undefined, 'empty file: expected a JSON array of trajectories')
  let document: unknown
  try {
    document = JSON.parse(body)
  } catch (error) {
    throw new RecordingFormatError(sourceName, undefined, `not valid JSON: ${describeJsonError(body, error)}`)
  }
  if (!Array.isArray(document)) {
    throw new RecordingFormatError(
      sourceName,
      undefined,
      `expected a JSON array of trajectories ({task_id, trial, traj}), got ${describeValue(document)}`,
    )
  }
  return document.map((item, index) => {
    const decoded = OpenAiChatTrajectoryCodec.decode(item)
    if (E.isLeft(decoded)) throw new RecordingFormatError(sourceName, undefined, `item [${index}]: ${whyNotTrajectory(item)}`)
    return toTrajectoryRecording(decoded.right)
  })
}
