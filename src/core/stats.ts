/**
 * The two statistics objects the contract names: compaction stats (`_last_compaction_stats`,
 * SPEC 6.7) and token meter stats (`_last_token_meter_stats`, SPEC 10.6). Keys are the contract's
 * snake_case names in the contract's order.
 */

/**
 * Where a token count came from (SPEC 10): provider usage, the estimator, or nothing (`none`, an
 * empty working list without a reading).
 *
 * @example
 * const kind: CountKind = 'usage'
 */
export type CountKind = 'usage' | 'estimated' | 'none' | 'calibrated'

/**
 * Cache totals over every usage event since the last reset (SPEC 10.6): `events` is a count, the
 * two sums are tokens.
 *
 * @example
 * const aggregates: CacheAggregates = { events: 2, cache_read_tokens: 23030, cache_write_tokens: 13835 }
 */
export interface CacheAggregates {
  readonly events: number
  readonly cache_read_tokens: number
  readonly cache_write_tokens: number
}

/**
 * Token meter stats of one request (SPEC 10.6), every key in order. Token counts are in tokens
 * (estimator tokens for `estimated_tokens`/`tail_estimated_tokens`/`anchor_estimate`, provider
 * tokens for `measured_tokens`/`anchor_tokens`); `budget` is the effective budget E;
 * `ratio = used_tokens / budget` (a fraction) or null when the budget is not positive.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 10_000 }] }
 * const stats = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }).lines[0].token_meter_stats as TokenMeterStats
 * stats.mode // => 'estimate'
 * stats.used_tokens // => 0
 * stats.measured_tokens // => null
 */
export interface TokenMeterStats {
  readonly mode: string
  readonly source: 'estimate' | 'measured' | 'hybrid' | 'calibrated'
  readonly kind: CountKind
  readonly used_tokens: number
  readonly estimated_tokens: number
  readonly measured_tokens: number | null
  readonly hybrid_tokens: number
  readonly hybrid_kind: CountKind
  readonly anchor_tokens: number | null
  readonly anchor_estimate: number | null
  readonly anchor_rejected: boolean
  readonly tail_estimated_tokens: number | null
  readonly tail_messages: number | null
  readonly cache_aggregates: CacheAggregates | null
  readonly provenance_refusals: number
  readonly provenance_overrides: number
  readonly budget: number
  readonly ratio: number | null
  /** `usage_intake: "foreground"` only (docs/configuration.md): the last foreground reading was malformed. */
  readonly usage_stale?: boolean
  /** `usage_intake: "foreground"` only: readings observed, not recorded. */
  readonly usage_observed_only?: number
  /** `token_estimator` typed/tokenizer only (docs/configuration.md): media items in W, at their provider cost. */
  readonly media_items?: number
  /** `token_estimator` typed/tokenizer only: media charged a ceiling (size not readable). */
  readonly media_unmeasured?: number
  /**
   * `token_meter: "calibrated"` only (docs/contract.md 17.13): the driving count in billed tokens
   * (the last reading + scale × estimate of what was appended when the view it describes is a
   * prefix of this one, else `model_tokens`); `used_tokens` equals it.
   */
  readonly calibrated_tokens?: number
  /** `token_meter: "calibrated"` only: scale × estimate(view) + overhead from earlier readings only (billed tokens). */
  readonly model_tokens?: number
  /** `token_meter: "calibrated"` only: the model (`scale`, `overhead` in billed tokens, `points`) and the relative error of its last checked prediction. */
  readonly calibration?: { readonly scale: number; readonly overhead: number; readonly points: number; readonly last_error: number | null }
}

/**
 * Compaction stats of the last accepted pass (SPEC 6.7), keys in order. Tokens are estimator
 * tokens; the removed/truncated/stubbed counts are cumulative sticky-set sizes since the last
 * reset; `strategy_level` is the cumulative level 0..8; `budget` is E and `target_tokens` is
 * `trunc(E × target_usage)`. `messages_absorbed_by_summary` exists in summary strategy only.
 *
 * @example
 * // SPEC 6.8: E = 3000, target_usage 0.6, protected_recent 0.5, protected_tool_results 4
 * const stats: CompactionStats = {
 *   before_tokens: 2444, after_tokens: 1793, before_messages: 24, after_messages: 24, messages_removed: 0,
 *   messages_truncated: 4, user_messages_stubbed: 0, system_messages_preserved: 0, strategy_level: 2,
 *   budget: 3000, target_tokens: 1800, protected_recent: 0.5, protected_tool_results: 4,
 * }
 */
export interface CompactionStats {
  readonly before_tokens: number
  readonly after_tokens: number
  readonly before_messages: number
  readonly after_messages: number
  readonly messages_removed: number
  readonly messages_truncated: number
  readonly user_messages_stubbed: number
  readonly system_messages_preserved: number
  readonly strategy_level: number
  readonly budget: number
  readonly target_tokens: number
  readonly protected_recent: number
  readonly protected_tool_results: number
  readonly messages_absorbed_by_summary?: number
  /**
   * Present (true) only on a pass the early trigger made (`compact_early_threshold`,
   * docs/configuration.md "The early pass"); its `target_tokens` is then the early target. Never
   * present under the contract's defaults.
   */
  readonly early_pass?: true
}
