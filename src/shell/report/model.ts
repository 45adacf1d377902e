/**
 * The data of the HTML report, as plain columns (one entry per request): a pure projection of
 * replay output lines, the provider readings beside them, and the configuration's threshold.
 */
import { estimateMessages, type TokenEstimator } from '../../core/meter/estimate.js'
import { toInputCostUsd, type ModelPrice } from '../../core/economics/prices.js'
import type { RequestEconomics } from '../../core/economics/simulation.js'
import type { OverBudget } from '../../core/economics/metrics.js'
import type { RecallFigures } from '../../core/economics/recall.js'
import type { ReplayOutputLine } from '../../core/replay/recording.js'
import type { CompactionStats, TokenMeterStats } from '../../core/stats.js'

/**
 * What the provider reported (or would report) for one request, in tokens: the whole input
 * (`cache_read_tokens` and `cache_write_tokens` are parts of it) and the output. Null fields are
 * unknown.
 *
 * @example
 * const reading: ProviderReading = { input_tokens: 11518, cache_read_tokens: 11515, cache_write_tokens: 3, output_tokens: 13 }
 */
export interface ProviderReading {
  readonly input_tokens: number
  readonly cache_read_tokens: number | null
  readonly cache_write_tokens: number | null
  readonly output_tokens: number | null
}

/**
 * Everything the report shows for one session, before projection: the replay's output lines, the
 * compaction threshold (a fraction of the budget), one provider reading per line (or null) and
 * where the readings come from (`recorded`: the original session's usage, which describes what the
 * original agent sent, not this replay's view; `simulated`: the provider model applied to this
 * replay's views). `prefixBreaks` and `cumulativeCostUsd` (US dollars, one per line) come from the
 * prompt-cache and cost model (`toEconomicsInputs`); null leaves them out of the report.
 *
 * `recall` is the needed-fact recall of the session's views (`toRecallFigures`, one entry per
 * line); absent or null leaves it out. `overBudget` is each request's over-budget judgement
 * (`judgeOverBudget`, one per line, null for a failed request); absent or null leaves it out.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const { lines } = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne })
 * const input: ReportSectionInput = { title: 'short.jsonl', lines, compactThreshold: 0.75, readings: [null], readingSource: 'recorded', prefixBreaks: null, cumulativeCostUsd: null }
 */
export interface ReportSectionInput {
  readonly title: string
  readonly lines: ReadonlyArray<ReplayOutputLine>
  readonly compactThreshold: number
  readonly readings: ReadonlyArray<ProviderReading | null>
  readonly readingSource: 'recorded' | 'simulated'
  readonly prefixBreaks: ReadonlyArray<boolean> | null
  readonly cumulativeCostUsd: ReadonlyArray<number | null> | null
  readonly recall?: RecallFigures | null
  readonly overBudget?: ReadonlyArray<OverBudget | null> | null
}

/**
 * A request whose view lost needed facts: the request (0-based), its needed and recalled counts,
 * and the lost tokens (at most 12, in order of use).
 *
 * @example
 * const lossy: ReportLossyRequest = { request: 17, needed: 4, recalled: 3, lost: ['HAT076'] }
 */
export interface ReportLossyRequest {
  readonly request: number
  readonly needed: number
  readonly recalled: number
  readonly lost: ReadonlyArray<string>
}

/**
 * One compaction boundary: the request (0-based within its session, as in `replay`), the
 * cumulative compaction level reached (1..8), and the estimated tokens of the working list before
 * and of the view after the pass.
 *
 * @example
 * const boundary: ReportBoundary = { request: 41, level: 3, beforeTokens: 47210, afterTokens: 27004 }
 */
export interface ReportBoundary {
  readonly request: number
  readonly level: number
  readonly beforeTokens: number
  readonly afterTokens: number
}

