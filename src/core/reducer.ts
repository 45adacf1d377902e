/**
 * The core reducer: routes each event to its handler. `makeStep(deps)` returns the pure
 * `(state, event) -> { state, view, effects }` function the shell and replay fold with.
 */
import { absurd } from 'fp-ts/lib/function.js'
import type { CoreDeps } from './deps.js'
import type { Config } from './config.js'
import { withoutSpillPointers } from './tool-results/tool-result-budget.js'
import { toProviderView } from './request/provider-view.js'
import type { Event, SpillFailed, SpillsAnswered, SpillWritten } from './events.js'
import type { State } from './state.js'
import type { Step } from './step.js'
import { makeDerivationMemo } from './memo/derivation-memo.js'
import type { PrefixHashes } from './formats/anthropic-cache.js'
import { recordAppend } from './incremental/working.js'
import { lengthOf } from './messages/appendable.js'
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
 * One spill answer (SPEC 11.5, 17.9): an ingress spill's answer settles its message
 * (src/core/tool-results/ingress-cap.ts); otherwise a written path is remembered (not asked for
 * again), and a failed one is never pointed at again, with a warning and `context:spill_failed`.
 *
 * @example
 * applySpillAnswer(DEFAULT_CONFIG, makeInitialState(), { type: 'spill_written', path: '/p' }).state.toolResults.spillWritten.has('/p') // => true
 */
export const applySpillAnswer = (config: Config, state: State, event: SpillWritten | SpillFailed): Step => {
  if (event.type === 'spill_written') {
    const ingress = applyIngressSpillAnswer(config, state, event.path, null)
    if (ingress !== null) return { state: ingress.state, view: undefined, effects: ingress.effects }
    return {
      state: update(state, (draft) => {
        ;(draft.toolResults.spillWritten as Set<string>).add(event.path)
      }),
      view: undefined,
      effects: [],
    }
  }
  const log: Effect = { type: 'log', level: 'warning', message: `context-simple: could not spill ${event.path}: ${event.error}; the tool result stays whole in the history (tool_result_spill_dir names where spills go; null stops spilling)` }
  const ingress = applyIngressSpillAnswer(config, state, event.path, event.error)
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

/**
 * The answers to one call's spill writes (SPEC 17.9), folded in order as `applySpillAnswer`
 * applies each; the call's view comes back without the pointers to the paths that failed (and
 * are now never pointed at), so it points at no file that was not written; with a `shape`, the
 * step's `output` is that view as the request asked for it (`toProviderView`, which under
 * `anthropic_cache_breakpoints` also writes the `cacheBreakpoints` slice, as the finish stage does).
 * `prefixes`: the running hashes its prefix fingerprints resume from (the derivation memo's,
 * `PrefixHashes` in src/core/formats/anthropic-cache.ts); the same result without.
 *
 * @example
 * applySpillsAnswered(DEFAULT_CONFIG, makeInitialState(), { type: 'spills_answered', answers: [], view: [] }).view // => []
 */
export const applySpillsAnswered = (config: Config, state: State, event: SpillsAnswered, prefixes?: PrefixHashes): Step => {
  let next = state
  const effects: Effect[] = []
  for (const answer of event.answers) {
    const step = applySpillAnswer(config, next, answer)
    next = step.state
    effects.push(...step.effects)
  }
  const failed = new Set(event.answers.filter((answer) => answer.type === 'spill_failed' && next.toolResults.spillFailed.has(answer.path)).map((answer) => answer.path))
  const view = failed.size === 0 || event.view === undefined ? event.view : withoutSpillPointers(event.view, failed)
  if (event.shape === undefined || view === undefined) return { state: next, view, effects }
  const shaped = toProviderView(config, event.shape, view, next.history, next.cacheBreakpoints, undefined, prefixes)
  // Refused under provider_rules "refuse": the raise_error effect is last and the step has no view.
  if (shaped.output === null) return { state: next, view: undefined, effects: [...effects, ...shaped.effects] }
  const held = shaped.cacheBreakpoints === undefined ? next : { ...next, cacheBreakpoints: shaped.cacheBreakpoints }
  return { state: held, view, effects: [...effects, ...shaped.effects], output: shaped.output, repaired: shaped.repaired }
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
        // The ingress cap (docs/configuration.md, docs/contract.md 17.15) caps every tool result this
        // add stored (from the previous length on; O(1) when only the history's last item is cut).
        const capped = applyIngressCap(deps.config, added, lengthOf(state.history))
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
      case 'spill_written':
      case 'spill_failed':
        return applySpillAnswer(deps.config, state, event)
      case 'spills_answered':
        return applySpillsAnswered(deps.config, state, event, memo.cachePrefixes)
      default:
        return absurd(event)
    }
  }
}
