/**
 * The calibrated meter (`token_meter: "calibrated"`, docs/contract.md 17.13): per session a model
 * billed ≈ scale × estimate(view) + overhead, fitted from the pairs (estimate of the view that was
 * sent, the provider's reading for it), and the count of a request: the last reading + scale ×
 * estimate(what was appended) when the view the reading describes (less its ephemeral tail) is a
 * prefix of this one (the shape openai/codex uses), else the model. Pure.
 */
import { toWireKey } from '../economics/items.js'
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import type { TokenEstimator } from './estimate.js'
import { measureUnbilledReasoning } from '../formats/openai-responses.js'
import type { ReasoningContext } from '../config.js'

/**
 * The part of `estimate(view[0..end))` the provider does not bill under `reasoning`
 * (`calibration_reasoning_context`, docs/contract.md 17.13): the Responses reasoning before the
 * last user message under `"current_turn"` (`measureUnbilledReasoning`), nothing under
 * `"all_turns"` (earlier turns' reasoning passed back is rendered and billed). Estimator tokens.
 *
 * @example
 * measureUnbilled('all_turns', [{ role: 'user', content: 'hi' }], () => 10) // => 0
 */
export const measureUnbilled = (reasoning: ReasoningContext, view: Messages, estimate: TokenEstimator, end: number = view.length): number =>
  reasoning === 'all_turns' ? 0 : measureUnbilledReasoning(view, estimate, end)

/**
 * One pair of the fit: the estimate of a view that was sent (estimator tokens) and the provider's
 * reading for it (billed tokens, `input_tokens + cache_write_tokens`, SPEC 10.2).
 *
 * @example
 * const point: CalibrationPoint = { estimate: 20000, reading: 58700 }
 */
export interface CalibrationPoint {
  readonly estimate: number
  readonly reading: number
}

/**
 * A view as the calibrated meter remembers it: its estimate without the ephemeral tail (estimator
 * tokens, as billed: docs/contract.md 17.13), the tail's share of the billed estimate (notice,
 * replay: their estimate less the reasoning a user-role tail stops billing, so it may be negative),
 * and one 32-bit hash per message before the tail (to tell whether a later view begins with it).
 *
 * @example
 * const sent: SentView = { estimate: 20000, tailEstimate: 40, hashes: [3735928559, 195948557] }
 */
export interface SentView {
  readonly estimate: number
  readonly tailEstimate: number
  readonly hashes: ReadonlyArray<number>
}

/**
 * The calibrated meter's state: the last `CALIBRATION_WINDOW` pairs (oldest first), the last view
 * sent and not yet read (null once its reading arrived), the anchor (the last reading and the view
 * it describes, null before the first), and the relative error of the model's prediction for the
 * last reading, made before that reading joined the fit (null before the second reading).
 *
 * @example
 * EMPTY_CALIBRATION.points // []
 */
export interface CalibrationState {
  readonly points: ReadonlyArray<CalibrationPoint>
  readonly sent: SentView | null
  readonly anchor: { readonly reading: number; readonly view: SentView } | null
  readonly lastError: number | null
}

/**
 * The state before any request.
 *
 * @example
 * EMPTY_CALIBRATION.anchor // null
 */
export const EMPTY_CALIBRATION: CalibrationState = { points: [], sent: null, anchor: null, lastError: null }

/**
 * How many recent pairs the fit keeps (the overhead can change: tools added, a new system prompt).
 *
 * @example
 * CALIBRATION_WINDOW // 48
 */
export const CALIBRATION_WINDOW = 48

/**
 * The model the meter uses: `scale` (billed tokens per estimator token), `overhead` (billed
 * tokens beside the messages: system prompt and tool definitions the history does not hold),
 * `margin` (billed tokens added to a model count while the fit is uncertain: the larger count),
 * and the number of pairs the fit used.
 *
 * @example
 * const model: CalibrationModel = { scale: 1.25, overhead: 33700, margin: 400, points: 12 }
 */
export interface CalibrationModel {
  readonly scale: number
  readonly overhead: number
  readonly margin: number
  readonly points: number
}

/**
 * The priors (configuration keys): `calibration_scale` (default 1) and
 * `calibration_overhead_tokens` (default 0; a caller can compute it from its tool schemas).
 *
 * @example
 * const priors: CalibrationPriors = { scale: 1, overhead: 12000 }
 */
export interface CalibrationPriors {
  readonly scale: number
  readonly overhead: number
}

