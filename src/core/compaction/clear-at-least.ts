/**
 * The worth-the-rebuild predicate (SPEC 14, 17.5, 17.6): the tokens a new escalation must free
 * (`compact_clear_at_least` resolved; not the irreducible floor of ./floor.ts),
 * the skipped-event payload and the fail-loud error text.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { CompactionSkippedPayload } from '../hook-events.js'
import type { Messages } from '../messages/message.js'
import { fmtInt, fmtPct, pyNumberRepr, pyrepr, pyStrip } from '../messages/text.js'

/**
 * The resolved `compact_clear_at_least`: `required`, the tokens a new escalation must free (0 =
 * predicate disabled), and any warning the resolution gave (a `log` effect, SPEC 14.1).
 *
 * @example
 * const resolved: ResolvedClearAtLeast = { required: 25000, effects: [] }
 */
export interface ResolvedClearAtLeast {
  readonly required: number
  readonly effects: ReadonlyArray<Effect>
}

const PY_FLOAT = /^[+-]?((\d(_?\d)*)?\.?\d(_?\d)*([eE][+-]?\d(_?\d)*)?|(\d(_?\d)*)\.([eE][+-]?\d(_?\d)*)?|inf|infinity|nan)$/i

/**
 * Convert a configured value as Python's `float()` does: numbers as is, booleans 1/0, numeric
 * strings (surrounding whitespace, exponents, underscores between digits, `inf`, `nan`). Returns
 * null when it cannot be converted.
 *
 * @example
 * toPythonFloat(' 1e4 ') // => 10000
 */
export const toPythonFloat = (value: unknown): number | null => {
  if (typeof value === 'number') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value !== 'string') return null
  const text = pyStrip(value)
  if (!PY_FLOAT.test(text)) return null
  const lower = text.toLowerCase().replace(/_/g, '')
  const sign = lower.startsWith('-') ? -1 : 1
  const body = lower.replace(/^[+-]/, '')
  if (body === 'inf' || body === 'infinity') return sign * Infinity
  if (body === 'nan') return NaN
  return Number(lower)
}

/**
 * Resolve `compact_clear_at_least` for a judged call with effective budget E (SPEC 14.1, 17.6):
 * null/0/negative → 0; a fraction in (0, 1) → `trunc(E × value)` (0 when E ≤ 0); ≥ 1 → `trunc`
 * of the absolute value (1.0 means one token); unparseable or non-finite → 0 with a warning.
 * E and `required` are in tokens. Never throws: the warning is a `log` effect in `effects`.
 *
 * @example
 * resolveClearAtLeast(0.25, 100000).required // => 25000
 */
export const resolveClearAtLeast = (raw: unknown, effective: number): ResolvedClearAtLeast => {
  if (raw === null || raw === undefined) return { required: 0, effects: [] }
  const value = toPythonFloat(raw)
  if (value === null || Number.isNaN(value) || value === Infinity) {
    return {
      required: 0,
      effects: [
        {
          type: 'log',
          level: 'warning',
          message: `context-simple: compact_clear_at_least=${pyrepr(raw)} is not a number (a finite number is required); the worth-the-rebuild predicate is disabled and every pass is kept. Set compact_clear_at_least to a number of tokens (0 turns the predicate off)`,
        },
      ],
    }
  }
  if (value <= 0) return { required: 0, effects: [] }
  if (value < 1) return { required: effective > 0 ? Math.trunc(effective * value) : 0, effects: [] }
  return { required: Math.trunc(value), effects: [] }
}

/**
 * The name and shape of `resolveClearAtLeast` before it was renamed: `compact_clear_at_least`
 * resolved for effective budget E (tokens), as `floor` (tokens a new escalation must free, 0 =
 * predicate disabled) and `effects` (a `log` warning for an unparseable value, SPEC 14.1). Never throws.
 *
 * @deprecated Use `resolveClearAtLeast(raw, effective).required` ("floor" now means the irreducible floor of src/core/compaction/floor.ts).
 * @example
 * resolveClearFloor(0.25, 100000).floor // => 25000
 */
