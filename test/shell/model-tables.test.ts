// The price and window tables as data (src/shell/model-tables.ts): the compiled-in copy is the
// content of data/*.json (regenerate with node scripts/generate-model-data.mjs), decodes to the
// same table the Node loader reads from disk, and a wrong value is a ModelDataError naming the
// source and the field.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadPriceTable, loadWindowTable } from '../../src/shell/economics-data.js'
import { BUNDLED_PRICE_TABLE, BUNDLED_WINDOW_TABLE, decodePriceTable, decodeWindowTable, ModelDataError } from '../../src/shell/model-tables.js'
// @ts-expect-error -- a plain .mjs script without type declarations
import { renderModelData } from '../../scripts/generate-model-data.mjs'

const root = resolve(import.meta.dirname, '../..')

describe('bundled tables as data', () => {
  it('src/shell/model-data.ts is what scripts/generate-model-data.mjs writes from data/*.json (run it after editing them)', () => {
    expect(readFileSync(resolve(root, 'src/shell/model-data.ts'), 'utf8')).toBe((renderModelData as () => string)())
  })

  it('decode to the tables the Node loader reads from data/*.json', () => {
    expect(BUNDLED_PRICE_TABLE).toEqual(loadPriceTable())
    expect(BUNDLED_WINDOW_TABLE).toEqual(loadWindowTable())
    expect(BUNDLED_WINDOW_TABLE.models['claude-sonnet-4-5'].context_window).toBe(200000)
  })

  it('a decoded value is checked like a file and its names lower-cased', () => {
    expect(() => decodeWindowTable({ models: { m: { context_window: 0, max_output_tokens: 1, source: 's' } } }, 'mine')).toThrow(ModelDataError)
    expect(() => decodeWindowTable({ models: { m: { context_window: 0, max_output_tokens: 1, source: 's' } } }, 'mine')).toThrow(/^mine: models.m.context_window: expected a positive whole number of tokens, got 0$/)
    expect(() => decodePriceTable([])).toThrow(/^price table: /)
    expect(decodePriceTable({ models: { 'My-Model': { input: 1, cached_input: 0, cache_write: 1, output: 2, source: 's' } }, aliases: { Mine: 'My-Model' } })).toEqual({
      models: { 'my-model': { input: 1, cached_input: 0, cache_write: 1, output: 2, source: 's' } },
      aliases: { mine: 'My-Model' },
    })
  })
})
