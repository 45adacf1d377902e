/**
 * JSON tool results by named fields (`tool_result_json_projection: "named_keys"`,
 * docs/configuration.md "JSON tool results by named fields"): a content model of tool results
 * learned within the session. A key name is *named* when a value under it, in some JSON tool
 * result of the history, occurs in a user or assistant message of the history (a tool-call
 * argument equal to it, or the text holding it as a whole word): the agent or the user used what
 * that field carries. When the compaction ladder shortens a JSON tool result, it keeps the fields
 * under named key names (with the objects and arrays that lead to them) instead of the head of
 * the text. It reads only the history before the request, never the answer after it.
 *
 * Pure functions over messages; no state.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject } from '../messages/values.js'
import { codePointLength } from '../messages/text.js'

/** Values shorter than this (code points) never name a key: `no`, `1`, `ok` occur everywhere. */
const SHORTEST_NAMED_VALUE = 3

/**
 * The parsed JSON object or array of a tool result's string content, or undefined (another
 * role, content that is not a string, or text that is not a JSON object or array).
 *
 * @example
 * parseJsonResult({ role: 'tool', tool_call_id: 'a', content: '{"id":"X1"}' }) // => { id: 'X1' }
 * parseJsonResult({ role: 'tool', tool_call_id: 'a', content: 'ok' }) // => undefined
 */
export const parseJsonResult = (message: Message): unknown => {
  const content = message.content
  if (message.role !== 'tool' || typeof content !== 'string') return undefined
  const first = content.trimStart()[0]
  if (first !== '{' && first !== '[') return undefined
  try {
    return JSON.parse(content) as unknown
  } catch {
    return undefined
  }
}

/** Each scalar leaf (string or number) of `value` with the key name it sits under ('' at the top). */
const collectLeaves = (value: unknown, key: string, out: Array<readonly [string, string]>, depth: number): void => {
  if (depth > 64) return
  if (typeof value === 'string' || typeof value === 'number') out.push([key, String(value)])
  else if (Array.isArray(value)) for (const item of value) collectLeaves(item, key, out, depth + 1)
  else if (isPlainObject(value)) for (const name of Object.keys(value)) collectLeaves(value[name], name, out, depth + 1)
}

/** The string values of `value` (any depth), for tool-call arguments. */
const collectValues = (value: unknown, out: Set<string>, depth: number): void => {
  if (depth > 64) return
  if (typeof value === 'string' || typeof value === 'number') out.add(String(value))
  else if (Array.isArray(value)) for (const item of value) collectValues(item, out, depth + 1)
  else if (isPlainObject(value)) for (const name of Object.keys(value)) collectValues(value[name], out, depth + 1)
}

/** The text of a user or assistant message (string content, or the text of its parts). */
const textOf = (message: Message): string => {
  const content = message.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const texts: string[] = []
  for (const part of content) if (isPlainObject(part) && typeof part.text === 'string') texts.push(part.text)
  return texts.join('\n')
}

/** The argument values of an assistant message's tool calls (Chat Completions shape). */
const addCallValues = (message: Message, out: Set<string>): void => {
  if (!Array.isArray(message.tool_calls)) return
  for (const call of message.tool_calls) {
    const args = isPlainObject(call) && isPlainObject(call.function) ? call.function.arguments : undefined
    if (typeof args !== 'string') continue
    try {
      collectValues(JSON.parse(args), out, 0)
    } catch {
      out.add(args)
    }
  }
}

const isWordCode = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95

/**
 * True when `text` holds `value` with no ASCII letter, digit or `_` right before or after it.
 *
 * @example
 * holdsWord('you fly HAT001, ok', 'HAT001') // => true
 * holdsWord('HAT0012', 'HAT001') // => false
 */
export const holdsWord = (text: string, value: string): boolean => {
  let at = text.indexOf(value)
  while (at >= 0) {
    const end = at + value.length
    if ((at === 0 || !isWordCode(text.charCodeAt(at - 1))) && (end === text.length || !isWordCode(text.charCodeAt(end)))) return true
    at = text.indexOf(value, at + 1)
  }
  return false
}

/**
 * The named key names of `history`: each key name under which some JSON tool result of the
 * history holds a value (3+ characters) that a user or assistant message of the history names,
 * as a tool-call argument value equal to it or as a whole word of its text.
 *
 * @example
 * const history: Messages = [
 *   { role: 'tool', tool_call_id: 'a', content: '{"reservation_id":"ZFA04Y","status":"active"}' },
 *   { role: 'assistant', content: 'Reservation ZFA04Y is booked.' },
 * ]
 * [...toNamedKeys(history)] // => ['reservation_id']
 */
export const toNamedKeys = (history: Messages): ReadonlySet<string> => {
  const leaves: Array<readonly [string, string]> = []
  const said: string[] = []
  const argued = new Set<string>()
  for (const message of history) {
    if (message.role === 'tool') {
      const value = parseJsonResult(message)
      if (value !== undefined) collectLeaves(value, '', leaves, 0)
    } else if (message.role === 'user' || message.role === 'assistant') {
      said.push(textOf(message))
      addCallValues(message, argued)
    }
  }
  const text = said.join('\n')
  const named = new Set<string>()
  for (const [key, value] of leaves) {
    if (key === '' || named.has(key) || codePointLength(value) < SHORTEST_NAMED_VALUE) continue
    if (argued.has(value) || holdsWord(text, value)) named.add(key)
  }
  return named
}

/** The named-key learner over a growing history: leaves waiting to be named, what was said. */
interface Learner {
  readonly waiting: Array<readonly [string, string]>
  readonly argued: Set<string>
  text: string
  readonly named: Set<string>
}

