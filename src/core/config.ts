/**
 * The resolved configuration the core runs on: every contract key (snake_case, SPEC 3) with its
 * default. Raw user configuration is decoded into this shape by `codecs.ts` (`decodeConfig`).
 */

/**
 * Which number drives the compaction trigger (SPEC 10.1): the estimate, the provider's measured
 * tokens, or the hybrid anchor plus estimated tail. Unknown values fall back to `estimate` with a
 * warning (SPEC 3).
 *
 * @example
 * const mode: TokenMeterMode = 'hybrid'
 */
export type TokenMeterMode = 'estimate' | 'actual' | 'hybrid' | 'calibrated'

/**
 * Progressive ladder only, or LLM rolling summary first (SPEC 12). Unknown values fall back to
 * `progressive` with a warning (SPEC 3).
 *
 * @example
 * const strategy: CompactionStrategy = 'summary'
 */
export type CompactionStrategy = 'progressive' | 'summary'

/**
 * Shape of a truncated tool result under a token budget (SPEC 11.2): the head only, or head and
 * tail with an omitted-characters marker. The legacy `truncate_chars` budget is always `head`.
 *
 * @example
 * const shape: ToolResultShape = 'head_tail'
 */
export type ToolResultShape = 'head' | 'head_tail'

/**
 * The resolved configuration (SPEC 3). Units: `*_tokens` and `max_tokens` in tokens,
 * `truncate_chars` in characters (code points), fractions in [0, 1] by intent but not range
 * checked (the arithmetic decides), `summarization_timeout_s` in seconds.
 * `compact_clear_at_least` is kept raw and resolved per judged call (SPEC 14.1);
 * `compact_max_consecutive_skips` is already clamped to at least 1; `protected_tool_results` is a
 * count and `compaction_notice_min_level` a level 0..8. Built only by `decodeConfig` (which raises
 * `ConfigError` for a wrongly typed value) or from `DEFAULT_CONFIG`.
 *
 * @example
 * const config: Config = { ...DEFAULT_CONFIG, max_tokens: 100_000, token_meter: 'hybrid' }
 */
