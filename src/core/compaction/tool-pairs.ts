/**
 * Tool groups (SPEC 17.3): an assistant message with tool calls plus the adjacent run of tool
 * results answering those calls. Ids are compared only inside that run.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'

/**
 * The call ids of a message's `tool_calls` (each call's `id`, or `tool_call_id` when `id` is
 * falsy), truthy ids only, in order. Empty for a message without truthy tool calls.
 *
 * @example
 * toCallIds({ role: 'assistant', tool_calls: [{ id: 'a' }, { tool_call_id: 'b' }] }) // => ['a', 'b']
 */
export const toCallIds = (message: Message): ReadonlyArray<unknown> => {
  const calls = message.tool_calls
  if (!Array.isArray(calls) || calls.length === 0) return []
  const ids: unknown[] = []
  for (const call of calls) {
    if (!isPlainObject(call)) continue
    const id = isTruthy(call.id) ? call.id : call.tool_call_id
    if (isTruthy(id)) ids.push(id)
  }
  return ids
}

/**
 * True for an assistant message with truthy `tool_calls`.
 *
 * @example
 * isToolCallMessage({ role: 'assistant', tool_calls: [{ id: 'a' }] }) // => true
 */
export const isToolCallMessage = (message: Message): boolean =>
  message.role === 'assistant' && isTruthy(message.tool_calls)

/**
 * The end (exclusive) of the adjacent result run of the assistant at `position` (SPEC 17.3):
 * consecutive messages after it with role `tool`, a truthy `tool_call_id` among its call ids.
 * Returns `position + 1` when it has no adjacent results.
 *
 * @example
 * selectResultRunEnd([{ role: 'assistant', tool_calls: [{ id: 'a' }] }, { role: 'tool', tool_call_id: 'a' }], 0) // => 2
 */
export const selectResultRunEnd = (messages: Messages, position: number): number => {
  const ids = toCallIds(messages[position])
  let end = position + 1
  if (ids.length === 0) return end
  while (end < messages.length) {
    const candidate = messages[end]
    if (candidate.role !== 'tool' || !isTruthy(candidate.tool_call_id) || !ids.includes(candidate.tool_call_id)) break
    end += 1
  }
  return end
}

/**
 * The position of the assistant whose tool group the list ends inside while it is still open
 * (SPEC 17.8): the last assistant with tool calls (found by walking back over role `tool`
 * messages) is followed only by its adjacent results up to the end of the list, and at least one
 * of its call ids has no result among them. Returns -1 when the list does not end inside an open
 * tool group.
 *
 * @example
 * selectOpenToolGroupStart([{ role: 'user', content: 'go' }, { role: 'assistant', tool_calls: [{ id: 'a' }] }]) // => 1
 */
export const selectOpenToolGroupStart = (messages: Messages): number => {
  let position = messages.length - 1
  while (position >= 0 && messages[position].role === 'tool') position -= 1
  if (position < 0 || !isToolCallMessage(messages[position])) return -1
  const end = selectResultRunEnd(messages, position)
  if (end !== messages.length) return -1
  const answered = new Set(messages.slice(position + 1, end).map((message) => message.tool_call_id))
  return toCallIds(messages[position]).some((id) => !answered.has(id)) ? position : -1
}

/**
 * True when the list ends inside an open tool group (SPEC 17.8): its last assistant with tool
 * calls is followed only by some of its results (or none), so more results are still to come.
 *
 * @example
 * endsInOpenToolGroup([{ role: 'assistant', tool_calls: [{ id: 'a' }] }]) // => true
 */
export const endsInOpenToolGroup = (messages: Messages): boolean => selectOpenToolGroupStart(messages) >= 0
