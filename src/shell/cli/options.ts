/**
 * Replay options from the command line: configuration precedence (header, `--preset`, `--config`, `--set`),
 * budget overrides, and typed usage errors that become one stderr line and exit code 2.
 */
import { isDeepStrictEqual } from 'node:util'
import { isRight } from 'fp-ts/lib/Either.js'
import { decodeConfig, toFallbackAccepts, toFallbackBehaviour } from '../../core/codecs.js'
import { DEFAULT_CONFIG, type Config } from '../../core/config.js'
import { describeValue } from '../../core/messages/json-value.js'
import { isPresetName, PRESET_NAMES, presets } from '../../core/presets.js'
import type { Recording, RecordingOp } from '../../core/replay/recording.js'

/**
 * A bad flag or value on the command line; `main` prints its message as one stderr line and
 * exits with code 2.
 *
 * @example
 * new UsageError('--budget lots: expected a whole number of tokens, e.g. --budget 4500')
 */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/**
 * A budget that replaces every request's budget: an explicit token budget, or a provider window
 * (tokens) from which the contract's formula derives it (SPEC 4).
 *
 * @example
 * const override: BudgetOverride = { kind: 'window', contextWindow: 200000, maxOutputTokens: 64000 }
 */
export type BudgetOverride =
  | { readonly kind: 'budget'; readonly tokens: number }
  | { readonly kind: 'window'; readonly contextWindow: number; readonly maxOutputTokens: number }

/**
 * Parse one `--set key=value`: the value is JSON when it parses, else the raw string. The key is
 * trimmed. Throws `UsageError` when there is no `=` or nothing before it; when the key is not
 * a configuration key (docs/configuration.md), naming the closest known key; and when the value is
 * one a configuration object would only warn about and replace or disable (`toFallbackAccepts`: an
 * unknown `token_meter`, a `tool_result_budget_tokens` of 0, a non-finite `compact_clear_at_least`,
 * ...), naming the key, the value, what the key accepts and what a configuration object does
 * instead (`toFallbackBehaviour`), as a run labelled with the typed value would not use it. A key typed on the
 * command line is rejected as a misspelled key in a `ContextConfig` literal fails `tsc`, so no run
 * goes on with an override that `compare` would name in its labels but nothing applies. (An
 * unknown key in a recording header or a `--config` file is still ignored with one warning, as
 * SPEC 3 has the constructor do.)
 *
 * @example
 * parseSetting('token_meter=hybrid') // => ['token_meter', 'hybrid']
 * parseSetting('target_usage=0.4') // => ['target_usage', 0.4]
 * // parseSetting('target_usgae=0.4') throws UsageError('--set target_usgae=0.4: unknown configuration key target_usgae, did you mean target_usage? …')
 * // parseSetting('token_meter=bogus') throws UsageError('--set token_meter=bogus: token_meter does not take "bogus": expected "estimate", "actual", "hybrid" or "calibrated" …')
 */
export const parseSetting = (text: string): readonly [string, unknown] => {
  const equals = text.indexOf('=')
  if (equals <= 0) throw new UsageError(`--set ${text}: expected key=value, e.g. --set token_meter=hybrid`)
  const key = text.slice(0, equals).trim()
  const raw = text.slice(equals + 1)
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = raw
  }
  // An unknown key is never read for its value, so a Left here is a known key with a wrongly typed value (reported later, naming the key).
  const decoded = decodeConfig({ [key]: value })
  const unknown = isRight(decoded) ? decoded.right.unknownKeys[0] : undefined
  if (unknown !== undefined) {
    throw new UsageError(`--set ${text}: unknown configuration key ${key}, did you mean ${unknown.closest}? (--set takes the snake_case keys of docs/configuration.md)`)
  }
  const accepts = toFallbackAccepts(key, value)
  if (accepts !== null) {
    throw new UsageError(`--set ${text}: ${key} does not take ${describeValue(value)}: expected ${accepts} (${toFallbackBehaviour(key)}; --set stops instead)`)
  }
  return [key, value]
}

