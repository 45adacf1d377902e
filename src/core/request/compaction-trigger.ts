/**
 * The compaction trigger stage (SPEC 6.2 step 6, docs/contract.md 17.13, the breaker in
 * docs/configuration.md): whether this request may compact.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { Messages } from '../messages/message.js'
import type { CompactionState } from '../state.js'
import { estimateMessages } from '../meter/estimate.js'
import type { PassContext } from '../compaction/context.js'
import { measureFloor, type InfeasiblePayload } from '../compaction/floor.js'
import { ARMED_BREAKER } from '../compaction/pass.js'
import type { CalibratedReading } from '../meter/calibrated-meter.js'
import { selectAppliedView } from '../incremental/working.js'
import { selectPassContext } from './facts.js'
import { isEarlyFiring, toCompactableRatio } from '../compaction/early-pass.js'
import { defineStage, type StageFacts } from './types.js'

/**
 * The `context:compaction-infeasible` payload of the calibrated meter (docs/contract.md 17.13):
 * the floor of W in estimator tokens, the real target and E, and the model's overhead and scale
 * that leave no room.
 */
const toCalibratedInfeasible = (working: Messages, calibrated: CalibratedReading, effective: number, config: Config, context: PassContext): InfeasiblePayload => {
  const system = working.filter((message) => message.role === 'system')
  const floor = measureFloor(working.filter((message) => message.role !== 'system'), estimateMessages(system, context.estimate), config, context)
  return { ...floor, target_tokens: Math.trunc(effective * config.target_usage), budget: effective, knob: null, overhead_tokens: Math.round(calibrated.model.overhead), scale: calibrated.model.scale }
}

type Room = { readonly compaction: CompactionState; readonly fires: boolean; readonly effects: ReadonlyArray<Effect> }

/**
 * Under the calibrated meter, the overhead alone may leave no room: reported once
 * (`context:compaction-infeasible`), and no pass storms against it (the trigger does not fire).
 */
const checkCalibratedRoom = (facts: StageFacts, calibrated: CalibratedReading, compaction: CompactionState, fires: boolean): Room => {
  const infeasible = calibrated.effectiveUnits <= 0 || calibrated.targetUnits <= 0
  const allowed = fires && calibrated.effectiveUnits > 0
  if (infeasible && !compaction.infeasible) {
    const data = toCalibratedInfeasible(facts.working, calibrated, facts.effective, facts.config, facts.context)
    return { compaction: { ...compaction, infeasible: true }, fires: allowed, effects: [{ type: 'emit_hook', name: 'context:compaction-infeasible', data }] }
  }
  if (!infeasible && compaction.infeasible && facts.config.compaction_floor_guard !== true && facts.config.compaction_floor_guard !== 'deep') return { compaction: { ...compaction, infeasible: false }, fires: allowed, effects: [] }
  return { compaction, fires: allowed, effects: [] }
}

/**
 * The first time the fitted overhead (with its margin) alone fills E, so that views go out over E
 * and no pass can help (the trigger does not fire), one warning naming the overhead, E and the fix
 * (docs/contract.md 17.13, "Infeasible"); `overheadWarned` keeps it to once per history (a
 * snapshot carries it; `clear` and `setMessages` reset it with the compaction's slice).
 */
const warnOverheadOnce = (room: Room, calibrated: CalibratedReading, effective: number): Room => {
  if (calibrated.effectiveUnits > 0 || room.compaction.overheadWarned === true) return room
  const { overhead, margin, points } = calibrated.model
  const tokens = `${Math.round(overhead)} tokens${margin > 0 ? ` + a margin of ${Math.round(margin)}` : ''}`
  // Before any reading the overhead is the prior (calibration_overhead_tokens), not a fit.
  const source = points === 0 ? `the prior calibration_overhead_tokens (${tokens}, no reading yet)` : `the hidden overhead fitted from ${points} usage reading${points === 1 ? '' : 's'} (${tokens})`
  const check = points === 0 ? 'or lower calibration_overhead_tokens' : 'or check the readings fed back (the usage of another conversation or of a summarizer call fits a false overhead)'
  const message =
    `context-simple: token_meter "calibrated": ${source} fills the effective budget E = ${effective} tokens on its own, so no compaction can bring a view under E ` +
    `and views go out over it. Raise the budget (token_budget, max_tokens or the provider window) above the overhead, ${check}. ` +
    'Logged once; context:compaction-infeasible carries the figures (docs/contract.md 17.13)'
  return { ...room, compaction: { ...room.compaction, overheadWarned: true }, effects: [...room.effects, { type: 'log', level: 'warning', message }] }
}