const MIN_SCALE = 0.25
const MAX_SCALE = 8

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const leastSquares = (points: ReadonlyArray<CalibrationPoint>): { readonly scale: number; readonly overhead: number } | null => {
  let sx = 0
  let sy = 0
  for (const point of points) {
    sx += point.estimate
    sy += point.reading
  }
  const mx = sx / points.length
  const my = sy / points.length
  let sxx = 0
  let sxy = 0
  for (const point of points) {
    sxx += (point.estimate - mx) ** 2
    sxy += (point.estimate - mx) * (point.reading - my)
  }
  if (!(sxx > 0)) return null
  const scale = sxy / sxx
  if (!Number.isFinite(scale) || scale < MIN_SCALE || scale > MAX_SCALE) return null
  return { scale, overhead: my - scale * mx }
}

/** Whether the pairs' estimates vary by at least 10 % of their mean (else a line cannot be told from them). */
const tellsLine = (points: ReadonlyArray<CalibrationPoint>): boolean => {
  if (points.length < 2) return false
  const estimates = points.map((point) => point.estimate)
  const mean = estimates.reduce((a, b) => a + b, 0) / points.length
  return Math.max(...estimates) - Math.min(...estimates) >= 0.1 * mean
}

/**
 * The model from the priors and the pairs. No pairs: the priors, with no margin. Pairs whose
 * estimates vary by less than 10 % of their mean (a line cannot be told from them), or whose
 * least-squares slope is outside 0.25..8: the prior scale and the largest overhead the pairs
 * imply (the larger count). Otherwise least squares, once more without the pairs over 5 robust
 * standard deviations (1.4826 × the median absolute residual, at least 1 % of that pair's own
 * reading) off a robust line (readings of another conversation, a reset; the line's slope is the
 * median slope between two pairs whose estimates differ by 10 % of their mean or more) when the
 * pairs kept still vary by 10 %, and a margin of the largest under-prediction among the pairs the
 * line was fitted on (0 when the line passes above every pair).
 *
 * @example
 * fitCalibration({ scale: 1, overhead: 0 }, [{ estimate: 1000, reading: 3250 }, { estimate: 2000, reading: 4500 }, { estimate: 3000, reading: 5750 }])
 * // { scale: 1.25, overhead: 2000, margin: 0, points: 3 }
 */
export const fitCalibration = (priors: CalibrationPriors, points: ReadonlyArray<CalibrationPoint>): CalibrationModel => {
  if (points.length === 0) return { scale: priors.scale, overhead: priors.overhead, margin: 0, points: 0 }
  const line = tellsLine(points) ? leastSquares(points) : null
  if (line === null) {
    const overhead = Math.max(...points.map((point) => point.reading - priors.scale * point.estimate))
    return { scale: priors.scale, overhead, margin: 0, points: points.length }
  }
  // Residuals against a robust line (Theil-Sen: the median pairwise slope), so one far-off
  // reading cannot drag the line onto itself before it is judged. Only the pairs whose estimates
  // differ by at least 10 % of their mean give a slope (the rule for all pairs, above): the slope
  // of two views of about one size is their readings' noise over a few tokens, and where most
  // readings are of one size those slopes outnumbered the ones across sizes and tilted the line
  // (test/core/meter/calibration.test.ts).
  const slopes: number[] = []
  for (let i = 0; i < points.length; i += 1) {
    for (let j = i + 1; j < points.length; j += 1) {
      const dx = points[j].estimate - points[i].estimate
      if (dx !== 0 && Math.abs(dx) >= 0.05 * (points[i].estimate + points[j].estimate)) slopes.push((points[j].reading - points[i].reading) / dx)
    }
  }
  const robustScale = slopes.length > 0 ? median(slopes) : line.scale
  const robustOverhead = median(points.map((point) => point.reading - robustScale * point.estimate))
  const residuals = points.map((point) => point.reading - (robustScale * point.estimate + robustOverhead))
  // The floor is 1 % of each pair's own reading, as in fitProviderModel: token-count errors grow
  // with the count, and a floor taken from the median reading left out every reading of the
  // larger size of a session whose readings cluster at two sizes, so the refit extrapolated the
  // smaller size's own slope (test/core/meter/calibration.test.ts, seed -820079084).
  const robust = 1.4826 * median(residuals.map(Math.abs))
  const kept = points.filter((point, index) => Math.abs(residuals[index]) <= 5 * Math.max(robust, 0.01 * point.reading))
  // A kept set whose estimates no longer vary by 10 % cannot tell a line either: the first line
  // (before, any variation was refitted, and a reading of another size left out made the slope of
  // a few tokens' noise the meter's scale: test/core/meter/calibration.test.ts).
  const refit = kept.length < points.length && tellsLine(kept) ? leastSquares(kept) : null
  const fit = refit ?? line
  const used = refit === null ? points : kept
  let margin = 0
  for (const point of used) margin = Math.max(margin, point.reading - (fit.scale * point.estimate + fit.overhead))
  return { scale: fit.scale, overhead: fit.overhead, margin, points: used.length }
}

