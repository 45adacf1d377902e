/**
 * The immutable value the reducers fold over: the stored history with permanent `_seq` numbers,
 * and one slice per concern, each kept with its owner (docs/architecture.md, "State slices"):
 * budget, meter, summary, compaction, tool results, Anthropic cache breakpoints.
 */
import type { BudgetPayload } from './budget.js'
import type { Message } from './messages/message.js'
import type { CompactionStats, TokenMeterStats } from './stats.js'
import type { CalibrationState } from './meter/calibration.js'
import { NO_CACHE_BREAKPOINTS, type CacheBreakpointPositions } from './formats/anthropic-cache.js'

/**
 * Sticky decisions (SPEC 7): `_seq` sets and the highest level (0..8) an accepted pass reached.
 * A `_seq` is in at most one set; removed wins. `heads`: the head (code points) some truncated
 * tool results keep (`compaction_refill_head: "fit"`, src/core/compaction/refill.ts); absent: none.
 *
 * @example
 * const sticky: StickyState = { removed: new Set([2, 3]), truncated: new Set([5]), stubbed: new Set(), cumulativeLevel: 3 }
 */
export interface StickyState {
  readonly removed: ReadonlySet<number>
  readonly truncated: ReadonlySet<number>
  readonly stubbed: ReadonlySet<number>
  readonly heads?: ReadonlyMap<number, number>
  readonly cumulativeLevel: number
}

/**
 * The meter's slice (SPEC 10.2, 10.3, 10.6): the last provider reading (tokens), the anchor split
 * (`anchorSeq`: messages with `_seq >= anchorSeq` are the unbilled tail), the estimate of the
 * view sent before that reading, usage-event and cache counters, provenance counters, the last
 * request's meter stats, the foreground intake's state and the calibration. `measured`,
 * `anchorEstimate`, `lastSentEstimate` and the cache totals are tokens; the other counters count
 * events or decisions.
 *
 * @example
 * const meter: MeterState = { ...makeInitialState().meter, measured: 380, anchorSeq: 2, usageEvents: 1 }
 * meter.anchorSeq // => 2
 */
export interface MeterState {
  readonly measured: number | null
  readonly anchorSeq: number | null
  readonly anchorEstimate: number | null
  readonly lastSentEstimate: number | null
  readonly usageEvents: number
  readonly usageEventsWithCache: number
  readonly cacheReadTotal: number
  readonly cacheWriteTotal: number
  readonly provenanceRefusals: number
  readonly provenanceOverrides: number
  /** The meter stats of the last request (SPEC 10.6), null before the first one / after `clear`. */
  readonly stats: TokenMeterStats | null
  /** `usage_intake: "foreground"`: the last foreground reading was malformed (the meter keeps the one before). */
  readonly usageStale: boolean
  /** `usage_intake: "foreground"`: readings observed, not recorded, since the last reset. */
  readonly usageObservedOnly: number
  /**
   * `token_meter: "calibrated"` only (docs/contract.md 17.13): the pairs of the fit, the last view
   * sent and the anchor. Absent until the first calibrated request (and in every other mode).
   */
  readonly calibration?: CalibrationState
}

/**
 * A finished summary waiting to be swapped in (SPEC 12.1): the absorbed `_seq`s and the text.
 *
 * @example
 * const pending: PendingSummary = { seqs: [0, 1, 2], text: '## Current Task State\n...' }
 */
export interface PendingSummary {
  readonly seqs: ReadonlyArray<number>
  readonly text: string
}

/**
 * Summary strategy state (SPEC 12.1). `inFlight` is the id of the outstanding summary request
 * (answers for any other id are ignored); `nextRequestNumber` numbers request ids
 * (`summary-<n>`). `failures` counts consecutive failed summaries, `absorbedCount` the messages
 * absorbed since the last reset, `cooldown` the requests to wait before the next summary request.
 *
 * @example
 * const summary: SummaryState = { ...makeInitialState().summary, providerKnown: true, inFlight: 'summary-1', inFlightSeqs: [0, 1, 2], nextRequestNumber: 2 }
 * summary.inFlight // => 'summary-1'
 */
