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

const toMessage = (budget: number, effective: number, viewTokens: number, floor: ReturnType<typeof measureFloor>): string =>
  isUnusableBudget(budget, effective)
    ? `context-simple: the request budget is ${budget} tokens and the effective budget ${effective} (strict_fit): no view fits it; the view is ${viewTokens} tokens. ` +
      'Pass a positive tokenBudget, or a provider whose context window exceeds its reserved output plus 4,096 tokens, and a compaction_notice_token_reserve below the budget; history and compaction state are unchanged.'
    : `context-simple: the view is ${viewTokens} tokens, over the request budget of ${budget} (strict_fit); ` +
      `the irreducible floor is ${floor.floor_tokens} tokens (system ${floor.system_tokens}, protected ${floor.protected_tokens}, open tool group ${floor.open_group_tokens}). ` +
      'Raise the budget, lower protected_recent or protected_tool_results, or cut the largest protected message; history and compaction state are unchanged.'

/**
 * The step of a request whose view does not fit: the state as it was (history, sticky decisions,
 * summary and guard state untouched; only the meter stats of this request and the last budget
 * emitted recorded), the hook and log effects of the observing stages, and a `ContextLengthError`
 * carrying the view's size, the budgets and the floor of `list` (C, or W when no pass ran).
 */
const failFit = (facts: StageFacts, draft: RequestDraft, list: Messages, viewTokens: number): Step => {
  const { budget, effective, config, context } = facts
  const system = list.filter((message) => message.role === 'system')
  const floor = measureFloor(list.filter((message) => message.role !== 'system'), estimateMessages(system, context.estimate), config, context)
  const details: ContextLengthDetails = { view_tokens: viewTokens, budget, effective_budget: effective, ...floor }
  const before = facts.before
  const observed: Effect[] = []
  for (const entry of draft.log) if (entry.stage.observes) for (const effect of entry.effects) if (effect.type === 'emit_hook' || effect.type === 'log') observed.push(effect)
  return {
    state: { ...before, budget: draft.slices.budget, meter: { ...before.meter, stats: draft.slices.meter.stats } },
    view: undefined,
    effects: [...observed, { type: 'raise_error', name: 'ContextLengthError', message: toMessage(budget, effective, viewTokens, floor), details }],
  }
}

/**
 * Under `strict_fit`, ends the request with a `ContextLengthError` when the budget is unusable or
 * the view is over the request budget (not E: the notice reserve may be used).
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
    if (!isUnusableBudget(facts.budget, facts.effective) && view.tokens <= facts.budget) return {}
    const pass = draft.slices.pass
    return { replace: failFit(facts, draft, pass?.kind === 'pass' ? pass.list : facts.working, view.tokens) }
  },
})
