/**
 * The provider model of a replay: what a provider would have reported for each request the
 * replay sends (`--usage simulated`), or the split of what it did report (`--usage recorded`).
 * A pure reducer over requests; the replay fold feeds it.
 */
import { isPlainObject } from '../messages/values.js'
import { applyCacheRequest, EMPTY_CACHE, isPrefixBreak, type AnthropicCacheMode, type CacheItem, type CacheLifetime, type CacheProvider, type CacheState } from './cache.js'
import type { InputSplit } from './prices.js'

/**
 * Which usage the meters and the economics see: `recorded` readings as the input holds them, or
 * `simulated` readings derived from the view the replay sent (docs/evaluation.md, the provider model).
 *
 * @example
 * const mode: UsageMode = 'simulated'
 */
export type UsageMode = 'recorded' | 'simulated'

/**
 * A recorded reading reduced to what the provider model needs: `total` input tokens (the
 * contract's `input_tokens + cache_write_tokens`, SPEC 10.2), `cacheRead`/`cacheWrite` tokens,
 * `output` tokens (null when absent) and the write lifetime from the `cache_creation` breakdown
 * (null when the reading has none).
 *
 * @example
 * toReading({ input_tokens: 11518, output_tokens: 13, cache_read_tokens: 11515, cache_write_tokens: 13835 })
 * // { total: 25353, cacheRead: 11515, cacheWrite: 13835, output: 13, lifetime: null }
 */
export interface Reading {
  readonly total: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly output: number | null
  readonly lifetime: CacheLifetime | null
}

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : null)

/**
 * The `Reading` of an `llm_response` usage value, or null when it has no usable `input_tokens`.
 * The lifetime is `1h` when `cache_creation.ephemeral_1h_input_tokens` is positive, `5m` when the
 * breakdown is present otherwise.
 *
 * @example
 * toReading({ input_tokens: 10, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4 } })?.lifetime // => '1h'
 */
export const toReading = (usage: unknown): Reading | null => {
  if (!isPlainObject(usage)) return null
  const input = count(usage.input_tokens)
  if (input === null) return null
  const cacheWrite = count(usage.cache_write_tokens) ?? 0
  const creation = usage.cache_creation
  const lifetime = isPlainObject(creation) ? ((count(creation.ephemeral_1h_input_tokens) ?? 0) > 0 ? '1h' : '5m') : null
  return { total: input + cacheWrite, cacheRead: count(usage.cache_read_tokens) ?? 0, cacheWrite, output: count(usage.output_tokens), lifetime }
}

/**
 * State of the provider model within one session: the last known hidden overhead (tokens, null
 * before the first reading), the last known write lifetime, the prompt cache, the previous view's
 * items (for prefix breaks) and the number of requests whose overhead was clamped at 0.
 *
 * @example
 * EMPTY_SIMULATION.overhead // => null
 */
export interface SimulationState {
  readonly overhead: number | null
  readonly lifetime: CacheLifetime
  readonly cache: CacheState
  readonly previousItems: ReadonlyArray<CacheItem> | null
  readonly clamped: number
  /** Anthropic only: the cache under each breakpoint placement of `COMPARED_CACHE_MODES` (absent before the first request). */
  readonly modeCaches?: Readonly<Record<ComparedCacheMode, CacheState>>
}

/**
 * The breakpoint placements whose cache figures every Anthropic request also gets
 * (`RequestEconomics.cache_modes`): the `anthropic_cache_breakpoints` option, the automatic
 * mode, and no breakpoint.
 *
 * @example
 * COMPARED_CACHE_MODES // ['breakpoints', 'automatic', 'none']
 */
export const COMPARED_CACHE_MODES = ['breakpoints', 'automatic', 'none'] as const

/**
 * One of `COMPARED_CACHE_MODES`: a breakpoint placement whose Anthropic cache figures every
 * request also gets (`RequestEconomics.cache_modes`, `SessionMetrics.cache_modes`).
 *
 * @example
 * const mode: ComparedCacheMode = 'automatic'
 */