export interface SummaryState {
  readonly providerKnown: boolean
  readonly inFlight: string | null
  readonly inFlightSeqs: ReadonlyArray<number>
  readonly pending: PendingSummary | null
  readonly failures: number
  readonly absorbedCount: number
  readonly nextRequestNumber: number
  /** Requests still to wait before the next summary request (`summary_cooldown_requests`). */
  readonly cooldown: number
}

/**
 * The budget's slice (`budget_provenance`, docs/configuration.md): the last `context:budget`
 * payload emitted, null before the first.
 *
 * @example
 * const budget: BudgetState = { lastBudget: null }
 */
export interface BudgetState {
  readonly lastBudget: BudgetPayload | null
}

/**
 * The compaction breaker (`compaction_breaker_passes`, docs/configuration.md): consecutive passes
 * that ended over E, whether it has tripped, and the effective budget (tokens) it tripped under
 * (a different budget re-arms it).
 *
 * @example
 * const breaker: BreakerState = { overBudgetPasses: 2, tripped: false, budget: null }
 */
export interface BreakerState {
  readonly overBudgetPasses: number
  readonly tripped: boolean
  readonly budget: number | null
}

/**
 * The compaction's slice: the sticky decisions (SPEC 7), the stats of the last accepted pass
 * (SPEC 6.7), the predicate's consecutive refusals (SPEC 14), the boundary identity of the last
 * replay that went out (SPEC 13), whether the last measured floor was above the target (so
 * `context:compaction-infeasible` is emitted once per change), the breaker, whether the full
 * notice of the current stats went out (`compaction_notice_repeat`), and `overheadWarned`: present
 * (`true`) once the calibrated meter's warning that its fitted overhead alone fills E was logged
 * (docs/contract.md 17.13, "Infeasible"; absent otherwise, so no other snapshot changes).
 *
 * @example
 * const compaction: CompactionState = { ...makeInitialState().compaction, skipStreak: 1 }
 */
export interface CompactionState {
  readonly sticky: StickyState
  readonly stats: CompactionStats | null
  readonly skipStreak: number
  readonly replayMarker: string | null
  readonly infeasible: boolean
  readonly breaker: BreakerState
  readonly noticeSent: boolean
  readonly overheadWarned?: boolean
}

/**
 * The tool results' slice (SPEC 11.5, 17.9; the ingress cap of docs/configuration.md): spill
 * paths known to be written, spill paths whose write was refused or failed (never pointed at
 * again), and ingress spills asked for and not answered yet (path → `_seq`).
 *
 * @example
 * const toolResults: ToolResultsState = { ...makeInitialState().toolResults, spillWritten: new Set(['/spills/a.txt']) }
 */
export interface ToolResultsState {
  readonly spillWritten: ReadonlySet<string>
  readonly spillFailed: ReadonlySet<string>
  readonly ingressPending: Readonly<Record<string, number>>
}

/**
 * The whole core state. `history` holds stored messages (with `metadata._seq`), `nextSeq` is the
 * next `_seq` to assign, `toolNames` maps call ids to tool names when per-tool config is active;
 * then one slice per concern (docs/architecture.md, "State slices").
 *
 * @example
 * const state: State = makeInitialState()
 */
export interface State {
  /**
   * The stored messages in order. After an add it is an appendable list (`appendTo`): a
   * read-only array view that `structuredClone` cannot copy; `toPlainArray` gives a plain array.
   */
  readonly history: ReadonlyArray<Message>
  readonly nextSeq: number
  readonly toolNames: Readonly<Record<string, string>>
  readonly budget: BudgetState
  readonly meter: MeterState
  readonly summary: SummaryState
  readonly compaction: CompactionState
  readonly toolResults: ToolResultsState
  /**
   * The Anthropic prompt-cache breakpoints of the last view sent (`anthropic_cache_breakpoints`,
   * src/core/formats/anthropic-cache.ts), kept in the next view while their prefix is unchanged;
   * written by the finish stage, emptied by `clear()` and `setMessages()`. Empty (`marks: []`)
   * without the option or in another format.
   */
  readonly cacheBreakpoints: CacheBreakpointPositions
}