const hashes = new WeakMap<object, number>()

/**
 * A 32-bit FNV-1a hash of a message's wire form (its JSON without `metadata`), memoised per
 * message object.
 *
 * @example
 * toMessageHash({ role: 'user', content: 'hi' }) === toMessageHash({ role: 'user', content: 'hi', metadata: { _seq: 3 } }) // true
 */
export const toMessageHash = (message: Message): number => {
  const known = hashes.get(message)
  if (known !== undefined) return known
  const key = toWireKey(message)
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  hashes.set(message, hash)
  return hash
}

const isEphemeral = (message: Message): boolean => isPlainObject(message.metadata) && isTruthy(message.metadata.ephemeral)

/**
 * The `SentView` of a view about to be sent: the ephemeral tail (notice, replay) is split off;
 * `estimate` leaves out the reasoning the provider does not bill under `reasoning`
 * (`measureUnbilled`, `calibration_reasoning_context`).
 *
 * @example
 * toSentView([{ role: 'user', content: 'hi' }], estimateOne).hashes.length // 1
 */
export const toSentView = (view: Messages, estimate: TokenEstimator, reasoning: ReasoningContext = 'current_turn'): SentView => {
  let end = view.length
  let tailEstimate = 0
  while (end > 0 && isEphemeral(view[end - 1])) {
    end -= 1
    tailEstimate += estimate(view[end])
  }
  const hashed: number[] = []
  let total = 0
  for (let i = 0; i < end; i += 1) {
    hashed.push(toMessageHash(view[i]))
    total += estimate(view[i])
  }
  // The estimates the fit pairs with the reading are of what the provider bills (docs/contract.md
  // 17.13). A user-role tail (notice, replay) ends the turn, so the reasoning before it is not
  // billed in this view; the prefix is measured without the tail, and the tail's share is its
  // estimate less that reasoning, so the append shape gives it back to a later view sent without
  // the tail (the pair's sum, estimate + tailEstimate, is the billed estimate of the whole view).
  const prefixUnbilled = measureUnbilled(reasoning, view, estimate, end)
  const tailUnbilled = measureUnbilled(reasoning, view, estimate) - prefixUnbilled
  return { estimate: Math.max(0, total - prefixUnbilled), tailEstimate: tailEstimate - tailUnbilled, hashes: hashed }
}

/**
 * The calibrated count of a candidate view (the list that would be sent: sticky decisions
 * applied, no notice or replay) with its estimate `viewEstimate`: `model_tokens` = ceil(scale ×
 * billed + overhead + margin), billed = viewEstimate less the reasoning the provider does not
 * bill (`measureUnbilled` under `reasoning`, `calibration_reasoning_context`: by default the
 * Responses reasoning before the last user message);
 * `calibrated_tokens` = the append shape when the anchor's view is a prefix of `view`
 * (ceil(reading − scale × its ephemeral tail + scale × (estimate(what was appended) − the
 * reasoning the appended messages stop billing))), else `model_tokens`. `shape` says which; `kind` is `calibrated` once a reading
 * exists, else `estimated`.
 *
 * @example
 * countCalibrated(EMPTY_CALIBRATION, { scale: 1, overhead: 0, margin: 0, points: 0 }, [{ role: 'user', content: 'hi' }], 120, () => 120).calibrated_tokens // 120
 */
export const countCalibrated = (
  calibration: CalibrationState,
  model: CalibrationModel,
  view: Messages,
  viewEstimate: number,
  estimate: TokenEstimator,
  reasoning: ReasoningContext = 'current_turn',
): { readonly calibrated_tokens: number; readonly model_tokens: number; readonly shape: 'append' | 'model'; readonly kind: 'calibrated' | 'estimated' } => {
  // Counted as billed: without the reasoning the provider drops (docs/contract.md 17.13).
  const unbilled = measureUnbilled(reasoning, view, estimate)
  // (a negative fitted overhead, readings below the estimate, never makes a count negative)
  const modelTokens = Math.max(0, Math.ceil(model.scale * Math.max(0, viewEstimate - unbilled) + model.overhead + model.margin))
  const anchor = calibration.anchor
  const kind = anchor === null ? 'estimated' : 'calibrated'
  if (anchor !== null && anchor.view.hashes.length <= view.length && anchor.view.hashes.length > 0) {
    let prefix = true
    for (let i = 0; i < anchor.view.hashes.length && prefix; i += 1) prefix = toMessageHash(view[i]) === anchor.view.hashes[i]
    if (prefix) {
      let appended = 0
      for (let i = anchor.view.hashes.length; i < view.length; i += 1) appended += estimate(view[i])
      // A user message appended ends the turn: the reasoning before it is no longer billed.
      appended -= unbilled - measureUnbilled(reasoning, view, estimate, anchor.view.hashes.length)
      const count = Math.ceil(anchor.reading - model.scale * anchor.view.tailEstimate + model.scale * appended)
      return { calibrated_tokens: Math.max(0, count), model_tokens: modelTokens, shape: 'append', kind }
    }
  }
  return { calibrated_tokens: modelTokens, model_tokens: modelTokens, shape: 'model', kind }
}

