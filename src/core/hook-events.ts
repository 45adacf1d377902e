/**
 * The hook events (SPEC 9, 17.7) as a map from event name to payload type: the names are the
 * contract's exactly, so a misspelled name (`'context:tokenmeter'`) fails `tsc` on a typed bus.
 */
import type { BudgetPayload } from './budget.js'
import type { InfeasiblePayload } from './compaction/floor.js'
import type { LlmResponsePayload } from './meter/usage.js'
import type { CompactionStats, TokenMeterStats } from './stats.js'
import type { ProviderFormat } from './formats/carrier.js'

/**
 * The `context:compaction-skipped` payload (SPEC 9, 14.3): the worth-the-rebuild predicate
 * refused a pass. Tokens except `level_reached` (0..8), the two skip counts, `protected_recent`
 * (fraction of the messages) and `protected_tool_results` (a count).
 *
 * @example
 * const skipped: CompactionSkippedPayload = { freed_tokens: 1200, required_tokens: 20000, level_reached: 4, consecutive_skips: 1, max_consecutive_skips: 3, baseline_tokens: 91000, budget: 92000, protected_recent: 0.3, protected_tool_results: 5 }
 */
export interface CompactionSkippedPayload {
  readonly freed_tokens: number
  readonly required_tokens: number
  readonly level_reached: number
  readonly consecutive_skips: number
  readonly max_consecutive_skips: number
  readonly baseline_tokens: number
  readonly budget: number
  readonly protected_recent: number
  readonly protected_tool_results: number
}

/**
 * Every hook event the library emits or consumes, by its contract name, with its payload (SPEC 9):
 * - `context:token_meter`: the meter stats of each request (SPEC 10.6);
 * - `context:compaction`: the stats of an accepted compaction pass (SPEC 6.7);
 * - `context:compaction-skipped`: the predicate refused a pass (SPEC 14.3);
 * - `context:pre_summarize` / `context:post_summarize`: around a background summary (SPEC 12.3);
 * - `context:compaction-infeasible` / `context:compaction-breaker` / `context:budget` /
 *   `context:tool_result_ingress_truncated`: the guards of docs/configuration.md
 *   (`compaction_floor_guard`, `compaction_breaker_passes`, `budget_provenance`,
 *   `tool_result_ingress_cap_bytes`; never emitted at the defaults);
 * - `context:view-invalid`: a provider-format view breaks that format's rules (docs/formats.md);
 * - `context:spill_failed`: a spill write was refused or failed (`error` the reason): no view
 *   points at `path` (SPEC 17.9); an ingress spill (docs/configuration.md) leaves its result whole;
 * - `llm:response`: consumed; the provider response whose `usage` anchors the meter (SPEC 10.2, 17.10).
 * A host with events of its own extends it: `makeMittHooks<HookEventMap & { 'tool:pre': ToolCall }>()`.
 *
 * @example
 * const onMeter = (_event: 'context:token_meter', stats: HookEventMap['context:token_meter']) => stats.used_tokens // tokens
 */
export interface HookEventMap {
  readonly 'context:token_meter': TokenMeterStats
  readonly 'context:compaction': CompactionStats
  readonly 'context:compaction-skipped': CompactionSkippedPayload
  readonly 'context:pre_summarize': { readonly message_count: number }
  readonly 'context:post_summarize': { readonly summary_length: number }
  readonly 'context:compaction-infeasible': InfeasiblePayload
  readonly 'context:compaction-breaker': { readonly consecutive_over_budget: number }
  readonly 'context:budget': BudgetPayload
  readonly 'context:tool_result_ingress_truncated': { readonly original_bytes: number; readonly kept_bytes: number; readonly cap_bytes: number; readonly spilled: boolean }
  readonly 'context:spill_failed': { readonly path: string; readonly error: string }
  readonly 'context:view-invalid': ViewInvalidPayload
  readonly 'llm:response': LlmResponsePayload
}

/**
 * The `context:view-invalid` payload (docs/formats.md): the view format and the rule problems of
 * the view just returned (`findFormatViolations` lines, each starting with its rule code).
 *
 * @example
 * const payload: ViewInvalidPayload = { format: 'anthropic', problems: ['A2 tool_use b of turn 1 unanswered in the next turn'] }
 */
export interface ViewInvalidPayload {
  readonly format: ProviderFormat
  readonly problems: ReadonlyArray<string>
}

/**
 * The name of a hook event of `HookEventMap`.
 *
 * @example
 * const name: HookEventName = 'context:compaction'
 */
export type HookEventName = keyof HookEventMap
