/**
 * The compaction-pass stage (SPEC 6.2, 6.7, 12.6, 14, 17.1, 17.5): the pass over W (its ladder and
 * sticky helpers are in src/core/compaction/), or W as it is when nothing is decided and the
 * trigger did not fire; the spill writes of the request.
 */
import type { Effect } from '../effects.js'
import { hasStickyDecisions } from '../state.js'
import { estimateMessages } from '../meter/estimate.js'
import { mergeSpills, type PassContext } from '../compaction/context.js'
import { ARMED_BREAKER, runCompactionPass, type PassInput, type PassOutcome } from '../compaction/pass.js'
import { selectAppliedView } from '../incremental/working.js'
import { selectPassContext } from './facts.js'
import type { AppliedView } from '../memo/derivation-memo.js'
import { defineStage, type RequestDraft, type StageFacts } from './types.js'
import { toEarlyContext } from '../compaction/early-pass.js'

/** What the pass reads, from the facts and the slices so far (the prepared list measured in `context`'s units). */
const toPassInput = (facts: StageFacts, draft: RequestDraft, stickyOnly: boolean, applied: AppliedView | null, context: PassContext, early: boolean): PassInput => {
  const slices = draft.slices
  const calibrated = facts.reading.calibrated
  return {
    working: facts.working,
    workingTokens: facts.workingTokens,
    effective: facts.effective,
    stickyOnly,
    ...(applied !== null ? { applied: context === facts.context ? applied : { ...applied, stickyTokens: estimateMessages(applied.stickyApplied, context.estimate) } } : {}),
    sticky: slices.compaction.sticky,
    compactionStats: slices.compaction.stats,
    skipStreak: slices.compaction.skipStreak,
    summary: slices.summary,
    history: slices.history,
    nextSeq: slices.nextSeq,
    meter: slices.meter,
    hybrid: facts.reading.hybrid,
    now: facts.event.now,
    infeasible: slices.compaction.infeasible,
    breaker: slices.compaction.breaker,
    // Only the working-set stage records removals between the state and the pass (src/core/request/working-set.ts); the
    // eager projections (src/core/request/eager-projection.ts) add truncations and keep the removed set, and are no pass.
    ...(slices.compaction.sticky.removed !== facts.before.compaction.sticky.removed ? { removedAhead: true } : {}),
    // The target the trigger judged feasible (toCalibratedTarget, docs/contract.md 17.13); an early pass's is on the compactable part of the converted E (toEarlyContext).
    ...(calibrated !== null ? { billed: { effective: calibrated.effectiveUnits, target: calibrated.targetUnits } } : {}),
    ...(early ? { early: true } : {}),
  }
}

/** The `write_spill` effects of the spills asked for so far and by the pass, less those known written (SPEC 11.5). */
const toSpillEffects = (facts: StageFacts, draft: RequestDraft, applied: AppliedView | null, pass: PassOutcome): ReadonlyArray<Effect> => {
  const written = facts.before.toolResults.spillWritten
  const effects: Effect[] = []
  if (draft.spills.length === 0 && (applied === null || applied.spills.length === 0) && pass.spills.length === 0) return effects
  for (const spill of mergeSpills([draft.spills, applied?.spills ?? [], pass.spills])) {
    if (!written.has(spill.path)) effects.push({ type: 'write_spill', directory: spill.directory, path: spill.path, content: spill.content })
  }
  return effects
}

/**
 * `compaction_floor_guard: "report"` outside the calibrated meter (docs/contract.md 17.14): the
 * report re-arms whenever the list returned (before the tail) fits E, whichever path made it.
 */
const rearmsReport = (facts: StageFacts): boolean => facts.config.compaction_floor_guard === 'report' && facts.reading.calibrated === null

/**
 * Runs the compaction pass when the trigger fired or sticky decisions exist (sticky-only when the
 * trigger did not fire or a tripped breaker holds), else leaves W as it is (`pass: plain`). The
 * sticky decisions are re-applied to W incrementally (docs/architecture.md) unless a pending
 * summary may be swapped in first (the pass then re-applies after it). A breaker that held is
 * re-armed when the list fits E, and so is the floor report (docs/contract.md 17.14). Effects:
 * the spill writes, then the pass's; a fail-loud pass (SPEC 14.4) ends the request here.
 *
 * @example
 * compactionPassStage.writes // => ['history', 'nextSeq', 'summary', 'compaction', 'pass']
 */
export const compactionPassStage = defineStage({
  name: 'compaction-pass',
  writes: ['history', 'nextSeq', 'summary', 'compaction', 'pass'],
  observes: false,
  run: (facts, draft) => {
    const slices = draft.slices
    const { fires, breakerHolds } = slices.trigger
    if (!fires && !hasStickyDecisions(slices.compaction.sticky)) {
      const rearm = slices.compaction.infeasible && rearmsReport(facts) && facts.effective > 0 && facts.workingTokens <= facts.effective
      return { slices: { pass: { kind: 'plain' }, ...(rearm ? { compaction: { ...slices.compaction, infeasible: false } } : {}) } }
    }
    const stickyOnly = !fires || breakerHolds
    const applied =
      stickyOnly || facts.config.compaction_strategy !== 'summary' || slices.summary.pending === null ? selectAppliedView(facts.memo, facts.selected, slices.compaction.sticky, facts.context) : null
    // The early pass (compact_early_threshold, src/core/compaction/early-pass.ts) works toward its own target.
    const early = slices.trigger.early && !stickyOnly
    const context = early ? toEarlyContext(selectPassContext(facts)) : selectPassContext(facts)
    const pass = runCompactionPass(toPassInput(facts, draft, stickyOnly, applied, context, early), context)
    const spillEffects = toSpillEffects(facts, draft, applied, pass)
    const effects = spillEffects.length === 0 ? pass.effects : [...spillEffects, ...pass.effects]
    const decided = pass.sticky !== slices.compaction.sticky || pass.history !== slices.history || pass.compactionStats !== slices.compaction.stats
    const fits = (list: typeof pass.list): boolean => list !== null && facts.effective > 0 && estimateMessages(list, facts.estimate) <= facts.effective
    const rearm = breakerHolds && fits(pass.list)
    const written = {
      history: pass.history,
      nextSeq: pass.nextSeq,
      summary: pass.summary,
      compaction: {
        ...slices.compaction,
        sticky: pass.sticky,
        stats: pass.compactionStats,
        skipStreak: pass.skipStreak,
        infeasible: pass.infeasible && !(rearmsReport(facts) && fits(pass.list)),
        breaker: rearm ? ARMED_BREAKER : pass.breaker,
      },
    }
    if (pass.list === null) return { slices: written, effects, stop: true }
    return {
      slices: { ...written, pass: { kind: 'pass', list: pass.list, applied, mayDecide: !stickyOnly, decided, refused: pass.refused } },
      // C as the pass made it: the stages after this one never write into a list, they copy it to append (the tail).
      list: pass.list,
      effects,
    }
  },
})