export interface Config {
  readonly max_tokens: number
  readonly compact_threshold: number
  readonly target_usage: number
  readonly protected_recent: number
  readonly protected_tool_results: number
  readonly truncate_chars: number
  readonly compaction_notice_enabled: boolean
  readonly compaction_notice_token_reserve: number
  readonly compaction_notice_verbosity: string
  readonly compaction_notice_min_level: number
  readonly output_reserve_fraction: number
  readonly token_meter: TokenMeterMode
  readonly compaction_strategy: CompactionStrategy
  readonly compact_clear_at_least: null | number | string | boolean
  readonly compact_max_consecutive_skips: number
  readonly summary_trigger: number
  readonly summarization_model: string | null
  readonly summarization_prompt_path: string | null
  readonly summarization_timeout_s: number
  readonly tool_result_budget_tokens: number | null
  readonly tool_result_shape: ToolResultShape
  readonly tool_result_budget_by_tool: Readonly<Record<string, number>>
  readonly tool_result_exempt_tools: ReadonlyArray<string>
  readonly tool_result_spill_dir: string | null
  readonly replay_last_user_on_compaction: boolean
  /**
   * `remove_short_user_messages` (docs/configuration.md): at level 8, once the old stubs are gone and the view is still over the target,
   * remove old short user messages too (string content of 80 characters or fewer, which are
   * never stubbed), oldest first, before the level-8 protected zone, never the first or the last
   * user message. Default false (the contract: short user messages are never removed, so a
   * session of many short turns can stay over budget).
   */
  readonly remove_short_user_messages: boolean
  /**
   * Guard: in `hybrid` mode, a request whose estimated count is at or over the effective budget
   * E (usage ≥ 1.0) compacts even after an anchor was rejected, as the contract's
   * G-METER-PROVENANCE override does before any reading (SPEC 10.5). Default false (the
   * contract: a rejected anchor never overrides, so when the provider counts fewer tokens than
   * the estimator, hybrid mode can stop compacting for good and the view grows past the budget).
   */
  readonly hybrid_rejected_anchor_override: boolean
  /**
   * Guard (docs/configuration.md): when the irreducible floor (system messages, protected messages, the open
   * tool group) is above the target, compact only while the view is over E and stop as soon as it
   * fits; report `context:compaction-infeasible` once per change. `"deep"`: the same, but a pass
   * over E compacts as far as the ladder goes (to the floor) instead of stopping just under E, so
   * the next turns do not cross E again at once. `"report"`: compaction exactly as without the
   * guard (the contract), but a pass that ends over E because the floor itself is over E (the
   * open tool group of SPEC 17.8, a protected zone) emits `context:compaction-infeasible` once, until
   * a view fits E again (docs/contract.md 17.14). Default false (the contract).
   */
  readonly compaction_floor_guard: boolean | 'deep' | 'report'
  /**
   * Guard (docs/configuration.md): after this many consecutive compaction passes that end over E, emit
   * `context:compaction-breaker` once and stop re-escalating until a view fits again. Null (the
   * default, the contract) disables the breaker. A count ≥ 1.
   */
  readonly compaction_breaker_passes: number | null
  /**
   * Guard (SPEC 17.11): a view still over the request budget after compaction raises a typed
   * `ContextLengthError` with the breakdown instead of being returned; the failed call changes
   * neither history nor sticky decisions. Default false (the contract returns it and logs).
   */
  readonly strict_fit: boolean
  /**
   * Guard (docs/configuration.md): a cap on the request budget (tokens) on every path: explicit budget,
   * provider window, fallback window and `max_tokens`. Null (the default, the contract): no cap.
   */
  readonly budget_cap_tokens: number | null
  /**
   * Guard (docs/configuration.md): the model window (tokens) used when no `token_budget` is given and the
   * provider reports none, before `max_tokens`. Null (the default, the contract): not used.
   */
  readonly fallback_context_window: number | null
  /** The max output tokens that go with `fallback_context_window` (null: 0). */
  readonly fallback_max_output_tokens: number | null
  /**
   * Guard (docs/configuration.md): emit `context:budget` `{source, context_window, output_reserve, cap,
   * effective_budget}` whenever the effective budget or its source changes. Default false.
   */
  readonly budget_provenance: boolean
  /**
   * Guard (docs/configuration.md): the first/last user protections anchor on prompts a human typed, not on
   * hook-injected (`metadata.source: "hook"`), ephemeral, notice, replay or summary messages.
   * Default false (the contract: any user-role message).
   */
  readonly human_anchors: boolean
  /**
   * Guard (docs/configuration.md, notice hygiene): what later requests carry after the full notice of a
   * compaction went out: `"full"` (the contract: the full text again, with token figures and the
   * "ephemeral" claim), `"standing"` (a short standing notice) or `"none"`. Other than `"full"`,
   * the full text also leaves out the token figures and the "affects only this request" claim.
   */
  readonly compaction_notice_repeat: NoticeRepeat
  /**
   * What `target_usage` is a fraction of: `"budget"` (the contract: the target is
   * `trunc(E × target_usage)`) or `"compactable"` (the part a compaction can act on: the target is
   * the system messages' tokens plus `trunc((E − system tokens) × target_usage)`, so a long system
   * prompt does not push every compaction to the bottom of the ladder). docs/evaluation.md,
   * "Target on the compactable part".
   */
  readonly target_basis: TargetBasis
  /**
   * How an old tool result over its budget is shortened: `"head"` (the contract, SPEC 11.2: the
   * `[truncated: …]` header and the first characters) or `"stub"` (observation masking: the result
   * is replaced by `[tool result cleared: <tool>, <N> chars - call the tool again if needed]`; the
   * call with its arguments stays right before it), or `"mask"` (observation masking: the same stub
   * for every old result the ladder reaches, whatever its size, and the level-2 wave reaches every
   * unprotected result, so tool results are cleared before any message is removed;
   * src/core/compaction/retention.ts). docs/evaluation.md, "Observation masking".
   */
  readonly tool_result_truncation: ToolResultTruncation
  /**
   * The recent zone the removal levels protect, in estimator tokens: null (the contract, SPEC
   * 6.4: the last `protected_recent` share of the messages, scaled by 1, 0.6 and 0.3 at levels 3,
   * 5 and 7) or N: the longest suffix of at most N tokens (scaled the same way), at least the last
   * message. src/core/compaction/retention.ts; docs/evaluation.md, "The policy candidates".
   */
  readonly protected_recent_tokens: number | null
  /**
   * The order in which the ladder's waves and removal levels visit the unprotected tool results
   * and removal candidates: `"oldest"` (the contract, SPEC 6.3 and 6.4: by position, oldest
   * first) or `"least_referenced"` (least recently used first: a group's last use is the latest
   * later user or assistant message, text or tool-call argument values, naming one of the
   * handles its content holds, or its own position when none does; ties by position) or
   * `"least_referenced_per_token"` (cost-aware: the unit's estimated tokens times the messages
   * since its last use, largest first; in no preset). Tool groups stay atomic and every
   * protection stays as it is. src/core/compaction/reference-order.ts; docs/evaluation.md, "Least
   * recently referenced first".
   */
  readonly compaction_order: CompactionOrder
  /**
   * The working set (src/core/compaction/working-set.ts; docs/evaluation.md, "A working set of
   * handles"): null (the contract: only the ladder removes, when the trigger fires) or τ, a
   * window in messages: at every request, before the pass, every unit (tool group or message,
   * user messages included) that is not among the last τ messages, provides no handle they use,
   * is not among the most recently used units that fit in `working_set_capacity` of E and is not
   * always kept (the last two messages, the last user message, an open tool group) is removed,
   * from the cut `working_set_payback` chooses. In no preset.
   */
  readonly working_set_window: number | null
  /**
   * The share of E (0 to 1, estimator tokens) the least recently used fill of the working set
   * may keep beyond its window and the units the window references; read only under `working_set_window`.
   */
  readonly working_set_capacity: number
  /**
   * How many times the tokens a working-set removal frees must exceed the kept tokens after its
   * first removed message (which the rewrite re-bills) for it to be made (greater than 0; 1: as
   * many freed as re-billed); read only under `working_set_window`.
   */
  readonly working_set_payback: number
  /**
   * Refill (src/core/compaction/refill.ts; docs/evaluation.md, "Refill to the target"): `"none"`
   * (the contract, SPEC 6.2: a pass ends wherever its last removal left it), `"pass"` (after the
   * ladder, the units this pass removed come back while they fit under its target, whole or as
   * their skeleton, the most recently referenced under `compaction_order` first) or `"history"`
   * (the same over the whole history: earlier passes' removals and truncations may be lifted).
   */
  readonly compaction_refill: CompactionRefill
  /**
   * The form a refilled tool result takes when it does not come back whole (src/core/compaction/refill.ts;
   * docs/evaluation.md, "Heads sized to the room"): `"skeleton"` (the contract's truncation, SPEC 11.2)
   * or `"fit"` (after the refill, the room still left under the pass's target lengthens the heads of
   * the shortened tool results, the most valuable first, each cut at a line end and recorded as a
   * sticky decision, SPEC 7). Read only under `compaction_refill: "history"`.
   */
  readonly compaction_refill_head: CompactionRefillHead
  /**
   * Summary hysteresis (docs/configuration.md): the summary trigger measures the view (sticky decisions
   * applied, absorbed messages gone) instead of the whole stored history, so an absorption
   * disarms it, and a finished summary is swapped in only by a pass that escalates anyway, so a
   * swap never adds a boundary of its own. Default false (the contract: the trigger measures the
   * history, which never shrinks, and the next firing pass swaps).
   */
  readonly summary_hysteresis: boolean
  /** Summary hysteresis: the post-absorb target as a fraction of E (null: `target_usage`). */
  readonly summary_target_usage: number | null
  /** Summary hysteresis: a span estimated under this many tokens is not summarized (null: any). */
  readonly summary_min_span_tokens: number | null
  /** Summary hysteresis: requests to wait after a summary is requested before the next (null: 0). */
  readonly summary_cooldown_requests: number | null
  /**
   * Guard (docs/configuration.md): which estimator the manager and the CLI build when none is passed:
   * `"reference"` (SPEC 5, the contract), `"typed"` (media blocks and base64 payloads cost their
   * provider's image/document amount instead of their characters), or `"tokenizer"` (the typed
   * split with text counted by the optional `gpt-tokenizer` package, o200k_base vocabulary).
   */
  readonly token_estimator: TokenEstimatorKind
  /**
   * Guard (docs/configuration.md, foreground usage): `"all"` (the contract) records every `llm:response`
   * reading; `"foreground"` records only payloads marked `foreground: true` (the agent loop's own
   * calls) and observes the others; a malformed foreground reading keeps the last good one, marked
   * stale in the meter stats.
   */
  readonly usage_intake: UsageIntakeMode
  /**
   * Guard (docs/configuration.md): tool results whose text is larger than this many UTF-8 bytes are cut with a
   * visible marker when added; with `tool_result_spill_dir` the whole original is spilled first
   * and the marker names the file (a failed spill keeps the result whole). Null (default): no cap.
   */
  readonly tool_result_ingress_cap_bytes: number | null
  /**
   * JSON tool results without insignificant whitespace (docs/configuration.md, "JSON tool results
   * without whitespace"): `"keep"` (the contract) stores a tool result as given; `"strip"` stores
   * one whose string content is a JSON object or array without the whitespace between its tokens
   * when it is added (strings, numbers and key order kept character for character, so the parsed
   * value is the same). src/core/tool-results/json-whitespace.ts.
   */
  readonly tool_result_json_whitespace: JsonWhitespace
  /**
   * How the compaction ladder shortens a JSON tool result (docs/configuration.md, "JSON tool
   * results by named fields"): `"off"` (the contract) as any other result; `"named_keys"` to the
   * fields under key names the session has named (a value under that key name, in some JSON tool
   * result of the history, occurs in a user or assistant message), when that form is no longer
   * than the head the contract keeps; the group then stays through the removal levels unless the
   * list is more than halfway from the target to E. src/core/tool-results/json-projection.ts.
   * `"handles"` to the string fields that hold a handle (ids, paths, dates, codes), for results
   * that are records (no string longer than 160 characters), whatever their size; the group then
   * stays as under `"named_keys"`. src/core/tool-results/json-handles.ts. `"handle_values"` as
   * `"handles"`, but the form is the flat JSON array of the distinct kept strings, without key
   * names, objects or nesting.
   */
  readonly tool_result_json_projection: JsonProjection
  /**
   * Eager tail projection (docs/configuration.md, "Eager tail projection"; src/core/compaction/eager-projection.ts):
   * null (the contract: JSON tool results are shortened only by a compaction pass) or N: at every
   * request, each JSON tool result followed in W by at least N assistant messages of the kind
   * `tool_result_json_eager_unit` counts is shortened to the form `tool_result_json_projection`
   * writes (a sticky truncation, SPEC 7: later views keep it; the history keeps the whole
   * result). Results the form does not apply to (not records, exempt tools, `"off"`) stay whole.
   */
  readonly tool_result_json_eager_after: number | null
  /**
   * What `tool_result_json_eager_after` counts after a result: `"answers"` (assistant messages
   * that call no tool: the agent answered) or `"turns"` (every assistant message). Read only
   * under `tool_result_json_eager_after`.
   */
  readonly tool_result_json_eager_unit: EagerUnit
  /**
   * What the removal levels of the ladder do with a tool group whose results are all in the form
   * of `tool_result_json_projection` (docs/configuration.md, "Eager tail projection"): `"kept"`
   * (default) skips it, removing it after level 7 only while the list is over halfway from the
   * target to E; `"removable"` removes it as any group; `"early"` keeps it in the early pass
   * (`compact_early_threshold`) and removes it in the pass at `compact_threshold`. Read only under a projection.
   */
  readonly tool_result_json_projected_groups: ProjectedGroups
  /**
   * The early pass (docs/configuration.md, "The early pass"; src/core/compaction/early-pass.ts):
   * null (the contract: one trigger, `compact_threshold`) or a share of the compactable room (E
   * less the system messages). When the view's history fills that share of the room and
   * `compact_threshold` has not fired, a compaction pass runs toward the system messages plus
   * `compact_early_target` of the room if JSON records (tool results with a form under
   * `tool_result_json_projection`) hold at least `compact_early_record_share` of the history's
   * tokens; else nothing happens until `compact_threshold`. Never fires under
   * `tool_result_json_projection: "off"`.
   */
  readonly compact_early_threshold: number | null
  /** The share (0..1) of the compactable room the early pass works toward. Read only under `compact_early_threshold`. */
  readonly compact_early_target: number
  /**
   * The least share (0..1) of the view's history tokens in JSON records for the early pass to
   * run (src/core/compaction/early-pass.ts `toRecordShare`). Read only under `compact_early_threshold`.
   */
  readonly compact_early_record_share: number
  /**
   * What happens to input a provider would refuse (docs/formats.md "Input a provider refuses"):
   * `"warn"` accepts it as the contract does, with a warning naming the path and the fix;
   * `"refuse"` raises `InvalidMessageError` at `addMessage` (nothing stored) or at request time
   * (no view returned; history unchanged); `"repair"` refuses at `addMessage` what the message
   * alone shows and leaves a history problem out of the view, with a warning. Null (default): by
   * format, `"warn"` for the contract shape (the contract's behaviour), `"repair"` for the
   * provider formats.
   */
  readonly provider_rules: ProviderRulesMode | null
  /**
   * Anthropic views (`format: 'anthropic'`): place prompt-cache breakpoints (`cache_control`) at
   * the end of the system prompt and on the last stable block before the ephemeral tail (notice,
   * replay), and keep the last view's marks while their prefix is unchanged (held in
   * `State.cacheBreakpoints`), leaving a slot for a caller's mark on its tool definitions, never
   * more than 4 with the caller's own (docs/formats.md "Prompt caching"). Default false: the view
   * carries only the caller's own marks.
   */
  readonly anthropic_cache_breakpoints: boolean
  /**
   * `token_meter: "calibrated"` only (docs/contract.md 17.13): the prior overhead, billed tokens
   * sent beside the messages (system prompt and tool definitions the history does not hold),
   * used until readings arrive. Default 0; a caller can compute it from its tool schemas.
   */
  readonly calibration_overhead_tokens: number
  /**
   * `token_meter: "calibrated"` only: the prior scale, billed tokens per estimator token, used
   * until the readings can tell a line. Default 1.
   */
  readonly calibration_scale: number
  /**
   * `token_meter: "calibrated"` only (docs/contract.md 17.13): which Responses reasoning the
   * provider bills, as its `reasoning.context` says. `"current_turn"` (default; OpenAI's behaviour
   * for every model before the GPT-5.6 family, and `reasoning.context: "current_turn"`): the
   * reasoning before the view's last user message is dropped, so the meter leaves it out.
   * `"all_turns"` (the GPT-5.6 family's default): the reasoning of earlier turns passed back is
   * rendered and billed, so the meter counts it.
   */
  readonly calibration_reasoning_context: ReasoningContext
}