export type ComparedCacheMode = (typeof COMPARED_CACHE_MODES)[number] & AnthropicCacheMode

/**
 * The provider model before a session's first request.
 *
 * @example
 * EMPTY_SIMULATION.clamped // => 0
 */
export const EMPTY_SIMULATION: SimulationState = { overhead: null, lifetime: '5m', cache: EMPTY_CACHE, previousItems: null, clamped: 0 }

/**
 * What the model knows of one request: the recorded reading of the original request (null when
 * none), the count of what the original agent sent and the view this replay sent as cache items
 * in provider order (both in billed tokens: the provider model's count × its scale,
 * `src/core/economics/provider-model.ts`), the request time (epoch milliseconds or null), the
 * fitted overhead for a request without a reading (billed tokens; absent: the last known one), and
 * the meter estimator's tokens of the same two lists (for `sent_tokens` / `view_tokens`; absent:
 * the billed counts), and `sentView`: the view this replay sent is, on the wire, the request the
 * original agent sent (the same messages; absent: false), so a recorded reading bills it.
 *
 * @example
 * const facts: RequestFacts = { recorded: null, sentTokens: 0, items: [], timeMs: null, sentView: true }
 */
export interface RequestFacts {
  readonly recorded: Reading | null
  readonly sentTokens: number
  readonly items: ReadonlyArray<CacheItem>
  readonly timeMs: number | null
  readonly modelOverhead?: number
  readonly estimated?: { readonly sent: number; readonly view: number }
  readonly sentView?: boolean
}

/**
 * The economics of one request: the input split (tokens), the hidden overhead used (tokens),
 * whether it was clamped at 0, the recorded total input (null without a reading), whether the
 * view broke the previous prefix, and under `simulated` the reading handed to the meters as an
 * `llm_response` usage (null under `recorded`).
 *
 * @example
 * const split: InputSplit = { input_tokens: 25353, cache_read_tokens: 0, cache_write_tokens: 25353, cache_write_1h_tokens: 0, uncached_input_tokens: 0 }
 * const economics: RequestEconomics = { split, overhead: 12000, clamped: false, recorded_input: 25353, prefix_break: false, usage: null, sent_tokens: 13000, view_tokens: 13353, billed_sent_tokens: 13000, billed_view_tokens: 13353, bills_view: true }
 */
export interface RequestEconomics {
  readonly split: InputSplit
  readonly overhead: number
  readonly clamped: boolean
  readonly recorded_input: number | null
  readonly prefix_break: boolean
  readonly usage: Readonly<Record<string, number>> | null
  /** Tokens of what the original agent sent at this request (the meter's estimator tokens). */
  readonly sent_tokens: number
  /** Tokens of the view this replay sent (the meter's estimator tokens). */
  readonly view_tokens: number
  /** Anthropic only: the split of the same input under each breakpoint placement (`COMPARED_CACHE_MODES`). */
  readonly cache_modes?: Readonly<Record<ComparedCacheMode, InputSplit>>
  /** What the original agent sent, in billed tokens (the provider model's scaled count). */
  readonly billed_sent_tokens: number
  /** The view this replay sent, in billed tokens (the items' sum). */
  readonly billed_view_tokens: number
  /**
   * `split` is a bill of the view this replay sent: always under `simulated` (the provider model
   * bills every view); under `recorded` only when the request has a reading and the view is, on the
   * wire, the request the original agent sent (`RequestFacts.sentView`). False after the replay's
   * first compaction changed the view, and for a request without a reading: the split then is the
   * original request's reading or the provider model's count, a bill of no view this replay sent.
   */
  readonly bills_view: boolean
}

