/**
 * Anthropic prompt-cache breakpoints (`anthropic_cache_breakpoints`, docs/formats.md "Prompt
 * caching"): `cache_control` marks at the end of the system prompt and on the last stable block
 * before the ephemeral tail (the compaction notice, the last-user replay), and on the earlier
 * marks of previous views while the view's prefix up to them is unchanged (their positions are
 * state, `CacheBreakpointPositions`), never more than the API's 4 with the caller's own. Pure: the
 * view is copied where a mark is placed.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import type { AnthropicCacheControl } from './anthropic.js'

/**
 * The most `cache_control` breakpoints one Anthropic request may carry.
 *
 * @example
 * ANTHROPIC_MAX_BREAKPOINTS // 4
 */
export const ANTHROPIC_MAX_BREAKPOINTS = 4

/**
 * The slot the held marks leave free for a caller's own mark on its tool definitions, which the
 * view does not contain and so cannot be counted (docs/formats.md "Prompt caching" advises that
 * mark): the held marks fill the request up to 3, the system prompt's and the conversation's marks
 * up to the API's 4, as they did before the positions were held.
 *
 * @example
 * ANTHROPIC_MAX_BREAKPOINTS - TOOL_DEFINITIONS_SLOT // 3
 */
export const TOOL_DEFINITIONS_SLOT = 1

/** Block types that cannot carry `cache_control` (thinking blocks are cached with their turn). */
const UNMARKABLE: ReadonlySet<string> = new Set(['thinking', 'redacted_thinking'])

/** The tail messages the library appends and changes between requests (SPEC 8 notice, SPEC 13 replay). */
const EPHEMERAL_OPENERS = ['<system-reminder source="context-compaction">', '<system-reminder source="context-replay">', '<system-reminder source="context-']

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content) && content.length > 0 && isPlainObject(content[0]) && typeof content[0].text === 'string') return content[0].text
  return ''
}

/**
 * True for a message of the ephemeral tail: a user turn whose text opens with the notice's or
 * the replay's `<system-reminder source="context-...">`.
 *
 * @example
 * isEphemeralTailMessage({ role: 'user', content: '<system-reminder source="context-compaction">\n...' }) // true
 */
export const isEphemeralTailMessage = (message: unknown): boolean =>
  isPlainObject(message) && message.role === 'user' && EPHEMERAL_OPENERS.some((opener) => textOf(message.content).trimStart().startsWith(opener))

/**
 * How many blocks of `content` carry a truthy `cache_control`, those nested in a block's own
 * `content` too (a text block inside a `tool_result`): the API counts every one toward its 4.
 */
const countMarks = (content: unknown): number =>
  Array.isArray(content) ? content.reduce<number>((total, block) => (isPlainObject(block) ? total + (isTruthy(block.cache_control) ? 1 : 0) + countMarks(block.content) : total), 0) : 0

/** `content` with `cache_control` on its last markable block (string content becomes one text block); null when none can carry it. */
const markLast = (content: unknown, mark: AnthropicCacheControl): unknown[] | null => {
  if (typeof content === 'string') return content === '' ? null : [{ type: 'text', text: content, cache_control: mark }]
  if (!Array.isArray(content)) return null
  for (let i = content.length - 1; i >= 0; i -= 1) {
    const block: unknown = content[i]
    if (!isPlainObject(block) || UNMARKABLE.has(String(block.type))) continue
    if (isTruthy(block.cache_control)) return null
    const out = [...content]
    out[i] = { ...block, cache_control: mark }
    return out
  }
  return null
}

/**
 * Where the breakpoints went: `system` (the system prompt's end is marked), `message` (index of
 * the last stable message marked, or null), `anchors` (indexes of earlier messages marked where
 * the previous views wrote, oldest first), `caller` (the caller's own marks, counted).
 *
 * @example
 * const placed: CachePlacement = { system: true, message: 12, anchors: [9], caller: 0 }
 */
export interface CachePlacement {
  readonly system: boolean
  readonly message: number | null
  readonly anchors: ReadonlyArray<number>
  readonly caller: number
}

/**
 * The conversation breakpoints a view carried, as state for the next view (`placeCacheBreakpoints`;
 * the manager holds them in `State.cacheBreakpoints`, written by the finish stage of each request
 * under `anthropic_cache_breakpoints`): each mark's message index and a fingerprint (SHA-256, 64
 * hex digits) of the view's system prompt and its messages up to and including it, as they were
 * before any mark of the library was placed, oldest first. A mark is kept in the next view while
 * its prefix is unchanged.
 *
 * @example
 * const positions: CacheBreakpointPositions = { marks: [{ index: 4, prefix: '9f2c…' }] }
 */
export interface CacheBreakpointPositions {
  readonly marks: ReadonlyArray<{ readonly index: number; readonly prefix: string }>
}

/**
 * The positions before the first view, and after `clear()` or `setMessages()` (the next view
 * marks the system prompt and the last stable block only).
 *
 * @example
 * NO_CACHE_BREAKPOINTS.marks.length // => 0
 */
