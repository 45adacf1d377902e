/**
 * io-ts codecs at the edges: the configuration (SPEC 3, 17.6). A value of the wrong JSON type is
 * a `ConfigError` naming the key and what it accepts; warn-and-fall-back keys yield `log` effects.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { closest } from 'fastest-levenshtein'
import { DEFAULT_CONFIG, type CompactionStrategy, type Config, type ConfigKey, type TokenMeterMode, type ToolResultShape } from './config.js'
import type { Log } from './effects.js'
import { resolveClearAtLeast } from './compaction/clear-at-least.js'
import { ConfigError } from './errors.js'
import { pyrepr, pyStrip } from './messages/text.js'
import { isPlainObject, isTruthy, setOwn } from './messages/values.js'
import { decodeJsonValue, describeValue, toProblemText } from './messages/json-value.js'

/**
 * A positive integer number of tokens (`max_tokens`, SPEC 17.6). A failed decode becomes a
 * `ConfigError` in `decodeConfig`.
 *
 * @example
 * PositiveIntCodec.is(200000) // => true
 * PositiveIntCodec.is(0) // => false
 */
export const PositiveIntCodec = t.refinement(t.number, (n) => Number.isInteger(n) && n > 0, 'PositiveInt')

/**
 * Any finite number (the numeric keys of SPEC 3 are not range checked; units per key: tokens,
 * fractions, characters or seconds, see `Config`). NaN and ±Infinity are rejected (SPEC 17.9).
 *
 * @example
 * NumberCodec.is(0.92) // => true
 * NumberCodec.is(Number.NaN) // => false
 * NumberCodec.is('0.92') // => false
 */
export const NumberCodec = t.refinement(t.number, Number.isFinite, 'FiniteNumber')

/**
 * A boolean or null (null reads as false: truthiness, SPEC 3).
 *
 * @example
 * FlagCodec.is(null) // => true
 * FlagCodec.is('yes') // => false
 */
export const FlagCodec = t.union([t.boolean, t.null])

/**
 * A string or null (`summarization_model`, `summarization_prompt_path`, `tool_result_spill_dir`).
 *
 * @example
 * OptionalStringCodec.is(null) // => true
 */
export const OptionalStringCodec = t.union([t.string, t.null])

/**
 * `compact_clear_at_least`: null, a number, a string or a boolean (SPEC 14.1). Strings are kept
 * raw; an unparseable one disables the predicate with a warning when resolved, never an error.
 *
 * @example
 * ClearAtLeastCodec.is('20000') // => true
 * ClearAtLeastCodec.is([1]) // => false
 */
export const ClearAtLeastCodec = t.union([t.null, t.number, t.string, t.boolean])

/**
 * `compact_max_consecutive_skips`: a number, a string or a boolean (SPEC 3). The type check only;
 * a string that is not an integer is rejected afterwards by `decodeConfig`.
 *
 * @example
 * SkipCapCodec.is(' 4 ') // => true
 * SkipCapCodec.is(null) // => false
 */
export const SkipCapCodec = t.union([t.number, t.string, t.boolean])

/**
 * `tool_result_exempt_tools`: an array of tool-name strings, or null for none (SPEC 11.4).
 *
 * @example
 * ExemptToolsCodec.is(['load_skill']) // => true
 */
export const ExemptToolsCodec = t.union([t.array(t.string), t.null])

/**
 * Null or a positive integer (the guard keys of docs/configuration.md that count passes or tokens).
 *
 * @example
 * OptionalCountCodec.is(null) // => true
 * OptionalCountCodec.is(0) // => false
 */
export const OptionalCountCodec = t.union([t.null, PositiveIntCodec])

/**
 * A finite number from 0 to 1 (`working_set_capacity`: a share of E).
 *
 * @example
 * ShareCodec.is(0.1) // => true
 * ShareCodec.is(1.5) // => false
 */
export const ShareCodec = t.refinement(t.number, (n) => Number.isFinite(n) && n >= 0 && n <= 1, 'Share')

/**
 * A finite number greater than 0 (`working_set_payback`).
 *
 * @example
 * PositiveNumberCodec.is(1) // => true
 * PositiveNumberCodec.is(0) // => false
 */
export const PositiveNumberCodec = t.refinement(t.number, (n) => Number.isFinite(n) && n > 0, 'PositiveNumber')

/**
 * `calibration_overhead_tokens` (docs/contract.md 17.13): a finite number of tokens, 0 or more.
 *
 * @example
 * CalibrationOverheadCodec.is(12000) // true
 * CalibrationOverheadCodec.is(-1) // false
 */
export const CalibrationOverheadCodec = t.refinement(t.number, (n) => Number.isFinite(n) && n >= 0, 'CalibrationOverhead')

/**
 * `calibration_scale` (docs/contract.md 17.13): a finite number above 0.
 *
 * @example
 * CalibrationScaleCodec.is(1.25) // true
 * CalibrationScaleCodec.is(0) // false
 */
export const CalibrationScaleCodec = t.refinement(t.number, (n) => Number.isFinite(n) && n > 0, 'CalibrationScale')

