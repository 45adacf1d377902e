/**
 * Budget computation (SPEC 4): explicit token budget, else the provider's window minus reserved
 * output and a 4,096-token safety margin, else `max_tokens`; then the notice reserve (SPEC 2.3).
 */
import type { Config } from './config.js'
import type { Effect } from './effects.js'
import type { ProviderWindow } from './events.js'
import { isTruthy } from './values.js'

/**
 * The safety margin subtracted from a provider-derived budget, in tokens (SPEC 4). Never applied
 * to an explicit `token_budget` or to the `max_tokens` fallback.
 *
 * @example
 * BUDGET_SAFETY_MARGIN // 4096: a 128,000-token window with 16,384 max output gives 128000 − 8192 − 4096 = 115712
 */
export const BUDGET_SAFETY_MARGIN = 4096

/**
 * The request budget in tokens (SPEC 4). An explicit `tokenBudget` is returned as is (even 0 or
 * negative); a provider window with a truthy context window and max output gives
 * `context_window − trunc(max_output_tokens × output_reserve_fraction) − 4096`; otherwise
 * `max_tokens`. `max_tokens` never caps a provider-derived budget. All values are tokens;
 * `output_reserve_fraction` is a fraction of the max output. Never throws.
 *
 * @example
 * computeBudget(DEFAULT_CONFIG, null, { context_window: 200000, max_output_tokens: 64000 }) // 163904
 */
export const computeBudget = (config: Config, tokenBudget: number | null, provider: ProviderWindow | null): number => {
  if (tokenBudget !== null && tokenBudget !== undefined) return tokenBudget
  if (provider !== null && provider !== undefined) {
    const window = provider.context_window
    const maxOutput = provider.max_output_tokens
    if (isTruthy(window) && isTruthy(maxOutput) && typeof window === 'number' && typeof maxOutput === 'number') {
      return window - Math.trunc(maxOutput * config.output_reserve_fraction) - BUDGET_SAFETY_MARGIN
    }
  }
  return config.max_tokens
}

/**
 * The effective budget E (SPEC 2.3 step 3): the budget minus the notice reserve when the notice is
 * enabled, falling back to the whole budget (with a warning) when the reserve would leave ≤ 0.
 * Budget, reserve and result are in tokens. Never throws: the warning is a `log` effect.
 *
 * @example
 * computeEffectiveBudget(DEFAULT_CONFIG, 10000) // { effective: 9200, effects: [] }
 */
export const computeEffectiveBudget = (
  config: Config,
  budget: number,
): { readonly effective: number; readonly effects: ReadonlyArray<Effect> } => {
  if (!config.compaction_notice_enabled) return { effective: budget, effects: [] }
  const effective = budget - config.compaction_notice_token_reserve
  if (effective <= 0) {
    return {
      effective: budget,
      effects: [
        {
          type: 'log',
          level: 'warning',
          message: `context-simple: compaction_notice_token_reserve=${config.compaction_notice_token_reserve} leaves no room in a budget of ${budget} tokens; using the full budget`,
        },
      ],
    }
  }
  return { effective, effects: [] }
}
