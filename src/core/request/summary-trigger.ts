/**
 * The summary trigger stage (SPEC 12.1, summary hysteresis and cooldown in
 * docs/configuration.md): under `compaction_strategy: "summary"`, start a summary when the view
 * crosses the threshold.
 */
import { selectAppliedView } from '../incremental/working.js'
import type { SpillRequest } from '../tool-results/tool-result-budget.js'
import { triggerSummary } from '../summary/summary.js'
import type { Effect } from '../effects.js'
import { defineStage } from './types.js'

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
    const started = triggerSummary(facts.before, known, config, used, facts.effective, facts.estimate)
    const summary = started.summary.inFlight !== known.inFlight && config.summary_cooldown_requests !== null ? { ...started.summary, cooldown: config.summary_cooldown_requests } : started.summary
    const effects: ReadonlyArray<Effect> = started.effects
    return { slices: { summary }, effects, spills }
  },
})