interface KeyRule {
  readonly codec: t.Mixed
  readonly accepts: string
}

// Typed by ConfigKey: a key added to ContextConfig without a rule (or a rule without a key) fails tsc.
const RULES: Readonly<Record<ConfigKey, KeyRule>> = {
  max_tokens: { codec: PositiveIntCodec, accepts: 'a positive integer (tokens)' },
  compact_threshold: { codec: NumberCodec, accepts: 'a number (fraction of the effective budget)' },
  target_usage: { codec: NumberCodec, accepts: 'a number (fraction of the effective budget)' },
  protected_recent: { codec: NumberCodec, accepts: 'a number (fraction of the messages)' },
  protected_tool_results: { codec: NumberCodec, accepts: 'a number (count of tool results)' },
  truncate_chars: { codec: NumberCodec, accepts: 'a number (characters)' },
  compaction_notice_enabled: { codec: FlagCodec, accepts: 'true or false' },
  compaction_notice_token_reserve: { codec: NumberCodec, accepts: 'a number (tokens)' },
  compaction_notice_verbosity: { codec: t.string, accepts: 'a string ("minimal" or "normal")' },
  compaction_notice_min_level: { codec: NumberCodec, accepts: 'a number (level 0..8)' },
  output_reserve_fraction: { codec: NumberCodec, accepts: 'a number (fraction of max output tokens)' },
  token_meter: { codec: t.unknown, accepts: '"estimate", "actual", "hybrid" or "calibrated"' },
  compaction_strategy: { codec: t.unknown, accepts: '"progressive" or "summary"' },
  compact_clear_at_least: { codec: ClearAtLeastCodec, accepts: 'null, a number, a numeric string, true or false' },
  compact_max_consecutive_skips: { codec: SkipCapCodec, accepts: 'an integer (or an integer string)' },
  summary_trigger: { codec: NumberCodec, accepts: 'a number (fraction of the effective budget)' },
  summarization_model: { codec: OptionalStringCodec, accepts: 'a model name string or null' },
  summarization_prompt_path: { codec: OptionalStringCodec, accepts: 'a file path string or null' },
  summarization_timeout_s: { codec: NumberCodec, accepts: 'a number (seconds)' },
  tool_result_budget_tokens: { codec: t.unknown, accepts: 'an integer >= 1 (tokens) or null' },
  tool_result_shape: { codec: t.unknown, accepts: '"head" or "head_tail"' },
  tool_result_budget_by_tool: { codec: t.unknown, accepts: 'an object of tool name -> integer >= 1 (tokens)' },
  tool_result_exempt_tools: { codec: ExemptToolsCodec, accepts: 'an array of tool name strings' },
  tool_result_spill_dir: { codec: OptionalStringCodec, accepts: 'a directory path string or null' },
  replay_last_user_on_compaction: { codec: FlagCodec, accepts: 'true or false' },
  remove_short_user_messages: { codec: FlagCodec, accepts: 'true or false' },
  hybrid_rejected_anchor_override: { codec: FlagCodec, accepts: 'true or false' },
  compaction_floor_guard: { codec: t.union([FlagCodec, t.literal('deep'), t.literal('report')]), accepts: 'true, false, "deep" or "report"' },
  compaction_breaker_passes: { codec: OptionalCountCodec, accepts: 'null or a positive integer (consecutive passes)' },
  strict_fit: { codec: FlagCodec, accepts: 'true or false' },
  budget_cap_tokens: { codec: OptionalCountCodec, accepts: 'null or a positive integer (tokens)' },
  fallback_context_window: { codec: OptionalCountCodec, accepts: 'null or a positive integer (tokens)' },
  fallback_max_output_tokens: { codec: OptionalCountCodec, accepts: 'null or a positive integer (tokens)' },
  budget_provenance: { codec: FlagCodec, accepts: 'true or false' },
  human_anchors: { codec: FlagCodec, accepts: 'true or false' },
  compaction_notice_repeat: { codec: t.keyof({ full: null, standing: null, none: null }), accepts: '"full", "standing" or "none"' },
  target_basis: { codec: t.keyof({ budget: null, compactable: null }), accepts: '"budget" or "compactable"' },
  tool_result_truncation: { codec: t.keyof({ head: null, stub: null, mask: null }), accepts: '"head", "stub" or "mask"' },
  protected_recent_tokens: { codec: OptionalCountCodec, accepts: 'null or a positive integer (tokens)' },
  compaction_order: { codec: t.keyof({ oldest: null, least_referenced: null, least_referenced_per_token: null }), accepts: '"oldest", "least_referenced" or "least_referenced_per_token"' },
  working_set_window: { codec: OptionalCountCodec, accepts: 'null or a positive integer (messages)' },
  working_set_capacity: { codec: ShareCodec, accepts: 'a number from 0 to 1 (fraction of the effective budget)' },
  working_set_payback: { codec: PositiveNumberCodec, accepts: 'a number greater than 0 (tokens freed per token re-billed)' },
  compaction_refill: { codec: t.keyof({ none: null, pass: null, history: null }), accepts: '"none", "pass" or "history"' },
  compaction_refill_head: { codec: t.keyof({ skeleton: null, fit: null }), accepts: '"skeleton" or "fit"' },
  summary_hysteresis: { codec: FlagCodec, accepts: 'true or false' },
  summary_target_usage: { codec: t.union([t.null, NumberCodec]), accepts: 'null or a number (fraction of the effective budget)' },
  summary_min_span_tokens: { codec: OptionalCountCodec, accepts: 'null or a positive integer (tokens)' },
  summary_cooldown_requests: { codec: OptionalCountCodec, accepts: 'null or a positive integer (requests)' },
  token_estimator: { codec: t.keyof({ reference: null, typed: null, tokenizer: null }), accepts: '"reference", "typed" or "tokenizer"' },
  usage_intake: { codec: t.keyof({ all: null, foreground: null }), accepts: '"all" or "foreground"' },
  tool_result_ingress_cap_bytes: { codec: OptionalCountCodec, accepts: 'null or a positive integer (bytes)' },
  tool_result_json_whitespace: { codec: t.keyof({ keep: null, strip: null }), accepts: '"keep" or "strip"' },
  tool_result_json_projection: { codec: t.keyof({ off: null, named_keys: null, handles: null, handle_values: null }), accepts: '"off", "named_keys", "handles" or "handle_values"' },
  tool_result_json_eager_after: { codec: OptionalCountCodec, accepts: 'null or a positive integer (assistant messages)' },
  tool_result_json_eager_unit: { codec: t.keyof({ answers: null, turns: null }), accepts: '"answers" or "turns"' },
  tool_result_json_projected_groups: { codec: t.keyof({ kept: null, removable: null, early: null }), accepts: '"kept", "removable" or "early"' },
  compact_early_threshold: { codec: t.union([t.null, PositiveNumberCodec]), accepts: 'null or a number greater than 0 (fraction of the effective budget less the system messages)' },
  compact_early_target: { codec: ShareCodec, accepts: 'a number from 0 to 1 (fraction of the effective budget less the system messages)' },
  compact_early_record_share: { codec: ShareCodec, accepts: 'a number from 0 to 1 (fraction of the view\'s history tokens)' },
  provider_rules: { codec: t.union([t.null, t.keyof({ warn: null, refuse: null, repair: null })]), accepts: 'null, "warn", "refuse" or "repair"' },
  anthropic_cache_breakpoints: { codec: FlagCodec, accepts: 'true or false' },
  calibration_overhead_tokens: { codec: CalibrationOverheadCodec, accepts: 'a number of tokens >= 0' },
  calibration_scale: { codec: CalibrationScaleCodec, accepts: 'a number > 0 (billed tokens per estimator token)' },
  calibration_reasoning_context: { codec: t.keyof({ current_turn: null, all_turns: null }), accepts: '"current_turn" or "all_turns"' },
}

