/**
 * The calibrated meter in the request (`token_meter: "calibrated"`, docs/contract.md 17.13): the
 * count of the candidate view that drives the trigger, the stats keys it adds, the ladder's
 * target and E converted into estimator units through the model, the infeasible case, and the
 * state updates when a view is sent and when its reading arrives. Pure.
 */
import type { Config, ReasoningContext } from '../config.js'
import type { Messages } from '../messages/message.js'
import type { MeterState, State } from '../state.js'
import type { TokenMeterStats } from '../stats.js'
import {
  applyCalibrationReading,
  countCalibrated,
  EMPTY_CALIBRATION,
  fitCalibration,
  toCalibratedTarget,
  toEstimatorUnits,
  toSentView,
  type CalibrationModel,
  type CalibrationPriors,
  type CalibrationState,
} from './calibration.js'
import type { TokenEstimator } from './estimate.js'
import { seqOf } from '../messages/message.js'
import { measureUnbilledReasoning, toReasoningShare, type ReasoningPrefix } from '../formats/openai-responses.js'
import type { PassContext } from '../compaction/context.js'

/**
 * The priors of `config` (`calibration_scale`, `calibration_overhead_tokens`).
 *
 * @example
 * toCalibrationPriors(DEFAULT_CONFIG) // { scale: 1, overhead: 0 }
 */
export const toCalibrationPriors = (config: Config): CalibrationPriors => ({ scale: config.calibration_scale, overhead: config.calibration_overhead_tokens })

/**
 * The `calibration` stats key: the model's scale and overhead (billed tokens), the pairs it used,
 * and the relative error of the last prediction checked against a reading (null before).
 *
 * @example
 * const stats: CalibrationStats = { scale: 1.25, overhead: 33700, points: 12, last_error: 0.004 }
 */
export interface CalibrationStats {
  readonly scale: number
  readonly overhead: number
  readonly points: number
  readonly last_error: number | null
}

/**
 * What the calibrated meter says about one request: the meter stats with `used_tokens` =
 * `calibrated_tokens` and the three added keys, the model, and the ladder's E and target in
 * estimator units (`effectiveUnits`: E converted, `toEstimatorUnits`; `targetUnits`: the pass
 * target, `toCalibratedTarget`; both ≤ 0 when the overhead alone fills E, the infeasible case).
 *
 * @example
 * const units: CalibratedReading['effectiveUnits'] = 20000
 */
export interface CalibratedReading {
  readonly stats: TokenMeterStats
  readonly model: CalibrationModel
  readonly effectiveUnits: number
  readonly targetUnits: number
}

/**
 * The calibrated count of `candidate` (the view as it would be sent now: sticky decisions
 * applied, no notice or replay; `candidateTokens` its estimate) folded into `stats`: `used_tokens`
 * and `calibrated_tokens` the driving count (the append shape or the model), `model_tokens` the
 * model alone from earlier readings, `calibration` the model's figures; `source` / `kind`
 * `calibrated` once a reading exists (before: `kind` `estimated`). `ratio` follows `used_tokens`.
 *
 * @example
 * import { DEFAULT_CONFIG, makeInitialState, estimateOne, type TokenMeterStats } from 'context-simple'
 * const config = { ...DEFAULT_CONFIG, token_meter: 'calibrated' as const, calibration_overhead_tokens: 1000 }
 * const stats: TokenMeterStats = { mode: 'calibrated', source: 'estimate', kind: 'estimated', used_tokens: 200, estimated_tokens: 200, measured_tokens: null, hybrid_tokens: 200, hybrid_kind: 'estimated',
 *   anchor_tokens: null, anchor_estimate: null, anchor_rejected: false, tail_estimated_tokens: null, tail_messages: null, cache_aggregates: null, provenance_refusals: 0, provenance_overrides: 0, budget: 9200, ratio: 200 / 9200 }
 * readCalibrated(config, makeInitialState(), stats, [{ role: 'user', content: 'hi' }], 200, estimateOne).stats.calibrated_tokens // 1200
 */
export const readCalibrated = (
  config: Config,
  state: State,
  stats: TokenMeterStats,
  candidate: Messages,
  candidateTokens: number,
  estimate: TokenEstimator,
): CalibratedReading => {
  const calibration = state.meter.calibration ?? EMPTY_CALIBRATION
  const model = fitCalibration(toCalibrationPriors(config), calibration.points)
  const count = countCalibrated(calibration, model, candidate, candidateTokens, estimate, config.calibration_reasoning_context)
  const effective = stats.budget
  const used = count.calibrated_tokens
  return {
    stats: {
      ...stats,
      source: 'calibrated',
      kind: candidate.length === 0 && calibration.anchor === null ? 'none' : count.kind,
      used_tokens: used,
      ratio: effective > 0 ? used / effective : null,
      calibrated_tokens: used,
      model_tokens: count.model_tokens,
      calibration: { scale: model.scale, overhead: model.overhead, points: model.points, last_error: calibration.lastError },
    },
    model,
    effectiveUnits: toEstimatorUnits(model, effective),
    targetUnits: toCalibratedTarget(model, effective, config.target_usage),
  }
}

