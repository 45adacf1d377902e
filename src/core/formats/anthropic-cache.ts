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

/** A running SHA-256 (`@noble/hashes`), cloned to branch. */
type Hasher = ReturnType<typeof sha256.create>

/**
 * The running hashes of the last view's prefixes, kept so that the next view hashes only what
 * it does not share with it (`prefixFingerprints`): `system`, the system prompt they start with,
 * `base`, the hasher after its line (null before the first view), and per message of that view
 * from the first, up to the last one a fingerprint was asked for, the message and the hasher
 * after its line. Invariant: `entries[i].state` is the hash of `system`'s line and the lines of
 * `entries[0..i]`'s messages, whatever view comes next; a view resumes from the longest run of
 * its messages that are JSON-equal to them (`isSameJson`). One per reducer, in the derivation
 * memo (src/core/memo/derivation-memo.ts); a pure cache: the fingerprints are those of a hash
 * from the start. Holds one small hasher per message of the last view.
 *
 * @example
 * const hashes: PrefixHashes = makePrefixHashes()
 * hashes.entries.length // => 0
 */
export interface PrefixHashes {
  system: unknown
  base: Hasher | null
  readonly entries: Array<{ readonly message: unknown; readonly state: Hasher }>
}

/**
 * Empty running hashes: the first view is hashed from the start.
 *
 * @example
 * makePrefixHashes().base // => null
 */
export const makePrefixHashes = (): PrefixHashes => ({ system: undefined, base: null, entries: [] })

const isPlainRecord = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * True when `a` and `b` are the same value, or plain arrays and objects (keys in the same order)
 * whose members are: then `JSON.stringify` writes the same text for both (messages are immutable,
 * docs/architecture.md, so one object is one text). Anything else (a class instance, a function,
 * NaN) only when it is the same value: false is always safe, it costs a hash.
 *
 * @example
 * isSameJson({ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }) // => true
 * // another key order writes another text:
 * isSameJson({ a: 1, b: 2 }, { b: 2, a: 1 }) // => false
 */
export const isSameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || Object.getPrototypeOf(a) !== Array.prototype || Object.getPrototypeOf(b) !== Array.prototype || a.length !== b.length) return false
    for (let i = 0; i < a.length; i += 1) if (!isSameJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b) || !isPlainRecord(a) || !isPlainRecord(b)) return false
  const left = a as Readonly<Record<string, unknown>>
  const right = b as Readonly<Record<string, unknown>>
  const keys = Object.keys(left)
  const others = Object.keys(right)
  if (keys.length !== others.length) return false
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]
    if (key !== others[i] || typeof left[key] === 'function' || !isSameJson(left[key], right[key])) return false
  }
  return true
}

const lineOf = (value: unknown): Uint8Array => utf8ToBytes(`${JSON.stringify(value) ?? 'null'}\n`)

/**
 * The prefix fingerprints of the view after each message index in `at` (ascending or not): the
 * SHA-256 (64 hex digits) of the system prompt's JSON line first (a new system prompt changes
 * every prefix, as it does Anthropic's cache key), then each message's JSON line up to and
 * including the index (`JSON.stringify(x) ?? 'null'` and a newline each; the definition the
 * positions held in snapshots carry, `CacheBreakpointPositions`). `hashes`: the running hashes of
 * the last view (`PrefixHashes`), resumed after the longest run of messages this view shares with
 * it and updated for the next; the same fingerprints as a hash from the start (fresh ones when
 * omitted). Indexes outside the view hash its missing messages as `null`.
 *
 * @example
 * const hashes = makePrefixHashes()
 * const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]
 * prefixFingerprints('Be terse.', messages, [1], hashes).get(1) === prefixFingerprints('Be terse.', messages, [1]).get(1) // => true
 */
export const prefixFingerprints = (system: unknown, messages: ReadonlyArray<unknown>, at: ReadonlyArray<number>, hashes: PrefixHashes = makePrefixHashes()): ReadonlyMap<number, string> => {
  const out = new Map<number, string>()
  // The last message hashed; none when no index is a number from 0 (a hash from the start writes none either).
  const last = Math.floor(Math.max(-1, ...at))
  if (!(last >= 0)) return out
  const entries = hashes.entries
  if (hashes.base === null || !isSameJson(hashes.system, system)) {
    hashes.system = system
    hashes.base = sha256.create().update(lineOf(system))
    entries.length = 0
  }
  const shared = Math.min(entries.length, last + 1)
  let kept = 0
  while (kept < shared && isSameJson(entries[kept].message, messages[kept])) kept += 1
  if (kept < shared) entries.length = kept
  if (entries.length <= last) {
    const hasher = (entries.length > 0 ? entries[entries.length - 1].state : hashes.base).clone()
    for (let index = entries.length; index <= last; index += 1) {
      hasher.update(lineOf(messages[index]))
      entries.push({ message: messages[index], state: hasher.clone() })
    }
  }
  for (const index of at) if (Number.isInteger(index) && index >= 0) out.set(index, bytesToHex(entries[index].state.clone().digest()))
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
 * (nested ones counted). The view is returned unchanged when nothing is placed. `hashes`: the
 * running prefix hashes of the last view (`PrefixHashes`, the derivation memo's), so that the
 * fingerprints cost what the view does not share with the last one; the same result without.
 *
 * @example
 * placeCacheBreakpoints({ system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] }).view.system
 * // [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }]
 */
export const placeCacheBreakpoints = <V extends { readonly system?: unknown; readonly messages: ReadonlyArray<unknown> }>(
  view: V,
  mark: AnthropicCacheControl = { type: 'ephemeral' },
  previous: CacheBreakpointPositions = NO_CACHE_BREAKPOINTS,
  hashes: PrefixHashes = makePrefixHashes(),
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
  const fingerprints = prefixFingerprints(view.system, view.messages, [...candidates.map((entry) => entry.index), ...tail.marked], hashes)
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
