/**
 * The finish stage (SPEC 2.3 step 9, docs/contract.md 17.13): what the meter and the calibration
 * keep of the view sent, and the next request's derivations prepared.
 */
import type { Message } from '../messages/message.js'
import type { CoreDeps } from '../deps.js'
import { makePassContext } from '../compaction/context.js'
import type { DerivationMemo } from '../memo/derivation-memo.js'
import { selectAppliedView, selectWorking, type Working } from '../incremental/working.js'
import { recordSentView } from '../meter/calibrated-meter.js'
import { withMeterReading } from '../meter/token-meter.js'
import { defineStage, type RequestDraft, type RequestSlices } from './types.js'
import { toProviderView } from './provider-view.js'

/**
 * After a compacting pass: the memo entry for the state it produced, with its sticky-applied list
 * derived in a context of its own (its spills belong to the next request, which asks for them again),
 * so the requests until the next compaction stay incremental.
 */
const warmAppliedView = (memo: DerivationMemo, selected: Working, slices: RequestSlices, systemPrompt: string | null, factoryMessage: Message | null, deps: CoreDeps): void => {
  const working = slices.history === selected.entry.history ? selected : selectWorking(memo, slices.history, systemPrompt, factoryMessage, deps.estimate)
  selectAppliedView(memo, { entry: working.entry, previous: null, added: null }, slices.compaction.sticky, makePassContext(deps.config, deps.estimate, slices.toolNames, memo, slices.toolResults.spillFailed, slices.history))
}

/** Whether a stage of the request asked for a spill write (indexed loops: see `advance` in ./index.ts). */
const asksForSpills = (log: RequestDraft['log']): boolean => {
  for (let i = 0; i < log.length; i += 1) {
    const effects = log[i].effects
    for (let j = 0; j < effects.length; j += 1) if (effects[j].type === 'write_spill') return true
  }
  return false
}

/**
 * Records the estimate of the view sent (the meter's `lastSentEstimate`), and under the
 * calibrated meter the view itself (the next reading is paired with it); after a pass that
 * decided, derives the next request's sticky-applied list now, while the history was walked
 * anyway. With a `shape` on the request, makes the view as the caller asked for it
 * (`toProviderView`: converted, repaired, checked; docs/formats.md), unless the request asked for
 * spill writes: the `spills_answered` event that answers them makes it then, from the view without
 * the pointers whose write failed (SPEC 17.9). Under `anthropic_cache_breakpoints` the Anthropic
 * view keeps the held breakpoints whose prefix is unchanged and the positions it carries become
 * the `cacheBreakpoints` slice (docs/formats.md, "Prompt caching"). A view refused under
 * `provider_rules: "refuse"` stops the request: a `raise_error` effect and no view.
 *
 * @example
 * finishStage.writes // => ['meter', 'output', 'cacheBreakpoints']
 */
export const finishStage = defineStage({
  name: 'finish',
  writes: ['meter', 'output', 'cacheBreakpoints'],
  observes: false,
  run: (facts, draft) => {
    const slices = draft.slices
    const view = slices.view
    if (view === null) return {}
    if (slices.pass?.kind === 'pass' && slices.pass.decided) warmAppliedView(facts.memo, facts.selected, slices, facts.event.systemPrompt, facts.factoryMessage, facts)
    const lastSent = withMeterReading(slices.meter, slices.meter.stats, view.tokens)
    const meter = facts.reading.calibrated === null ? lastSent : recordSentView(lastSent, view.view, facts.estimate, facts.config.calibration_reasoning_context)
    const shape = facts.event.shape
    const spills = asksForSpills(draft.log)
    if (shape === undefined || spills) return { slices: { meter } }
    const shaped = toProviderView(facts.config, shape, view.view, slices.history, slices.cacheBreakpoints, facts.memo.historyWalks, facts.memo.cachePrefixes, view.prefix)
    // Refused under provider_rules "refuse" (docs/formats.md): the request raises, nothing is sent,
    // so the step has no view (src/core/effects.ts, RaiseError) and the meter records none.
    if (shaped.output === null) return { effects: shaped.effects, stop: true }
    const cacheBreakpoints = shaped.cacheBreakpoints ?? slices.cacheBreakpoints
    return { slices: { meter, output: { value: shaped.output, repaired: shaped.repaired }, cacheBreakpoints }, effects: shaped.effects }
  },
})
