/**
 * The token meter (SPEC 10, 17.6): usage intake from `llm:response`, the three meters (estimate,
 * provider measurement, hybrid anchor + unbilled tail), the stats object, and the provenance gate.
 */
import type { Config } from '../config.js'
import type { TokenEstimator } from '../deps.js'
import type { Effect } from '../effects.js'
import type { Messages } from '../messages/message.js'
import type { MeterState } from '../state.js'
import type { CacheAggregates, CountKind, TokenMeterStats } from '../stats.js'
import { seqOf } from '../messages/message.js'
import { toItemReader } from '../messages/appendable.js'
import { update } from '../immer.js'
import { isPlainObject } from '../messages/values.js'
import { isLeft } from 'fp-ts/lib/Either.js'
import { decodeUsage } from './usage.js'

/**
 * The result of reading one `llm:response` payload: the new meter state and log effects (a
 * warning for a malformed payload, which leaves the meter unchanged).
 *
 * @example
 * applyUsage(EMPTY_METER, 'oops', 0)
 * // { meter: EMPTY_METER, effects: [{ type: 'log', level: 'warning', message: 'context-simple: ignored llm:response usage: payload is not an object. The meter keeps its last count (token_meter; pass the SDK\'s usage object as { usage } to onLlmResponse)' }] }
 */
