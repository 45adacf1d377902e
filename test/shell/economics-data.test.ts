// The bundled price and window tables and their loader: every entry cites a source, aliases
// resolve, a wrong shape is a ModelDataError naming the file and the field.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadPriceTable, loadWindowTable, lookupModel, ModelDataError, toCacheProvider } from '../../src/shell/economics-data.js'

describe('bundled model tables', () => {
  it('cite a source for every entry and cover the models of the shared sessions', () => {
    const prices = loadPriceTable()
    const windows = loadWindowTable()
    for (const entry of [...Object.values(prices.models), ...Object.values(windows.models)]) expect(entry.source.length).toBeGreaterThan(20)
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-5-20250929', 'sonnet', 'gpt-4o']) {
      expect(lookupModel(prices, model)).not.toBeNull()
      expect(lookupModel(windows, model)).not.toBeNull()
    }
    expect(lookupModel(prices, 'gpt-4o')).toMatchObject({ input: 2.5, cached_input: 1.25, output: 10 })
    expect(lookupModel(windows, 'gpt-4o')).toMatchObject({ context_window: 128000, max_output_tokens: 16384 })
    expect(lookupModel(prices, null)).toBeNull()
  })

  it('picks the cache rules by model name', () => {
    expect(toCacheProvider('claude-opus-4-6', 'openai')).toBe('anthropic')
    expect(toCacheProvider('gpt-4o', 'anthropic')).toBe('openai')
    expect(toCacheProvider(null, 'anthropic')).toBe('anthropic')
  })
})

describe('loading a table', () => {
  it('rejects a wrong shape naming the file and the field, and an unreadable file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-prices-'))
    const bad = join(dir, 'prices.json')
    writeFileSync(bad, JSON.stringify({ models: { x: { input: '2.5', cached_input: 1, cache_write: 0, output: 1, source: 's' } } }))
    expect(() => loadPriceTable(bad)).toThrow(ModelDataError)
    expect(() => loadPriceTable(bad)).toThrow(/prices.json: models.x.input: expected a non-negative number, got "2.5"/)
    expect(() => loadWindowTable(join(dir, 'missing.json'))).toThrow(/missing.json: cannot read a JSON model table/)
  })
})