/**
 * Which Responses reasoning the provider bills (`calibration_reasoning_context`): the current
 * turn's only, or every turn's passed back.
 *
 * @example
 * const context: ReasoningContext = 'all_turns'
 */
export type ReasoningContext = 'current_turn' | 'all_turns'

/**
 * What `provider_rules` does with input a provider would refuse.
 *
 * @example
 * const mode: ProviderRulesMode = 'repair'
 */
export type ProviderRulesMode = 'warn' | 'refuse' | 'repair'

/**
 * Which `llm:response` readings feed the meter (`usage_intake`).
 *
 * @example
 * const intake: UsageIntakeMode = 'foreground'
 */
export type UsageIntakeMode = 'all' | 'foreground'

/**
 * The estimator a manager builds (`token_estimator`).
 *
 * @example
 * const kind: TokenEstimatorKind = 'typed'
 */
export type TokenEstimatorKind = 'reference' | 'typed' | 'tokenizer'

/**
 * What `target_usage` is measured on (`target_basis`): the whole effective budget E (the
 * contract) or the part of it left after the system messages.
 *
 * @example
 * const basis: TargetBasis = 'compactable'
 */
export type TargetBasis = 'budget' | 'compactable'

/**
 * How an old tool result is shortened (`tool_result_truncation`, docs/configuration.md): its head
 * (`'head'`, the contract), an identifying stub for a result over its budget (`'stub'`), or a stub
 * for every result the ladder reaches (`'mask'`, observation masking).
 *
 * @example
 * const truncation: ToolResultTruncation = 'stub'
 */
