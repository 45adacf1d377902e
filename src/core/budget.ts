/**
 * Budget computation (SPEC 4): explicit token budget, else the provider's window minus reserved
 * output and a 4,096-token safety margin, else `max_tokens`; then the notice reserve (SPEC 2.3).
 */
import type { Config } from './config.js'
import type { Effect } from './effects.js'
import type { ProviderWindow } from './events.js'
import { isTruthy } from './messages/values.js'

/**
 * The safety margin subtracted from a provider-derived budget, in tokens (SPEC 4). Never applied
 * to an explicit `token_budget` or to the `max_tokens` fallback.
 *
 * @example
 * BUDGET_SAFETY_MARGIN // 4096: a 128,000-token window with 16,384 max output gives 128000 − 8192 − 4096 = 115712
 */
export const BUDGET_SAFETY_MARGIN = 4096

const isTokenLimit = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0

/**
 * The request budget in tokens (SPEC 4). An explicit `tokenBudget` is returned as is (even 0 or
 * negative); a provider window with a truthy context window and max output gives
 * `context_window − trunc(max_output_tokens × output_reserve_fraction) − 4096` when both are
 * finite positive numbers (SPEC 17.9); otherwise `max_tokens` (with the budget keys of docs/configuration.md
 * as `resolveBudget` says). `max_tokens` never caps a provider-derived budget. All values are
 * tokens; `output_reserve_fraction` is a fraction of the max output. Never throws.
 *
 * @example
 * computeBudget(DEFAULT_CONFIG, null, { context_window: 200000, max_output_tokens: 64000 }) // => 163904
 */
export const computeBudget = (config: Config, tokenBudget: number | null, provider: ProviderWindow | null): number => resolveBudget(config, tokenBudget, provider).budget

/**
 * Where a request budget came from (guard `budget_provenance`, docs/configuration.md): the explicit
 * `token_budget`, the provider's window, the configured fallback window, `max_tokens`, or the cap
 * `budget_cap_tokens` when it lowered the budget from any of those.
 *
 * @example
 * const source: BudgetSource = 'provider'
 */
export type BudgetSource = 'token_budget' | 'provider' | 'fallback_window' | 'max_tokens' | 'cap'

/**
 * A request budget and its provenance, in tokens: `budget` (before the notice reserve),
 * `source`, the `context_window` and `output_reserve` (`trunc(max_output_tokens ×
 * output_reserve_fraction)`) when a window was used (else null), and the configured `cap` (null
 * when none).
 *
 * @example
 * const resolved: ResolvedBudget = { budget: 163904, source: 'provider', context_window: 200000, output_reserve: 32000, cap: null }
 */
export interface ResolvedBudget {
  readonly budget: number
  readonly source: BudgetSource
  readonly context_window: number | null
  readonly output_reserve: number | null
  readonly cap: number | null
}

/** SPEC 4's window formula: `window − trunc(maxOutput × output_reserve_fraction) − 4096`, tokens. */
const windowBudget = (config: Config, window: number, maxOutput: number, source: BudgetSource): ResolvedBudget => {
  const reserve = Math.trunc(maxOutput * config.output_reserve_fraction)
  return { budget: window - reserve - BUDGET_SAFETY_MARGIN, source, context_window: window, output_reserve: reserve, cap: config.budget_cap_tokens }
}

const fromWindow = (config: Config, window: unknown, maxOutput: unknown, source: BudgetSource): ResolvedBudget | null => {
  // SPEC 17.9: a limit that is not a finite positive number is ignored (the shell warns).
  if (!isTruthy(window) || !isTruthy(maxOutput) || !isTokenLimit(window) || !isTokenLimit(maxOutput)) return null
  return windowBudget(config, window, maxOutput, source)
}

/**
 * The request budget and where it came from (SPEC 4 with the budget guards of docs/configuration.md): an
 * explicit `tokenBudget` as is; else the provider's window (`context_window −
 * trunc(max_output_tokens × output_reserve_fraction) − 4096`); else, when
 * `fallback_context_window` is set, the same formula over it and `fallback_max_output_tokens`
 * (0 when null); else `max_tokens`. Then `budget_cap_tokens`, when set, caps the result on every
 * path (source `cap` when it lowered it). With both keys null this is SPEC 4 exactly. Tokens
 * throughout; never throws.
 *
 * @example
 * resolveBudget({ ...DEFAULT_CONFIG, budget_cap_tokens: 150000 }, null, { context_window: 1000000, max_output_tokens: 64000 }).source // => 'cap'
 */
