/**
 * Human replay report: per-request rows (history size, the three meters, budget, level, boundary,
 * view size, pairing problems) and the summary figures, computed from replay output lines.
 */
import type { Message } from '../../core/messages/message.js'
import type { ReplayOutputLine } from '../../core/replay/recording.js'
import type { RequestEconomics } from '../../core/economics/simulation.js'
import { judgeOverBudget, type OverBudget } from '../../core/economics/metrics.js'
import type { CompactionStats, TokenMeterStats } from '../../core/stats.js'
import { findPairingViolations } from '../../core/formats/tool-pairing.js'

/**
 * One row of the per-request table. Token figures are in tokens; null where not known. `request`
 * is the 0-based request index within its session, `opIndex` the op index, message figures counts.
 *
 * @example
 * const row: RequestRow = {
 *   session: null, request: 0, opIndex: 1, historyMessages: 1, estimatedTokens: 26, measuredTokens: null,
 *   hybridTokens: 26, hybridKind: 'estimated', effectiveBudget: 200, level: null, boundary: '', viewMessages: 1,
 *   pairingProblems: [], lastUserReplayed: false, error: null, viewTokens: 26, inputTokens: null, overBudget: false, drift: null,
 * }
 */
export interface RequestRow {
  readonly session: string | null
  readonly request: number
  readonly opIndex: number
  readonly historyMessages: number
  readonly estimatedTokens: number | null
  readonly measuredTokens: number | null
  readonly hybridTokens: number | null
  readonly hybridKind: string | null
  /** The request's effective budget E (the meter's `budget` stat), tokens. */
  readonly effectiveBudget: number | null
  readonly level: number | null
  readonly boundary: 'compacted' | 'skipped' | 'failed' | ''
  readonly viewMessages: number | null
  readonly pairingProblems: ReadonlyArray<string>
  /** The view carries a last-user replay (SPEC 13). */
  readonly lastUserReplayed: boolean
  readonly error: string | null
  /** Estimated tokens of the view sent (after compaction); null for a failed request. */
  readonly viewTokens: number | null
  /** Input tokens of the request under the provider model (simulated or recorded); null when unknown. */
  readonly inputTokens: number | null
  /**
   * The input of a bill of the view sent over the budget E (`judgeOverBudget`): `true` / `false`,
   * or `'unknown'` where no bill of that view exists (recorded usage after the replay's first
   * compaction, or a request without a reading). Under simulated usage every view has a bill.
   */
  readonly overBudget: OverBudget
  /** The recorded reading of this request divided by the estimate of what it describes; null without one. */
  readonly drift: number | null
}

/**
 * What a row needs beyond the output line: the request's economics (null without the provider
 * model), whether the input is a live recording (a reading then describes the view sent) or an
 * imported session (the history the agent sent), and whether usage is simulated.
 *
 * @example
 * const context: RowContext = { economics: null, live: true, simulated: false }
 */
export interface RowContext {
  readonly economics: RequestEconomics | null
  readonly live: boolean
  readonly simulated: boolean
}

/**
 * Summary figures of a replay: counts of sessions, requests and events, and the estimator drift
 * (ratios `measured_tokens / estimated_tokens`, null without provider usage).
 *
 * @example
 * const summary: ReplaySummary = {
 *   sessions: 1, requests: 12, compactionBoundaries: 2, highestLevel: 3, brokenViews: 0, failedRequests: 0,
 *   skippedCompactions: 0, lastUserReplays: 0, spills: 0, drift: { requests: 11, median: 1.08, p90: 1.21 },
 * }
 */
export interface ReplaySummary {
  readonly sessions: number
  readonly requests: number
  readonly compactionBoundaries: number
  readonly highestLevel: number
  readonly brokenViews: number
  readonly failedRequests: number
  readonly skippedCompactions: number
  readonly lastUserReplays: number
  readonly spills: number
  readonly drift: { readonly requests: number; readonly median: number; readonly p90: number } | null
}

const isEphemeralWithSource = (message: Message, source: string): boolean => {
  const metadata = message.metadata as { source?: unknown; ephemeral?: unknown } | undefined
  return metadata !== undefined && metadata !== null && metadata.source === source && metadata.ephemeral === true
}