export type ToolResultTruncation = 'head' | 'stub' | 'mask'

/**
 * What a compaction pass puts back under its target after the ladder (`compaction_refill`,
 * src/core/compaction/refill.ts): nothing (`'none'`, the contract), what this pass removed
 * (`'pass'`), or anything the history holds (`'history'`, earlier decisions lifted).
 *
 * @example
 * const refill: CompactionRefill = 'history'
 */
export type CompactionRefill = 'none' | 'pass' | 'history'

/**
 * The form of a refilled tool result that does not come back whole (`compaction_refill_head`,
 * src/core/compaction/refill.ts): its skeleton (`'skeleton'`, the contract's truncation) or a head
 * sized to the room left under the pass's target (`'fit'`).
 *
 * @example
 * const head: CompactionRefillHead = 'fit'
 */
export type CompactionRefillHead = 'skeleton' | 'fit'

/**
 * Whether a JSON tool result keeps the whitespace between its tokens (`tool_result_json_whitespace`,
 * docs/configuration.md): `'keep'` (the contract) or `'strip'`.
 *
 * @example
 * const whitespace: JsonWhitespace = 'strip'
 */
export type JsonWhitespace = 'keep' | 'strip'

/**
 * How the ladder shortens a JSON tool result (`tool_result_json_projection`,
 * docs/configuration.md): `'off'` (the contract), `'named_keys'`, `'handles'` or `'handle_values'`.
 *
 * @example
 * const projection: JsonProjection = 'named_keys'
 */
