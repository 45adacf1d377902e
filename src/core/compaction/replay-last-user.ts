/**
 * Last-user replay (SPEC 13): after a compaction boundary, an ephemeral verbatim copy of the most
 * recent real user message at the tail, once per boundary.
 */
import type { TokenEstimator } from '../deps.js'
import type { Message, Messages } from '../messages/message.js'
import { estimateMessages } from '../meter/estimate.js'
import { endsOutsideToolCall } from './notice.js'
import { pyStrip } from '../messages/text.js'
import { isPlainObject, isPresent, isTruthy } from '../messages/values.js'

const REMINDER_OPENER = '<system-reminder'

/**
 * The real-user predicate (SPEC 13): role `user`, no `tool_call_id` key, and no string content or
 * text block that, stripped, opens with `<system-reminder` (any attributes).
 *
 * @example
 * isRealUserMessage({ role: 'user', content: '<system-reminder source="x">hi</system-reminder>' }) // => false
 */
export const isRealUserMessage = (message: Message): boolean => {
  if (message.role !== 'user') return false
  if (isPresent(message, 'tool_call_id')) return false
  const content = message.content
  if (typeof content === 'string') return !pyStrip(content).startsWith(REMINDER_OPENER)
  if (Array.isArray(content)) {
    for (const block of content) {
      if (isPlainObject(block) && typeof block.text === 'string' && pyStrip(block.text).startsWith(REMINDER_OPENER)) return false
    }
  }
  return true
}

/**
 * The text a last-user replay repeats (SPEC 13 rule 6): string content, or the non-empty string `text` of
 * object blocks joined by line feeds, or `''`.
 *
 * @example
 * toLastUserReplayText({ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }) // => 'a\nb'
 */
export const toLastUserReplayText = (message: Message): string => {
  const content = message.content
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    const texts: string[] = []
    for (const block of content) if (isPlainObject(block) && typeof block.text === 'string' && block.text !== '') texts.push(block.text)
    return texts.join('\n')
  }
  return ''
}

/**
 * The last-user replay envelope around `text` (SPEC 13), exactly.
 *
 * @example
 * toLastUserReplayEnvelope('fix it').endsWith('fix it\n</system-reminder>') // => true
 */
export const toLastUserReplayEnvelope = (text: string): string =>
  '<system-reminder source="context-replay">\nThis is a verbatim copy of your most recent instruction, repeated here because context compaction has moved it far from the end of the conversation. It is NOT a new request -- do not answer it again if it is already handled.\n\n' +
  text +
  '\n</system-reminder>'

/**
 * The boundary identity of a compaction (SPEC 13): `(cumulative level, absorbed count)`.
 *
 * @example
 * toBoundaryIdentity(3, 0) // => '3:0'
 */
export const toBoundaryIdentity = (level: number, absorbed: number): string => `${level}:${absorbed}`

/**
 * The last-user replay message for compacted list `list`, or null when a "does nothing" condition of
 * SPEC 13 holds (same boundary, unsafe tail, no real user text, already the tail, a stub, over E).
 * `effective` (E) is in tokens; the budget check applies only when E > 0. `isPrompt` picks the
 * message to repeat (SPEC 13's real-user predicate; `isHumanPrompt` under `human_anchors`).
 *
 * @example
 * const list: Messages = [{ role: 'user', content: 'fix the bug' }, { role: 'assistant', content: 'on it' }]
 * const copy = selectLastUserReplay(list, '3:0', null, 9200, estimateOne)
 * copy?.metadata // => { source: 'context-replay', ephemeral: true }
 * copy?.content === toLastUserReplayEnvelope('fix the bug') // => true
 * selectLastUserReplay(list, '3:0', '3:0', 9200, estimateOne) // => null
 */
export const selectLastUserReplay = (
  list: Messages,
  identity: string,
  marker: string | null,
  effective: number,
  estimate: TokenEstimator,
  isPrompt: (message: Message) => boolean = isRealUserMessage,
): Message | null => {
  if (identity === marker) return null
  if (list.length === 0 || !endsOutsideToolCall(list)) return null
  let found = -1
  for (let i = list.length - 1; i >= 0; i -= 1) {
    if (isPrompt(list[i])) {
      found = i
      break
    }
  }
  if (found < 0 || found === list.length - 1) return null
  const source = list[found]
  if (isTruthy(source._stubbed)) return null
  const text = toLastUserReplayText(source)
  if (pyStrip(text) === '') return null
  const copy: Message = { role: 'user', content: toLastUserReplayEnvelope(text), metadata: { source: 'context-replay', ephemeral: true } }
  if (effective > 0 && estimateMessages(list, estimate) + estimate(copy) > effective) return null
  return copy
}
