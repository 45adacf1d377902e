/**
 * Loads the model price and window tables (`data/prices.json`, `data/windows.json`, or a file
 * given with `--prices` / `--windows`), checked with io-ts, and answers "which prices, which
 * window, which cache rules" for a model name.
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { CacheProvider } from '../core/economics/cache.js'
import { resolveModelName, type ModelPrice, type ModelTable, type ModelWindow } from '../core/economics/prices.js'
import { readTextFile } from './read-text.js'

/**
 * A price or window file that cannot be read or does not have the documented shape; the
 * message names the file and the field.
 *
 * @example
 * new ModelDataError('prices.json: models.gpt-4o.input: expected a non-negative number, got "2.5"')
 */
export class ModelDataError extends Error {
  override readonly name = 'ModelDataError'
}

const DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../data')

/**
 * The bundled price table: the absolute path of `data/prices.json`.
 *
 * @example
 * DEFAULT_PRICES_FILE.endsWith('data/prices.json') // => true
 */
export const DEFAULT_PRICES_FILE = resolve(DATA_DIR, 'prices.json')

/**
 * The bundled window table: the absolute path of `data/windows.json`.
 *
 * @example
 * DEFAULT_WINDOWS_FILE.endsWith('data/windows.json') // => true
 */
export const DEFAULT_WINDOWS_FILE = resolve(DATA_DIR, 'windows.json')

const Amount = t.refinement(t.number, (value) => Number.isFinite(value) && value >= 0, 'a non-negative number')
const Tokens = t.refinement(t.number, (value) => Number.isInteger(value) && value > 0, 'a positive whole number of tokens')
const PriceCodec = t.type({ input: Amount, cached_input: Amount, cache_write: Amount, output: Amount, source: t.string })
const WindowCodec = t.type({ context_window: Tokens, max_output_tokens: Tokens, source: t.string })
const tableCodec = <C extends t.Mixed>(entry: C) =>
  t.intersection([t.type({ models: t.record(t.string, entry) }), t.partial({ aliases: t.record(t.string, t.string) })])

const describe = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value))

const loadTable = <Entry>(path: string, codec: t.Mixed): ModelTable<Entry> => {
  let raw: unknown
  try {
    raw = JSON.parse(readTextFile(path))
  } catch (error) {
    throw new ModelDataError(`${path}: cannot read a JSON model table (${(error as Error).message})`)
  }
  const decoded = tableCodec(codec).decode(raw)
  if (E.isLeft(decoded)) {
    const first = decoded.left[0]
    const where = first.context.map((entry) => entry.key).filter((key) => key !== '' && !/^\d+$/.test(key)).join('.')
    throw new ModelDataError(`${path}: ${where}: expected ${first.context.at(-1)?.type.name ?? 'a value'}, got ${describe(first.value)}`)
  }
  const value = decoded.right as { models: Record<string, Entry>; aliases?: Record<string, string> }
  const lower = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).map(([key, entry]) => [key.toLowerCase(), entry]))
  return { models: lower(value.models) as Record<string, Entry>, aliases: lower(value.aliases ?? {}) as Record<string, string> }
}

/**
 * The price table at `path` (default: the bundled `data/prices.json`). Throws `ModelDataError`
 * for an unreadable file or a wrong shape.
 *
 * @example
 * loadPriceTable().models['gpt-4o'].input // => 2.5
 */
export const loadPriceTable = (path: string = DEFAULT_PRICES_FILE): ModelTable<ModelPrice> => loadTable<ModelPrice>(path, PriceCodec)

/**
 * The window table at `path` (default: the bundled `data/windows.json`). Throws `ModelDataError`
 * for an unreadable file or a wrong shape.
 *
 * @example
 * loadWindowTable().models['gpt-4o'].context_window // => 128000
 */
export const loadWindowTable = (path: string = DEFAULT_WINDOWS_FILE): ModelTable<ModelWindow> => loadTable<ModelWindow>(path, WindowCodec)

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
 * lookupModel(loadPriceTable(), 'claude-sonnet-4-5-20250929')?.input // => 3
 */
export const lookupModel = <Entry>(table: ModelTable<Entry>, model: string | null): Entry | null => {
  if (model === null) return null
  const name = resolveModelName(table, model)
  return name === null ? null : table.models[name]
}
