/**
 * The facts of one request (SPEC 2.3 steps 1-5): computed once, before any stage runs, and read
 * by every stage: the request budget and E, the working list W and its estimate, the meter reading.
 */
import { computeEffectiveBudget, resolveBudget } from '../budget.js'
import type { CoreDeps } from '../deps.js'
import type { RequestReceived } from '../events.js'
import type { Message, Messages } from '../messages/message.js'
import type { State } from '../state.js'
import { makePassContext, type PassContext } from '../compaction/context.js'
import type { DerivationMemo } from '../memo/derivation-memo.js'
import { isReplacedSystem, selectReasoningPrefix, selectWorking } from '../incremental/working.js'
import { withBilledEstimator } from '../meter/calibrated-meter.js'
import { toPlainArray } from '../messages/appendable.js'
import { readMeter } from './meter.js'
import { toEagerSticky } from '../compaction/eager-projection.js'
import type { StageFacts } from './types.js'

/**
 * The working list W (SPEC 2.3 step 4): in factory mode the factory's system message followed by
 * the history without non-hook system messages; in static mode the history itself. With `memo`,
 * one factory message object is reused while the prompt text is unchanged (`memo` is updated).
 *
 * @example
 * toWorkingList([{ role: 'user', content: 'Fix the test' }], 'You are helpful.')[0] // => { role: 'system', content: 'You are helpful.' }
 */
export const toWorkingList = (history: Messages, systemPrompt: string | null, memo?: DerivationMemo): Messages => {
  if (systemPrompt === null) return history
  const working: Message[] = [toFactoryMessage(systemPrompt, memo)]
  for (const message of toPlainArray(history)) if (!isReplacedSystem(message)) working.push(message)
  return working
}

/**
 * The factory's system message for `systemPrompt`; with `memo`, one object per prompt text (so
 * repeated requests do not re-estimate it; the memo, a cache of derivations, is updated).
 */
const toFactoryMessage = (systemPrompt: string, memo?: DerivationMemo): Message => {
  const fresh: Message = { role: 'system', content: systemPrompt }
  if (memo === undefined) return fresh
  if (memo.factoryMessage === null || memo.factoryMessage.content !== systemPrompt) memo.factoryMessage = fresh
  return memo.factoryMessage
}

/**
 * The facts of `event` on `state`: the budget resolved (SPEC 4) and E with its warnings (SPEC
 * 2.3 step 3), W and its estimate extended from the previous request's when the history only
 * grew (docs/architecture.md, incremental requests), the pass toolkit, the sticky decisions with
 * the eager projections (`tool_result_json_eager_after`) and the meter reading.
 *
 * @example
 * const deps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const event: RequestReceived = { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now: DEFAULT_REPLAY_NOW }
 * toRequestFacts(deps, makeDerivationMemo(), makeInitialState(), event).effective // => 9200
 */
export const toRequestFacts = (deps: CoreDeps, memo: DerivationMemo, state: State, event: RequestReceived): StageFacts => {
  const { config, estimate } = deps
  const resolved = resolveBudget(config, event.tokenBudget, event.provider)
  const { effective, effects } = computeEffectiveBudget(config, resolved.budget)
  const factoryMessage = event.systemPrompt === null ? null : toFactoryMessage(event.systemPrompt, memo)
  const selected = selectWorking(memo, state.history, event.systemPrompt, factoryMessage, estimate)
  const context = makePassContext(config, estimate, state.toolNames, memo, state.toolResults.spillFailed, state.history)
  const sticky = toEagerSticky(config, selected.entry.working, state.compaction.sticky, context)
  // The meter reads the view the request starts from: with the eager projections (a new state object only when there are some).
  const metered = sticky === state.compaction.sticky ? state : { ...state, compaction: { ...state.compaction, sticky } }
  return {
    config,
    estimate,
    memo,
    event,
    before: state,
    resolved,
    budget: resolved.budget,
    effective,
    budgetEffects: effects,
    factoryMessage,
    selected,
    working: selected.entry.working,
    workingTokens: selected.entry.tokens,
    context,
    sticky,
    reading: readMeter(config, memo, metered, selected, effective, context),
  }
}

/**
 * The context a compaction pass measures in, and the checks that judge a pass in its units (the
 * breaker's floor): under the calibrated meter, with the estimator that leaves out the reasoning
 * the provider does not bill (`withBilledEstimator`, docs/contract.md 17.13), the units of the
 * model that converted E and the target; else the request's own `facts.context`. W's reasoning
 * sums are kept per request and extended by what was appended (`selectReasoningPrefix`): no walk
 * over W.
 *
 * @example
 * const deps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const event: RequestReceived = { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now: DEFAULT_REPLAY_NOW }
 * const facts = toRequestFacts(deps, makeDerivationMemo(), makeInitialState(), event)
 * selectPassContext(facts) === facts.context // => true
 */
export const selectPassContext = (facts: StageFacts): PassContext =>
  facts.reading.calibrated === null ? facts.context : withBilledEstimator(facts.context, facts.working, selectReasoningPrefix(facts.selected, facts.context.estimate))
