/**
 * Node only (exported by `context-simple/node`): loads a model price or window table from a file
 * (`data/prices.json`, `data/windows.json`, or a file given with `--prices` / `--windows`), plain
 * or gzipped. The tables as data, their decoders and the model lookups are runtime-neutral, in
 * src/shell/model-tables.ts (re-exported here for the CLI).
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ModelPrice, ModelTable, ModelWindow } from '../core/economics/prices.js'
import { decodePriceTable, decodeWindowTable, ModelDataError } from './model-tables.js'
import { readTextFile } from './read-text.js'

export { BUNDLED_PRICE_TABLE, BUNDLED_WINDOW_TABLE, decodePriceTable, decodeWindowTable, lookupModel, ModelDataError, toCacheProvider } from './model-tables.js'

const DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../data')

/**
 * The bundled price table: the absolute path of `data/prices.json`.
 *
 * @example
 * import { DEFAULT_PRICES_FILE } from 'context-simple/node'
 * DEFAULT_PRICES_FILE.endsWith('data/prices.json') // => true
 */
export const DEFAULT_PRICES_FILE = resolve(DATA_DIR, 'prices.json')

/**
 * The bundled window table: the absolute path of `data/windows.json`.
 *
 * @example
 * import { DEFAULT_WINDOWS_FILE } from 'context-simple/node'
 * DEFAULT_WINDOWS_FILE.endsWith('data/windows.json') // => true
 */
export const DEFAULT_WINDOWS_FILE = resolve(DATA_DIR, 'windows.json')

const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readTextFile(path))
  } catch (error) {
    throw new ModelDataError(`${path}: cannot read a JSON model table (${(error as Error).message})`)
  }
}

/**
 * The price table in the file at `path` (default: the bundled `data/prices.json`; the same table
 * is `BUNDLED_PRICE_TABLE` of the main entry). Throws `ModelDataError` for an unreadable file or
 * a wrong shape.
 *
 * @example
 * import { loadPriceTable } from 'context-simple/node'
 * loadPriceTable().models['gpt-4o'].input // => 2.5
 */
export const loadPriceTable = (path: string = DEFAULT_PRICES_FILE): ModelTable<ModelPrice> => decodePriceTable(readJson(path), path)

/**
 * The window table in the file at `path` (default: the bundled `data/windows.json`; the same
 * table is `BUNDLED_WINDOW_TABLE` of the main entry). Throws `ModelDataError` for an unreadable
 * file or a wrong shape.
 *
 * @example
 * import { loadWindowTable } from 'context-simple/node'
 * loadWindowTable().models['gpt-4o'].context_window // => 128000
 */
export const loadWindowTable = (path: string = DEFAULT_WINDOWS_FILE): ModelTable<ModelWindow> => decodeWindowTable(readJson(path), path)