export type JsonProjection = 'off' | 'named_keys' | 'handles' | 'handle_values'

/**
 * What `tool_result_json_eager_after` counts after a JSON tool result: assistant messages that
 * call no tool (`'answers'`) or every assistant message (`'turns'`).
 *
 * @example
 * const unit: EagerUnit = 'answers'
 */
export type EagerUnit = 'answers' | 'turns'

/**
 * What the removal levels do with a tool group in the projection's form
 * (`tool_result_json_projected_groups`): `'kept'`, `'removable'` or `'early'` (kept by the early
 * pass, removable by the pass at `compact_threshold`).
 *
 * @example
 * const groups: ProjectedGroups = 'removable'
 */
export type ProjectedGroups = 'kept' | 'removable' | 'early'

/**
 * The order in which the ladder visits what it may shorten or remove (`compaction_order`):
 * `"oldest"` first (the contract, SPEC 6.3-6.4), `"least_referenced"` first, or
 * `"least_referenced_per_token"`: the most tokens kept for the longest time since last use first
 * (src/core/compaction/reference-order.ts).
 *
 * @example
 * const order: CompactionOrder = 'least_referenced'
 */
export type CompactionOrder = 'oldest' | 'least_referenced' | 'least_referenced_per_token'

/**
 * What requests after the first full notice of a compaction carry (`compaction_notice_repeat`).
 *
 * @example
 * const repeat: NoticeRepeat = 'standing'
 */
