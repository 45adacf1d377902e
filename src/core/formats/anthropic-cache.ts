/**
 * Anthropic prompt-cache breakpoints (`anthropic_cache_breakpoints`, docs/formats.md "Prompt
 * caching"): `cache_control` marks at the end of the system prompt and on the last stable block
 * before the ephemeral tail (the compaction notice, the last-user replay), never more than the
 * API's 4 with the caller's own. Pure: the view is copied where a mark is placed.
 */
import { isPlainObject, isTruthy } from '../messages/values.js'
import type { AnthropicCacheControl } from './anthropic.js'

/**
 * The most `cache_control` breakpoints one Anthropic request may carry.
 *
 * @example
 * ANTHROPIC_MAX_BREAKPOINTS // 4
 */
export const ANTHROPIC_MAX_BREAKPOINTS = 4

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

/** How many blocks of `content` carry a truthy `cache_control`. */
const countMarks = (content: unknown): number => (Array.isArray(content) ? content.filter((block) => isPlainObject(block) && isTruthy(block.cache_control)).length : 0)

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
 * the last stable message marked, or null), `caller` (the caller's own marks, counted).
 *
 * @example
 * const placed: CachePlacement = { system: true, message: 12, caller: 0 }
 */
export interface CachePlacement {
  readonly system: boolean
  readonly message: number | null
  readonly caller: number
}

/**
 * The view with breakpoints placed, and where: the end of the system prompt (when it has none of
 * its own) and the last markable block of the last message before the ephemeral tail (notice,
 * replay), so that the next request, whose tail differs, still reads the prefix up to it; fewer
 * when the caller's own marks leave less than the API's 4. The view is returned unchanged when
 * nothing is placed.
 *
 * @example
 * placeCacheBreakpoints({ system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] }).view.system
 * // [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }]
 */
export const placeCacheBreakpoints = <V extends { readonly system?: unknown; readonly messages: ReadonlyArray<unknown> }>(
  view: V,
  mark: AnthropicCacheControl = { type: 'ephemeral' },
): { readonly view: V; readonly placed: CachePlacement } => {
  const caller = countMarks(view.system) + view.messages.reduce<number>((total, message) => total + (isPlainObject(message) ? countMarks(message.content) : 0), 0)
  let free = ANTHROPIC_MAX_BREAKPOINTS - caller
  let system: unknown = view.system
  let systemPlaced = false
  let messages = view.messages
  let messagePlaced: number | null = null
  let stable = view.messages.length - 1
  while (stable >= 0 && isEphemeralTailMessage(view.messages[stable])) stable -= 1
  // The conversation mark first: it is the one that saves most on a long session.
  if (free > 0 && stable >= 0) {
    const message = view.messages[stable]
    const content = isPlainObject(message) ? markLast(message.content, mark) : null
    if (content !== null && isPlainObject(message)) {
      const copy = [...view.messages]
      copy[stable] = { ...message, content }
      messages = copy
      messagePlaced = stable
      free -= 1
    }
  }
  if (free > 0 && view.system !== undefined && countMarks(view.system) === 0) {
    const content = markLast(view.system, mark)
    if (content !== null) {
      system = content
      systemPlaced = true
      free -= 1
    }
  }
  if (!systemPlaced && messagePlaced === null) return { view, placed: { system: false, message: null, caller } }
  return { view: { ...view, system, messages } as V, placed: { system: systemPlaced, message: messagePlaced, caller } }
}
