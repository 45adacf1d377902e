// The prompt-cache model: examples per provider, expiry, prefix breaks, and fast-check
// invariants of the split.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyCacheRequest, breakpointTokens, EMPTY_CACHE, isPrefixBreak, type CacheItem, type CacheRequest, type CacheState } from '../../../src/core/economics/cache.js'

const item = (key: string, tokens: number, ephemeral = false): CacheItem => ({ key, tokens, ephemeral })
const request = (items: CacheItem[], overheadTokens = 1000, timeMs: number | null = null): CacheRequest => ({ overheadTokens, items, timeMs, lifetime: '5m' })

describe('applyCacheRequest (anthropic)', () => {
  it('writes everything up to the breakpoint on the first request and reads it on the next', () => {
    const first = applyCacheRequest('anthropic', EMPTY_CACHE, request([item('a', 500), item('b', 300)]))
    expect(first.split).toEqual({ input_tokens: 1800, cache_read_tokens: 0, cache_write_tokens: 1800, cache_write_1h_tokens: 0, uncached_input_tokens: 0 })
    const second = applyCacheRequest('anthropic', first.state, request([item('a', 500), item('b', 300), item('c', 200)]))
    expect(second.split).toEqual({ input_tokens: 2000, cache_read_tokens: 1800, cache_write_tokens: 200, cache_write_1h_tokens: 0, uncached_input_tokens: 0 })
  })

  it('leaves ephemeral tail items after the breakpoint uncached', () => {
    const step = applyCacheRequest('anthropic', EMPTY_CACHE, request([item('a', 500), item('notice', 40, true)]))
    expect(step.split).toMatchObject({ cache_write_tokens: 1500, uncached_input_tokens: 40 })
  })

  it('reads only the overhead after a change at the front of the view, and 1-hour writes are marked', () => {
    const first = applyCacheRequest('anthropic', EMPTY_CACHE, request([item('a', 500), item('b', 300)]))
    const second = applyCacheRequest('anthropic', first.state, { ...request([item('a2', 100), item('b', 300)]), lifetime: '1h' })
    expect(second.split).toEqual({ input_tokens: 1400, cache_read_tokens: 1000, cache_write_tokens: 400, cache_write_1h_tokens: 400, uncached_input_tokens: 0 })
  })

  it('reads nothing once the previous write has expired', () => {
    const first = applyCacheRequest('anthropic', EMPTY_CACHE, request([item('a', 500)], 1000, 0))
    expect(applyCacheRequest('anthropic', first.state, request([item('a', 500)], 1000, 299_000)).split.cache_read_tokens).toBe(1500)
    expect(applyCacheRequest('anthropic', first.state, request([item('a', 500)], 1000, 301_000)).split.cache_read_tokens).toBe(0)
    const long = applyCacheRequest('anthropic', EMPTY_CACHE, { ...request([item('a', 500)], 1000, 0), lifetime: '1h' })
    expect(applyCacheRequest('anthropic', long.state, request([item('a', 500)], 1000, 3_000_000)).split.cache_read_tokens).toBe(1500)
  })
})

describe('applyCacheRequest (openai)', () => {
  it('reads the shared prefix in 128-token steps from 1024 tokens and writes nothing', () => {
    const first = applyCacheRequest('openai', EMPTY_CACHE, request([item('a', 500)], 1000))
    expect(first.split).toEqual({ input_tokens: 1500, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: 1500 })
    const second = applyCacheRequest('openai', first.state, request([item('a', 500), item('b', 100)], 1000))
    expect(second.split).toEqual({ input_tokens: 1600, cache_read_tokens: 1408, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: 192 })
    const small = applyCacheRequest('openai', applyCacheRequest('openai', EMPTY_CACHE, request([item('a', 10)], 100)).state, request([item('a', 10)], 100))
    expect(small.split.cache_read_tokens).toBe(0)
  })
})

describe('isPrefixBreak', () => {
  it('ignores the previous ephemeral tail and appends, and flags a changed or shorter prefix', () => {
    const previous = [item('a', 1), item('b', 1), item('n', 1, true)]
    expect(isPrefixBreak(null, [item('x', 1)])).toBe(false)
    expect(isPrefixBreak(previous, [item('a', 1), item('b', 1), item('c', 1)])).toBe(false)
    expect(isPrefixBreak(previous, [item('a', 1), item('b', 1)])).toBe(false)
    expect(isPrefixBreak(previous, [item('a', 1), item('B', 1), item('c', 1)])).toBe(true)
    expect(isPrefixBreak(previous, [item('a', 1)])).toBe(true)
  })
})

const itemArb = fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd'), tokens: fc.nat(3000), ephemeral: fc.boolean() })
const requestArb = fc.record({
  overheadTokens: fc.nat(20_000),
  items: fc.array(itemArb, { maxLength: 8 }),
  timeMs: fc.option(fc.nat(10_000_000), { nil: null }),
  lifetime: fc.constantFrom('5m' as const, '1h' as const),
})

describe('cache model invariants', () => {
  it('input = reads + writes + uncached, all non-negative; reads never exceed the input; OpenAI never writes', () => {
    fc.assert(
      fc.property(fc.constantFrom('anthropic' as const, 'openai' as const), fc.array(requestArb, { minLength: 1, maxLength: 6 }), (provider, requests) => {
        let state: CacheState = EMPTY_CACHE
        for (const next of requests) {
          const step = applyCacheRequest(provider, state, next)
          const { input_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, uncached_input_tokens } = step.split
          expect(cache_read_tokens + cache_write_tokens + uncached_input_tokens).toBe(input_tokens)
          for (const value of [cache_read_tokens, cache_write_tokens, uncached_input_tokens, cache_write_1h_tokens]) expect(value).toBeGreaterThanOrEqual(0)
          expect(cache_write_1h_tokens).toBeLessThanOrEqual(cache_write_tokens)
          if (provider === 'openai') expect(cache_write_tokens).toBe(0)
          else expect(cache_read_tokens + cache_write_tokens).toBe(breakpointTokens(next))
          state = step.state
        }
      }),
    )
  })

  it('a request identical to the previous one (in time) reads all of it up to the breakpoint', () => {
    fc.assert(
      fc.property(requestArb, (next) => {
        const first = applyCacheRequest('anthropic', EMPTY_CACHE, { ...next, timeMs: null })
        expect(applyCacheRequest('anthropic', first.state, { ...next, timeMs: null }).split.cache_read_tokens).toBe(breakpointTokens(next))
      }),
    )
  })
})
