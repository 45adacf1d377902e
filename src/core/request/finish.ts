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
import { defineStage, type RequestSlices } from './types.js'

/**
 * After a compacting pass: the memo entry for the state it produced, with its sticky-applied list
 * derived in a context of its own (its spills belong to the next request, which asks for them again),
 * so the requests until the next compaction stay incremental.
 */
const warmAppliedView = (memo: DerivationMemo, selected: Working, slices: RequestSlices, systemPrompt: string | null, factoryMessage: Message | null, deps: CoreDeps): void => {
  const working = slices.history === selected.entry.history ? selected : selectWorking(memo, slices.history, systemPrompt, factoryMessage, deps.estimate)
  selectAppliedView(memo, { entry: working.entry, previous: null, added: null }, slices.compaction.sticky, makePassContext(deps.config, deps.estimate, slices.toolNames, memo, slices.toolResults.spillFailed))
}

/**
 * Records the estimate of the view sent (the meter's `lastSentEstimate`), and under the
 * calibrated meter the view itself (the next reading is paired with it); after a pass that
 * decided, derives the next request's sticky-applied list now, while the history was walked anyway.
 *
 * @example
 * finishStage.writes // => ['meter']
 */
export const finishStage = defineStage({
  name: 'finish',
  writes: ['meter'],
  observes: false,
  run: (facts, draft) => {
    const slices = draft.slices
    const view = slices.view
    if (view === null) return {}
    if (slices.pass?.kind === 'pass' && slices.pass.decided) warmAppliedView(facts.memo, facts.selected, slices, facts.event.systemPrompt, facts.factoryMessage, facts)
    const meter = { ...slices.meter, lastSentEstimate: view.tokens }
    return { slices: { meter: facts.reading.calibrated === null ? meter : recordSentView(meter, view.view, facts.estimate) } }
  },
})