export type NoticeRepeat = 'full' | 'standing' | 'none'

/**
 * The configuration a caller writes (SPEC 3): every contract key optional, snake_case exactly,
 * plus `strict`. An object literal with a misspelled key (`compact_treshold`, `tokenMeter`) fails
 * `tsc`; at run time each unknown key logs one warning naming the closest known key, or, with
 * `strict: true`, throws `ConfigError`. Units as in `Config`. The value types are what the
 * decoder accepts (`null` where section 3 reads it as "off"), so a resolved `Config` or a preset
 * spreads into it.
 *
 * - `strict` (not a contract key; default `false`): an unknown key is a `ConfigError` (its `key`
 *   is the unknown key) instead of a warning. It concerns unknown keys only.
 *
 * @example
 * const config: ContextConfig = { token_meter: 'hybrid', compact_threshold: 0.85, strict: true }
 * // @ts-expect-error: a misspelled key does not compile
 * const typo: ContextConfig = { compact_treshold: 0.85 }
 */
export interface ContextConfig {
  readonly max_tokens?: number
  readonly compact_threshold?: number
  readonly target_usage?: number
  readonly protected_recent?: number
  readonly protected_tool_results?: number
  readonly truncate_chars?: number
  readonly compaction_notice_enabled?: boolean | null
  readonly compaction_notice_token_reserve?: number
  readonly compaction_notice_verbosity?: 'minimal' | 'normal' | (string & {})
  readonly compaction_notice_min_level?: number
  readonly output_reserve_fraction?: number
  readonly token_meter?: TokenMeterMode
  readonly compaction_strategy?: CompactionStrategy
  readonly compact_clear_at_least?: null | number | string | boolean
  readonly compact_max_consecutive_skips?: number | string | boolean
  readonly summary_trigger?: number
  readonly summarization_model?: string | null
  readonly summarization_prompt_path?: string | null
  readonly summarization_timeout_s?: number
  readonly tool_result_budget_tokens?: number | null
  readonly tool_result_shape?: ToolResultShape
  readonly tool_result_budget_by_tool?: Readonly<Record<string, number>> | null
  readonly tool_result_exempt_tools?: ReadonlyArray<string> | null
  readonly tool_result_spill_dir?: string | null
  readonly replay_last_user_on_compaction?: boolean | null
  readonly remove_short_user_messages?: boolean | null
  readonly hybrid_rejected_anchor_override?: boolean | null
  readonly compaction_floor_guard?: boolean | 'deep' | 'report' | null
  readonly compaction_breaker_passes?: number | null
  readonly strict_fit?: boolean | null
  readonly budget_cap_tokens?: number | null
  readonly fallback_context_window?: number | null
  readonly fallback_max_output_tokens?: number | null
  readonly budget_provenance?: boolean | null
  readonly human_anchors?: boolean | null
  readonly compaction_notice_repeat?: NoticeRepeat
  readonly target_basis?: TargetBasis
  readonly tool_result_truncation?: ToolResultTruncation
  readonly protected_recent_tokens?: number | null
  readonly compaction_order?: CompactionOrder
  readonly working_set_window?: number | null
  readonly working_set_capacity?: number
  readonly working_set_payback?: number
  readonly compaction_refill?: CompactionRefill
  readonly compaction_refill_head?: CompactionRefillHead
  readonly summary_hysteresis?: boolean | null
  readonly summary_target_usage?: number | null
  readonly provider_rules?: ProviderRulesMode | null
  readonly anthropic_cache_breakpoints?: boolean | null
  readonly summary_min_span_tokens?: number | null
  readonly summary_cooldown_requests?: number | null
  readonly token_estimator?: TokenEstimatorKind
  readonly usage_intake?: UsageIntakeMode
  readonly tool_result_ingress_cap_bytes?: number | null
  readonly tool_result_json_whitespace?: JsonWhitespace
  readonly tool_result_json_projection?: JsonProjection
  readonly tool_result_json_eager_after?: number | null
  readonly tool_result_json_eager_unit?: EagerUnit
  readonly tool_result_json_projected_groups?: ProjectedGroups
  readonly compact_early_threshold?: number | null
  readonly compact_early_target?: number
  readonly compact_early_record_share?: number
  readonly calibration_overhead_tokens?: number
  readonly calibration_scale?: number
  readonly calibration_reasoning_context?: ReasoningContext
  readonly strict?: boolean
}