/**
 * The meter after a view was returned (calibrated mode): the view, less its ephemeral tail, is the
 * one the next reading describes (measured as billed under `reasoning`,
 * `calibration_reasoning_context`).
 *
 * @example
 * import { makeInitialState, estimateOne } from 'context-simple'
 * recordSentView(makeInitialState().meter, [{ role: 'user', content: 'hi' }], estimateOne).calibration?.sent?.hashes.length // 1
 */
export const recordSentView = (meter: MeterState, view: Messages, estimate: TokenEstimator, reasoning: ReasoningContext = 'current_turn'): MeterState => ({
  ...meter,
  calibration: { ...(meter.calibration ?? EMPTY_CALIBRATION), sent: toSentView(view, estimate, reasoning) },
})

/**
 * The state after a usage event (calibrated mode): when the meter recorded a new reading
 * (`usageEvents` advanced), it is paired with the last view sent (`applyCalibrationReading`);
 * otherwise (ignored, observed only, malformed) nothing changes.
 *
 * @example
 * import { DEFAULT_CONFIG, makeInitialState } from 'context-simple'
 * recordCalibrationReading(DEFAULT_CONFIG, makeInitialState(), makeInitialState()).meter.calibration // undefined (not the calibrated mode)
 */
export const recordCalibrationReading = (config: Config, before: State, after: State): State => {
  if (config.token_meter !== 'calibrated' || after.meter.usageEvents === before.meter.usageEvents || after.meter.measured === null) return after
  const calibration: CalibrationState = applyCalibrationReading(toCalibrationPriors(config), after.meter.calibration ?? EMPTY_CALIBRATION, after.meter.measured)
  return calibration === after.meter.calibration ? after : { ...after, meter: { ...after.meter, calibration } }
}

/**
 * The estimator a calibrated pass sizes its levels with (docs/contract.md 17.13), so they are
 * measured in the model's units: `estimate` less the reasoning the provider does not bill, for
 * every message of W (or a truncated or stubbed form of one, told by its `_seq`) before W's last
 * user message, which every level keeps (SPEC 6.3). Null when W holds no such reasoning (Responses
 * pieces only): the pass then uses `estimate` itself. `prefix`, W's running reasoning sums for
 * `estimate` (`selectReasoningPrefix`, kept per request and extended by what was appended), saves
 * the walk over W that finds them otherwise; the result is the same.
 *
 * @example
 * import { estimateOne } from 'context-simple'
 * toBilledEstimator([{ role: 'user', content: 'hi', metadata: { _seq: 0 } }], estimateOne) // => null
 */
export const toBilledEstimator = (working: Messages, estimate: TokenEstimator, prefix: ReasoningPrefix | null = null): TokenEstimator | null => {
  const known = prefix !== null && prefix.estimate === estimate && prefix.length === working.length ? prefix : null
  if ((known === null ? measureUnbilledReasoning(working, estimate) : known.unbilled) === 0) return null
  let last = known === null ? working.length - 1 : known.lastUser
  while (last >= 0 && working[last].role !== 'user') last -= 1
  const boundary = seqOf(working[last])
  if (boundary === undefined) return null
  return (message) => {
    const seq = seqOf(message)
    return seq !== undefined && seq < boundary ? estimate(message) - toReasoningShare(message, estimate) : estimate(message)
  }
}

/**
 * `context` measuring with `toBilledEstimator(working, context.estimate)` when W holds reasoning the
 * provider does not bill, else `context` itself (always under `calibration_reasoning_context`
 * `"all_turns"`, where every turn's reasoning is billed): what a calibrated pass and the checks
 * that judge it in its units (the breaker's floor) measure with (docs/contract.md 17.13). `prefix`:
 * W's running reasoning sums, as for `toBilledEstimator`.
 *
 * @example
 * import { DEFAULT_CONFIG, makePassContext, makeDerivationMemo, estimateOne } from 'context-simple'
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * withBilledEstimator(context, []) === context // => true
 */
export const withBilledEstimator = (context: PassContext, working: Messages, prefix: ReasoningPrefix | null = null): PassContext => {
  if (context.config.calibration_reasoning_context === 'all_turns') return context
  const billed = toBilledEstimator(working, context.estimate, prefix)
  return billed === null ? context : { ...context, estimate: billed }
}