/**
 * The `--set` flags of one command line, each read by `parseSetting`: `settings` for `mergeConfig`
 * (one per key, its last value: the last `--set` of a key wins, as `mergeConfig` would apply the
 * flags as given), `shown` the flags that take effect as typed, in the order of their last use
 * (for `configurationLabel`, so a label never names a value the run did not use), and `warnings`
 * one line for each flag that a later one of the same key with another value overrides.
 *
 * @example
 * parseSettings(['target_usage=0.4', 'token_meter=hybrid', 'target_usage=0.75']).shown // => ['token_meter=hybrid', 'target_usage=0.75']
 * parseSettings(['target_usage=0.4', 'target_usage=0.75']).warnings // => ['--set target_usage=0.4 is overridden by --set target_usage=0.75 (the last --set of a key wins)']
 */
export const parseSettings = (
  texts: ReadonlyArray<string>,
): { readonly settings: ReadonlyArray<readonly [string, unknown]>; readonly shown: ReadonlyArray<string>; readonly warnings: ReadonlyArray<string> } => {
  const parsed = texts.map((text) => ({ text, setting: parseSetting(text) }))
  const last = new Map(parsed.map((entry, index) => [entry.setting[0], index]))
  const kept = parsed.filter((entry, index) => last.get(entry.setting[0]) === index)
  const warnings = parsed.flatMap((entry, index) => {
    const winner = parsed[last.get(entry.setting[0]) as number]
    const same = JSON.stringify(winner.setting[1]) === JSON.stringify(entry.setting[1])
    return winner === entry || same ? [] : [`--set ${entry.text} is overridden by --set ${winner.text} (the last --set of a key wins)`]
  })
  return { settings: kept.map((entry) => entry.setting), shown: kept.map((entry) => entry.text), warnings }
}

/**
 * The name a configuration is shown under (`compare`'s tables and `config` field, `report`'s
 * page): its preset name and `--config` path as given, then each `--set` that takes effect as
 * typed (`parseSettings`'s `shown`), joined by ` + `; `defaults` when there is none of them.
 *
 * @example
 * configurationLabel(['recommended'], ['tool_result_json_projection=named_keys']) // => 'recommended + tool_result_json_projection=named_keys'
 * configurationLabel([undefined, undefined], []) // => 'defaults'
 */
export const configurationLabel = (bases: ReadonlyArray<string | undefined>, settings: ReadonlyArray<string>): string =>
  [...bases, ...settings].filter((part): part is string => part !== undefined).join(' + ') || 'defaults'

/**
 * The configuration keys a recording header sets away from the contract's defaults
 * (`DEFAULT_CONFIG`, objects compared deeply) that a configuration made of a `--preset` or a
 * `--config` file does not set again (nor a `--set`), in header order: under it they keep the
 * header's values, as each configuration is laid over the header (docs/cli.md, "Configuration
 * precedence"). A header key at its default value (a header of `makeRecorder({ ...DEFAULT_CONFIG })`)
 * runs the same value either way, and a key that is not a configuration key is ignored by the
 * decoder, so neither is listed. Empty when neither a preset nor a file is given (the header is
 * then what was asked for) and for a header without keys (imported sessions).
 *
 * @example
 * keptHeaderKeys({ target_usage: 0.4, max_tokens: 9000 }, { preset: {}, file: null, settings: [['max_tokens', 8000]] }) // => ['target_usage']
 * keptHeaderKeys({ target_usage: 0.4 }, { preset: null, file: null, settings: [] }) // => []
 * keptHeaderKeys({ ...DEFAULT_CONFIG, target_usage: 0.4, extra: 1 }, { preset: {}, file: null, settings: [] }) // => ['target_usage']
 */
export const keptHeaderKeys = (
  header: Readonly<Record<string, unknown>>,
  layers: { readonly preset: Readonly<Record<string, unknown>> | null; readonly file: Readonly<Record<string, unknown>> | null; readonly settings: ReadonlyArray<readonly [string, unknown]> },
): string[] => {
  if (layers.preset === null && layers.file === null) return []
  const set = new Set([...Object.keys(layers.preset ?? {}), ...Object.keys(layers.file ?? {}), ...layers.settings.map(([key]) => key)])
  return Object.keys(header).filter((key) => !set.has(key) && Object.hasOwn(DEFAULT_CONFIG, key) && !isDeepStrictEqual(header[key], DEFAULT_CONFIG[key as keyof Config]))
}

