/**
 * Model prices and windows as plain data, model-name resolution (aliases, dated ids), and the
 * input-side cost of one request's token split. The data itself lives in `data/prices.json` and
 * `data/windows.json`; the shell loads it.
 */

/**
 * Prices of one model in US dollars per million tokens: `input` (uncached input), `cached_input`
 * (cache reads), `cache_write` (5-minute cache writes; Anthropic only, 0 where writes are not
 * billed apart), `output`. `source` names where the figures come from (a package at a version, a
 * dated page, or a dated "unverified" statement).
 *
 * @example
 * const opus: ModelPrice = { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25, source: 'platform.claude.com/docs/en/models/opus-4-6/overview, read 2026-12-01' }
 */
export interface ModelPrice {
  readonly input: number
  readonly cached_input: number
  readonly cache_write: number
  readonly output: number
  readonly source: string
}

/**
 * The window of one model in tokens: `context_window` (input plus output) and `max_output_tokens`,
 * with the `source` of the figures.
 *
 * @example
 * const gpt4o: ModelWindow = { context_window: 128000, max_output_tokens: 16384, source: 'openai-models 0.1.1' }
 */
export interface ModelWindow {
  readonly context_window: number
  readonly max_output_tokens: number
  readonly source: string
}

/**
 * A model table (prices or windows): entries by canonical model name, and `aliases` mapping other
 * names (`sonnet`, `gpt-4o-2024-08-06`) to a canonical name.
 *
 * @example
 * const table: ModelTable<ModelWindow> = { models: { 'gpt-4o': { context_window: 128000, max_output_tokens: 16384, source: 's' } }, aliases: { '4o': 'gpt-4o' } }
 */
export interface ModelTable<Entry> {
  readonly models: Readonly<Record<string, Entry>>
  readonly aliases: Readonly<Record<string, string>>
}

/**
 * The canonical name of `model` in `table`: the name itself when it has an entry, its alias
 * target, else the name without a trailing date (`-20250929`, `-2024-08-06`) when that has an
 * entry or alias; `null` when none matches. Case-insensitive.
 *
 * @example
 * const table: ModelTable<number> = { models: { 'claude-sonnet-4-5': 3 }, aliases: { sonnet: 'claude-sonnet-4-5' } }
 * resolveModelName(table, 'claude-sonnet-4-5-20250929') // => 'claude-sonnet-4-5'
 * resolveModelName(table, 'sonnet') // => 'claude-sonnet-4-5'
 * resolveModelName(table, 'gpt-4o') // => null
 */
export const resolveModelName = <Entry>(table: ModelTable<Entry>, model: string): string | null => {
  const lookup = (name: string): string | null => {
    if (Object.prototype.hasOwnProperty.call(table.models, name)) return name
    const target = Object.prototype.hasOwnProperty.call(table.aliases, name) ? table.aliases[name] : undefined
    return target !== undefined && Object.prototype.hasOwnProperty.call(table.models, target) ? target : null
  }
  const name = model.trim().toLowerCase()
  return lookup(name) ?? lookup(name.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, ''))
}

/**
 * How one request's input splits under the prompt cache, in tokens:
 * `input_tokens = cache_read_tokens + cache_write_tokens + uncached_input_tokens`.
 * `cache_write_1h_tokens` is the part of `cache_write_tokens` written with the 1-hour lifetime.
 *
 * @example
 * const split: InputSplit = { input_tokens: 1200, cache_read_tokens: 1000, cache_write_tokens: 150, cache_write_1h_tokens: 0, uncached_input_tokens: 50 }
 */
export interface InputSplit {
  readonly input_tokens: number
  readonly cache_read_tokens: number
  readonly cache_write_tokens: number
  readonly cache_write_1h_tokens: number
  readonly uncached_input_tokens: number
}

/**
 * The input-side cost of one request in US dollars: cache reads at `cached_input`, 5-minute
 * writes at `cache_write`, 1-hour writes at twice `input` (Anthropic's rule), uncached input at
 * `input`; all prices per million tokens.
 *
 * @example
 * const opus: ModelPrice = { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25, source: 'example' }
 * toInputCostUsd({ input_tokens: 2_000_000, cache_read_tokens: 1_000_000, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: 1_000_000 }, opus) // => 5.5
 */
export const toInputCostUsd = (split: InputSplit, price: ModelPrice): number => {
  const fiveMinute = split.cache_write_tokens - split.cache_write_1h_tokens
  return (
    (split.cache_read_tokens * price.cached_input +
      fiveMinute * price.cache_write +
      split.cache_write_1h_tokens * 2 * price.input +
      split.uncached_input_tokens * price.input) /
    1_000_000
  )
}