const show = (value: unknown): string => describeValue(value)

/**
 * The value of a known key as the library's own JSON value (SPEC 17.9), or the `ConfigError`
 * naming the key: a cycle, a function, a class instance, a getter or Proxy that throws, nesting
 * over `MAX_JSON_DEPTH`. A value whose only problem is a non-finite number is passed on as it is
 * (numbers are not shared state): the key's own rule then rejects it (`NumberCodec`) or falls back
 * with a warning (`tool_result_budget_tokens`, `compact_clear_at_least`, ...).
 */
const readKey = (raw: Readonly<Record<string, unknown>>, key: string): E.Either<ConfigError, unknown> => {
  let value: unknown
  try {
    value = raw[key]
  } catch (error) {
    return E.left(new ConfigError(key, `could not be read: ${error instanceof Error ? error.message : 'it threw'} (pass plain data)`))
  }
  const decoded = decodeJsonValue(value, `config.${key}`)
  if (E.isRight(decoded)) return E.right(decoded.right)
  const structural = decoded.left.filter((problem) => problem.kind !== 'non_finite_number')
  if (structural.length === 0) return E.right(value)
  return E.left(new ConfigError(key, `${structural[0].path === `config.${key}` ? '' : `at ${structural[0].path}: `}${toProblemText(structural)}`))
}

const warn = (message: string): Log => ({ type: 'log', level: 'warning', message: `context-simple: ${message}` })

const isTokenCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1

const toSkipCap = (value: unknown): number | null => {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null
  if (typeof value === 'string' && /^[+-]?\d(_?\d)*$/.test(pyStrip(value))) return Number.parseInt(pyStrip(value).replace(/_/g, ''), 10)
  return null
}

/**
 * A configuration key that is not a contract key (nor `strict`): `closest` is the known key it
 * most likely meant (the snake_case form of a camelCase key when that is a contract key, else the
 * key at the smallest edit distance); `message` is the warning text naming it.
 *
 * @example
 * const unknown: UnknownConfigKey = { key: 'tokenMeter', closest: 'token_meter', message: 'context-simple: config.tokenMeter: unknown key, ignored; did you mean token_meter? (keys are the contract\'s snake_case names)' }
 */
export interface UnknownConfigKey {
  readonly key: string
  readonly closest: string
  readonly message: string
}

