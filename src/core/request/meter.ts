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
import { copyMeterStats, decideTrigger, measureRequest, withMeterReading } from '../meter/token-meter.js'
import { defineStage, type MeterReading } from './types.js'

/**
 * The meter reading of W (SPEC 10.6): the meter's count (estimate, measured or hybrid), the
 * foreground keys (`usage_intake`), the media counts (`token_estimator` other than `reference`,
 * docs/configuration.md), and under `token_meter: "calibrated"` the calibrated count of the view
 * as it would be sent now (sticky decisions applied), with the spills that view asks for; and the
 * outer trigger's decision on that count (SPEC 6.2 step 6, the hybrid meter's provenance rule).
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
  let stats = withForegroundStats(config, measured.stats, state.meter)
  if (config.token_estimator !== 'reference') {
    // The media meter stats (docs/configuration.md, `token_estimator`): say when media were present and how many could not be measured.
    const media = selectMedia(memo, selected)
    stats = { ...stats, media_items: media.media, media_unmeasured: media.unmeasured }
  }
  if (config.token_meter !== 'calibrated') return { stats, hybrid: measured.hybrid, calibrated: null, spills: [], decision: decideTrigger(config, stats, state.meter) }
  const sticky = state.compaction.sticky
  const candidate = hasStickyDecisions(sticky) ? selectAppliedView(memo, selected, sticky, context) : { ...selectPlainView(memo, selected, estimate), spills: [] }
  const calibrated = readCalibrated(config, state, stats, candidate.view, candidate.tokens, estimate)
  return { stats: calibrated.stats, hybrid: measured.hybrid, calibrated, spills: candidate.spills, decision: decideTrigger(config, calibrated.stats, state.meter) }
}

/**
 * Writes the meter stats of this request (SPEC 10.6) and the provenance counters of the trigger's
 * decision, and emits `context:token_meter` with the stats, the first hook event of a request
 * (SPEC 2.3; the counters change after the stats were taken, so they show in the next request's);
 * passes on the candidate view's spills.
 *
 * @example
 * meterStage.writes // => ['meter']
 */
export const meterStage = defineStage({
  name: 'meter',
  writes: ['meter'],
  observes: true,
  run: (facts) => ({
    slices: { meter: withMeterReading(facts.reading.decision.meter, facts.reading.stats, facts.reading.decision.meter.lastSentEstimate) },
    effects: [{ type: 'emit_hook', name: 'context:token_meter', data: copyMeterStats(facts.reading.stats) }],
    spills: facts.reading.spills,
  }),
})
