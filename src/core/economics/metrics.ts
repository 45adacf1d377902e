/**
 * Per-session evaluation figures of a replay under the provider model: compaction boundaries,
 * invalid views, overflows, prefix breaks, the input split and its cost (what `compare` prints).
 */
import type { Recording } from '../replay/recording.js'
import type { ReplayResult } from '../replay/replay.js'
import type { CompactionStats, TokenMeterStats } from '../stats.js'
import { selectPairingProblems, type PairingProblem } from '../formats/tool-pairing.js'
import { isPlainObject } from '../messages/values.js'
import { toInputCostUsd, type InputSplit, type ModelPrice } from './prices.js'
import type { ComparedCacheMode, RequestEconomics } from './simulation.js'
import { toRecallFigures } from './recall.js'

/**
 * The figures of one (configuration, session). Tokens are provider tokens under the provider
 * model; `cost_usd` is the input side only, in US dollars; `budget` is the effective budget E of
 * the first request (tokens, after the notice reserve; null without requests); `overflow_limit`
 * the limit overflows were counted against (tokens, null when unknown, then `overflows` is 0).
 * `relative_cost` is the input cost in relative units (`toRelativeCost`: uncached input 1.0, cache
 * reads 0.1, 5-minute writes 1.25, 1-hour writes 2.0 per token), which needs no price table.
 * `needed_facts`, `recalled_facts` and `recall` are the needed-fact recall (`toRecallFigures`;
 * `recall` is null when no request needed a fact). `fit_error` is how far the meter's count is from
 * the bill: the mean over the requests that returned a view whose `used_tokens` counts that view
 * (before the run's first compaction boundary, where the view is W, which every meter counts; under
 * `token_meter: "calibrated"`, which counts the view with the sticky decisions applied, every
 * request that made no boundary; in both, only where the economics bill that view,
 * `RequestEconomics.bills_view`) of |`used_tokens` − billed input| / billed input, a fraction (0.5 = 50 %); null when no such
 * request has a bill. `fit_requests` is the number of requests that mean was taken over (the
 * weight of a session in a pooled mean). The reference estimate misses the system prompt and tool
 * definitions a provider bills beside the messages (about 50 % on the Claude Code sessions); the
 * calibrated meter (docs/contract.md 17.13) about 1 %.
 *
 * @example
 * const metrics: SessionMetrics = { requests: 12, boundaries: 2, highest_level: 3, invalid_views: 0, overflows: 0, overflows_unknown: 0, prefix_breaks: 2, input_tokens: 240000, cache_read_tokens: 200000, cache_write_tokens: 30000, uncached_input_tokens: 10000, cost_usd: 0.34, relative_cost: 67500, budget: 59200, overflow_limit: 59200, clamped_requests: 0, failed_requests: 0, infeasible_requests: 0, needed_facts: 40, recalled_facts: 36, recall: 0.9, fit_error: 0.012, fit_requests: 1 }
 */
export interface SessionMetrics {
  readonly budget: number | null
  readonly requests: number
  readonly boundaries: number
  readonly highest_level: number
  readonly invalid_views: number
  readonly overflows: number
  /**
   * Requests whose overflow is unknown (`judgeOverBudget`): no bill of the view sent, so neither
   * counted in `overflows` nor as within the limit; 0 under simulated usage.
   */
  readonly overflows_unknown: number
  readonly prefix_breaks: number
  readonly input_tokens: number
  readonly cache_read_tokens: number
  readonly cache_write_tokens: number
  readonly uncached_input_tokens: number
  readonly cost_usd: number
  readonly relative_cost: number
  readonly overflow_limit: number | null
  readonly clamped_requests: number
  readonly failed_requests: number
  /**
   * Requests on which the library reported `context:compaction-infeasible` (the view's floor, or
   * under the calibrated meter the fitted overhead, leaves no room under E: docs/contract.md 17.13,
   * 17.14). The goals of docs/evaluation.md leave such sessions out of the recall and overflow checks.
   */
  readonly infeasible_requests: number
  /**
   * Anthropic only: cache reads and writes (tokens) of the same requests under each breakpoint
   * placement of the cache model (`anthropic_cache_breakpoints`, the automatic mode, none).
   */
  readonly cache_modes?: Readonly<Record<ComparedCacheMode, { readonly cache_read_tokens: number; readonly cache_write_tokens: number }>>
  readonly needed_facts: number
  readonly recalled_facts: number
  readonly recall: number | null
  readonly fit_error: number | null
  readonly fit_requests: number
}