/** Feeds one message to `learner`: a JSON tool result adds leaves, a user or assistant message may name waiting ones. */
const learn = (learner: Learner, message: Message): void => {
  if (message.role === 'tool') {
    const value = parseJsonResult(message)
    if (value === undefined) return
    const leaves: Array<readonly [string, string]> = []
    collectLeaves(value, '', leaves, 0)
    for (const leaf of leaves) if (leaf[0] !== '' && !learner.named.has(leaf[0]) && codePointLength(leaf[1]) >= SHORTEST_NAMED_VALUE) learner.waiting.push(leaf)
  } else if (message.role === 'user' || message.role === 'assistant') {
    learner.text += `\n${textOf(message)}`
    addCallValues(message, learner.argued)
  } else return
  for (const [key, value] of learner.waiting) if (!learner.named.has(key) && (learner.argued.has(value) || holdsWord(learner.text, value))) learner.named.add(key)
  if (learner.named.size > 0) for (let i = learner.waiting.length - 1; i >= 0; i -= 1) if (learner.named.has(learner.waiting[i][0])) learner.waiting.splice(i, 1)
}

/**
 * For each JSON tool result of `history`, the key names named (as `toNamedKeys` learns them) in
 * the history up to and including the `later`-th tool result after it: the point where it stops
 * being one of the last `later` results (`protected_tool_results`), so a result the ladder may
 * shorten always has its set, and the set never changes as the history grows (the shortened form
 * is the same at every later request). Results without that many later results are left out.
 *
 * @example
 * const history: Messages = [
 *   { role: 'tool', tool_call_id: 'a', content: '{"reservation_id":"ZFA04Y","status":"active"}' },
 *   { role: 'assistant', content: 'Reservation ZFA04Y is booked.' },
 *   { role: 'tool', tool_call_id: 'b', content: '{"ok":1}' },
 * ]
 * [...(toFrozenNamedKeys(history, 1).get(history[0]) ?? [])] // => ['reservation_id']
 */
export const toFrozenNamedKeys = (history: Messages, later: number): ReadonlyMap<Message, ReadonlySet<string>> => {
  const learner: Learner = { waiting: [], argued: new Set(), text: '', named: new Set() }
  const frozen = new Map<Message, ReadonlySet<string>>()
  const open: Array<{ readonly message: Message; remaining: number }> = []
  for (const message of history) {
    learn(learner, message)
    if (message.role !== 'tool') continue
    for (const entry of open) entry.remaining -= 1
    if (parseJsonResult(message) !== undefined) open.push({ message, remaining: later })
    while (open.length > 0 && open[0].remaining <= 0) frozen.set(open.shift()!.message, new Set(learner.named))
  }
  return frozen
}

/**
 * `value` reduced to the fields under key names in `keys` (whole subtrees), with the objects and
 * arrays that lead to them; undefined when nothing is kept. Key order and array order are kept.
 *
 * @example
 * projectJsonValue({ flights: [{ flight_number: 'HAT001', price: 120 }], status: 'ok' }, new Set(['flight_number'])) // => { flights: [{ flight_number: 'HAT001' }] }
 */
export const projectJsonValue = (value: unknown, keys: ReadonlySet<string>, depth = 0): unknown => {
  if (depth > 64) return undefined
  if (Array.isArray(value)) {
    const kept = value.map((item) => projectJsonValue(item, keys, depth + 1)).filter((item) => item !== undefined)
    return kept.length > 0 ? kept : undefined
  }
  if (!isPlainObject(value)) return undefined
  const out: Record<string, unknown> = {}
  let any = false
  for (const name of Object.keys(value)) {
    const kept = keys.has(name) ? value[name] : projectJsonValue(value[name], keys, depth + 1)
    if (kept === undefined) continue
    out[name] = kept
    any = true
  }
  return any ? out : undefined
}

/**
 * The text of the named-fields form of a JSON tool result (compact JSON of `projectJsonValue`),
 * or null when the message is not a JSON tool result, nothing is named in it, or the form is not
 * shorter than the content.
 *
 * @example
 * toJsonProjectionText({ role: 'tool', tool_call_id: 'a', content: '{"id":"X1","notes":"a long free-text note"}' }, new Set(['id'])) // => '{"id":"X1"}'
 */
export const toJsonProjectionText = (message: Message, keys: ReadonlySet<string>): string | null => {
  if (keys.size === 0) return null
  const value = parseJsonResult(message)
  if (value === undefined) return null
  const projected = projectJsonValue(value, keys)
  if (projected === undefined) return null
  const text = JSON.stringify(projected)
  return codePointLength(text) < codePointLength(message.content as string) ? text : null
}

/**
 * True when `message` is a tool result the ladder shortened to its named fields (the truncation
 * header followed by a JSON object or array).
 *
 * @example
 * isJsonProjection({ role: 'tool', tool_call_id: 'a', _truncated: true, content: '[truncated: ~20 tokens - call tool again if needed] {"id":"X1"}' }) // => true
 */
export const isJsonProjection = (message: Message): boolean => {
  const content = message.content
  if (message.role !== 'tool' || message._truncated !== true || typeof content !== 'string') return false
  const end = content.indexOf('] ')
  if (!content.startsWith('[truncated: ~') || end < 0) return false
  const rest = content.slice(end + 2)
  if (rest[0] !== '{' && rest[0] !== '[') return false
  try {
    JSON.parse(rest)
    return true
  } catch {
    return false
  }
}