/**
 * The decoded configuration, the warnings of its warn-and-fall-back keys (SPEC 3) as `log`
 * effects in key order (then one for `target_usage` above `compact_threshold`, then one for each
 * key its companion key leaves without effect, all accepted as given), and the unknown keys in the order given (each ignored; the manager logs
 * them at construction).
 *
 * @example
 * const decoded: DecodedConfig = { config: DEFAULT_CONFIG, warnings: [], unknownKeys: [] }
 */
export interface DecodedConfig {
  readonly config: Config
  readonly warnings: ReadonlyArray<Log>
  readonly unknownKeys: ReadonlyArray<UnknownConfigKey>
}

const KNOWN_KEYS: ReadonlyArray<string> = [...Object.keys(RULES), 'strict']

const toSnakeCase = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/**
 * The unknown key `key` with the known key it most likely meant (SPEC 3 keys and `strict`): the
 * snake_case form of a camelCase key when that is known, else the closest by edit distance.
 *
 * @example
 * toUnknownConfigKey('compact_treshold').closest // => 'compact_threshold'
 * toUnknownConfigKey('tokenMeter').closest // => 'token_meter'
 */
export const toUnknownConfigKey = (key: string): UnknownConfigKey => {
  const snake = toSnakeCase(key)
  if (snake !== key && KNOWN_KEYS.includes(snake)) {
    return { key, closest: snake, message: `context-simple: config.${key}: unknown key, ignored; did you mean ${snake}? (keys are the contract's snake_case names)` }
  }
  const near = closest(snake, KNOWN_KEYS)
  return { key, closest: near, message: `context-simple: config.${key}: unknown key, ignored; did you mean ${near}?` }
}

/**
 * The `compact_clear_at_least` values the predicate uses (SPEC 14.1, `resolveClearAtLeast`): any
 * other value of the codec's types (an unparseable string, NaN, +infinity) is kept and disables
 * the predicate with a warning. −infinity is ≤ 0 and turns it off as 0 does.
 */
const CLEAR_AT_LEAST_USABLE =
  'null, true or false, or a finite number or numeric string (Python float syntax): tokens from 1, a fraction of the effective budget below 1, 0 or less (or -infinity) turns the predicate off'

/** The keys whose unusable value falls back with a warning (`decodeFallbackKeys`, SPEC 3) rather than raise a `ConfigError`. */
const FALLBACK_KEYS: ReadonlyArray<string> = ['token_meter', 'compaction_strategy', 'tool_result_budget_tokens', 'tool_result_shape', 'tool_result_budget_by_tool']

/**
 * What the configuration key `key` accepts (the words of its `ConfigError` messages; for
 * `compact_clear_at_least` the values its predicate uses) when `value`
 * is one a configuration object would only warn about and go on without, else null: the
 * warn-and-fall-back keys (SPEC 3: `token_meter`, `compaction_strategy`,
 * `tool_result_budget_tokens`, `tool_result_shape`, `tool_result_budget_by_tool` and its entries)
 * and `compact_clear_at_least` (an unparseable value is kept and disables the predicate with a
 * warning when resolved, SPEC 14.1). Null as well for a value taken as given, one of the wrong
 * JSON type (`decodeConfig`'s `ConfigError`) and an unknown key. For a caller that rejects such a
 * value where the library falls back: the CLI's `--set` (src/shell/cli/options.ts).
 *
 * @example
 * toFallbackAccepts('token_meter', 'bogus') // => '"estimate", "actual", "hybrid" or "calibrated"'
 * toFallbackAccepts('token_meter', 'hybrid') // => null
 * toFallbackAccepts('compact_clear_at_least', 'Infinity')?.startsWith('null, true or false, or a finite number or numeric string') // => true
 * toFallbackAccepts('compact_clear_at_least', '-inf') // => null
 */
export const toFallbackAccepts = (key: string, value: unknown): string | null => {
  if (key === 'compact_clear_at_least') {
    return ClearAtLeastCodec.is(value) && resolveClearAtLeast(value, 1).effects.length > 0 ? CLEAR_AT_LEAST_USABLE : null
  }
  if (!FALLBACK_KEYS.includes(key)) return null
  const decoded = decodeConfig({ [key]: value })
  return E.isRight(decoded) && decoded.right.warnings.length > 0 ? RULES[key as ConfigKey].accepts : null
}

/**
 * What a configuration object (a recording header, a `--config` file, the constructor's argument)
 * does with a value `toFallbackAccepts` names for `key`: the warn-and-fall-back keys replace it by
 * their fallback (SPEC 3); `compact_clear_at_least` keeps it, and each time it is resolved the
 * predicate is disabled with a warning (SPEC 14.1). For the CLI's `--set` message
 * (src/shell/cli/options.ts), which stops instead.
 *
 * @example
 * toFallbackBehaviour('token_meter') // => 'a configuration object falls back with a warning'
 * toFallbackBehaviour('compact_clear_at_least') // => 'a configuration object keeps it and disables the predicate with a warning each time it is resolved'
 */
export const toFallbackBehaviour = (key: string): string =>
  key === 'compact_clear_at_least' ? 'a configuration object keeps it and disables the predicate with a warning each time it is resolved' : 'a configuration object falls back with a warning'