export const NO_CACHE_BREAKPOINTS: CacheBreakpointPositions = { marks: [] }

/**
 * The prefix fingerprints of the view after each message index in `at` (ascending or not): the
 * system prompt first (a new system prompt changes every prefix, as it does Anthropic's cache
 * key), then the messages up to and including the index.
 */
const prefixFingerprints = (system: unknown, messages: ReadonlyArray<unknown>, at: ReadonlyArray<number>): ReadonlyMap<number, string> => {
  const wanted = new Set(at)
  const out = new Map<number, string>()
  const last = Math.max(-1, ...at)
  const hasher = sha256.create()
  hasher.update(utf8ToBytes(`${JSON.stringify(system) ?? 'null'}\n`))
  for (let index = 0; index <= last; index += 1) {
    hasher.update(utf8ToBytes(`${JSON.stringify(messages[index]) ?? 'null'}\n`))
    if (wanted.has(index)) out.set(index, bytesToHex(hasher.clone().digest()))
  }
  return out
}

/** The view's messages with `mark` on the last markable block of each message in `indexes` (those that take one). */
const markMessages = (messages: ReadonlyArray<unknown>, indexes: ReadonlyArray<number>, mark: AnthropicCacheControl): { readonly messages: ReadonlyArray<unknown>; readonly marked: ReadonlyArray<number> } => {
  let out = messages
  const marked: number[] = []
  for (const index of indexes) {
    const message = messages[index]
    const content = isPlainObject(message) ? markLast(message.content, mark) : null
    if (content === null || !isPlainObject(message)) continue
    if (out === messages) out = [...messages]
    ;(out as unknown[])[index] = { ...message, content }
    marked.push(index)
  }
  return { messages: out, marked }
}

/**
 * The view with breakpoints placed, where, and the positions for the next view: the last
 * markable block of the last message before the ephemeral tail (notice, replay), so that the next
 * request, whose tail differs, still reads the prefix up to it; the end of the system prompt (when
 * it has none of its own); then, with the slots left but one (`TOOL_DEFINITIONS_SLOT`, for a
 * caller's mark on its tool definitions), the marks of `previous` views whose prefix is unchanged
 * (newest first), so the entries they wrote are read exactly even when the conversation grew by
 * more than Anthropic's 20-block lookback since. A mark moves only when the view's prefix changes
 * (a compaction): then it is dropped. Never more than the API's 4 with the caller's own marks
 * (nested ones counted). The view is returned unchanged when nothing is placed.
 *
 * @example
 * placeCacheBreakpoints({ system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] }).view.system
 * // [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }]
 */
export const placeCacheBreakpoints = <V extends { readonly system?: unknown; readonly messages: ReadonlyArray<unknown> }>(
  view: V,
  mark: AnthropicCacheControl = { type: 'ephemeral' },
  previous: CacheBreakpointPositions = NO_CACHE_BREAKPOINTS,
): { readonly view: V; readonly placed: CachePlacement; readonly positions: CacheBreakpointPositions } => {
  const caller = countMarks(view.system) + view.messages.reduce<number>((total, message) => total + (isPlainObject(message) ? countMarks(message.content) : 0), 0)
  let free = ANTHROPIC_MAX_BREAKPOINTS - caller
  let stable = view.messages.length - 1
  while (stable >= 0 && isEphemeralTailMessage(view.messages[stable])) stable -= 1
  // The conversation mark first: it is the one that saves most on a long session.
  const tail = free > 0 && stable >= 0 ? markMessages(view.messages, [stable], mark) : { messages: view.messages, marked: [] }
  free -= tail.marked.length
  let system: unknown = view.system
  let systemPlaced = false
  if (free > 0 && view.system !== undefined && countMarks(view.system) === 0) {
    const content = markLast(view.system, mark)
    if (content !== null) {
      system = content
      systemPlaced = true
      free -= 1
    }
  }
  const candidates = previous.marks.filter((entry) => entry.index < stable && entry.index >= 0)
  const fingerprints = prefixFingerprints(view.system, view.messages, [...candidates.map((entry) => entry.index), ...tail.marked])
  const kept = candidates.filter((entry) => fingerprints.get(entry.index) === entry.prefix).map((entry) => entry.index)
  const slots = free - TOOL_DEFINITIONS_SLOT
  const anchors = slots > 0 ? markMessages(tail.messages, kept.slice(-slots).reverse(), mark) : { messages: tail.messages, marked: [] }
  const anchorIndexes = [...anchors.marked].sort((a, b) => a - b)
  const positions: CacheBreakpointPositions = {
    marks: [...anchorIndexes, ...tail.marked].map((index) => ({ index, prefix: fingerprints.get(index) ?? '' })),
  }
  const messagePlaced = tail.marked.length > 0 ? stable : null
  const placed = { system: systemPlaced, message: messagePlaced, anchors: anchorIndexes, caller }
  if (!systemPlaced && messagePlaced === null && anchorIndexes.length === 0) return { view, placed, positions }
  return { view: { ...view, system, messages: anchors.messages } as V, placed, positions }
}