/**
 * Whether the floor of the candidate (W with the sticky decisions applied) fits E again, in the
 * units the pass compacts in (estimator tokens; under the calibrated meter E converted through
 * its model, docs/contract.md 17.13): a pass could then fit, so a tripped breaker re-arms
 * (docs/configuration.md, "The breaker"). Without it, one pass over E (a large result in the
 * protected recent zone) stopped compaction for the rest of a growing session.
 */
const isFloorWithinE = (facts: StageFacts): boolean => {
  const effective = facts.reading.calibrated?.effectiveUnits ?? facts.effective
  if (effective <= 0) return false
  const applied = selectAppliedView(facts.memo, facts.selected, facts.sticky, facts.context)
  return measureFloor(applied.stickyApplied, applied.systemTokens, facts.config, selectPassContext(facts)).floor_tokens <= effective
}

/**
 * Whether the early pass fires (`compact_early_threshold`, src/core/compaction/early-pass.ts): the
 * view's history (the sticky-applied list the pass would start from) fills its share of the
 * compactable room (in estimator units; under the calibrated meter E converted through its model)
 * and JSON records hold enough of it.
 */
const isEarly = (facts: StageFacts): boolean => {
  if (facts.config.compact_early_threshold === null) return false
  // Under the hybrid meter compaction waits for provider usage (SPEC 10.5); so does the early pass.
  if (facts.config.token_meter === 'hybrid' && facts.reading.hybrid.kind !== 'usage') return false
  const applied = selectAppliedView(facts.memo, facts.selected, facts.sticky, facts.context)
  const ratio = toCompactableRatio(applied.systemTokens, applied.stickyTokens, facts.reading.calibrated?.effectiveUnits ?? facts.effective)
  return isEarlyFiring(facts.config, ratio, applied.stickyApplied, facts.context, applied.stickyTokens)
}

/**
 * Decides whether the outer trigger fires on the meter stats (the decision, with the hybrid
 * meter's provenance counters, is the meter's: see the meter stage; its log is emitted here, in
 * the contract's order), or the early pass under `compact_early_threshold` (`trigger.early`), checks the calibrated meter's room, and re-arms a tripped breaker when
 * the budget changed or the floor fits E again; a breaker still tripped holds re-escalation back.
 *
 * @example
 * compactionTriggerStage.writes // => ['compaction', 'trigger']
 */
export const compactionTriggerStage = defineStage({
  name: 'compaction-trigger',
  writes: ['compaction', 'trigger'],
  observes: true,
  run: (facts, draft) => {
    const decision = facts.reading.decision
    const calibrated = facts.reading.calibrated
    const before = draft.slices.compaction
    const early = !decision.fires && isEarly(facts)
    const fires = decision.fires || early
    const room = calibrated === null ? { compaction: before, fires, effects: [] } : warnOverheadOnce(checkCalibratedRoom(facts, calibrated, before, fires), calibrated, facts.effective)
    // A tripped breaker stops re-escalation until a view fits again, the budget changes or the floor fits E.
    const breaker = room.compaction.breaker
    const compaction = breaker.tripped && (breaker.budget !== facts.effective || isFloorWithinE(facts)) ? { ...room.compaction, breaker: ARMED_BREAKER } : room.compaction
    return {
      slices: { compaction, trigger: { fires: room.fires, breakerHolds: compaction.breaker.tripped, early: early && room.fires } },
      effects: room.effects.length === 0 ? decision.effects : [...decision.effects, ...room.effects],
    }
  },
})