/**
 * The projected data of one session: columns of equal length (`requests`), null where a request
 * has no value (a failed request has no view; a request without a reading has no provider input).
 * Token columns are in tokens; `threshold` is `trunc(budget × compact_threshold)`;
 * `boundaryLevel` holds the level at boundary requests only. Cache columns, `prefixBreak` (1 at a
 * break, else null) and `cumulativeCostUsd` are null when nothing provides them. With recall:
 * `recall` per request (recalled / needed as a fraction, null when nothing was needed),
 * `lostFacts` (the count at requests that lost facts, else null), the totals and the lossy
 * requests; all null without it. `overBudget` counts the requests whose bill of the view sent is over
 * E and `overBudgetUnknown` those no bill judges (`judgeOverBudget`); both null without judgements.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const { lines } = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne })
 * const input: ReportSectionInput = { title: 'short.jsonl', lines, compactThreshold: 0.75, readings: [null], readingSource: 'recorded', prefixBreaks: null, cumulativeCostUsd: null }
 * const section: ReportSection = toReportSection(input, makeCachedEstimator())
 * section.requests === input.lines.length // => true
 */
export interface ReportSection {
  readonly title: string
  readonly requests: number
  readonly readingSource: 'recorded' | 'simulated'
  readonly request: ReadonlyArray<number>
  readonly historyTokens: ReadonlyArray<number | null>
  readonly viewTokens: ReadonlyArray<number | null>
  readonly providerInput: ReadonlyArray<number | null>
  readonly budget: ReadonlyArray<number | null>
  readonly threshold: ReadonlyArray<number | null>
  readonly boundaryLevel: ReadonlyArray<number | null>
  readonly cacheRead: ReadonlyArray<number | null> | null
  readonly cacheWrite: ReadonlyArray<number | null> | null
  readonly prefixBreak: ReadonlyArray<number | null> | null
  readonly cumulativeCostUsd: ReadonlyArray<number | null> | null
  readonly boundaries: ReadonlyArray<ReportBoundary>
  readonly failedRequests: number
  readonly prefixBreaks: number | null
  readonly costUsd: number | null
  readonly recall: ReadonlyArray<number | null> | null
  readonly lostFacts: ReadonlyArray<number | null> | null
  readonly neededFacts: number | null
  readonly recalledFacts: number | null
  readonly lossyRequests: ReadonlyArray<ReportLossyRequest> | null
  readonly overBudget: number | null
  readonly overBudgetUnknown: number | null
}

const toNumber = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/**
 * The per-request inputs the provider model gives the report: each request's reading (its input
 * split: total input, cache reads, cache writes; null for a failed request), whether it broke the
 * prompt-cache prefix, and with `price` the cumulative input cost in US dollars (`toInputCostUsd`
 * summed from the first request; null without a price).
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, { usage: { mode: 'simulated', provider: 'openai' } })
 * toEconomicsInputs(result.economics, null).prefixBreaks // => [false]
 * toEconomicsInputs(result.economics, null).cumulativeCostUsd // => null
 */
export const toEconomicsInputs = (
  economics: ReadonlyArray<RequestEconomics | null>,
  price: ModelPrice | null,
): Pick<ReportSectionInput, 'readings' | 'prefixBreaks' | 'cumulativeCostUsd'> => {
  let total = 0
  return {
    readings: economics.map((item) =>
      item === null ? null : { input_tokens: item.split.input_tokens, cache_read_tokens: item.split.cache_read_tokens, cache_write_tokens: item.split.cache_write_tokens, output_tokens: null },
    ),
    prefixBreaks: economics.map((item) => item?.prefix_break ?? false),
    cumulativeCostUsd:
      price === null
        ? null
        : economics.map((item) => {
            if (item !== null) total += toInputCostUsd(item.split, price)
            return total
          }),
  }
}

const boundaryOf = (line: ReplayOutputLine, request: number): ReportBoundary | null => {
  const event = line.events.find((candidate) => candidate.name === 'context:compaction')
  if (event === undefined || line.error !== undefined) return null
  const stats = event.data as Partial<CompactionStats>
  return { request, level: toNumber(stats.strategy_level) ?? 0, beforeTokens: toNumber(stats.before_tokens) ?? 0, afterTokens: toNumber(stats.after_tokens) ?? 0 }
}

