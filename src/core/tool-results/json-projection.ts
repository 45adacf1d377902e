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
import { projectJsonText } from './json-handles.js'

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

/**
 * The named-key learner over a growing history: leaves waiting to be named, what was said, the
 * key names named so far.
 *
 * @example
 * const learner: Learner = { waiting: [], argued: new Set(), text: '', named: new Set() }
 */
export interface Learner {
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
 * A walk of `toFrozenNamedKeys` over a history, resumable on a longer history that starts with the
 * same messages (the derivation memo keeps the last one, so a request reads only the messages
 * added since, not the whole history twice per request). `frozen` is the result.
 *
 * @example
 * const walk: NamedKeysWalk = resumeFrozenNamedKeys(null, [], 2)
 * walk.frozen.size // => 0
 */
export interface NamedKeysWalk {
  readonly later: number
  readonly messages: Message[]
  readonly learner: Learner
  readonly open: Array<{ readonly message: Message; remaining: number }>
  readonly frozen: Map<Message, ReadonlySet<string>>
}

/** True when `walk` was made with `later` over a prefix of `history` (the same message objects). */
const isPrefixWalk = (walk: NamedKeysWalk, history: Messages, later: number): boolean => {
  if (walk.later !== later || walk.messages.length > history.length) return false
  for (let i = 0; i < walk.messages.length; i += 1) if (walk.messages[i] !== history[i]) return false
  return true
}

/**
 * `toFrozenNamedKeys(history, later)` as a walk: `previous` resumed (and extended in place) when
 * it was made with `later` over a prefix of `history`, else a new walk from the start. The sets
 * are the same either way (each is learned over the same messages in the same order).
 *
 * @example
 * const history: Messages = [
 *   { role: 'tool', tool_call_id: 'a', content: '{"reservation_id":"ZFA04Y","status":"active"}' },
 *   { role: 'assistant', content: 'Reservation ZFA04Y is booked.' },
 * ]
 * const first = resumeFrozenNamedKeys(null, history, 1)
 * const next = resumeFrozenNamedKeys(first, [...history, { role: 'tool', tool_call_id: 'b', content: '{"ok":1}' }], 1)
 * next === first // => true
 * [...(next.frozen.get(history[0]) ?? [])] // => ['reservation_id']
 */
export const resumeFrozenNamedKeys = (previous: NamedKeysWalk | null, history: Messages, later: number): NamedKeysWalk => {
  const walk: NamedKeysWalk =
    previous !== null && isPrefixWalk(previous, history, later)
      ? previous
      : { later, messages: [], learner: { waiting: [], argued: new Set(), text: '', named: new Set() }, open: [], frozen: new Map() }
  for (let i = walk.messages.length; i < history.length; i += 1) {
    const message = history[i]
    walk.messages.push(message)
    learn(walk.learner, message)
    if (message.role !== 'tool') continue
    for (const entry of walk.open) entry.remaining -= 1
    if (parseJsonResult(message) !== undefined) walk.open.push({ message, remaining: later })
    while (walk.open.length > 0 && walk.open[0].remaining <= 0) walk.frozen.set(walk.open.shift()!.message, new Set(walk.learner.named))
  }
  return walk
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
export const toFrozenNamedKeys = (history: Messages, later: number): ReadonlyMap<Message, ReadonlySet<string>> => resumeFrozenNamedKeys(null, history, later).frozen

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
 * The text of the named-fields form of a JSON tool result: its subtrees under the key names in
 * `keys` with the objects and arrays that lead to them (the value `projectJsonValue` gives),
 * copied from the result as written (`projectJsonText`, src/core/tool-results/json-handles.ts:
 * numbers and escapes as the tool wrote them). Null when the message is not a JSON tool result,
 * nothing is named in it, or the form is not shorter than the content.
 *
 * @example
 * toJsonProjectionText({ role: 'tool', tool_call_id: 'a', content: '{"id":"X1","notes":"a long free-text note"}' }, new Set(['id'])) // => '{"id":"X1"}'
 * toJsonProjectionText({ role: 'tool', tool_call_id: 'a', content: '{"price": 1.50, "notes": "a long free-text note"}' }, new Set(['price'])) // => '{"price":1.50}'
 */
export const toJsonProjectionText = (message: Message, keys: ReadonlySet<string>): string | null => {
  if (keys.size === 0 || message.role !== 'tool' || typeof message.content !== 'string') return null
  return projectJsonText(message.content, { keepsKey: (key) => keys.has(key), keepsString: () => false, maxString: Number.POSITIVE_INFINITY })
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
