/**
 * Named configurations: `reference` (the contract's defaults), `recommended` (what we would ship
 * as defaults after measuring on real sessions), `recommended-summary` (`recommended` with the
 * LLM rolling-summary strategy) and `recommended-retention` (`recommended` with a target that keeps
 * more). Reasons and measurements: docs/evaluation.md.
 */
import type { Config } from './config.js'

/**
 * The names of the presets, in the order docs and `compare` list them.
 *
 * @example
 * PRESET_NAMES[0] // => 'reference'
 */
export const PRESET_NAMES = ['reference', 'recommended', 'recommended-summary', 'recommended-retention'] as const

/**
 * One preset name.
 *
 * @example
 * const name: PresetName = 'recommended'
 */
export type PresetName = (typeof PRESET_NAMES)[number]

// Measured with `npm run evaluation` (docs/evaluation.md): each key lowered cost on the shared
// sessions and removed the overflows of the tau-bench trajectories at a 4,500-token budget.
const recommended: Partial<Config> = Object.freeze({
  target_usage: 0.4,
  compaction_notice_verbosity: 'minimal',
  compaction_notice_token_reserve: 400,
  // Notice hygiene (docs/configuration.md): the notice once per compaction, not on every later request
  // (docs/configuration.md, "Notice hygiene": tau-bench at 4,500 −1.2 % input cost, Claude Code
  // at 60k −0.1 %, boundaries and overflows unchanged).
  compaction_notice_repeat: 'none' as const,
  // Budgets as the provider bills them (docs/evaluation.md, "Recommended: the calibrated meter"):
  // on the Claude Code sessions at --budget 60000 views over the budget as billed 154 -> 0 and at
  // 80000 95 -> 0, boundaries within 1.5 x the oracle-calibrated run; tau-bench at 4,500: 0 over,
  // boundaries 87 -> 68. The typed estimator counts media at provider cost, not as base64 text.
  token_meter: 'calibrated' as const,
  token_estimator: 'typed' as const,
  // Retention (docs/evaluation.md, "The candidates"): two protected tool results instead of five,
  // so the ladder may shorten the older large ones before it removes whole groups. Claude Code at
  // 60k: needed-fact recall 67.5 -> 70.3 %, relative cost 1,819,140 -> 1,805,415; tau-bench at
  // 4,500 and Codex at 60k: unchanged (73.0 % at 721,119; 88.6 % at 976,675).
  protected_tool_results: 2,
  // Least recently referenced first (docs/evaluation.md, "Least recently referenced first"): the
  // ladder shortens and removes first the tool groups whose content the agent stopped naming.
  // Claude Code at 60k: recall 70.3 -> 70.4 % at -1.6 % relative cost; Codex at 60k: 96.8 -> 96.7 %
  // (one fact of 981) at equal cost; tau-bench at 4,500 identical (each compaction there removes
  // all it may, so the order decides nothing).
  compaction_order: 'least_referenced' as const,
  // JSON tool results without whitespace (docs/evaluation.md, "JSON tool results without
  // whitespace"): the same values in fewer tokens, on every later request. tau-bench at 4,500:
  // needed-fact recall 73.0 -> 79.2 % (even task ids 68.5 -> 78.8, odd 77.4 -> 79.7) at -4.0 %
  // relative cost and -1.5 % in dollars, boundaries 68 -> 53; Claude Code and Codex at 60k: the
  // same recall, boundaries and overflows (two small JSON results in all; cost +0.002 %).
  tool_result_json_whitespace: 'strip' as const,
  // The breaker (docs/evaluation.md, "Screenshots and the storm shapes"): a system prompt over E
  // compacted on every request (6 of 6, 30 of 30); with the breaker once. It re-arms when the floor
  // fits E again, and on every shared session it never trips (the same boundaries and views).
  compaction_breaker_passes: 1,
  // The early pass for record-heavy views (docs/evaluation.md, "The early pass for record-heavy
  // views"): old JSON tool results shortened to their handles and values, and a second, lower
  // trigger that opens only when such records hold a fifth of the view's history. tau-bench at
  // 4,500: needed-fact recall 79.2 -> 87.1 % (even task ids 78.8 -> 88.1 %, odd 79.7 -> 86.1 %),
  // relative input cost 691,926 -> 694,192 (+0.3 %), $4.2284 -> $3.8980 (-7.8 %); Claude Code at
  // 60k identical; Codex at 60k the same 949 of 981 facts at -0.04 %. Threshold 0.5, the middle of
  // the band (0.45-0.55) where both halves keep 85 % within d45b1be's costs; at 0.4 the odd half
  // falls to 76-79 %.
  tool_result_json_projection: 'handle_values' as const,
  tool_result_json_projected_groups: 'early' as const,
  compact_early_threshold: 0.5,
})

// Summary hysteresis (docs/configuration.md): with it the summary strategy makes no more boundaries than
// `recommended` on every shared session (docs/configuration.md, "The summary refire loop").
const summaryHysteresis: Partial<Config> = Object.freeze({ summary_hysteresis: true })

// The summary strategy without the early pass and the JSON projection (docs/evaluation.md, "The early
// pass for record-heavy views"): under `compaction_strategy: "summary"` they are not better on both
// axes. tau-bench at 4,500 the same 85.0 % at 700,948 -> 710,712 relative (+1.4 %), $4.2614 ->
// $3.9782; Codex at 60k 937 -> 922 of 981 facts (the projection alone: 922); Claude Code identical.
const withoutEarlyPass: Partial<Config> = Object.freeze({ tool_result_json_projection: 'off' as const, tool_result_json_projected_groups: 'kept' as const, compact_early_threshold: null })