/**
 * One request through the provider model. Overhead = recorded total − `sentTokens`, clamped at 0
 * (counted in `clamped`), so the input is the reading + (view − what was sent) in billed tokens;
 * without a reading, `modelOverhead` (the session fit's intercept; absent: the last known overhead,
 * 0 before any). Under `simulated` the input is overhead + the view's tokens, split by the
 * prompt-cache model
 * (`applyCacheRequest`), and `usage` is the reading a provider would have returned
 * (`input_tokens` = reads + uncached, `cache_write_tokens` = writes, the recorded
 * `output_tokens`). Under `recorded` the split is the recorded one (uncached = total − reads −
 * writes) or, without a reading, overhead + view tokens all uncached; the cache model still
 * advances.
 *
 * @example
 * applySimulatedRequest('anthropic', 'simulated', EMPTY_SIMULATION, { recorded: { total: 120, cacheRead: 0, cacheWrite: 120, output: 5, lifetime: '5m' }, sentTokens: 100, items: [{ key: 'a', tokens: 100, ephemeral: false }], timeMs: null }).economics.split.input_tokens // => 120
 */
export const applySimulatedRequest = (
  provider: CacheProvider,
  mode: UsageMode,
  state: SimulationState,
  facts: RequestFacts,
): { readonly state: SimulationState; readonly economics: RequestEconomics } => {
  const raw = facts.recorded === null ? null : facts.recorded.total - facts.sentTokens
  const clamped = raw !== null && raw < 0
  const fallback = facts.modelOverhead !== undefined ? Math.max(0, Math.round(facts.modelOverhead)) : (state.overhead ?? 0)
  const overhead = raw === null ? fallback : Math.max(0, raw)
  const lifetime = facts.recorded?.lifetime ?? state.lifetime
  const cached = applyCacheRequest(provider, state.cache, { overheadTokens: overhead, items: facts.items, timeMs: facts.timeMs, lifetime })
  const prefixBreak = isPrefixBreak(state.previousItems, facts.items)
  const billedView = facts.items.reduce((total, item) => total + item.tokens, 0)
  let split = cached.split
  let usage: Readonly<Record<string, number>> | null = null
  if (mode === 'simulated') {
    usage = {
      input_tokens: split.cache_read_tokens + split.uncached_input_tokens,
      ...(facts.recorded?.output !== null && facts.recorded?.output !== undefined ? { output_tokens: facts.recorded.output } : {}),
      cache_read_tokens: split.cache_read_tokens,
      cache_write_tokens: split.cache_write_tokens,
    }
  } else if (facts.recorded !== null) {
    const { total, cacheRead, cacheWrite } = facts.recorded
    split = {
      input_tokens: total,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: lifetime === '1h' ? cacheWrite : 0,
      uncached_input_tokens: Math.max(0, total - cacheRead - cacheWrite),
    }
  } else {
    split = { input_tokens: split.input_tokens, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: split.input_tokens }
  }
  let modeCaches = state.modeCaches
  let cacheModes: Record<ComparedCacheMode, InputSplit> | undefined
  if (provider === 'anthropic') {
    const nextCaches = {} as Record<ComparedCacheMode, CacheState>
    cacheModes = {} as Record<ComparedCacheMode, InputSplit>
    for (const cacheMode of COMPARED_CACHE_MODES) {
      const applied = applyCacheRequest(provider, state.modeCaches?.[cacheMode] ?? EMPTY_CACHE, { overheadTokens: overhead, items: facts.items, timeMs: facts.timeMs, lifetime }, cacheMode)
      nextCaches[cacheMode] = applied.state
      cacheModes[cacheMode] = applied.split
    }
    modeCaches = nextCaches
  }
  return {
    state: {
      overhead: raw === null ? state.overhead : overhead,
      lifetime,
      cache: cached.state,
      previousItems: facts.items,
      clamped: state.clamped + (clamped ? 1 : 0),
      ...(modeCaches === undefined ? {} : { modeCaches }),
    },
    economics: {
      split,
      overhead,
      clamped,
      recorded_input: facts.recorded?.total ?? null,
      prefix_break: prefixBreak,
      usage,
      sent_tokens: facts.estimated?.sent ?? facts.sentTokens,
      view_tokens: facts.estimated?.view ?? billedView,
      billed_sent_tokens: facts.sentTokens,
      billed_view_tokens: billedView,
      bills_view: mode === 'simulated' || (facts.recorded !== null && facts.sentView === true),
      ...(cacheModes === undefined ? {} : { cache_modes: cacheModes }),
    },
  }
}