export interface UsageIntake {
  readonly meter: MeterState
  readonly effects: ReadonlyArray<Effect>
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0

/**
 * Record provider usage from an `llm:response` payload (SPEC 10.2 with 17.6 and 17.10): `usage`
 * is the contract's shape or an SDK's (read by `decodeUsage`); measured = `input_tokens +
 * cache_write_tokens` of its contract form (tokens; cache reads are inside `input_tokens`), the
 * anchor split moves to `nextSeq`, the anchor estimate becomes the last sent estimate, and
 * usage/cache counters advance. A malformed payload changes nothing and yields a warning.
 *
 * @example
 * applyUsage(EMPTY_METER, { usage: { input_tokens: 300, cache_write_tokens: 80 } }, 2).meter.measured // => 380
 * applyUsage(EMPTY_METER, { usage: { input_tokens: 4, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300 } }, 2).meter.measured // => 9304
 */
export const applyUsage = (meter: MeterState, data: unknown, nextSeq: number): UsageIntake => {
  const ignore = (why: string): UsageIntake => ({
    meter,
    effects: [{ type: 'log', level: 'warning', message: `context-simple: ignored llm:response usage: ${why}. The meter keeps its last count (token_meter; pass the SDK's usage object as { usage } to onLlmResponse)` }],
  })
  if (!isPlainObject(data)) return ignore('payload is not an object')
  if (!isPlainObject(data.usage)) return ignore('payload has no object "usage"')
  const decoded = decodeUsage(data.usage)
  if (isLeft(decoded)) return ignore(decoded.left)
  const { input_tokens: input, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite } = decoded.right.usage
  const write = isCount(cacheWrite) ? Math.trunc(cacheWrite) : 0
  const withCache = isCount(cacheRead) && isCount(cacheWrite)
  return {
    meter: update(meter, (draft) => {
      draft.measured = Math.trunc(input) + write
      draft.anchorSeq = nextSeq
      draft.anchorEstimate = meter.lastSentEstimate
      draft.usageEvents += 1
      if (withCache) {
        draft.usageEventsWithCache += 1
        draft.cacheReadTotal += Math.trunc(cacheRead as number)
        draft.cacheWriteTotal += Math.trunc(cacheWrite as number)
      }
    }),
    effects: [],
  }
}

/**
 * The hybrid meter's reading of one working list (SPEC 10.3). `tokens`, `anchorTokens`,
 * `anchorEstimate` and `tailEstimatedTokens` are tokens; `tailMessages` is a message count.
 *
 * @example
 * readHybrid([], 0, EMPTY_METER, estimateOne)
 * // { tokens: 0, kind: 'none', anchorTokens: null, anchorEstimate: null, anchorRejected: false, tailEstimatedTokens: 0, tailMessages: 0 }
 */
export interface HybridReading {
  readonly tokens: number
  readonly kind: CountKind
  readonly anchorTokens: number | null
  readonly anchorEstimate: number | null
  readonly anchorRejected: boolean
  readonly tailEstimatedTokens: number | null
  readonly tailMessages: number | null
}

/**
 * The hybrid meter over W (SPEC 10.3): anchor + estimate of the messages appended since the
 * anchor, unless the anchor is ≤ 0 or below the estimate of the view it billed (rejected: the full
 * estimate, kind `estimated`).
 *
 * @example
 * const working: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * readHybrid(working, estimateOne(working[0]), EMPTY_METER, estimateOne).kind // => 'estimated'
 */
export const readHybrid = (working: Messages, estimated: number, meter: MeterState, estimate: TokenEstimator): HybridReading => {
  if (working.length === 0) {
    return { tokens: 0, kind: 'none', anchorTokens: null, anchorEstimate: null, anchorRejected: false, tailEstimatedTokens: 0, tailMessages: 0 }
  }
  if (meter.measured === null) {
    return { tokens: estimated, kind: 'estimated', anchorTokens: null, anchorEstimate: null, anchorRejected: false, tailEstimatedTokens: null, tailMessages: null }
  }
  let tailTokens = 0
  let tailCount = 0
  if (meter.anchorSeq !== null) {
    // `_seq` grows along the history, so the unbilled tail is a suffix of W: walk back from the
    // end instead of over the whole list (the factory message, without `_seq`, stops the walk).
    // Read through `toItemReader`: W is usually the stored history, whose view traps every read.
    const items = toItemReader(working)
    for (let i = items.length - 1; i >= 0; i -= 1) {
      const message = items.at(i)
      const seq = seqOf(message)
      if (seq === undefined || seq < meter.anchorSeq) break
      tailTokens += estimate(message)
      tailCount += 1
    }
  }
  const measured = meter.measured
  const rejected = measured <= 0 || (meter.anchorEstimate !== null && measured < meter.anchorEstimate)
  return {
    tokens: rejected ? estimated : measured + tailTokens,
    kind: rejected ? 'estimated' : 'usage',
    anchorTokens: measured,
    anchorEstimate: meter.anchorEstimate,
    anchorRejected: rejected,
    tailEstimatedTokens: tailTokens,
    tailMessages: tailCount,
  }
}

/**
 * The cache aggregates (SPEC 10.6): null before any usage event or when any event lacked a
 * numeric cache field; otherwise event count and sums in tokens.
 *
 * @example
 * toCacheAggregates(EMPTY_METER) // => null
 */
export const toCacheAggregates = (meter: MeterState): CacheAggregates | null =>
  meter.usageEvents === 0 || meter.usageEventsWithCache !== meter.usageEvents
    ? null
    : { events: meter.usageEvents, cache_read_tokens: meter.cacheReadTotal, cache_write_tokens: meter.cacheWriteTotal }

/**
 * The meter stats of one request (SPEC 10.1, 10.6): all three meters, the mode's driving count
 * `used_tokens` with its source and kind, and `ratio = used / E` (null when E ≤ 0).
 * Provenance counters are those before this request's trigger decision.
 *
 * @example
 * const working: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * const estimated = estimateOne(working[0])
 * measureRequest(DEFAULT_CONFIG, working, estimated, 9200, EMPTY_METER, estimateOne).stats.used_tokens === estimated // => true
 */
export const measureRequest = (
  config: Config,
  working: Messages,
  estimated: number,
  effective: number,
  meter: MeterState,
  estimate: TokenEstimator,
): { readonly stats: TokenMeterStats; readonly hybrid: HybridReading } => {
  const hybrid = readHybrid(working, estimated, meter, estimate)
  const estimateKind: CountKind = working.length === 0 ? 'none' : 'estimated'
  let source: TokenMeterStats['source'] = 'estimate'
  let kind: CountKind = estimateKind
  let used = estimated
  if (config.token_meter === 'actual' && meter.measured !== null) {
    source = 'measured'
    kind = 'usage'
    used = meter.measured
  } else if (config.token_meter === 'hybrid') {
    source = 'hybrid'
    kind = hybrid.kind
    used = hybrid.tokens
  }
  const stats: TokenMeterStats = {
    mode: config.token_meter,
    source,
    kind,
    used_tokens: used,
    estimated_tokens: estimated,
    measured_tokens: meter.measured,
    hybrid_tokens: hybrid.tokens,
    hybrid_kind: hybrid.kind,
    anchor_tokens: hybrid.anchorTokens,
    anchor_estimate: hybrid.anchorEstimate,
    anchor_rejected: hybrid.anchorRejected,
    tail_estimated_tokens: hybrid.tailEstimatedTokens,
    tail_messages: hybrid.tailMessages,
    cache_aggregates: toCacheAggregates(meter),
    provenance_refusals: meter.provenanceRefusals,
    provenance_overrides: meter.provenanceOverrides,
    budget: effective,
    ratio: effective > 0 ? used / effective : null,
  }
  return { stats, hybrid }
}

/**
 * A copy of meter stats for a hook payload (the nested `cache_aggregates` copied too), so a
 * listener that mutates its payload can never change stored state.
 *
 * @example
 * const stats = measureRequest(DEFAULT_CONFIG, [], 0, 9200, EMPTY_METER, estimateOne).stats
 * copyMeterStats(stats) !== stats // => true
 * copyMeterStats(stats) // => stats
 */
export const copyMeterStats = (stats: TokenMeterStats): TokenMeterStats => ({
  ...stats,
  cache_aggregates: stats.cache_aggregates === null ? null : { ...stats.cache_aggregates },
  ...(stats.calibration !== undefined ? { calibration: { ...stats.calibration } } : {}),
})

/**
 * `meter` with its `stats` (the meter stats of a request, SPEC 10.6) and `lastSentEstimate` (tokens)
 * replaced: what `{ ...meter, stats, lastSentEstimate }` gives for a meter of the state's shape
 * (the keys in `EMPTY_METER`'s order, `calibration` last when present), with every key named. The
 * request's two meter writes (the meter stage's stats, the finish stage's estimate) spread a meter
 * whose shapes vary (immer's copies after a usage event, the stages' own): on the 3 MB session
 * such a spread cost 0.3-0.4 µs per request, the literal a few ns (docs/performance.md, "The 3 MB session").
 *
 * @example
 * withMeterReading(EMPTY_METER, null, 120).lastSentEstimate // => 120
 */
export const withMeterReading = (meter: MeterState, stats: TokenMeterStats | null, lastSentEstimate: number | null): MeterState => {
  const { measured, anchorSeq, anchorEstimate, usageEvents, usageEventsWithCache, cacheReadTotal, cacheWriteTotal, provenanceRefusals, provenanceOverrides, usageStale, usageObservedOnly, calibration } = meter
  // Two literals, each of one shape (a conditional spread would be the slow pattern again).
  if (calibration === undefined) {
    return { measured, anchorSeq, anchorEstimate, lastSentEstimate, usageEvents, usageEventsWithCache, cacheReadTotal, cacheWriteTotal, provenanceRefusals, provenanceOverrides, stats, usageStale, usageObservedOnly }
  }
  return { measured, anchorSeq, anchorEstimate, lastSentEstimate, usageEvents, usageEventsWithCache, cacheReadTotal, cacheWriteTotal, provenanceRefusals, provenanceOverrides, stats, usageStale, usageObservedOnly, calibration }
}

/**
 * The outer trigger's decision (SPEC 6.1, 10.5) with the provenance counters after it and the
 * override warning or refusal info line as `log` effects.
 *
 * @example
 * const decision: TriggerDecision = { fires: false, meter: EMPTY_METER, effects: [] }
 */
export interface TriggerDecision {
  readonly fires: boolean
  readonly meter: MeterState
  readonly effects: ReadonlyArray<Effect>
}

/**
 * The outer trigger (SPEC 6.1) with G-METER-PROVENANCE (10.5): fires when `used / E ≥
 * compact_threshold`; in hybrid mode a count whose kind is not `usage` refuses, except the
 * recorded override at ≥ 100 % of E before any reading (and, with
 * `hybrid_rejected_anchor_override`, after a rejected anchor too).
 *
 * @example
 * const stats = measureRequest(DEFAULT_CONFIG, [], 0, 9200, EMPTY_METER, estimateOne).stats
 * decideTrigger(DEFAULT_CONFIG, stats, EMPTY_METER).fires // => false
 */
export const decideTrigger = (config: Config, stats: TokenMeterStats, meter: MeterState): TriggerDecision => {
  const effective = stats.budget
  const usage = effective > 0 ? stats.used_tokens / effective : 0
  if (!(usage >= config.compact_threshold)) return { fires: false, meter, effects: [] }
  if (config.token_meter !== 'hybrid' || stats.kind === 'usage') return { fires: true, meter, effects: [] }
  const rejectedOverride = config.hybrid_rejected_anchor_override && stats.anchor_rejected
  if ((meter.measured === null || rejectedOverride) && usage >= 1.0) {
    const why =
      meter.measured === null
        ? 'because no provider usage has arrived yet (pass the SDK usage to onLlmResponse so token_meter "hybrid" counts the real prompt)'
        : 'because the provider reading was rejected as below the estimate (hybrid_rejected_anchor_override: true allows this)'
    return {
      fires: true,
      meter: { ...meter, provenanceOverrides: meter.provenanceOverrides + 1 },
      effects: [
        {
          type: 'log',
          level: 'warning',
          message: `context-simple: compacting on an estimated count of ${stats.used_tokens} tokens (${Math.round(usage * 100)}% of the ${effective}-token budget) ${why}`,
        },
      ],
    }
  }
  return {
    fires: false,
    meter: { ...meter, provenanceRefusals: meter.provenanceRefusals + 1 },
    effects: [
      {
        type: 'log',
        level: 'info',
        message: `context-simple: not compacting yet: the count of ${stats.used_tokens} tokens is an estimate (kind '${stats.kind}') and token_meter "hybrid" compacts on provider usage; it compacts at the next reading passed to onLlmResponse (token_meter "estimate" compacts on estimates)`,
      },
    ],
  }
}

/**
 * The inner escalation gate (SPEC 6.2 step 7): the measured number in actual mode once one
 * exists, the hybrid number when its kind is `usage`, otherwise the sticky view's estimate.
 * `current` and `effective` (E) are tokens. Always false when E ≤ 0.
 *
 * @example
 * needsEscalation(DEFAULT_CONFIG, EMPTY_METER, null, 9000, 9200) // => 9000 / 9200 >= DEFAULT_CONFIG.target_usage
 */
export const needsEscalation = (
  config: Config,
  meter: MeterState,
  hybrid: HybridReading | null,
  current: number,
  effective: number,
): boolean => {
  if (effective <= 0) return false
  if (config.token_meter === 'actual' && meter.measured !== null) return meter.measured / effective >= config.compact_threshold
  if (config.token_meter === 'hybrid' && hybrid !== null && hybrid.kind === 'usage') return hybrid.tokens / effective >= config.compact_threshold
  return current / effective >= config.compact_threshold
}