export const resolveBudget = (config: Config, tokenBudget: number | null, provider: ProviderWindow | null): ResolvedBudget => {
  let resolved: ResolvedBudget | null = null
  if (tokenBudget !== null && tokenBudget !== undefined) {
    resolved = { budget: tokenBudget, source: 'token_budget', context_window: null, output_reserve: null, cap: config.budget_cap_tokens }
  }
  if (resolved === null && provider !== null && provider !== undefined) resolved = fromWindow(config, provider.context_window, provider.max_output_tokens, 'provider')
  if (resolved === null && config.fallback_context_window !== null) {
    resolved = windowBudget(config, config.fallback_context_window, config.fallback_max_output_tokens ?? 0, 'fallback_window')
  }
  if (resolved === null) resolved = { budget: config.max_tokens, source: 'max_tokens', context_window: null, output_reserve: null, cap: config.budget_cap_tokens }
  if (config.budget_cap_tokens !== null && resolved.budget > config.budget_cap_tokens) return { ...resolved, budget: config.budget_cap_tokens, source: 'cap' }
  return resolved
}

/**
 * The `context:budget` payload (docs/configuration.md, `budget_provenance`): where the budget came from, the window and output
 * reserve it used (null when none), the cap (null when none) and the effective budget E, tokens.
 *
 * @example
 * const payload: BudgetPayload = { source: 'cap', context_window: 1000000, output_reserve: 32000, cap: 150000, effective_budget: 149200 }
 */
export interface BudgetPayload {
  readonly source: BudgetSource
  readonly context_window: number | null
  readonly output_reserve: number | null
  readonly cap: number | null
  readonly effective_budget: number
}

/**
 * The `context:budget` payload of a resolved budget and its effective budget E (tokens).
 *
 * @example
 * toBudgetPayload(resolveBudget(DEFAULT_CONFIG, 10000, null), 9200) // => { source: 'token_budget', context_window: null, output_reserve: null, cap: null, effective_budget: 9200 }
 */
export const toBudgetPayload = (resolved: ResolvedBudget, effective: number): BudgetPayload => ({
  source: resolved.source,
  context_window: resolved.context_window,
  output_reserve: resolved.output_reserve,
  cap: resolved.cap,
  effective_budget: effective,
})

/**
 * True when two `context:budget` payloads are equal in every field; false when `a` is null (no
 * earlier payload). The event is emitted when this is false, i.e. on a change.
 *
 * @example
 * const a: BudgetPayload = { source: 'token_budget', context_window: null, output_reserve: null, cap: null, effective_budget: 9200 }
 * isSameBudget(a, { ...a }) // => true
 * isSameBudget(null, a) // => false
 */
export const isSameBudget = (a: BudgetPayload | null, b: BudgetPayload): boolean =>
  a !== null && a.source === b.source && a.context_window === b.context_window && a.output_reserve === b.output_reserve && a.cap === b.cap && a.effective_budget === b.effective_budget

/**
 * The warning for a request budget of 0 tokens or less, in plain words: with E ≤ 0 the trigger
 * never fires (SPEC 4's worked example); a negative notice reserve can leave E > 0, and then the
 * ladder aims at a fraction of those few tokens.
 */
const nonPositiveBudgetWarning = (budget: number, effective: number): string =>
  effective <= 0
    ? `context-simple: the budget is ${budget} tokens: the view is not compacted (the whole history is sent). Pass a positive tokenBudget, or a provider whose context window exceeds its reserved output plus 4,096 tokens; strict_fit raises ContextLengthError instead.`
    : `context-simple: the budget is ${budget} tokens and a negative compaction_notice_token_reserve makes the effective budget ${effective}: the view is compacted toward ${effective} tokens. Pass a positive tokenBudget and a reserve of 0 or more; strict_fit raises ContextLengthError instead.`

/**
 * The effective budget E (SPEC 2.3 step 3): the budget minus the notice reserve when the notice is
 * enabled, falling back to the whole budget (with a warning) when the reserve would leave ≤ 0.
 * Budget, reserve and result are in tokens. Never throws: the warning is a `log` effect.
 *
 * @example
 * computeEffectiveBudget(DEFAULT_CONFIG, 10000) // => { effective: 9200, effects: [] }
 */
export const computeEffectiveBudget = (
  config: Config,
  budget: number,
): { readonly effective: number; readonly effects: ReadonlyArray<Effect> } => {
  const reserve = config.compaction_notice_enabled ? config.compaction_notice_token_reserve : 0
  if (budget <= 0) {
    // SPEC 2.3 step 3 and 4 unchanged (docs/contract.md 17.11): only the warning says what happens.
    const effective = budget - reserve > 0 ? budget - reserve : budget
    return { effective, effects: [{ type: 'log', level: 'warning', message: nonPositiveBudgetWarning(budget, effective) }] }
  }
  if (!config.compaction_notice_enabled) return { effective: budget, effects: [] }
  const effective = budget - config.compaction_notice_token_reserve
  if (effective <= 0) {
    return {
      effective: budget,
      effects: [
        {
          type: 'log',
          level: 'warning',
          message: `context-simple: compaction_notice_token_reserve=${config.compaction_notice_token_reserve} leaves no room in a budget of ${budget} tokens; using the full budget (lower compaction_notice_token_reserve, or compaction_notice_enabled: false reserves nothing)`,
        },
      ],
    }
  }
  return { effective, effects: [] }
}