/**
 * Decode a raw configuration object (contract snake_case keys, plus `strict`) into a `Config`
 * (SPEC 3, 17.6). Left: a `ConfigError` for the first key whose value has the wrong JSON type
 * (or `max_tokens` not a positive integer, or an unconvertible `compact_max_consecutive_skips`,
 * or `strict` not a boolean), or, with `strict: true`, for the first unknown key (its `key` is
 * that key). Right: the config plus `log` warnings for values that fall back (`token_meter`,
 * `compaction_strategy`, `tool_result_budget_tokens`, `tool_result_shape`,
 * `tool_result_budget_by_tool` entries), a warning for `target_usage` above `compact_threshold`
 * (kept as given: the contract validates neither), one for each key set away from its default
 * that its companion key leaves without effect (`toInertKeyWarnings`: `compaction_refill_head`
 * "fit" without `compaction_refill` "history", the eager and projected-group keys under
 * `tool_result_json_projection` "off"; kept as given) and the unknown keys, ignored, each with the known key
 * it most likely meant (`toUnknownConfigKey`).
 *
 * @example
 * decodeConfig({ compact_treshold: 0.8 }) // Right({ config: DEFAULT_CONFIG, warnings: [], unknownKeys: [{ key: 'compact_treshold', closest: 'compact_threshold', … }] })
 * decodeConfig({ tokenMeter: 'hybrid', strict: true }) // Left(ConfigError('config.tokenMeter: unknown key (strict: true rejects unknown keys); did you mean token_meter?'))
 * decodeConfig({ token_meter: 'bogus' }) // Right({ config: { …, token_meter: 'estimate' }, warnings: [unknown token_meter …] })
 * decodeConfig({ compaction_refill_head: 'fit' }) // Right({ config: { …, compaction_refill_head: 'fit' }, warnings: [compaction_refill_head="fit" is ignored while compaction_refill is "none" …] })
 * decodeConfig({ compact_threshold: 'high' }) // Left(ConfigError('config.compact_threshold: expected a number …, got "high"'))
 */
export const decodeConfig = (raw: unknown): E.Either<ConfigError, DecodedConfig> => {
  try {
    return decodeConfigValue(raw)
  } catch (error) {
    // A Proxy or getter on the configuration object itself that throws.
    return E.left(new ConfigError('(root)', `could not be read: ${error instanceof Error ? error.message : 'it threw'} (pass a plain object)`))
  }
}

const decodeConfigValue = (raw: unknown): E.Either<ConfigError, DecodedConfig> => {
  if (raw === undefined || raw === null) return E.right({ config: DEFAULT_CONFIG, warnings: [], unknownKeys: [] })
  if (!isPlainObject(raw)) return E.left(new ConfigError('(root)', `expected an object of configuration keys, got ${show(raw)}`))
  const strict = raw.strict
  if (strict !== undefined && typeof strict !== 'boolean') return E.left(new ConfigError('strict', `expected true or false, got ${show(strict)}`))
  const unknownKeys = Object.keys(raw)
    .filter((key) => !KNOWN_KEYS.includes(key) && raw[key] !== undefined)
    .map(toUnknownConfigKey)
  if (strict === true && unknownKeys.length > 0) {
    const first = unknownKeys[0]
    return E.left(new ConfigError(first.key, `unknown key (strict: true rejects unknown keys); did you mean ${first.closest}?`))
  }
  const given = readGivenValues(raw)
  if (E.isLeft(given)) return given
  const warnings: Log[] = []
  const fallbacks = decodeFallbackKeys(given.right, warnings)
  if (E.isLeft(fallbacks)) return fallbacks
  const config = toConfig(given.right, fallbacks.right)
  const crossed = [toCrossedTargetWarning(config), toCrossedEarlyTargetWarning(config)].filter((log): log is Log => log !== null)
  return E.right({ config, warnings: [...warnings, ...crossed, ...toInertKeyWarnings(config)], unknownKeys })
}

/**
 * A warning for `target_usage` above `compact_threshold`: a pass starts at the threshold but aims at
 * the larger target, so it cuts little or nothing and the next request starts another. Accepted,
 * as the contract validates neither key (SPEC 3); docs/configuration.md says what to set.
 */
const toCrossedTargetWarning = (config: Config): Log | null =>
  config.target_usage > config.compact_threshold
    ? warn(
        `target_usage=${pyrepr(config.target_usage)} is above compact_threshold=${pyrepr(config.compact_threshold)}: compaction fires at ${pyrepr(config.compact_threshold)} of the budget but aims at ${pyrepr(config.target_usage)}, above where it fired, so a pass cuts little or nothing and the next request fires again; set target_usage below compact_threshold (the defaults: 0.5 and 0.92)`,
      )
    : null

/**
 * A warning for `compact_early_target` at or above `compact_early_threshold` (the early pass,
 * src/core/compaction/early-pass.ts): the pass fires at the threshold but aims at or above it,
 * so it frees little and the next request fires again, each one a rewrite of the view. Accepted,
 * like `toCrossedTargetWarning`.
 */
