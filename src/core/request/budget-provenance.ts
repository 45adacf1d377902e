/**
 * The budget stage (SPEC 4, `budget_provenance` in docs/configuration.md): the budget's warnings,
 * and `context:budget` when the budget's provenance changed since the last one emitted.
 */
import { isSameBudget, toBudgetPayload } from '../budget.js'
import type { Effect } from '../effects.js'
import { defineStage } from './types.js'

/**
 * Emits the warnings of the budget (a budget of 0 or less, a notice reserve that leaves no room)
 * and, under `budget_provenance`, `context:budget` once per change of its payload; writes the
 * last payload emitted.
 *
 * @example
 * budgetStage.writes // => ['budget']
 */
export const budgetStage = defineStage({
  name: 'budget',
  writes: ['budget'],
  observes: true,
  run: (facts, draft) => {
    if (!facts.config.budget_provenance) return { effects: facts.budgetEffects }
    const payload = toBudgetPayload(facts.resolved, facts.effective)
    if (isSameBudget(draft.slices.budget.lastBudget, payload)) return { effects: facts.budgetEffects }
    const effects: ReadonlyArray<Effect> = [...facts.budgetEffects, { type: 'emit_hook', name: 'context:budget', data: payload }]
    return { slices: { budget: { lastBudget: payload } }, effects }
  },
})
