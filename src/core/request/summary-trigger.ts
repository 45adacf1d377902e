/**
 * The summary trigger stage (SPEC 12.1, summary hysteresis and cooldown in
 * docs/configuration.md): under `compaction_strategy: "summary"`, start a summary when the view
 * crosses the threshold.
 */
import { selectAppliedView } from '../incremental/working.js'
import type { SpillRequest } from '../tool-results/tool-result-budget.js'
import { triggerSummary, type SummaryBounds } from '../summary/summary.js'
import type { Effect } from '../effects.js'
import { defineStage, type StageFacts } from './types.js'
import { toCalibratedTarget } from '../meter/calibration.js'

/**
 * With `summary_hysteresis` the trigger reads the applied view in estimator tokens; under the
 * calibrated meter E is billed, so the trigger and target are E's converted the way the pass's
 * target is (docs/contract.md 17.13 'The target'), else the contract's on E (undefined).
 */
const toUnitBounds = (facts: StageFacts, hysteresis: boolean): SummaryBounds | undefined => {
  const calibrated = facts.reading.calibrated
  if (!hysteresis || calibrated === null) return undefined
  const { config } = facts
  return {
    trigger: toCalibratedTarget(calibrated.model, facts.effective, config.summary_trigger),
    target: toCalibratedTarget(calibrated.model, facts.effective, config.summary_target_usage ?? config.target_usage),
  }
}

/**
 * Notes that a provider was given (it is cached for summaries), then, under the summary
 * strategy, counts down the cooldown or asks `triggerSummary` whether to start a summary
 * (`request_summary` effect). Summary hysteresis measures the view with the sticky decisions
 * applied instead of the meter's count; that view's spills are passed on.
 *
 * @example
 * summaryTriggerStage.writes // => ['summary']
 */
export const summaryTriggerStage = defineStage({
  name: 'summary-trigger',
  writes: ['summary'],
  observes: true,
  run: (facts, draft) => {
    const { config } = facts
    if (config.compaction_strategy !== 'summary') return {}
    const slices = draft.slices
    const known = facts.event.providerGiven && !slices.summary.providerKnown ? { ...slices.summary, providerKnown: true } : slices.summary
    let spills: ReadonlyArray<SpillRequest> = []
    let used = facts.reading.stats.used_tokens
    if (config.summary_hysteresis) {
      const applied = selectAppliedView(facts.memo, facts.selected, slices.compaction.sticky, facts.context)
      used = applied.tokens
      spills = applied.spills
    }
    if (known.cooldown > 0) return { slices: { summary: { ...known, cooldown: known.cooldown - 1 } }, spills }
    const started = triggerSummary(facts.before, known, config, used, facts.effective, facts.estimate, toUnitBounds(facts, config.summary_hysteresis))
    const summary = started.summary.inFlight !== known.inFlight && config.summary_cooldown_requests !== null ? { ...started.summary, cooldown: config.summary_cooldown_requests } : started.summary
    const effects: ReadonlyArray<Effect> = started.effects
    return { slices: { summary }, effects, spills }
  },
})
