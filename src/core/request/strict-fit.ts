/**
 * The strict-fit stage (docs/contract.md 17.11): a view over the request budget is an error,
 * not a request, under `strict_fit`.
 */
import type { Effect } from '../effects.js'
import type { ContextLengthDetails } from '../errors.js'
import type { Messages } from '../messages/message.js'
import type { Step } from '../step.js'
import { estimateMessages } from '../meter/estimate.js'
import { measureFloor } from '../compaction/floor.js'
import { countCalibrated, EMPTY_CALIBRATION } from '../meter/calibration.js'
import type { StrippedView } from '../memo/derivation-memo.js'
import { defineStage, type RequestDraft, type StageFacts } from './types.js'

/**
 * True for a budget no view can be fitted to (`strict_fit` raises on it; docs/contract.md 17.11):
 * a request budget of 0 tokens or less, or an effective budget E of 1 token or less (a negative
 * notice reserve can turn a negative budget into E = 1).
 *
 * @example
 * isUnusableBudget(0, 0) // => true
 */
export const isUnusableBudget = (budget: number, effective: number): boolean => budget <= 0 || effective <= 1

/**
 * The view's size in the units of the request budget: under the calibrated meter its billed count
 * as the trigger and the ladder count (docs/contract.md 17.13: the append shape when the last
 * reading's view is a prefix of it, else scale × estimate + overhead + margin; the ephemeral tail
 * included), else its estimate.
 */
const measureView = (facts: StageFacts, view: StrippedView): number => {
  const calibrated = facts.reading.calibrated
  if (calibrated === null) return view.tokens
  return countCalibrated(facts.before.meter.calibration ?? EMPTY_CALIBRATION, calibrated.model, view.view, view.tokens, facts.estimate, facts.config.calibration_reasoning_context).calibrated_tokens
}

const toMessage = (budget: number, effective: number, viewTokens: number, floor: ReturnType<typeof measureFloor>, billed: string): string =>
  isUnusableBudget(budget, effective)
    ? `context-simple: the request budget is ${budget} tokens and the effective budget ${effective} (strict_fit): no view fits it; the view is ${viewTokens} tokens${billed}. ` +
      'Pass a positive tokenBudget, or a provider whose context window exceeds its reserved output plus 4,096 tokens, and a compaction_notice_token_reserve below the budget; history and compaction state are unchanged.'
    : `context-simple: the view is ${viewTokens} tokens${billed}, over the request budget of ${budget} (strict_fit); ` +
      `the irreducible floor is ${floor.floor_tokens} estimator tokens (system ${floor.system_tokens}, protected ${floor.protected_tokens}, open tool group ${floor.open_group_tokens}). ` +
      'Raise the budget, lower protected_recent or protected_tool_results, or cut the largest protected message; history and compaction state are unchanged.'

/**
 * The step of a request whose view does not fit: the state as it was (history, sticky decisions,
 * summary and guard state untouched; only the meter stats of this request and the last budget
 * emitted recorded), the hook and log effects of the observing stages, and a `ContextLengthError`
 * carrying the view's size, the budgets and the floor of `list` (C, or W when no pass ran).
 */
const failFit = (facts: StageFacts, draft: RequestDraft, list: Messages, view: StrippedView, viewTokens: number): Step => {
  const { budget, effective, config, context } = facts
  const system = list.filter((message) => message.role === 'system')
  const floor = measureFloor(list.filter((message) => message.role !== 'system'), estimateMessages(system, context.estimate), config, context)
  const model = facts.reading.calibrated?.model ?? null
  const details: ContextLengthDetails = {
    view_tokens: viewTokens,
    budget,
    effective_budget: effective,
    ...floor,
    ...(model !== null ? { estimated_view_tokens: view.tokens, scale: model.scale, overhead_tokens: Math.round(model.overhead) } : {}),
  }
  const billed = model === null ? '' : ` as billed (calibrated meter: estimate ${view.tokens}, scale ${model.scale.toFixed(3)}, overhead ${Math.round(model.overhead)})`
  const before = facts.before
  const observed: Effect[] = []
  for (const entry of draft.log) if (entry.stage.observes) for (const effect of entry.effects) if (effect.type === 'emit_hook' || effect.type === 'log') observed.push(effect)
  return {
    state: { ...before, budget: draft.slices.budget, meter: { ...before.meter, stats: draft.slices.meter.stats } },
    view: undefined,
    effects: [...observed, { type: 'raise_error', name: 'ContextLengthError', message: toMessage(budget, effective, viewTokens, floor, billed), details }],
  }
}

/**
 * Under `strict_fit`, ends the request with a `ContextLengthError` when the budget is unusable or
 * the view is over the request budget (not E: the notice reserve may be used), measured in the
 * budget's units: under the calibrated meter the view's billed count (docs/contract.md 17.13), so
 * a view that fits in estimator units but not as billed is refused and one that fits as billed is
 * returned.
 *
 * @example
 * strictFitStage.writes // => []
 */
export const strictFitStage = defineStage({
  name: 'strict-fit',
  writes: [],
  observes: false,
  run: (facts, draft) => {
    const view = draft.slices.view
    if (!facts.config.strict_fit || view === null) return {}
    const tokens = measureView(facts, view)
    if (!isUnusableBudget(facts.budget, facts.effective) && tokens <= facts.budget) return {}
    const pass = draft.slices.pass
    return { replace: failFit(facts, draft, pass?.kind === 'pass' ? pass.list : facts.working, view, tokens) }
  },
})