/**
 * The contract's configuration keys (SPEC 3), every key of `ContextConfig` but `strict`.
 *
 * @example
 * const key: ConfigKey = 'compact_threshold'
 */
export type ConfigKey = Exclude<keyof ContextConfig, 'strict'>

/**
 * The contract's defaults (SPEC 3), used for every key a configuration leaves out.
 *
 * @example
 * DEFAULT_CONFIG.compact_threshold // => 0.92
 */
export const DEFAULT_CONFIG: Config = {
  max_tokens: 200_000,
  compact_threshold: 0.92,
  target_usage: 0.5,
  protected_recent: 0.3,
  protected_tool_results: 5,
  truncate_chars: 250,
  compaction_notice_enabled: true,
  compaction_notice_token_reserve: 800,
  compaction_notice_verbosity: 'normal',
  compaction_notice_min_level: 1,
  output_reserve_fraction: 0.5,
  token_meter: 'estimate',
  compaction_strategy: 'progressive',
  compact_clear_at_least: null,
  compact_max_consecutive_skips: 3,
  summary_trigger: 0.6,
  summarization_model: null,
  summarization_prompt_path: null,
  summarization_timeout_s: 30,
  tool_result_budget_tokens: null,
  tool_result_shape: 'head',
  tool_result_budget_by_tool: {},
  tool_result_exempt_tools: [],
  tool_result_spill_dir: null,
  replay_last_user_on_compaction: false,
  remove_short_user_messages: false,
  hybrid_rejected_anchor_override: false,
  ...{
    compaction_floor_guard: false as boolean | 'deep' | 'report',
    compaction_breaker_passes: null,
    strict_fit: false,
    budget_cap_tokens: null,
    fallback_context_window: null,
    fallback_max_output_tokens: null,
    budget_provenance: false,
    human_anchors: false,
    compaction_notice_repeat: 'full' as NoticeRepeat,
    target_basis: 'budget' as TargetBasis,
    tool_result_truncation: 'head' as ToolResultTruncation,
    protected_recent_tokens: null as number | null,
    compaction_order: 'oldest' as CompactionOrder,
    working_set_window: null as number | null,
    working_set_capacity: 0.1,
    working_set_payback: 1,
    compaction_refill: 'none' as CompactionRefill,
    compaction_refill_head: 'skeleton' as CompactionRefillHead,
    summary_hysteresis: false,
    summary_target_usage: null,
    summary_min_span_tokens: null,
    summary_cooldown_requests: null,
    token_estimator: 'reference' as TokenEstimatorKind,
    usage_intake: 'all' as UsageIntakeMode,
    tool_result_ingress_cap_bytes: null,
    tool_result_json_whitespace: 'keep' as JsonWhitespace,
    tool_result_json_projection: 'off' as JsonProjection,
    tool_result_json_eager_after: null as number | null,
    tool_result_json_eager_unit: 'answers' as EagerUnit,
    tool_result_json_projected_groups: 'kept' as ProjectedGroups,
    compact_early_threshold: null as number | null,
    compact_early_target: 0.15,
    compact_early_record_share: 0.2,
    provider_rules: null,
    anthropic_cache_breakpoints: false,
    calibration_overhead_tokens: 0,
    calibration_scale: 1,
    calibration_reasoning_context: 'current_turn' as ReasoningContext,
  },
}

