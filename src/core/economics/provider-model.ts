/**
 * The provider model's fit (docs/evaluation.md, "The provider model"): per session, the recorded
 * reading of each original request against the count of what the original agent sent, counted
 * with a measure independent of the meter's estimator (the `gpt-tokenizer` split in the shell).
 * A replayed view is billed as the original request's reading + scale × (count(view) −
 * count(original)): the reading keeps its real noise and overhead, and a shrunk view is billed
 * less. Pure.
 */
import type { TokenEstimator } from '../meter/estimate.js'
import type { Message } from '../messages/message.js'
import type { Recording } from '../replay/recording.js'

/**
 * A session's provider model: `scale` billed tokens per counted token (the fitted slope of the
 * readings on the counts), `overhead` the fitted intercept in billed tokens (the system prompt and
 * tool definitions sent beside the messages; used for a request without a reading), `points` the
 * pairs the fit kept, `rejected` the pairs it left out as outliers, and `source`: `readings` when
 * fitted, `none` when the session has no readings (then scale 1 and overhead 0: the count of the
 * view is the bill, no hidden overhead), `single` for one reading (scale 1, overhead = reading −
 * count).
 *
 * @example
 * const fit: ProviderFit = { scale: 1.02, overhead: 31000, points: 140, rejected: 2, source: 'readings' }
 */
export interface ProviderFit {
  readonly scale: number
  readonly overhead: number
  readonly points: number
  readonly rejected: number
  readonly source: 'readings' | 'single' | 'none'
}

/**
 * One pair of the fit: the count of what the original agent sent (counter tokens) and the
 * provider's reading for that request (`input_tokens + cache_write_tokens`, SPEC 10.2).
 *
 * @example
 * const pair: FitPair = { count: 20000, reading: 52000 }
 */
export interface FitPair {
  readonly count: number
  readonly reading: number
}

/**
 * The model without readings: scale 1, overhead 0 (tau-bench trajectories carry no usage).
 *
 * @example
 * NO_READINGS_FIT.scale // 1
 */
export const NO_READINGS_FIT: ProviderFit = { scale: 1, overhead: 0, points: 0, rejected: 0, source: 'none' }

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const leastSquares = (pairs: ReadonlyArray<FitPair>): { readonly scale: number; readonly overhead: number } | null => {
  const n = pairs.length
  let sx = 0
  let sy = 0
  for (const pair of pairs) {
    sx += pair.count
    sy += pair.reading
  }
  const mx = sx / n
  const my = sy / n
  let sxx = 0
  let sxy = 0
  for (const pair of pairs) {
    sxx += (pair.count - mx) * (pair.count - mx)
    sxy += (pair.count - mx) * (pair.reading - my)
  }
  if (!(sxx > 0)) return null
  const scale = sxy / sxx
  if (!Number.isFinite(scale) || scale <= 0) return null
  return { scale, overhead: my - scale * mx }
}

/**
 * Fits reading ≈ scale × count + overhead by least squares, once more without the pairs whose
 * residual is over 5 robust standard deviations (1.4826 × the median absolute residual, at least
 * 1 % of that pair's own reading): a reading that belongs to another conversation or a reset does not
 * bend the line. No pairs: `NO_READINGS_FIT`. One pair, or counts that do not vary, or a slope that
 * is not positive: scale 1 and overhead = the median of reading − count (`single` for one pair).
 *
 * @example
 * fitProviderModel([{ count: 100, reading: 1200 }, { count: 200, reading: 1400 }, { count: 300, reading: 1600 }]) // { scale: 2, overhead: 1000, points: 3, rejected: 0, source: 'readings' }
 */
export const fitProviderModel = (pairs: ReadonlyArray<FitPair>): ProviderFit => {
  if (pairs.length === 0) return NO_READINGS_FIT
  const offsetOnly = (kept: ReadonlyArray<FitPair>, rejected: number): ProviderFit => ({
    scale: 1,
    overhead: median(kept.map((pair) => pair.reading - pair.count)),
    points: kept.length,
    rejected,
    source: pairs.length === 1 ? 'single' : 'readings',
  })
  const first = leastSquares(pairs)
  if (first === null) return offsetOnly(pairs, 0)
  const residuals = pairs.map((pair) => pair.reading - (first.scale * pair.count + first.overhead))
  // The floor is 1 % of each pair's own reading: token-count errors grow with the count, and a floor
  // taken from the median reading left out every large reading of a session whose readings cluster at
  // two sizes, and the refit on the small ones alone extrapolated a slope half the true one
  // (test/core/economics/provider-model.test.ts, seed 1408249031).
  const spread = 1.4826 * median(residuals.map(Math.abs))
  const kept = pairs.filter((pair, index) => Math.abs(residuals[index]) <= 5 * Math.max(spread, 0.01 * pair.reading))
  const second = kept.length >= 2 && kept.length < pairs.length ? leastSquares(kept) : null
  const fit = second ?? first
  const used = second === null ? pairs.length : kept.length
  return { scale: fit.scale, overhead: fit.overhead, points: used, rejected: pairs.length - used, source: 'readings' }
}

/**
 * The count of one message in billed tokens under `fit`: `round(scale × count(message))`.
 *
 * @example
 * toBilledCount({ ...NO_READINGS_FIT, scale: 1.5 }, () => 10)({ role: 'user', content: 'hi' }) // 15
 */
export const toBilledCount =
  (fit: ProviderFit, count: TokenEstimator): TokenEstimator =>
  (message: Message): number =>
    Math.round(fit.scale * count(message))

/**
 * The fit pairs of a recording: for each `get_messages_for_request` whose `readings` entry (the
 * usage value of the first `llm_response` after it, keyed by op index) has a usable
 * `input_tokens`, the count of the history the original agent held then (`add_message` adds,
 * `set_messages` replaces, `clear` empties) and the reading's total. `readingOf` turns a usage value
 * into its total (null when unusable).
 *
 * @example
 * selectFitPairs({ config: {}, now: '2026-01-01T00:00:00Z', ops: [{ op: 'get_messages_for_request' }] }, new Map([[0, 100]]), (usage) => (typeof usage === 'number' ? usage : null), () => 10).length // 1
 */
export const selectFitPairs = (
  recording: Recording,
  readings: ReadonlyMap<number, unknown>,
  readingOf: (usage: unknown) => number | null,
  count: TokenEstimator,
): ReadonlyArray<FitPair> => {
  const pairs: FitPair[] = []
  let held = 0
  recording.ops.forEach((op, index) => {
    if (op.op === 'add_message') held += count(op.message)
    else if (op.op === 'set_messages') held = op.messages.reduce((total, message) => total + count(message), 0)
    else if (op.op === 'clear') held = 0
    else if (op.op === 'get_messages_for_request' && readings.has(index)) {
      const reading = readingOf(readings.get(index))
      if (reading !== null) pairs.push({ count: held, reading })
    }
  })
  return pairs
}