/**
 * Project one session's replay into report columns. `estimator` counts the view each request sent
 * (the same estimator the replay used). Pure; throws nothing (odd stats become nulls).
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const { lines } = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne })
 * const input: ReportSectionInput = { title: 'short.jsonl', lines, compactThreshold: 0.75, readings: [null], readingSource: 'recorded', prefixBreaks: null, cumulativeCostUsd: null }
 * const section = toReportSection(input, makeCachedEstimator())
 * section.boundaries.map((boundary) => boundary.level) // => []
 */
export const toReportSection = (input: ReportSectionInput, estimator: TokenEstimator): ReportSection => {
  const boundaries: ReportBoundary[] = []
  const boundaryLevel: Array<number | null> = []
  const hasCache = input.readings.some((reading) => reading !== null && (reading.cache_read_tokens !== null || reading.cache_write_tokens !== null))
  input.lines.forEach((line, request) => {
    const boundary = boundaryOf(line, request)
    if (boundary !== null) boundaries.push(boundary)
    boundaryLevel.push(boundary === null ? null : boundary.level)
  })
  const meters = input.lines.map((line) => (line.token_meter_stats ?? null) as Partial<TokenMeterStats> | null)
  const budget = meters.map((meter) => toNumber(meter?.budget))
  const readingAt = (request: number): ProviderReading | null => input.readings[request] ?? null
  const costs = input.cumulativeCostUsd
  const recall = input.recall ?? null
  const perRequest = recall === null ? null : input.lines.map((_, request) => recall.requests[request] ?? null)
  const judged = input.overBudget ?? null
  return {
    title: input.title,
    requests: input.lines.length,
    readingSource: input.readingSource,
    request: input.lines.map((_, request) => request),
    historyTokens: meters.map((meter) => toNumber(meter?.estimated_tokens)),
    viewTokens: input.lines.map((line) => (line.view === null ? null : estimateMessages(line.view, estimator))),
    providerInput: input.lines.map((_, request) => readingAt(request)?.input_tokens ?? null),
    budget,
    threshold: budget.map((value) => (value === null ? null : Math.trunc(value * input.compactThreshold))),
    boundaryLevel,
    cacheRead: hasCache ? input.lines.map((_, request) => readingAt(request)?.cache_read_tokens ?? null) : null,
    cacheWrite: hasCache ? input.lines.map((_, request) => readingAt(request)?.cache_write_tokens ?? null) : null,
    prefixBreak: input.prefixBreaks === null ? null : input.lines.map((_, request) => (input.prefixBreaks?.[request] === true ? 1 : null)),
    cumulativeCostUsd: costs === null ? null : input.lines.map((_, request) => costs[request] ?? null),
    boundaries,
    failedRequests: input.lines.filter((line) => line.error !== undefined).length,
    prefixBreaks: input.prefixBreaks === null ? null : input.prefixBreaks.filter((value) => value).length,
    costUsd: costs === null ? null : [...costs].reverse().find((value) => value !== null) ?? null,
    recall: perRequest === null ? null : perRequest.map((item) => (item === null || item.needed === 0 ? null : item.recalled / item.needed)),
    lostFacts: perRequest === null ? null : perRequest.map((item) => (item === null || item.recalled === item.needed ? null : item.needed - item.recalled)),
    neededFacts: recall?.needed_facts ?? null,
    recalledFacts: recall?.recalled_facts ?? null,
    lossyRequests:
      perRequest === null
        ? null
        : perRequest.flatMap((item, request) => (item === null || item.recalled === item.needed ? [] : [{ request, needed: item.needed, recalled: item.recalled, lost: item.lost.slice(0, 12) }])),
    overBudget: judged === null ? null : judged.filter((value) => value === true).length,
    overBudgetUnknown: judged === null ? null : judged.filter((value) => value === 'unknown').length,
  }
}
