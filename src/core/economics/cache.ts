/**
 * The prompt-cache model: per request, how its input splits into cache reads, cache writes and
 * uncached input, given the previous request of the same session (a pure reducer), and whether
 * the request breaks the prefix of the previous view.
 */
import type { InputSplit } from './prices.js'
import { ANTHROPIC_MAX_BREAKPOINTS, TOOL_DEFINITIONS_SLOT } from '../formats/anthropic-cache.js'

/**
 * Which provider's cache rules apply: `anthropic` (explicit breakpoints, billed writes) or
 * `openai` (automatic prefix cache, reads in 128-token steps from 1024 tokens, writes not billed).
 *
 * @example
 * const provider: CacheProvider = 'openai'
 */
export type CacheProvider = 'anthropic' | 'openai'

/**
 * One item of a request in provider order: `key` identifies what is sent (equal keys = equal
 * bytes on the wire), `tokens` its count, `ephemeral` for trailing items that change every
 * request (the compaction notice, the replayed last user message), `blocks` the content blocks
 * it sends (text, image, `tool_use`, `tool_result` ...; absent: 1), which the Anthropic lookback
 * counts.
 *
 * @example
 * const item: CacheItem = { key: '{"role":"user","content":"hi"}', tokens: 4, ephemeral: false, blocks: 1 }
 */
export interface CacheItem {
  readonly key: string
  readonly tokens: number
  readonly ephemeral: boolean
  readonly blocks?: number
}

/**
 * One request as the cache sees it: the hidden overhead (system prompt and tool definitions the
 * replay does not see, tokens), the items in provider order, the request time (epoch
 * milliseconds, null when unknown), and the lifetime of what it writes (`5m` or `1h`).
 *
 * @example
 * const request: CacheRequest = { overheadTokens: 12000, items: toCacheItems([{ role: 'user', content: 'hi' }], 'anthropic', estimateOne), timeMs: null, lifetime: '5m' }
 */
export interface CacheRequest {
  readonly overheadTokens: number
  readonly items: ReadonlyArray<CacheItem>
  readonly timeMs: number | null
  readonly lifetime: CacheLifetime
}

/**
 * The lifetime of a cache write: 5 minutes or 1 hour (refreshed on every read).
 *
 * @example
 * CACHE_LIFETIME_MS['1h'] // => 3600000
 */
export type CacheLifetime = '5m' | '1h'

/**
 * Cache lifetimes in milliseconds.
 *
 * @example
 * CACHE_LIFETIME_MS['5m'] // => 300000
 */
export const CACHE_LIFETIME_MS: Readonly<Record<CacheLifetime, number>> = { '5m': 300_000, '1h': 3_600_000 }

/**
 * What the cache remembers of the previous request of a session (null before the first).
 *
 * @example
 * const state: CacheState = { previous: null }
 */
export interface CacheState {
  readonly previous: {
    readonly overheadTokens: number
    readonly keys: ReadonlyArray<string>
    readonly timeMs: number | null
    readonly lifetime: CacheLifetime
    /** Where the previous request wrote cache entries (`breakpoints`/`automatic`): item counts (0 = after the overhead). */
    readonly marks?: ReadonlyArray<number>
  } | null
}

/**
 * Where an Anthropic request carries its `cache_control` breakpoints, for the cache model:
 * - `stable` (the model's default): one breakpoint after the last non-ephemeral item, reading any
 *   shared prefix up to it (an idealised placement with no lookback limit);
 * - `breakpoints` (`anthropic_cache_breakpoints: true`): after the overhead (the system prompt's
 *   end) and after the last non-ephemeral item, and, in the slot left of 4 beside the caller's
 *   mark on its tool definitions, the newest of the previous request's marks whose prefix is
 *   unchanged (the positions the manager holds, `State.cacheBreakpoints`); a breakpoint reads an
 *   entry the previous request wrote at most `ANTHROPIC_LOOKBACK_BLOCKS` content blocks before it
 *   (0 for a held mark, which sits on the entry), when the prefix up to it is unchanged;
 * - `automatic` (the request-level automatic mode): one breakpoint on the last item, ephemeral
 *   tail included, with the same lookback;
 * - `none`: no breakpoint: no cache read, no write (Anthropic caches nothing unmarked).
 *
 * @example
 * const mode: AnthropicCacheMode = 'automatic'
 */
export type AnthropicCacheMode = 'stable' | 'breakpoints' | 'automatic' | 'none'

/**
 * How far back from a breakpoint Anthropic looks for a cached prefix: 20 content blocks (not
 * messages: an assistant turn of a text and three `tool_use` blocks is 4). The cache model counts
 * the items' `blocks`.
 *
 * @example
 * ANTHROPIC_LOOKBACK_BLOCKS // 20
 */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20