const toCrossedEarlyTargetWarning = (config: Config): Log | null =>
  config.compact_early_threshold !== null && config.compact_early_target >= config.compact_early_threshold
    ? warn(
        `compact_early_target=${pyrepr(config.compact_early_target)} is not below compact_early_threshold=${pyrepr(config.compact_early_threshold)}: the early pass fires at ${pyrepr(config.compact_early_threshold)} of the room beyond the system messages but aims at ${pyrepr(config.compact_early_target)}, so it frees little or nothing and the next request fires again; set compact_early_target below compact_early_threshold (recommended: 0.15 and 0.5)`,
      )
    : null

/**
 * One warning for each key set away from its default that does nothing without a companion key
 * (docs/configuration.md, "Keys that act only with another"): `tool_result_json_eager_after` and
 * `tool_result_json_projected_groups` under `tool_result_json_projection` "off" (there is no form
 * to shorten to: src/core/compaction/eager-projection.ts `toEagerSticky`, ladder.ts
 * `keepsProjections`), `tool_result_json_eager_unit` without an active eager projection, and
 * `compaction_refill_head` "fit" under a `compaction_refill` other than "history" (refill.ts:
 * heads are fitted only by `refillHistory`), `compact_early_threshold` under the projection "off"
 * (src/core/compaction/early-pass.ts: no view passes the record gate) and `compact_early_target` /
 * `compact_early_record_share` without `compact_early_threshold`. Each names the key, its value, that it is ignored
 * and the companion value that makes it act; the config stays as given. Key order of `Config`.
 */
const toInertKeyWarnings = (config: Config): ReadonlyArray<Log> => {
  const projectionOff = config.tool_result_json_projection === 'off'
  const SET_PROJECTION = 'set tool_result_json_projection to "named_keys", "handles" or "handle_values"'
  const ignored = (key: keyof Config, cause: string, fix: string): Log =>
    warn(`${key}=${JSON.stringify(config[key])} is ignored while ${cause}; ${fix} for it to act`)
  const warnings: Log[] = []
  if (config.compaction_refill_head !== DEFAULT_CONFIG.compaction_refill_head && config.compaction_refill !== 'history') {
    warnings.push(ignored('compaction_refill_head', `compaction_refill is ${JSON.stringify(config.compaction_refill)} (heads are fitted by the history refill only)`, 'set compaction_refill to "history"'))
  }
  if (config.tool_result_json_eager_after !== null && projectionOff) {
    warnings.push(ignored('tool_result_json_eager_after', 'tool_result_json_projection is "off" (it shortens results to the projection\'s form)', SET_PROJECTION))
  }
  if (config.tool_result_json_eager_unit !== DEFAULT_CONFIG.tool_result_json_eager_unit) {
    if (config.tool_result_json_eager_after === null) {
      warnings.push(ignored('tool_result_json_eager_unit', 'tool_result_json_eager_after is null', `set tool_result_json_eager_after to a number of assistant messages${projectionOff ? ` and ${SET_PROJECTION.slice('set '.length)}` : ''}`))
    } else if (projectionOff) {
      warnings.push(ignored('tool_result_json_eager_unit', 'tool_result_json_projection is "off"', SET_PROJECTION))
    }
  }
  if (config.tool_result_json_projected_groups !== DEFAULT_CONFIG.tool_result_json_projected_groups && projectionOff) {
    warnings.push(ignored('tool_result_json_projected_groups', 'tool_result_json_projection is "off" (no group is in a projection\'s form)', SET_PROJECTION))
  }
  if (config.compact_early_threshold !== null && projectionOff) {
    warnings.push(ignored('compact_early_threshold', 'tool_result_json_projection is "off" (no tool result has a form, so no view passes the record gate)', SET_PROJECTION))
  }
  for (const key of ['compact_early_target', 'compact_early_record_share'] as const) {
    if (config[key] !== DEFAULT_CONFIG[key] && config.compact_early_threshold === null) warnings.push(ignored(key, 'compact_early_threshold is null', 'set compact_early_threshold to a share of the compactable room'))
  }
  return warnings
}

/**
 * The values `raw` gives for the known keys (a key given as `undefined` counts as absent), each
 * checked against its rule's codec. Left: a `ConfigError` for the first key of the wrong JSON type.
 */
const readGivenValues = (raw: Readonly<Record<string, unknown>>): E.Either<ConfigError, Readonly<Record<string, unknown>>> => {
  const given: Record<string, unknown> = {}
  for (const [key, rule] of Object.entries(RULES)) {
    if (!Object.prototype.hasOwnProperty.call(raw, key)) continue
    const read = readKey(raw, key)
    if (E.isLeft(read)) return read
    const value = read.right
    if (value === undefined) continue
    const checked = pipe(
      rule.codec.decode(value),
      E.mapLeft(() => {
        // SPEC 17.9: NaN and ±Infinity are numbers, but not configuration values.
        const accepts = typeof value === 'number' ? rule.accepts.replace(/^a number/, 'a finite number') : rule.accepts
        return new ConfigError(key, `expected ${accepts}, got ${show(value)}`)
      }),
    )
    if (E.isLeft(checked)) return checked
    given[key] = value
  }
  return E.right(given)
}

