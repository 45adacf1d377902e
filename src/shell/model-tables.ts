/**
 * The model price and window tables as data, checked with io-ts, and the answers to "which
 * prices, which window, which cache rules" for a model name. Runtime-neutral (docs/runtimes.md):
 * the bundled tables are compiled in (src/shell/model-data.ts, generated from data/prices.json
 * and data/windows.json); reading a table from a file is `loadPriceTable` / `loadWindowTable` of
 * `context-simple/node` (src/shell/economics-data.ts).
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { CacheProvider } from '../core/economics/cache.js'
import { resolveModelName, type ModelPrice, type ModelTable, type ModelWindow } from '../core/economics/prices.js'
import { PRICES_DATA, WINDOWS_DATA } from './model-data.js'

/**
 * A price or window table (a file, or a value given to `decodePriceTable` / `decodeWindowTable`)
 * that cannot be read or does not have the documented shape; the message names the source and
 * the field.
 *
 * @example
 * new ModelDataError('prices.json: models.gpt-4o.input: expected a non-negative number, got "2.5"')
 */
export class ModelDataError extends Error {
  override readonly name = 'ModelDataError'
}

const Amount = t.refinement(t.number, (value) => Number.isFinite(value) && value >= 0, 'a non-negative number')
const Tokens = t.refinement(t.number, (value) => Number.isInteger(value) && value > 0, 'a positive whole number of tokens')
const PriceCodec = t.type({ input: Amount, cached_input: Amount, cache_write: Amount, output: Amount, source: t.string })
const WindowCodec = t.type({ context_window: Tokens, max_output_tokens: Tokens, source: t.string })
const tableCodec = <C extends t.Mixed>(entry: C) =>
  t.intersection([t.type({ models: t.record(t.string, entry) }), t.partial({ aliases: t.record(t.string, t.string) })])

const describe = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value))

const decodeTable = <Entry>(value: unknown, source: string, codec: t.Mixed): ModelTable<Entry> => {
  const decoded = tableCodec(codec).decode(value)
  if (E.isLeft(decoded)) {
    const first = decoded.left[0]
    const where = first.context.map((entry) => entry.key).filter((key) => key !== '' && !/^\d+$/.test(key)).join('.')
    throw new ModelDataError(`${source}: ${where}: expected ${first.context.at(-1)?.type.name ?? 'a value'}, got ${describe(first.value)}`)
  }
  const table = decoded.right as { models: Record<string, Entry>; aliases?: Record<string, string> }
  const lower = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).map(([key, entry]) => [key.toLowerCase(), entry]))
  return { models: lower(table.models) as Record<string, Entry>, aliases: lower(table.aliases ?? {}) as Record<string, string> }
}

/**
 * A price table from a parsed JSON value of the shape of `data/prices.json` (`{ models: { name:
 * { input, cached_input, cache_write, output, source } }, aliases? }`, US dollars per million
 * tokens), names lower-cased. Throws `ModelDataError` naming `source` and the field.
 *
 * @example
 * decodePriceTable({ models: { 'my-model': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 4, source: 'our contract' } } }).models['my-model'].output // => 4
 */
export const decodePriceTable = (value: unknown, source = 'price table'): ModelTable<ModelPrice> => decodeTable<ModelPrice>(value, source, PriceCodec)

/**
 * A window table from a parsed JSON value of the shape of `data/windows.json` (`{ models: { name:
 * { context_window, max_output_tokens, source } }, aliases? }`, in tokens), names lower-cased.
 * Throws `ModelDataError` naming `source` and the field.
 *
 * @example
 * decodeWindowTable({ models: { 'my-model': { context_window: 32000, max_output_tokens: 4096, source: 'model card' } } }).models['my-model'].context_window // => 32000
 */
export const decodeWindowTable = (value: unknown, source = 'window table'): ModelTable<ModelWindow> => decodeTable<ModelWindow>(value, source, WindowCodec)

/**
 * The bundled price table (`data/prices.json`, compiled in; every entry names its source), in
 * every runtime. `loadPriceTable()` of `context-simple/node` reads the same file from disk.
 *
 * @example
 * BUNDLED_PRICE_TABLE.models['gpt-4o'].input // => 2.5
 */
export const BUNDLED_PRICE_TABLE: ModelTable<ModelPrice> = decodePriceTable(PRICES_DATA, 'data/prices.json')

/**
 * The bundled window table (`data/windows.json`, compiled in; every entry names its source), in
 * every runtime. `loadWindowTable()` of `context-simple/node` reads the same file from disk.
 *
 * @example
 * BUNDLED_WINDOW_TABLE.models['gpt-4o'].context_window // => 128000
 */
export const BUNDLED_WINDOW_TABLE: ModelTable<ModelWindow> = decodeWindowTable(WINDOWS_DATA, 'data/windows.json')

/**
 * Whose prompt-cache rules apply to `model`: Anthropic for Claude models (`claude-*`, `opus`,
 * `sonnet`, `haiku`), OpenAI otherwise; `fallback` when the model is unknown (null).
 *
 * @example
 * toCacheProvider('claude-opus-4-6', 'openai') // => 'anthropic'
 * toCacheProvider(null, 'openai') // => 'openai'
 */
export const toCacheProvider = (model: string | null, fallback: CacheProvider): CacheProvider => {
  if (model === null) return fallback
  return /^(claude|opus|sonnet|haiku)/i.test(model.trim()) ? 'anthropic' : 'openai'
}

/**
 * The table entry of `model` (resolved through aliases and dated ids), or null.
 *
 * @example
 * lookupModel(BUNDLED_PRICE_TABLE, 'claude-sonnet-4-5-20250929')?.input // => 3
 */
export const lookupModel = <Entry>(table: ModelTable<Entry>, model: string | null): Entry | null => {
  if (model === null) return null
  const name = resolveModelName(table, model)
  return name === null ? null : table.models[name]
}