export const resolveClearFloor = (raw: unknown, effective: number): { readonly floor: number; readonly effects: ReadonlyArray<Effect> } => {
  const resolved = resolveClearAtLeast(raw, effective)
  return { floor: resolved.required, effects: resolved.effects }
}

/**
 * What a refused pass reports (SPEC 14.3, 14.4). `freed`, `required`, `baselineTokens` and
 * `effective` (E) are estimator tokens; `levelReached` is the ladder level 1..8; `streak` and
 * `cap` count consecutive refusals; `baseline` is the sticky baseline list (system messages first).
 *
 * @example
 * const refusal: Refusal = { freed: 1200, required: 20000, levelReached: 8, streak: 1, cap: 3, baseline: [{ role: 'user', content: 'hi' }], baselineTokens: 95000, effective: 100000 }
 */
export interface Refusal {
  readonly freed: number
  readonly required: number
  readonly levelReached: number
  readonly streak: number
  readonly cap: number
  readonly baseline: Messages
  readonly baselineTokens: number
  readonly effective: number
}

/**
 * The `context:compaction-skipped` payload (SPEC 9, 14.3), keys in order: `freed_tokens`,
 * `required_tokens`, `level_reached`, `consecutive_skips`, `max_consecutive_skips`,
 * `baseline_tokens`, `budget` (E, tokens), `protected_recent` (fraction), `protected_tool_results`.
 *
 * @example
 * const refusal: Refusal = { freed: 1200, required: 20000, levelReached: 8, streak: 1, cap: 3, baseline: [{ role: 'user', content: 'hi' }], baselineTokens: 95000, effective: 100000 }
 * toSkippedPayload(DEFAULT_CONFIG, refusal).consecutive_skips // => 1
 */
export const toSkippedPayload = (config: Config, refusal: Refusal): CompactionSkippedPayload => ({
  freed_tokens: refusal.freed,
  required_tokens: refusal.required,
  level_reached: refusal.levelReached,
  consecutive_skips: refusal.streak,
  max_consecutive_skips: refusal.cap,
  baseline_tokens: refusal.baselineTokens,
  budget: refusal.effective,
  protected_recent: config.protected_recent,
  protected_tool_results: config.protected_tool_results,
})

const rawRepr = (raw: unknown): string => (typeof raw === 'number' ? pyNumberRepr(raw) : pyrepr(raw))

/**
 * The fail-loud error message (SPEC 14.4), exactly the contract's one-line text (token counts in
 * thousands format, `protected_recent` as a percent). The shell throws it as a
 * `CompactionSkipLimitError`; this function itself never throws.
 *
 * @example
 * const refusal: Refusal = { freed: 1200, required: 20000, levelReached: 8, streak: 1, cap: 3, baseline: [{ role: 'user', content: 'hi' }], baselineTokens: 95000, effective: 100000 }
 * toSkipLimitMessage(DEFAULT_CONFIG, refusal).startsWith('context-simple: compact_clear_at_least=') // => true
 */
export const toSkipLimitMessage = (config: Config, refusal: Refusal): string => {
  const tools = refusal.baseline.filter((message) => message.role === 'tool').length
  return (
    `context-simple: compact_clear_at_least=${rawRepr(config.compact_clear_at_least)} could not be satisfied ${refusal.streak} consecutive times (cap: ${refusal.cap}). ` +
    `The compaction ladder reached level ${refusal.levelReached} and freed only ${fmtInt(refusal.freed)} tokens against a required floor of ${fmtInt(refusal.required)}. ` +
    `Protected set holding the floor: protected_tool_results=${rawRepr(config.protected_tool_results)} (of ${tools} tool results in the view), protected_recent=${fmtPct(config.protected_recent)} of ${refusal.baseline.length} messages. ` +
    `Baseline view is ${fmtInt(refusal.baselineTokens)} tokens against a budget of ${fmtInt(refusal.effective)}. ` +
    'Lower compact_clear_at_least, lower protected_recent/protected_tool_results, or raise the budget -- compacting harder will not help.'
  )
}