/**
 * Relative input cost of one split: uncached input 1.0 per token, cache reads 0.1, 5-minute
 * writes 1.25, 1-hour writes 2.0 (the ratios of Anthropic's and OpenAI's price lists, where
 * OpenAI bills no writes), so costs compare without a price table.
 *
 * @example
 * toRelativeCost({ input_tokens: 2000, cache_read_tokens: 1000, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: 1000 }) // 1100
 */
export const toRelativeCost = (split: InputSplit): number =>
  split.uncached_input_tokens + 0.1 * split.cache_read_tokens + 1.25 * (split.cache_write_tokens - split.cache_write_1h_tokens) + 2 * split.cache_write_1h_tokens

/**
 * How overflows are counted: against each request's effective budget E (when a budget was
 * given), against a fixed model window (tokens), or not at all (window unknown).
 *
 * @example
 * const limit: OverflowLimit = { kind: 'window', tokens: 200000 }
 */
export type OverflowLimit = { readonly kind: 'budget' } | { readonly kind: 'window'; readonly tokens: number } | { readonly kind: 'none' }

/**
 * Whether one request went over `limit` (tokens: the request's E, or a model window), judged on a
 * bill of the view the replay sent: `true` / `false` when the economics are such a bill
 * (`RequestEconomics.bills_view`: every request under simulated usage; under recorded usage a
 * request with a reading whose view is the request the agent sent), `'unknown'` when none bills
 * that view (recorded usage after the replay's first compaction, no reading, or a recording replayed under
 * another configuration or budget: `ReplayUsage.readingsBillHistory`). Never the meter's
 * own count: that would grade the meter against itself. `false` without a limit.
 *
 * @example
 * const split: InputSplit = { input_tokens: 70000, cache_read_tokens: 0, cache_write_tokens: 70000, cache_write_1h_tokens: 0, uncached_input_tokens: 0 }
 * const economics: RequestEconomics = { split, overhead: 12000, clamped: false, recorded_input: 70000, prefix_break: false, usage: null, sent_tokens: 58000, view_tokens: 58000, billed_sent_tokens: 58000, billed_view_tokens: 58000, bills_view: true }
 * judgeOverBudget(economics, 60000) // => true
 * judgeOverBudget({ ...economics, bills_view: false }, 60000) // => 'unknown'
 * judgeOverBudget(economics, null) // => false
 */
export const judgeOverBudget = (economics: RequestEconomics, limit: number | null): OverBudget =>
  limit === null ? false : economics.bills_view ? economics.split.input_tokens > limit : 'unknown'

/**
 * A request's over-budget judgement (`judgeOverBudget`): over, within, or `'unknown'` when no bill
 * of the view sent exists (recorded readings after the replay's first compaction).
 *
 * @example
 * const judged: OverBudget = 'unknown'
 */
export type OverBudget = boolean | 'unknown'

/**
 * Tool-call ids that the recording itself declares more than once (in several assistant
 * messages, or twice in one): views repeating them only repeat the input and are not counted
 * as invalid.
 *
 * @example
 * selectRepeatedRecordingCallIds({ config: {}, now: '', ops: [] }).size // => 0
 */
export const selectRepeatedRecordingCallIds = (recording: Recording): ReadonlySet<string> => {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const op of recording.ops) {
    const messages = op.op === 'add_message' ? [op.message] : op.op === 'set_messages' ? op.messages : []
    for (const message of messages) {
      if (!Array.isArray(message.tool_calls)) continue
      for (const call of message.tool_calls) {
        const id = isPlainObject(call) && typeof call.id === 'string' ? call.id : null
        if (id === null) continue
        if (seen.has(id)) repeated.add(id)
        seen.add(id)
      }
    }
  }
  return repeated
}

/**
 * True when `problems` (from `selectPairingProblems`) hold one that names no call id of
 * `repeated` (ids the input itself uses twice); R3 names none, so it always counts.
 *
 * @example
 * hasOwnPairingProblem([{ rule: 'R1', index: 3, callIds: ['a'], text: 'R1 result a at 3 has no call right before it' }], new Set(['a'])) // => false
 */
export const hasOwnPairingProblem = (problems: ReadonlyArray<PairingProblem>, repeated: ReadonlySet<string>): boolean =>
  problems.some((problem) => !problem.callIds.some((id) => repeated.has(String(id))))

type CacheModeSums = Partial<Record<ComparedCacheMode, { cache_read_tokens: number; cache_write_tokens: number }>>

/** Adds one request's cache reads and writes under each compared breakpoint placement to `sums` (mutated: a local accumulator). */
const addCacheModes = (sums: CacheModeSums, split: Readonly<Record<ComparedCacheMode, { readonly cache_read_tokens: number; readonly cache_write_tokens: number }>>): void => {
  for (const mode of Object.keys(split) as ComparedCacheMode[]) {
    const own = (sums[mode] ??= { cache_read_tokens: 0, cache_write_tokens: 0 })
    own.cache_read_tokens += split[mode].cache_read_tokens
    own.cache_write_tokens += split[mode].cache_write_tokens
  }
}