/**
 * The line `replay`, `report` and `compare` print when configuration `label` keeps keys of the
 * recording header of `path` (`keptHeaderKeys`): `--preset reference` on a session recorded
 * under `recommended` runs recommended's values for them, not the contract's defaults. Null
 * when it keeps none.
 *
 * @example
 * keptHeaderNote('session.jsonl', 'reference', ['target_usage'])?.startsWith('session.jsonl: its recording header sets target_usage, which configuration "reference" does not set') // => true
 * keptHeaderNote('session.jsonl', 'recommended', []) // => null
 */
export const keptHeaderNote = (path: string, label: string, keys: ReadonlyArray<string>): string | null => {
  if (keys.length === 0) return null
  const named = keys.length <= 4 ? keys.join(', ') : `${keys.slice(0, 4).join(', ')} and ${keys.length - 4} more`
  return (
    `${path}: its recording header sets ${named}, which configuration "${label}" does not set: ` +
    `they keep the header's values there, not the contract's defaults (each configuration is laid over the header: docs/cli.md, "Configuration precedence")`
  )
}

/**
 * Parse a non-negative integer flag value (tokens). Throws `UsageError` naming `flag` unless the
 * text (surrounding whitespace allowed) is decimal digits only.
 *
 * @example
 * parseTokenCount('--budget', '4500') // => 4500
 */
export const parseTokenCount = (flag: string, text: string): number => {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag} ${text}: expected a whole number of tokens, e.g. ${flag} 4500`)
  return Number.parseInt(text, 10)
}

/**
 * The effective configuration of a recording: header (or defaults) < preset < `--config` file <
 * each `--set`, in that order.
 *
 * @example
 * mergeConfig({ a: 1 }, { a: 2 }, { a: 3 }, [['a', 4]]) // => { a: 4 }
 */
export const mergeConfig = (
  header: Readonly<Record<string, unknown>>,
  preset: Readonly<Record<string, unknown>> | null,
  file: Readonly<Record<string, unknown>> | null,
  settings: ReadonlyArray<readonly [string, unknown]>,
): Record<string, unknown> => {
  const merged: Record<string, unknown> = { ...header, ...(preset ?? {}), ...(file ?? {}) }
  for (const [key, value] of settings) merged[key] = value
  return merged
}

/**
 * The preset named by `--preset NAME`. Throws `UsageError` naming the known presets for any
 * other name.
 *
 * @example
 * toPreset('recommended-summary').compaction_strategy // => 'summary'
 */
export const toPreset = (name: string): Readonly<Record<string, unknown>> => {
  if (!isPresetName(name)) throw new UsageError(`--preset ${name}: unknown preset, expected one of ${PRESET_NAMES.join(', ')}`)
  return presets[name]
}

/**
 * Replace the budget of every request of `recording` (recording ops included) with `override`.
 * `budget` sets `token_budget` and keeps a provider the request passed (the explicit budget wins
 * over its window; the summary strategy still sees a provider); `window` replaces the request's
 * provider with that window and drops its `token_budget`.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * applyBudgetOverride(recording, { kind: 'budget', tokens: 4500 }).ops[1] // => { op: 'get_messages_for_request', token_budget: 4500 }
 */
export const applyBudgetOverride = (recording: Recording, override: BudgetOverride | null): Recording => {
  if (override === null) return recording
  const ops = recording.ops.map((op): RecordingOp => {
    if (op.op !== 'get_messages_for_request') return op
    // A provider passed with the request stays passed (the summary strategy caches it, SPEC 2.3
    // step 2); the explicit token budget wins over its window (SPEC 4 step 1).
    return override.kind === 'budget'
      ? { op: 'get_messages_for_request', token_budget: override.tokens, ...(op.provider !== undefined && op.provider !== null ? { provider: op.provider } : {}) }
      : { op: 'get_messages_for_request', provider: { context_window: override.contextWindow, max_output_tokens: override.maxOutputTokens } }
  })
  return { ...recording, ops }
}
