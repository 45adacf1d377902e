/**
 * The working-set stage (`working_set_window`, docs/configuration.md;
 * src/core/compaction/working-set.ts): between the compaction trigger and the pass, removes the
 * units outside the working set of the sticky-applied list (from the cut that pays), by recording them as removed sticky decisions (SPEC 7), which the
 * pass stage then applies (and, when the trigger fired, compacts further from) and finalizes
 * (stats, `context:compaction`, as after a summary-only swap: `removedAhead` in
 * src/core/compaction/pass.ts). Off by default: the contract's request is unchanged.
 */
import type { StickyState } from '../state.js'
import { selectAppliedView } from '../incremental/working.js'
import { recordRemoved, toStickyDraft, toStickyState } from '../compaction/sticky.js'
import { selectWorkingSet } from '../compaction/working-set.js'
import { selectPassContext } from './facts.js'
import { defineStage, type RequestDraft, type StageFacts } from './types.js'

/** The sticky decisions with the working set's removals added, or null when there are none to make. */
const toWorkingSetSticky = (facts: StageFacts, draft: RequestDraft, window: number): StickyState | null => {
  const sticky = draft.slices.compaction.sticky
  const context = selectPassContext(facts)
  const applied = selectAppliedView(facts.memo, facts.selected, sticky, facts.context)
  const list = applied.stickyApplied
  const effective = facts.reading.calibrated?.effectiveUnits ?? facts.effective
  if (effective <= 0) return null
  const settings = { window, capacity: facts.config.working_set_capacity * effective, payback: facts.config.working_set_payback }
  const set = selectWorkingSet(list, settings, { handles: context.handles, estimate: context.estimate, isAnchor: context.isAnchor })
  if (set.removable.length === 0) return null
  const recorded = toStickyDraft(sticky)
  for (const position of set.removable) recordRemoved(recorded, list[position])
  return toStickyState(recorded, sticky.cumulativeLevel)
}

/**
 * Under `working_set_window` τ: removes the units outside the working set of window τ
 * (`selectWorkingSet`, with a capacity of `working_set_capacity` × E in the pass's units:
 * estimator tokens, under the calibrated meter E converted through its model) from the cut
 * `working_set_payback` chooses, recording them in the compaction slice's sticky decisions. Does nothing when the key is null (the
 * contract), when the request has no budget, or while a summary strategy may swap a pending
 * summary (the swap needs the messages it absorbs). Emits nothing itself: the pass stage
 * finalizes the removals, so each request that makes some emits one `context:compaction` (or,
 * when the trigger fired and the worth-the-rebuild predicate refused the ladder's decisions,
 * `context:compaction-skipped`: the removals stand, as a summary swap's do, SPEC 6.2 step 10).
 *
 * @example
 * workingSetStage.writes // => ['compaction']
 */
export const workingSetStage = defineStage({
  name: 'working-set',
  writes: ['compaction'],
  observes: false,
  run: (facts, draft) => {
    const window = facts.config.working_set_window
    if (window === null || (facts.config.compaction_strategy === 'summary' && draft.slices.summary.pending !== null)) return {}
    const sticky = toWorkingSetSticky(facts, draft, window)
    if (sticky === null) return {}
    return { slices: { compaction: { ...draft.slices.compaction, sticky } } }
  },
})