/**
 * The production-guard keys (docs/configuration.md) at their defaults: every guard off, so a configuration
 * without them reproduces the contract exactly. Also part of `DEFAULT_CONFIG`.
 *
 * @example
 * GUARD_DEFAULTS.compaction_floor_guard // => false
 */
export const GUARD_DEFAULTS: Pick<
  Config,
  'compaction_floor_guard' | 'compaction_breaker_passes' | 'strict_fit' | 'budget_cap_tokens' | 'fallback_context_window' | 'fallback_max_output_tokens' | 'budget_provenance' | 'human_anchors' | 'compaction_notice_repeat'
  | 'summary_hysteresis' | 'summary_target_usage' | 'summary_min_span_tokens' | 'summary_cooldown_requests' | 'token_estimator' | 'usage_intake' | 'tool_result_ingress_cap_bytes'
  | 'provider_rules' | 'anthropic_cache_breakpoints'
> = {
  compaction_floor_guard: DEFAULT_CONFIG.compaction_floor_guard,
  compaction_breaker_passes: DEFAULT_CONFIG.compaction_breaker_passes,
  strict_fit: DEFAULT_CONFIG.strict_fit,
  budget_cap_tokens: DEFAULT_CONFIG.budget_cap_tokens,
  fallback_context_window: DEFAULT_CONFIG.fallback_context_window,
  fallback_max_output_tokens: DEFAULT_CONFIG.fallback_max_output_tokens,
  budget_provenance: DEFAULT_CONFIG.budget_provenance,
  human_anchors: DEFAULT_CONFIG.human_anchors,
  compaction_notice_repeat: DEFAULT_CONFIG.compaction_notice_repeat,
  summary_hysteresis: DEFAULT_CONFIG.summary_hysteresis,
  summary_target_usage: DEFAULT_CONFIG.summary_target_usage,
  summary_min_span_tokens: DEFAULT_CONFIG.summary_min_span_tokens,
  summary_cooldown_requests: DEFAULT_CONFIG.summary_cooldown_requests,
  token_estimator: DEFAULT_CONFIG.token_estimator,
  usage_intake: DEFAULT_CONFIG.usage_intake,
  provider_rules: DEFAULT_CONFIG.provider_rules,
  anthropic_cache_breakpoints: DEFAULT_CONFIG.anthropic_cache_breakpoints,
  tool_result_ingress_cap_bytes: DEFAULT_CONFIG.tool_result_ingress_cap_bytes,
}

/**
 * True when per-tool configuration is active (SPEC 11.4): a per-tool budget or an exemption is
 * configured, so tool names are harvested from tool calls.
 *
 * @example
 * isPerToolConfigActive(DEFAULT_CONFIG) // => false
 */
export const isPerToolConfigActive = (config: Config): boolean =>
  Object.keys(config.tool_result_budget_by_tool).length > 0 || config.tool_result_exempt_tools.length > 0 || config.tool_result_truncation !== 'head'