/**
 * The figures of one replay run with `options.usage` (its `economics` filled): boundaries are
 * requests that emitted `context:compaction`; invalid views break R1-R3 (`selectPairingProblems`)
 * other than by repeating the input's repeated call ids; an overflow is a request whose input
 * (under the provider model) exceeds the limit (`judgeOverBudget`: `overflows_unknown` counts the
 * requests no bill of the view sent judges); costs use `price` (0 when null); recall is
 * `toRecallFigures` of `recording` (the input as given) against the views sent.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, { usage: { mode: 'simulated', provider: 'openai' } })
 * toSessionMetrics(result, recording, { kind: 'budget' }, loadPriceTable().models['gpt-4o']).invalid_views // => 0
 */
export const toSessionMetrics = (result: ReplayResult, recording: Recording, limit: OverflowLimit, price: ModelPrice | null): SessionMetrics => {
  const repeated = selectRepeatedRecordingCallIds(recording)
  let boundaries = 0
  let highest = 0
  let invalid = 0
  let overflows = 0
  let unknown = 0
  let breaks = 0
  let failed = 0
  let infeasible = 0
  let cost = 0
  let relative = 0
  let fitSum = 0
  let fitCount = 0
  const totals = { input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, uncached_input_tokens: 0 }
  const modes: CacheModeSums = {}
  result.lines.forEach((line, index) => {
    if (line.events.some((event) => event.name === 'context:compaction')) boundaries += 1
    if (line.events.some((event) => event.name === 'context:compaction-infeasible')) infeasible += 1
    const stats = line.compaction_stats as CompactionStats | null
    if (stats !== null) highest = Math.max(highest, stats.strategy_level)
    if (line.view === null) {
      failed += 1
      return
    }
    if (hasOwnPairingProblem(selectPairingProblems(line.view), repeated)) invalid += 1
    const economics = result.economics[index]
    if (economics === null || economics === undefined) return
    const split = economics.split
    if (economics.prefix_break) breaks += 1
    totals.input_tokens += split.input_tokens
    totals.cache_read_tokens += split.cache_read_tokens
    totals.cache_write_tokens += split.cache_write_tokens
    totals.uncached_input_tokens += split.uncached_input_tokens
    if (price !== null) cost += toInputCostUsd(split, price)
    if (economics.cache_modes !== undefined) addCacheModes(modes, economics.cache_modes)
    relative += toRelativeCost(split)
    const meter = line.token_meter_stats as TokenMeterStats | null
    const over = judgeOverBudget(economics, limit.kind === 'budget' ? (meter?.budget ?? null) : limit.kind === 'window' ? limit.tokens : null)
    if (over === true) overflows += 1
    if (over === 'unknown') unknown += 1
    // only where used_tokens counts the view sent: before the run's first boundary (the view is W,
    // which the estimate / hybrid / actual meters count), and under the calibrated meter on every
    // request that made no boundary (it counts the view with the sticky decisions applied)
    const boundary = line.events.some((event) => event.name === 'context:compaction')
    const describesView = boundaries === 0 || (meter?.mode === 'calibrated' && !boundary)
    if (meter !== null && meter !== undefined && split.input_tokens > 0 && describesView && economics.bills_view) {
      fitSum += Math.abs(meter.used_tokens - split.input_tokens) / split.input_tokens
      fitCount += 1
    }
  })
  const first = result.lines[0]?.token_meter_stats as TokenMeterStats | null | undefined
  const recall = toRecallFigures(recording, result.lines.map((line) => line.view))
  return {
    budget: first?.budget ?? null,
    requests: result.lines.length,
    boundaries,
    highest_level: highest,
    invalid_views: invalid,
    overflows,
    overflows_unknown: unknown,
    prefix_breaks: breaks,
    ...totals,
    cost_usd: cost,
    relative_cost: Math.round(relative),
    overflow_limit: limit.kind === 'window' ? limit.tokens : limit.kind === 'budget' ? (first?.budget ?? null) : null,
    clamped_requests: result.clampedRequests,
    failed_requests: failed,
    infeasible_requests: infeasible,
    ...(Object.keys(modes).length > 0 ? { cache_modes: modes as Record<ComparedCacheMode, { cache_read_tokens: number; cache_write_tokens: number }> } : {}),
    needed_facts: recall.needed_facts,
    recalled_facts: recall.recalled_facts,
    recall: recall.recall,
    fit_error: fitCount === 0 ? null : fitSum / fitCount,
    fit_requests: fitCount,
  }
}