/**
 * Sticky state with nothing decided (level 0). Shared: never mutate it.
 *
 * @example
 * hasStickyDecisions(EMPTY_STICKY) // => false
 */
export const EMPTY_STICKY: StickyState = { removed: new Set(), truncated: new Set(), stubbed: new Set(), cumulativeLevel: 0 }

/**
 * Meter state before any reading: no measurement, no anchor, all counters 0.
 *
 * @example
 * EMPTY_METER.measured // => null
 */
export const EMPTY_METER: MeterState = {
  measured: null,
  anchorSeq: null,
  anchorEstimate: null,
  lastSentEstimate: null,
  usageEvents: 0,
  usageEventsWithCache: 0,
  cacheReadTotal: 0,
  cacheWriteTotal: 0,
  provenanceRefusals: 0,
  provenanceOverrides: 0,
  stats: null,
  usageStale: false,
  usageObservedOnly: 0,
}

/**
 * Summary state with nothing cached, in flight or pending; request numbering starts at 1.
 *
 * @example
 * EMPTY_SUMMARY.nextRequestNumber // => 1
 */
export const EMPTY_SUMMARY: SummaryState = {
  providerKnown: false,
  inFlight: null,
  inFlightSeqs: [],
  pending: null,
  failures: 0,
  absorbedCount: 0,
  nextRequestNumber: 1,
  cooldown: 0,
}

/**
 * Compaction state with nothing decided, no stats, no replay, breaker armed.
 *
 * @example
 * EMPTY_COMPACTION.breaker.tripped // => false
 */
export const EMPTY_COMPACTION: CompactionState = {
  sticky: EMPTY_STICKY,
  stats: null,
  skipStreak: 0,
  replayMarker: null,
  infeasible: false,
  breaker: { overBudgetPasses: 0, tripped: false, budget: null },
  noticeSent: false,
}

/**
 * Tool-result state with no spill written or failed and no ingress spill pending.
 *
 * @example
 * EMPTY_TOOL_RESULTS.spillWritten.size // => 0
 */
export const EMPTY_TOOL_RESULTS: ToolResultsState = { spillWritten: new Set(), spillFailed: new Set(), ingressPending: {} }

/**
 * Budget state before any `context:budget` event.
 *
 * @example
 * EMPTY_BUDGET.lastBudget // => null
 */
export const EMPTY_BUDGET: BudgetState = { lastBudget: null }

/**
 * The state of a new manager: empty history, nothing decided, no readings.
 *
 * @example
 * makeInitialState().history.length // => 0
 */
export const makeInitialState = (): State => ({
  history: [],
  nextSeq: 0,
  toolNames: {},
  budget: EMPTY_BUDGET,
  meter: EMPTY_METER,
  summary: EMPTY_SUMMARY,
  compaction: { ...EMPTY_COMPACTION, sticky: EMPTY_STICKY },
  toolResults: { spillWritten: new Set(), spillFailed: new Set(), ingressPending: {} },
  cacheBreakpoints: NO_CACHE_BREAKPOINTS,
})

/**
 * True when sticky decisions exist (SPEC 17.1): any set non-empty or the cumulative level > 0.
 *
 * @example
 * hasStickyDecisions(makeInitialState().compaction.sticky) // => false
 */
export const hasStickyDecisions = (sticky: StickyState): boolean =>
  sticky.removed.size > 0 || sticky.truncated.size > 0 || sticky.stubbed.size > 0 || sticky.cumulativeLevel > 0
