/**
 * The core reducer: routes each event to its handler. `makeStep(deps)` returns the pure
 * `(state, event) -> { state, view, effects }` function the shell and replay fold with.
 */
import { absurd } from 'fp-ts/lib/function.js'
import type { CoreDeps } from './deps.js'
import type { Event } from './events.js'
import type { State } from './state.js'
import type { Step } from './step.js'
import { makeDerivationMemo } from './memo/derivation-memo.js'
import { recordAppend } from './incremental/working.js'
import { update } from './immer.js'
import { applyHistoryCleared, applyMessageAdded, applyMessagesReplaced } from './history.js'
import { applyRequest } from './request/index.js'
import { applyIngressCap, applyIngressSpillAnswer } from './tool-results/ingress-cap.js'
import type { Effect } from './effects.js'
import { applySummaryAnswer, applySummaryCallStarted } from './summary/summary.js'
import { applyUsageIntake } from './meter/foreground.js'
import { recordCalibrationReading } from './meter/calibrated-meter.js'
import { makeCachedEstimator } from './meter/estimate.js'
import { makeFormatEstimator } from './formats/dispatch.js'

/**
 * The dependencies a reducer runs on: in a provider format the estimator is wrapped so a piece
 * costs what its provider-ready form costs (docs/formats.md); the contract format is unchanged.
 * Replay uses it too, so its view figures count what the reducer counts.
 *
 * @example
 * toStepDeps({ config: DEFAULT_CONFIG, estimate: estimateOne }).estimate === estimateOne // => true
 */
export const toStepDeps = (given: CoreDeps): CoreDeps => {
  const format = given.format ?? 'contract'
  return format === 'contract' ? given : { ...given, estimate: makeCachedEstimator(makeFormatEstimator(format, given.estimate)) }
}

/**
 * Build the reducer for `deps`. Derivations of messages (estimates through `deps.estimate`,
 * truncations, stubs, stripped copies) are memoized per message object inside the returned
 * function, so repeated requests cost work proportional to what changed. Never throws for a
 * domain condition: odd input yields a `log` effect and the same state.
 *
 * @example
 * const step = makeStep({ config: DEFAULT_CONFIG, estimate: makeCachedEstimator() })
 * const { state } = step(makeInitialState(), { type: 'message_added', message: { role: 'user', content: 'hi' }, timestamp: DEFAULT_REPLAY_NOW })
 * state.history.length // => 1
 */
export const makeStep = (given: CoreDeps): ((state: State, event: Event) => Step) => {
  const format = given.format ?? 'contract'
  const deps = toStepDeps(given)
  const memo = makeDerivationMemo()
  return (state: State, event: Event): Step => {
    switch (event.type) {
      case 'message_added': {
        const added = applyMessageAdded(deps.config, state, event.message, event.timestamp, format)
        // The ingress cap (docs/configuration.md) replaces the message just stored (O(1), the history's last item).
        const capped = applyIngressCap(deps.config, added)
        recordAppend(memo, capped.state.history, state.history)
        return { state: capped.state, view: undefined, effects: capped.effects }
      }
      case 'messages_replaced': {
        const result = applyMessagesReplaced(deps.config, state, event.messages, format)
        return { state: result.state, view: undefined, effects: result.effects }
      }
      case 'history_cleared': {
        const result = applyHistoryCleared(state)
        return { state: result.state, view: undefined, effects: result.effects }
      }
      case 'request_received':
        return applyRequest(deps, memo, state, event)
      case 'usage_observed': {
        const result = applyUsageIntake(deps.config, state, event.data)
        return { ...result, state: recordCalibrationReading(deps.config, state, result.state) }
      }
      case 'summary_call_started':
        return { state, view: undefined, effects: applySummaryCallStarted(state.summary, event.id) }
      case 'summary_completed':
      case 'summary_failed': {
        const answer = event.type === 'summary_completed' ? { text: event.text } : { error: event.error }
        const result = applySummaryAnswer(state.summary, event.id, answer)
        return { state: result.summary === state.summary ? state : { ...state, summary: result.summary }, view: undefined, effects: result.effects }
      }
      case 'spill_written': {
        const ingress = applyIngressSpillAnswer(deps.config, state, event.path, null)
        if (ingress !== null) return { state: ingress.state, view: undefined, effects: ingress.effects }
        return {
          state: update(state, (draft) => {
            ;(draft.toolResults.spillWritten as Set<string>).add(event.path)
          }),
          view: undefined,
          effects: [],
        }
      }
      case 'spill_failed': {
        const log: Effect = { type: 'log', level: 'warning', message: `context-simple: could not spill ${event.path}: ${event.error}` }
        const ingress = applyIngressSpillAnswer(deps.config, state, event.path, event.error)
        if (ingress !== null) return { state: ingress.state, view: undefined, effects: [log, ...ingress.effects] }
        // SPEC 17.9: that path is never pointed at again, and the embedder hears of it.
        return {
          state: update(state, (draft) => {
            ;(draft.toolResults.spillFailed as Set<string>).add(event.path)
          }),
          view: undefined,
          effects: [log, { type: 'emit_hook', name: 'context:spill_failed', data: { path: event.path, error: event.error } }],
        }
      }
      default:
        return absurd(event)
    }
  }
}