// Retention first (docs/evaluation.md, "recommended-retention"): the target measured on what a
// compaction can act on and a shallower target, so each compaction keeps more of the
// conversation; with `recommended`'s least recently referenced first, what it keeps is what the
// agent still names, and with its JSON tool results stored without whitespace each kept result
// costs less. tau-bench at 4,500 (gpt-4o): needed-fact recall 90.7 % (recommended 79.2 %,
// LangChain trimMessages 86.3 % with 26 failed requests) at 794,704 relative input cost (14.8 %
// below trimMessages) and $4.6122 (7.0 % below it), 0 overflows, 0 failed requests; each half of
// the task ids at least trimMessages' recall (even 278 / odd 277 of 302 / 310 facts, against
// 253 / 275). Target 0.67 rather than 0.65: with the stripped results 0.65 keeps 2 facts fewer on
// the odd half than trimMessages (273 of 310); 0.67 against 0.65 with whitespace kept, at 60k:
// Claude Code +0.6 points at +1.3 %, Codex the same recall at +0.7 %. The later trigger of an earlier version
// (compact_threshold 0.98) overflowed 6 requests under the calibrated meter and is not kept.
// Measured with `compare INPUT --preset recommended-retention --summarizer extractive` on every
// shared session (docs/evaluation.md, "JSON tool results without whitespace").
//
// The early pass off and the JSON records' groups kept in every pass (docs/evaluation.md, "The early
// pass for record-heavy views"): `recommended`'s early pass would make this preset `recommended`
// again (tau-bench 87.1 % at 697,237), while the records in their handle-and-value forms, kept
// whole-group by the ladder, cost little: tau-bench at 4,500 90.7 -> 96.2 % (even 92.1 -> 95.0 %,
// odd 89.4 -> 97.4 %) at 794,704 -> 797,238 relative (+0.3 %), $4.6122 -> $4.6255 (+0.3 %);
// Claude Code at 60k identical; Codex at 60k 959 -> 969 of 981 facts at +0.3 %.
const retention: Partial<Config> = Object.freeze({
  target_basis: 'compactable' as const,
  target_usage: 0.67,
  compact_early_threshold: null,
  tool_result_json_projected_groups: 'kept' as const,
})

/**
 * The presets. Each names only the keys it sets; keys it leaves out keep whatever lies below it
 * (the recording header, else the contract default, SPEC 3). Precedence on the command line,
 * lowest first: recording header, preset, `--config`, each `--set`.
 *
 * - `reference`: empty, i.e. the contract's defaults.
 * - `recommended`: the keys whose change measured better on the shared real sessions (each with
 *   its reason and the command that measured it in docs/evaluation.md): `target_usage` 0.4
 *   (compact a little deeper, so fewer later boundaries), `compaction_notice_verbosity`
 *   `minimal` (a one-sentence notice, about 40 tokens instead of up to about 250) and
 *   `compaction_notice_token_reserve` 400 (the reserve that minimal notice needs, leaving 400
 *   more tokens of every budget to the conversation), `compaction_notice_repeat` `none`, and
 *   `token_meter` `calibrated` with `token_estimator` `typed` (budgets as the provider bills them),
 *   `protected_tool_results` 2 (older large tool results may be shortened before whole groups go),
 *   `compaction_order` `least_referenced` (what the agent stopped naming goes first),
 *   `compaction_breaker_passes` 1 (after a pass that ends over E, no re-escalation until the floor fits E again),
 *   `tool_result_json_whitespace` `strip` (JSON tool results stored without whitespace between tokens),
 *   `tool_result_json_projection` `handle_values` with `tool_result_json_projected_groups` `early`
 *   and `compact_early_threshold` 0.5 (record-heavy views compact early, keeping old JSON records
 *   as their handles and values).
 * - `recommended-summary`: `recommended` plus `compaction_strategy: 'summary'` and
 *   `summary_hysteresis: true` (without it the summary strategy refires and doubles boundaries),
 *   with the early pass's three keys at the contract's values (`tool_result_json_projection`
 *   `off`, `tool_result_json_projected_groups` `kept`, `compact_early_threshold` null).
 * - `recommended-retention`: `recommended` plus `target_basis: 'compactable'` and `target_usage`
 *   0.67, without the early pass (`compact_early_threshold` null) and with the JSON records' groups
 *   kept in every pass (`tool_result_json_projected_groups` `kept`): needed-fact recall first, at
 *   a higher input cost.
 *
 * @example
 * const config = decodeConfig({ ...presets.recommended, max_tokens: 100_000 })
 * presets['recommended-summary'].compaction_strategy // => 'summary'
 * presets.recommended.target_usage // => 0.4
 * presets.recommended.tool_result_json_whitespace // => 'strip'
 */
export const presets: Readonly<Record<PresetName, Partial<Config>>> = Object.freeze({
  reference: Object.freeze({}),
  recommended,
  'recommended-summary': Object.freeze({ ...recommended, compaction_strategy: 'summary' as const, ...summaryHysteresis, ...withoutEarlyPass }),
  'recommended-retention': Object.freeze({ ...recommended, ...retention }),
})

/**
 * True when `name` is one of `PRESET_NAMES`.
 *
 * @example
 * isPresetName('recommended') // => true
 * isPresetName('fast') // => false
 */
export const isPresetName = (name: string): name is PresetName => (PRESET_NAMES as ReadonlyArray<string>).includes(name)
