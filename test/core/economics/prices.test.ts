// Model-name resolution and the input-side cost.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolveModelName, toInputCostUsd, type ModelPrice, type ModelTable } from '../../../src/core/economics/prices.js'

const opus: ModelPrice = { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25, source: 'test' }
const table: ModelTable<ModelPrice> = { models: { 'claude-opus-4-6': opus, 'claude-sonnet-4-5': opus }, aliases: { sonnet: 'claude-sonnet-4-5' } }

describe('resolveModelName', () => {
  it('finds names, aliases and dated ids, case-insensitively; null otherwise', () => {
    expect(resolveModelName(table, 'claude-opus-4-6')).toBe('claude-opus-4-6')
    expect(resolveModelName(table, 'Sonnet')).toBe('claude-sonnet-4-5')
    expect(resolveModelName(table, 'claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5')
    expect(resolveModelName(table, 'gpt-4o')).toBeNull()
    expect(resolveModelName(table, 'toString')).toBeNull()
  })
})

describe('toInputCostUsd', () => {
  it('prices reads, 5-minute writes, 1-hour writes (2x input) and uncached input per million tokens', () => {
    expect(toInputCostUsd({ input_tokens: 4_000_000, cache_read_tokens: 1_000_000, cache_write_tokens: 2_000_000, cache_write_1h_tokens: 1_000_000, uncached_input_tokens: 1_000_000 }, opus)).toBeCloseTo(0.5 + 6.25 + 10 + 5)
  })

  it('property: cost is linear in the split and never negative', () => {
    const splitArb = fc.tuple(fc.nat(1e6), fc.nat(1e6), fc.nat(1e6), fc.nat(1e6)).map(([read, write5, write1, uncached]) => ({
      input_tokens: read + write5 + write1 + uncached, cache_read_tokens: read, cache_write_tokens: write5 + write1, cache_write_1h_tokens: write1, uncached_input_tokens: uncached,
    }))
    fc.assert(fc.property(splitArb, splitArb, (a, b) => {
      const sum = { input_tokens: a.input_tokens + b.input_tokens, cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens, cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens, cache_write_1h_tokens: a.cache_write_1h_tokens + b.cache_write_1h_tokens, uncached_input_tokens: a.uncached_input_tokens + b.uncached_input_tokens }
      expect(toInputCostUsd(sum, opus)).toBeCloseTo(toInputCostUsd(a, opus) + toInputCostUsd(b, opus), 6)
      expect(toInputCostUsd(a, opus)).toBeGreaterThanOrEqual(0)
    }))
  })
})
