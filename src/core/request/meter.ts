/**
 * The meter stage (SPEC 10, docs/contract.md 17.13): the meter reading of the request, computed
 * with the facts, written to the meter stats and announced by `context:token_meter`.
 */
import type { Config } from '../config.js'
import type { State } from '../state.js'
import { hasStickyDecisions } from '../state.js'
import type { PassContext } from '../compaction/context.js'
import type { DerivationMemo } from '../memo/derivation-memo.js'
import { selectAppliedView, selectMedia, selectPlainView, type Working } from '../incremental/working.js'
import { readCalibrated } from '../meter/calibrated-meter.js'
import { withForegroundStats } from '../meter/foreground.js'
import { copyMeterStats, measureRequest } from '../meter/token-meter.js'
import { defineStage, type MeterReading } from './types.js'

/**
 * The meter reading of W (SPEC 10.6): the meter's count (estimate, measured or hybrid), the
 * foreground keys (`usage_intake`), the media counts (`token_estimator` other than `reference`,
 * docs/configuration.md), and under `token_meter: "calibrated"` the calibrated count of the view
 * as it would be sent now (sticky decisions applied), with the spills that view asks for.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, memo)
 * const selected = selectWorking(memo, [], null, null, estimateOne)
 * readMeter(DEFAULT_CONFIG, memo, makeInitialState(), selected, 9800, context).stats.used_tokens // => 0
 */
export const readMeter = (config: Config, memo: DerivationMemo, state: State, selected: Working, effective: number, context: PassContext): MeterReading => {
  const { estimate } = context
  const measured = measureRequest(config, selected.entry.working, selected.entry.tokens, effective, state.meter, estimate)
  let stats = withForegroundStats(config, measured.stats, state.guards)
  if (config.token_estimator !== 'reference') {
    // The media meter stats (docs/configuration.md, `token_estimator`): say when media were present and how many could not be measured.
    const media = selectMedia(memo, selected)
    stats = { ...stats, media_items: media.media, media_unmeasured: media.unmeasured }
  }
  if (config.token_meter !== 'calibrated') return { stats, hybrid: measured.hybrid, calibrated: null, spills: [] }
  const candidate = hasStickyDecisions(state.sticky) ? selectAppliedView(memo, selected, state.sticky, context) : { ...selectPlainView(memo, selected, estimate), spills: [] }
  const calibrated = readCalibrated(config, state, stats, candidate.view, candidate.tokens, estimate)
  return { stats: calibrated.stats, hybrid: measured.hybrid, calibrated, spills: candidate.spills }
}

/**
 * Writes the meter stats of this request (SPEC 10.6) and emits `context:token_meter` with them,
 * the first hook event of a request (SPEC 2.3); passes on the candidate view's spills.
 *
 * @example
 * meterStage.writes // => ['meterStats']
 */
export const meterStage = defineStage({
  name: 'meter',
  writes: ['meterStats'],
  observes: true,
  run: (facts) => ({
    slices: { meterStats: facts.reading.stats },
    effects: [{ type: 'emit_hook', name: 'context:token_meter', data: copyMeterStats(facts.reading.stats) }],
    spills: facts.reading.spills,
  }),
})