/**
 * A reading for the last view sent: the pair joins the fit (the oldest leaves past
 * `CALIBRATION_WINDOW`), the anchor moves to it, and `lastError` is the relative error of the
 * prediction the model made for it from the earlier pairs. A reading with no view waiting (a
 * second reading for one view, or one before any request) moves nothing but is ignored for the
 * fit: it cannot be paired.
 *
 * @example
 * applyCalibrationReading({ scale: 1, overhead: 0 }, { ...EMPTY_CALIBRATION, sent: { estimate: 100, tailEstimate: 0, hashes: [1] } }, 130).points // [{ estimate: 100, reading: 130 }]
 */
export const applyCalibrationReading = (priors: CalibrationPriors, calibration: CalibrationState, reading: number): CalibrationState => {
  const sent = calibration.sent
  if (sent === null) return calibration
  const total = sent.estimate + sent.tailEstimate
  const before = fitCalibration(priors, calibration.points)
  const predicted = before.scale * total + before.overhead
  const lastError = calibration.points.length === 0 || reading <= 0 ? calibration.lastError : Math.abs(predicted - reading) / reading
  const points = [...calibration.points, { estimate: total, reading }].slice(-CALIBRATION_WINDOW)
  return { points, sent: null, anchor: { reading, view: sent }, lastError }
}

/**
 * Billed tokens converted into estimator tokens through the model: floor((billed − overhead −
 * margin) / scale), which may be 0 or negative (the overhead alone fills it: the infeasible case).
 *
 * @example
 * toEstimatorUnits({ scale: 1.25, overhead: 2000, margin: 0, points: 3 }, 7000) // 4000
 */
export const toEstimatorUnits = (model: CalibrationModel, billed: number): number => Math.floor((billed - model.overhead - model.margin) / model.scale)

/**
 * The pass target of the calibrated meter in estimator tokens (docs/contract.md 17.13, "The
 * target"), for an effective budget E of `effective` billed tokens and `targetUsage` (the fraction
 * of E a compaction aims at, `target_usage`): the billed target `trunc(E × targetUsage)` converted
 * through `model` (`toEstimatorUnits`), but never below `trunc(min(targetUsage, share) × room)`,
 * where `room` is E converted (what the hidden overhead leaves) and `share` = (overhead + margin) /
 * E the part of E the overhead fills. While the overhead alone is over the billed target
 * (`targetUsage` ≤ `share`) the target is `targetUsage` of the room; from `share` on it stays at
 * `share × room` until the converted billed target passes it, then it is that conversion. So it is
 * non-decreasing in `targetUsage` and continuous (from u to u' it grows by at most (E × (u' − u) +
 * 1) / scale + 1 estimator tokens: the slope of the converted billed target and its rounding), where the conversion with a fall-back to
 * `targetUsage × room` dropped from about `share × room` to 0 at `share`. A model without
 * overhead (or a negative one) gives the conversion itself, and so does a room ≤ 0 (the
 * infeasible case: the result is then ≤ 0).
 *
 * @example
 * // the overhead fills 0.5 of E = 60,000; the room is 30,000 estimator tokens
 * const model = { scale: 1, overhead: 30000, margin: 0, points: 12 }
 * // 0.4 of the room: the billed 24,000 is under the overhead
 * toCalibratedTarget(model, 60000, 0.4) // => 12000
 * // 0.5 of the room: the billed 36,000 converts to only 6,000
 * toCalibratedTarget(model, 60000, 0.6) // => 15000
 * // the billed 54,000 converted
 * toCalibratedTarget(model, 60000, 0.9) // => 24000
 */
export const toCalibratedTarget = (model: CalibrationModel, effective: number, targetUsage: number): number => {
  const billed = toEstimatorUnits(model, Math.trunc(effective * targetUsage))
  const room = toEstimatorUnits(model, effective)
  if (room <= 0 || effective <= 0) return billed
  const share = (model.overhead + model.margin) / effective
  return Math.max(billed, Math.trunc(Math.min(targetUsage, share) * room))
}