/** The keys whose given value is converted or may fall back (with a warning) rather than be taken as is. */
interface FallbackKeys {
  readonly token_meter: TokenMeterMode
  readonly compaction_strategy: CompactionStrategy
  readonly tool_result_budget_tokens: number | null
  readonly tool_result_shape: ToolResultShape
  readonly tool_result_budget_by_tool: Readonly<Record<string, number>>
  readonly tool_result_exempt_tools: ReadonlyArray<string>
  readonly compact_max_consecutive_skips: number
}

const hasGiven = (given: Readonly<Record<string, unknown>>, key: string): boolean => Object.prototype.hasOwnProperty.call(given, key)

/**
 * The fall-back keys of `given` (each warning pushed to `warnings`). Left: a `ConfigError` for a
 * `compact_max_consecutive_skips` that does not convert to an integer.
 */
const decodeFallbackKeys = (given: Readonly<Record<string, unknown>>, warnings: Log[]): E.Either<ConfigError, FallbackKeys> => {
  const has = (key: string): boolean => hasGiven(given, key)
  let tokenMeter: TokenMeterMode = DEFAULT_CONFIG.token_meter
  if (has('token_meter')) {
    const value = given.token_meter
    if (value === 'estimate' || value === 'actual' || value === 'hybrid' || value === 'calibrated') tokenMeter = value
    else warnings.push(warn(`unknown token_meter ${pyrepr(value)}; falling back to "estimate" (expected "estimate", "actual", "hybrid" or "calibrated")`))
  }
  let strategy: CompactionStrategy = DEFAULT_CONFIG.compaction_strategy
  if (has('compaction_strategy')) {
    const value = given.compaction_strategy
    if (value === 'progressive' || value === 'summary') strategy = value
    else warnings.push(warn(`unknown compaction_strategy ${pyrepr(value)}; falling back to "progressive" (expected "progressive" or "summary")`))
  }
  const toolResults = decodeToolResultKeys(given, warnings)
  let skipCap = DEFAULT_CONFIG.compact_max_consecutive_skips
  if (has('compact_max_consecutive_skips')) {
    const converted = toSkipCap(given.compact_max_consecutive_skips)
    if (converted === null) {
      return E.left(new ConfigError('compact_max_consecutive_skips', `expected an integer (or an integer string), got ${show(given.compact_max_consecutive_skips)}`))
    }
    skipCap = Math.max(1, converted)
  }
  return E.right({ token_meter: tokenMeter, compaction_strategy: strategy, ...toolResults, compact_max_consecutive_skips: skipCap })
}

/** The tool-result keys of `given` that fall back: budget tokens, shape, per-tool budgets, exempt tools. */
const decodeToolResultKeys = (
  given: Readonly<Record<string, unknown>>,
  warnings: Log[],
): Pick<FallbackKeys, 'tool_result_budget_tokens' | 'tool_result_shape' | 'tool_result_budget_by_tool' | 'tool_result_exempt_tools'> => {
  const has = (key: string): boolean => hasGiven(given, key)
  let budgetTokens: number | null = null
  if (has('tool_result_budget_tokens') && given.tool_result_budget_tokens !== null) {
    const value = given.tool_result_budget_tokens
    if (isTokenCount(value)) budgetTokens = value
    else warnings.push(warn(`tool_result_budget_tokens=${pyrepr(value)} is not an integer >= 1; using the legacy truncate_chars budget`))
  }
  let shape: ToolResultShape = DEFAULT_CONFIG.tool_result_shape
  if (has('tool_result_shape')) {
    const value = given.tool_result_shape
    if (value === 'head' || value === 'head_tail') shape = value
    else warnings.push(warn(`tool_result_shape=${pyrepr(value)} is not "head" or "head_tail"; using "head"`))
  }
  const byTool: Record<string, number> = {}
  if (has('tool_result_budget_by_tool') && isTruthy(given.tool_result_budget_by_tool)) {
    const value = given.tool_result_budget_by_tool
    if (!isPlainObject(value)) {
      warnings.push(warn(`tool_result_budget_by_tool=${pyrepr(value)} is not an object of tool name -> tokens; ignoring it`))
    } else {
      for (const [tool, tokens] of Object.entries(value)) {
        if (tool !== '' && isTokenCount(tokens)) setOwn(byTool, tool, tokens)
        else warnings.push(warn(`tool_result_budget_by_tool[${pyrepr(tool)}]=${pyrepr(tokens)} is not an integer >= 1 for a named tool; dropping it`))
      }
    }
  }
  const exempt = has('tool_result_exempt_tools') && Array.isArray(given.tool_result_exempt_tools)
    ? [...new Set((given.tool_result_exempt_tools as string[]).filter((name) => name !== ''))]
    : []
  return { tool_result_budget_tokens: budgetTokens, tool_result_shape: shape, tool_result_budget_by_tool: byTool, tool_result_exempt_tools: exempt }
}

/** The keys of `Config` whose value is a boolean. */
type FlagKey = { [K in keyof Config]: Config[K] extends boolean ? K : never }[keyof Config]

