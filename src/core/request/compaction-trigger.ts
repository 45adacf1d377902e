/**
 * The compaction trigger stage (SPEC 6.2 step 6, docs/contract.md 17.13, the breaker in
 * docs/configuration.md): whether this request may compact.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { Messages } from '../messages/message.js'
import type { GuardState } from '../state.js'
import { estimateMessages } from '../meter/estimate.js'
import type { PassContext } from '../compaction/context.js'
import { measureFloor, type InfeasiblePayload } from '../compaction/floor.js'
import { rearmBreaker } from '../compaction/pass.js'
import type { CalibratedReading } from '../meter/calibrated-meter.js'
import { decideTrigger } from '../meter/token-meter.js'
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

/**
 * Under the calibrated meter, the overhead alone may leave no room: reported once
 * (`context:compaction-infeasible`), and no pass storms against it (the trigger does not fire).
 */
const checkCalibratedRoom = (facts: StageFacts, calibrated: CalibratedReading, guards: GuardState, fires: boolean): { readonly guards: GuardState; readonly fires: boolean; readonly effects: ReadonlyArray<Effect> } => {
  const infeasible = calibrated.effectiveUnits <= 0 || calibrated.targetUnits <= 0
  const allowed = fires && calibrated.effectiveUnits > 0
  if (infeasible && !guards.infeasible) {
    const data = toCalibratedInfeasible(facts.working, calibrated, facts.effective, facts.config, facts.context)
    return { guards: { ...guards, infeasible: true }, fires: allowed, effects: [{ type: 'emit_hook', name: 'context:compaction-infeasible', data }] }
  }
  if (!infeasible && guards.infeasible && facts.config.compaction_floor_guard !== true && facts.config.compaction_floor_guard !== 'deep') return { guards: { ...guards, infeasible: false }, fires: allowed, effects: [] }
  return { guards, fires: allowed, effects: [] }
}

/**
 * Decides whether the outer trigger fires on the meter stats (the hybrid meter's provenance
 * counters and log), checks the calibrated meter's room, and re-arms a tripped breaker when the
 * budget changed; a breaker still tripped holds re-escalation back.
 *
 * @example
 * compactionTriggerStage.writes // => ['meter', 'guards', 'trigger']
 */
export const compactionTriggerStage = defineStage({
  name: 'compaction-trigger',
  writes: ['meter', 'guards', 'trigger'],
  observes: true,
  run: (facts, draft) => {
    const decision = decideTrigger(facts.config, facts.reading.stats, draft.slices.meter)
    const calibrated = facts.reading.calibrated
    const room = calibrated === null ? { guards: draft.slices.guards, fires: decision.fires, effects: [] } : checkCalibratedRoom(facts, calibrated, draft.slices.guards, decision.fires)
    // A tripped breaker stops re-escalation until a view fits again or the budget changes.
    const guards = room.guards.breakerTripped && room.guards.breakerBudget !== facts.effective ? rearmBreaker(room.guards) : room.guards
    return {
      slices: { meter: decision.meter, guards, trigger: { fires: room.fires, breakerHolds: guards.breakerTripped } },
      effects: [...decision.effects, ...room.effects],
    }
  },
})