/**
 * The breakpoints (item counts, ascending) of a request under `mode`. Under `breakpoints`, as
 * `placeCacheBreakpoints` places them from the positions the manager holds: after the overhead and
 * after the last non-ephemeral item, then in the slot the API's 4 leave beside a mark on the tool
 * definitions (`TOOL_DEFINITIONS_SLOT`) the newest of the previous request's marks whose prefix is
 * unchanged (equal keys up to them; the manager's fingerprints), so an entry stays read when a
 * request adds more than the lookback.
 */
const marksOf = (mode: AnthropicCacheMode, items: ReadonlyArray<CacheItem>, previous: CacheState['previous']): ReadonlyArray<number> => {
  if (mode === 'none') return []
  if (mode === 'automatic') return [items.length]
  let last = items.length
  while (last > 0 && items[last - 1].ephemeral) last -= 1
  if (last === 0) return [0]
  if (mode !== 'breakpoints' || previous === null) return [0, last]
  let unchanged = 0
  const limit = Math.min(previous.keys.length, items.length)
  while (unchanged < limit && previous.keys[unchanged] === items[unchanged].key) unchanged += 1
  const kept = (previous.marks ?? []).filter((entry) => entry > 0 && entry < last && entry <= unchanged)
  return [0, ...kept.slice(-(ANTHROPIC_MAX_BREAKPOINTS - TOOL_DEFINITIONS_SLOT - 2)), last]
}

/** The Anthropic split under explicit breakpoints (`breakpoints`, `automatic`, `none`). */
const applyMarks = (mode: AnthropicCacheMode, state: CacheState, request: CacheRequest, input: number): { readonly split: InputSplit; readonly marks: ReadonlyArray<number> } => {
  const previous = state.previous
  const marks = marksOf(mode, request.items, previous)
  const fresh = previous !== null && !(previous.timeMs !== null && request.timeMs !== null && request.timeMs - previous.timeMs > CACHE_LIFETIME_MS[previous.lifetime])
  // The hidden overhead is the same text in every request of a session (as `sharedPrefixTokens`
  // says): the smaller of the two overheads is shared, then the items while their keys are equal.
  let sharedItems = 0
  if (fresh && previous !== null) {
    const limit = Math.min(previous.keys.length, request.items.length)
    while (sharedItems < limit && previous.keys[sharedItems] === request.items[sharedItems].key) sharedItems += 1
  }
  // The longest entry written by the previous request that a breakpoint of this one finds: at
  // most ANTHROPIC_LOOKBACK_BLOCKS content blocks before the breakpoint.
  let readItems = -1
  if (fresh && previous !== null) {
    const blocksBefore = (count: number): number => {
      let total = 0
      for (let index = 0; index < count; index += 1) total += request.items[index].blocks ?? 1
      return total
    }
    for (const entry of previous.marks ?? []) {
      if (entry > sharedItems || entry <= readItems) continue
      const entryBlocks = blocksBefore(entry)
      if (marks.some((mark) => mark >= entry && blocksBefore(mark) - entryBlocks <= ANTHROPIC_LOOKBACK_BLOCKS)) readItems = entry
    }
  }
  const last = marks.length === 0 ? -1 : Math.max(...marks)
  const upTo = (count: number): number => (count < 0 ? 0 : request.overheadTokens + sum(request.items, count))
  const sharedOverhead = previous === null ? 0 : Math.min(previous.overheadTokens, request.overheadTokens)
  const read = readItems < 0 ? 0 : sharedOverhead + sum(request.items, readItems)
  const written = last < 0 ? 0 : upTo(last) - read
  const split = { input_tokens: input, cache_read_tokens: read, cache_write_tokens: written, cache_write_1h_tokens: request.lifetime === '1h' ? written : 0, uncached_input_tokens: input - read - written }
  return { split, marks }
}

/**
 * The cache state before a session's first request.
 *
 * @example
 * EMPTY_CACHE.previous // => null
 */
export const EMPTY_CACHE: CacheState = { previous: null }

/** OpenAI caches prompts of at least this many tokens, in steps of `OPENAI_CACHE_STEP`. */
const OPENAI_CACHE_MINIMUM = 1024
const OPENAI_CACHE_STEP = 128

const sum = (items: ReadonlyArray<CacheItem>, count: number): number => {
  let total = 0
  for (let index = 0; index < count; index += 1) total += items[index].tokens
  return total
}

/**
 * Tokens of the longest prefix `request` shares with the previous request: the hidden overhead
 * is the same text in every request of a session, so the smaller of the two overheads is shared;
 * then the items, while their keys are equal. Nothing is shared when the previous request is
 * older than its write lifetime (both times known).
 *
 * @example
 * sharedPrefixTokens({ previous: { overheadTokens: 100, keys: ['a'], timeMs: null, lifetime: '5m' } }, { overheadTokens: 100, items: [{ key: 'a', tokens: 5, ephemeral: false }], timeMs: null, lifetime: '5m' }) // => 105
 */