/** The `Config` of the checked `given` values and the decoded fall-back keys, every other key at its default. */
const toConfig = (given: Readonly<Record<string, unknown>>, fallbacks: FallbackKeys): Config => {
  const has = (key: string): boolean => hasGiven(given, key)
  const pick = <K extends keyof Config>(key: K): Config[K] => (has(key) ? (given[key] as Config[K]) : DEFAULT_CONFIG[key])
  // A flag is true only when given as `true` (null or false read as false, SPEC 3).
  const flag = (key: FlagKey): boolean => (has(key) ? given[key] === true : DEFAULT_CONFIG[key])
  return {
    max_tokens: pick('max_tokens'),
    compact_threshold: pick('compact_threshold'),
    target_usage: pick('target_usage'),
    protected_recent: pick('protected_recent'),
    protected_tool_results: pick('protected_tool_results'),
    truncate_chars: pick('truncate_chars'),
    compaction_notice_enabled: flag('compaction_notice_enabled'),
    compaction_notice_token_reserve: pick('compaction_notice_token_reserve'),
    compaction_notice_verbosity: pick('compaction_notice_verbosity'),
    compaction_notice_min_level: pick('compaction_notice_min_level'),
    output_reserve_fraction: pick('output_reserve_fraction'),
    token_meter: fallbacks.token_meter,
    compaction_strategy: fallbacks.compaction_strategy,
    compact_clear_at_least: pick('compact_clear_at_least'),
    compact_max_consecutive_skips: fallbacks.compact_max_consecutive_skips,
    summary_trigger: pick('summary_trigger'),
    summarization_model: pick('summarization_model'),
    summarization_prompt_path: has('summarization_prompt_path') && given.summarization_prompt_path !== '' ? (given.summarization_prompt_path as string | null) : null,
    summarization_timeout_s: pick('summarization_timeout_s'),
    tool_result_budget_tokens: fallbacks.tool_result_budget_tokens,
    tool_result_shape: fallbacks.tool_result_shape,
    tool_result_budget_by_tool: fallbacks.tool_result_budget_by_tool,
    tool_result_exempt_tools: fallbacks.tool_result_exempt_tools,
    tool_result_spill_dir: has('tool_result_spill_dir') && isTruthy(given.tool_result_spill_dir) ? (given.tool_result_spill_dir as string) : null,
    replay_last_user_on_compaction: flag('replay_last_user_on_compaction'),
    remove_short_user_messages: flag('remove_short_user_messages'),
    hybrid_rejected_anchor_override: flag('hybrid_rejected_anchor_override'),
    compaction_floor_guard: has('compaction_floor_guard')
      ? given.compaction_floor_guard === 'deep' || given.compaction_floor_guard === 'report'
        ? given.compaction_floor_guard
        : given.compaction_floor_guard === true
      : DEFAULT_CONFIG.compaction_floor_guard,
    compaction_breaker_passes: pick('compaction_breaker_passes'),
    strict_fit: flag('strict_fit'),
    budget_cap_tokens: pick('budget_cap_tokens'),
    fallback_context_window: pick('fallback_context_window'),
    fallback_max_output_tokens: pick('fallback_max_output_tokens'),
    budget_provenance: flag('budget_provenance'),
    human_anchors: flag('human_anchors'),
    compaction_notice_repeat: pick('compaction_notice_repeat'),
    target_basis: pick('target_basis'),
    tool_result_truncation: pick('tool_result_truncation'),
    protected_recent_tokens: pick('protected_recent_tokens'),
    compaction_order: pick('compaction_order'),
    working_set_window: pick('working_set_window'),
    working_set_capacity: pick('working_set_capacity'),
    working_set_payback: pick('working_set_payback'),
    compaction_refill: pick('compaction_refill'),
    compaction_refill_head: pick('compaction_refill_head'),
    summary_hysteresis: flag('summary_hysteresis'),
    summary_target_usage: pick('summary_target_usage'),
    summary_min_span_tokens: pick('summary_min_span_tokens'),
    summary_cooldown_requests: pick('summary_cooldown_requests'),
    token_estimator: pick('token_estimator'),
    usage_intake: pick('usage_intake'),
    tool_result_ingress_cap_bytes: pick('tool_result_ingress_cap_bytes'),
    tool_result_json_whitespace: pick('tool_result_json_whitespace'),
    tool_result_json_projection: pick('tool_result_json_projection'),
    tool_result_json_eager_after: pick('tool_result_json_eager_after'),
    tool_result_json_eager_unit: pick('tool_result_json_eager_unit'),
    tool_result_json_projected_groups: pick('tool_result_json_projected_groups'),
    compact_early_threshold: pick('compact_early_threshold'),
    compact_early_target: pick('compact_early_target'),
    compact_early_record_share: pick('compact_early_record_share'),
    provider_rules: pick('provider_rules'),
    anthropic_cache_breakpoints: flag('anthropic_cache_breakpoints'),
    calibration_overhead_tokens: pick('calibration_overhead_tokens'),
    calibration_scale: pick('calibration_scale'),
    calibration_reasoning_context: pick('calibration_reasoning_context'),
  }
}
