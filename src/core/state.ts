/**
 * The immutable snapshot the reducers fold over: stored history with permanent `_seq` numbers,
 * sticky compaction decisions, meter, predicate, replay and summary state, and the last stats.
 */
import type { BudgetPayload } from './budget.js'
import type { Message } from './messages/message.js'
import type { CompactionStats, TokenMeterStats } from './stats.js'
import type { CalibrationState } from './meter/calibration.js'

/**
 * Sticky decisions (SPEC 7): `_seq` sets and the highest level (0..8) an accepted pass reached.
 * A `_seq` is in at most one set; removed wins.
 *
 * @example
 * const sticky: StickyState = { removed: new Set([2, 3]), truncated: new Set([5]), stubbed: new Set(), cumulativeLevel: 3 }
 */
export interface StickyState {
  readonly removed: ReadonlySet<number>
  readonly truncated: ReadonlySet<number>
  readonly stubbed: ReadonlySet<number>
  readonly cumulativeLevel: number
}

/**
 * Token meter state (SPEC 10.2, 10.3): the last provider reading (tokens), the anchor split
 * (`anchorSeq`: messages with `_seq >= anchorSeq` are the unbilled tail), the estimate of the
 * view sent before that reading, usage-event and cache counters, provenance counters, and the
 * last hybrid number for the inner gate. `measured`, `anchorEstimate`, `lastSentEstimate` and the
 * cache totals are tokens; the other counters count events or decisions.
 *
 * @example
 * const meter: MeterState = { ...EMPTY_METER, measured: 380, anchorSeq: 2, usageEvents: 1 }
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
 * absorbed since the last reset.
 *
 * @example
 * const summary: SummaryState = { ...EMPTY_SUMMARY, providerKnown: true, inFlight: 'summary-1', inFlightSeqs: [0, 1, 2], nextRequestNumber: 2 }
 */
export interface SummaryState {
  readonly providerKnown: boolean
  readonly inFlight: string | null
  readonly inFlightSeqs: ReadonlyArray<number>
  readonly pending: PendingSummary | null
  readonly failures: number
  readonly absorbedCount: number
  readonly nextRequestNumber: number
}

/**
 * Production-guard state (docs/configuration.md): whether the last measured floor was above the target (so
 * `context:compaction-infeasible` is emitted once per change), the breaker's count of consecutive
 * passes that ended over E, whether it has tripped, and the effective budget (tokens) it tripped
 * under (a different budget re-arms it).
 *
 * @example
 * const guards: GuardState = { ...EMPTY_GUARDS, overBudgetPasses: 2 }
 */
export interface GuardState {
  readonly infeasible: boolean
  readonly overBudgetPasses: number
  readonly breakerTripped: boolean
  readonly breakerBudget: number | null
  /** The last `context:budget` payload emitted (`budget_provenance`), null before the first. */
  readonly lastBudget: BudgetPayload | null
  /** The full notice of the current compaction stats went out (`compaction_notice_repeat`). */
  readonly noticeSent: boolean
  /** Requests still to wait before the next summary request (`summary_cooldown_requests`). */
  readonly summaryCooldown: number
  /** `usage_intake: "foreground"`: the last foreground reading was malformed (the meter keeps the one before). */
  readonly usageStale: boolean
  /** `usage_intake: "foreground"`: readings observed, not recorded, since the last reset. */
  readonly usageObservedOnly: number
  /** Ingress spills asked for and not answered yet (`tool_result_ingress_cap_bytes`): path → `_seq`. */
  readonly ingressPending: Readonly<Record<string, number>>
}

/**
 * Guard state with nothing observed.
 *
 * @example
 * EMPTY_GUARDS.breakerTripped // => false
 */
export const EMPTY_GUARDS: GuardState = { infeasible: false, overBudgetPasses: 0, breakerTripped: false, breakerBudget: null, lastBudget: null, noticeSent: false, summaryCooldown: 0, usageStale: false, usageObservedOnly: 0, ingressPending: {} }

/**
 * The whole core state. `history` holds stored messages (with `metadata._seq`), `nextSeq` is the
 * next `_seq` to assign, `toolNames` maps call ids to tool names when per-tool config is active,
 * `spillWritten` memoizes spill paths known to be written, `replayMarker` the boundary identity of
 * the last replay that went out, `skipStreak` the predicate's consecutive refusals, `guards` the
 * production guards' state (docs/configuration.md).
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
  readonly sticky: StickyState
  readonly compactionStats: CompactionStats | null
  readonly meterStats: TokenMeterStats | null
  readonly meter: MeterState
  readonly toolNames: Readonly<Record<string, string>>
  readonly spillWritten: ReadonlySet<string>
  /** Spill paths whose write was refused or failed: never pointed at again (SPEC 17.9). */
  readonly spillFailed: ReadonlySet<string>
  readonly replayMarker: string | null
  readonly skipStreak: number
  readonly summary: SummaryState
  readonly guards: GuardState
  /**
   * `token_meter: "calibrated"` only (docs/contract.md 17.13): the pairs of the fit, the last view
   * sent and the anchor. Absent until the first calibrated request (and in every other mode).
   */
  readonly calibration?: CalibrationState
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
}

/**
 * The state of a new manager: empty history, nothing decided, no readings.
 *
 * @example
 * makeInitialState().history.length // => 0
 */
export const makeInitialState = (): State => ({
  history: [],
  nextSeq: 0,
  sticky: EMPTY_STICKY,
  compactionStats: null,
  meterStats: null,
  meter: EMPTY_METER,
  toolNames: {},
  spillWritten: new Set(),
  spillFailed: new Set(),
  replayMarker: null,
  skipStreak: 0,
  summary: EMPTY_SUMMARY,
  guards: EMPTY_GUARDS,
})

/**
 * True when sticky decisions exist (SPEC 17.1): any set non-empty or the cumulative level > 0.
 *
 * @example
 * hasStickyDecisions(EMPTY_STICKY) // => false
 */
export const hasStickyDecisions = (sticky: StickyState): boolean =>
  sticky.removed.size > 0 || sticky.truncated.size > 0 || sticky.stubbed.size > 0 || sticky.cumulativeLevel > 0