/**
 * The table row of one output line: `request` is its 0-based index, `historyMessages` the stored
 * history size then. The boundary is `failed` (error), `compacted`, `skipped` or empty; pairing
 * problems come from `findPairingViolations`. The drift divides the request's recorded reading
 * by the estimate of what that reading describes: the view sent (live recordings) or the history
 * the agent sent since its last compaction (imported sessions); none under simulated usage.
 *
 * @example
 * const line: ReplayOutputLine = { op_index: 3, view: [{ role: 'user', content: 'hi' }], events: [{ name: 'context:compaction', data: {} }], token_meter_stats: null, compaction_stats: null }
 * toRequestRow(line, 0, 12, { economics: null, live: true, simulated: false }).boundary // => 'compacted'
 * toRequestRow({ ...line, events: [] }, 0, 12).boundary // => ''
 */
export const toRequestRow = (line: ReplayOutputLine, request: number, historyMessages: number, context: RowContext = { economics: null, live: true, simulated: false }): RequestRow => {
  const meter = line.token_meter_stats as TokenMeterStats | null
  const stats = line.compaction_stats as CompactionStats | null
  const names = line.events.map((event) => event.name)
  const view = line.view
  const boundary = line.error !== undefined ? 'failed' : names.includes('context:compaction') ? 'compacted' : names.includes('context:compaction-skipped') ? 'skipped' : ''
  return {
    session: line.session ?? null,
    request,
    opIndex: line.op_index,
    historyMessages,
    estimatedTokens: meter?.estimated_tokens ?? null,
    measuredTokens: meter?.measured_tokens ?? null,
    hybridTokens: meter?.hybrid_tokens ?? null,
    hybridKind: meter?.hybrid_kind ?? null,
    effectiveBudget: meter?.budget ?? null,
    level: stats?.strategy_level ?? null,
    boundary,
    viewMessages: view === null ? null : view.length,
    pairingProblems: view === null ? [] : findPairingViolations(view),
    lastUserReplayed: view !== null && view.some((message) => isEphemeralWithSource(message, 'context-replay')),
    error: line.error?.message ?? null,
    ...economicsCells(context, meter?.budget ?? null),
  }
}

const economicsCells = (context: RowContext, effectiveBudget: number | null): Pick<RequestRow, 'viewTokens' | 'inputTokens' | 'overBudget' | 'drift'> => {
  const economics = context.economics
  if (economics === null) return { viewTokens: null, inputTokens: null, overBudget: false, drift: null }
  const described = context.live ? economics.view_tokens : economics.sent_tokens
  return {
    viewTokens: economics.view_tokens,
    inputTokens: economics.split.input_tokens,
    overBudget: judgeOverBudget(economics, effectiveBudget),
    drift: context.simulated || economics.recorded_input === null || described <= 0 ? null : economics.recorded_input / described,
  }
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  if (sorted.length === 1) return sorted[0]
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low)
}

/**
 * Summary figures over rows: boundaries are requests that emitted `context:compaction`; drift is
 * the median and 90th percentile (linear interpolation) of the rows' drift (a reading over the
 * estimate of the request it describes); broken views count views violating R1–R3.
 *
 * @example
 * summarizeRows([], 3, 0).brokenViews // => 0
 */
export const summarizeRows = (rows: ReadonlyArray<RequestRow>, sessions: number, spills: number): ReplaySummary => {
  const ratios = rows
    .flatMap((row) => (row.drift === null ? [] : [row.drift]))
    .sort((a, b) => a - b)
  return {
    sessions,
    requests: rows.length,
    compactionBoundaries: rows.filter((row) => row.boundary === 'compacted').length,
    highestLevel: rows.reduce((max, row) => Math.max(max, row.level ?? 0), 0),
    brokenViews: rows.filter((row) => row.pairingProblems.length > 0).length,
    failedRequests: rows.filter((row) => row.error !== null).length,
    skippedCompactions: rows.filter((row) => row.boundary === 'skipped').length,
    lastUserReplays: rows.filter((row) => row.lastUserReplayed).length,
    spills,
    drift: ratios.length === 0 ? null : { requests: ratios.length, median: quantile(ratios, 0.5), p90: quantile(ratios, 0.9) },
  }
}