export const sharedPrefixTokens = (state: CacheState, request: CacheRequest): number => {
  const previous = state.previous
  if (previous === null) return 0
  if (previous.timeMs !== null && request.timeMs !== null && request.timeMs - previous.timeMs > CACHE_LIFETIME_MS[previous.lifetime]) return 0
  let shared = Math.min(previous.overheadTokens, request.overheadTokens)
  const limit = Math.min(previous.keys.length, request.items.length)
  for (let index = 0; index < limit && previous.keys[index] === request.items[index].key; index += 1) shared += request.items[index].tokens
  return shared
}

/**
 * Where the request's last cache breakpoint ends, in tokens from the start (Anthropic): after
 * the last non-ephemeral item, or after the overhead when every item is ephemeral. Ephemeral
 * tail items change every request, so marking them would write what is never read again.
 *
 * @example
 * breakpointTokens({ overheadTokens: 10, items: [{ key: 'a', tokens: 5, ephemeral: false }, { key: 'n', tokens: 3, ephemeral: true }], timeMs: null, lifetime: '5m' }) // => 15
 */
export const breakpointTokens = (request: CacheRequest): number => {
  let last = request.items.length
  while (last > 0 && request.items[last - 1].ephemeral) last -= 1
  return request.overheadTokens + sum(request.items, last)
}

/**
 * The split of one request and the cache state after it. Input = overhead + the items' tokens.
 * Reads are the shared prefix (Anthropic: at most up to the breakpoint; OpenAI: rounded down to
 * 128-token steps, none under 1024 tokens). Anthropic writes the rest up to the breakpoint (all
 * of it 1-hour writes when `lifetime` is `1h`) and leaves what follows uncached; OpenAI leaves
 * everything not read uncached. `anthropicMode` (default `stable`) says where an Anthropic
 * request's breakpoints are (`AnthropicCacheMode`).
 *
 * @example
 * applyCacheRequest('anthropic', EMPTY_CACHE, { overheadTokens: 100, items: [{ key: 'a', tokens: 5, ephemeral: false }], timeMs: null, lifetime: '5m' }).split
 * // { input_tokens: 105, cache_read_tokens: 0, cache_write_tokens: 105, cache_write_1h_tokens: 0, uncached_input_tokens: 0 }
 */
export const applyCacheRequest = (
  provider: CacheProvider,
  state: CacheState,
  request: CacheRequest,
  anthropicMode: AnthropicCacheMode = 'stable',
): { readonly state: CacheState; readonly split: InputSplit } => {
  const input = request.overheadTokens + sum(request.items, request.items.length)
  if (provider === 'anthropic' && anthropicMode !== 'stable') {
    const { split, marks } = applyMarks(anthropicMode, state, request, input)
    return { state: { previous: { overheadTokens: request.overheadTokens, keys: request.items.map((item) => item.key), timeMs: request.timeMs, lifetime: request.lifetime, marks } }, split }
  }
  const shared = sharedPrefixTokens(state, request)
  let split: InputSplit
  if (provider === 'anthropic') {
    const breakpoint = breakpointTokens(request)
    const read = Math.min(shared, breakpoint)
    const write = breakpoint - read
    split = { input_tokens: input, cache_read_tokens: read, cache_write_tokens: write, cache_write_1h_tokens: request.lifetime === '1h' ? write : 0, uncached_input_tokens: input - breakpoint }
  } else {
    const read = shared < OPENAI_CACHE_MINIMUM ? 0 : shared - (shared % OPENAI_CACHE_STEP)
    split = { input_tokens: input, cache_read_tokens: read, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: input - read }
  }
  return {
    state: { previous: { overheadTokens: request.overheadTokens, keys: request.items.map((item) => item.key), timeMs: request.timeMs, lifetime: request.lifetime } },
    split,
  }
}

/**
 * True when the view `current` does not begin with the previous view minus its trailing
 * ephemeral items (a prompt-cache prefix break). Appending after the tail is not a break; the
 * first request of a session (`previous` null) is not one either.
 *
 * @example
 * isPrefixBreak([{ key: 'a', tokens: 1, ephemeral: false }, { key: 'n', tokens: 1, ephemeral: true }], [{ key: 'a', tokens: 1, ephemeral: false }, { key: 'b', tokens: 1, ephemeral: false }]) // => false
 */
export const isPrefixBreak = (previous: ReadonlyArray<CacheItem> | null, current: ReadonlyArray<CacheItem>): boolean => {
  if (previous === null) return false
  let kept = previous.length
  while (kept > 0 && previous[kept - 1].ephemeral) kept -= 1
  if (current.length < kept) return true
  for (let index = 0; index < kept; index += 1) if (previous[index].key !== current[index].key) return true
  return false
}
