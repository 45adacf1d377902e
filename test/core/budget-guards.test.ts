// Unit tests for the budget guards of docs/configuration.md ("A real budget cap") in src/core/budget.ts and request.ts:
// budget_cap_tokens caps every path, fallback_context_window stands in for a provider that reports
// no window, and budget_provenance emits context:budget once per change.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeBudget, resolveBudget } from '../../src/core/budget.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { configOf, effectsOf, fold, request, stepFor, user, added } from '../support/core.js'

const WINDOW_1M = { context_window: 1_000_000, max_output_tokens: 64_000 }

describe('resolveBudget', () => {
  it('with the guard keys null it is SPEC 4 exactly, with its source', () => {
    expect(resolveBudget(DEFAULT_CONFIG, 10_000, WINDOW_1M)).toEqual({ budget: 10_000, source: 'token_budget', context_window: null, output_reserve: null, cap: null })
    expect(resolveBudget(DEFAULT_CONFIG, null, WINDOW_1M)).toEqual({ budget: 1_000_000 - 32_000 - 4096, source: 'provider', context_window: 1_000_000, output_reserve: 32_000, cap: null })
    expect(resolveBudget(DEFAULT_CONFIG, null, {})).toEqual({ budget: 200_000, source: 'max_tokens', context_window: null, output_reserve: null, cap: null })
  })

  it('budget_cap_tokens caps every path and names itself as the source when it lowered the budget', () => {
    const config = configOf({ budget_cap_tokens: 150_000 })
    expect(resolveBudget(config, null, WINDOW_1M)).toMatchObject({ budget: 150_000, source: 'cap', context_window: 1_000_000, cap: 150_000 })
    expect(resolveBudget(config, 500_000, null)).toMatchObject({ budget: 150_000, source: 'cap' })
    expect(resolveBudget(config, 20_000, null)).toMatchObject({ budget: 20_000, source: 'token_budget', cap: 150_000 })
    expect(resolveBudget(config, null, null)).toMatchObject({ budget: 150_000, source: 'cap' })
  })

  it('fallback_context_window applies only when no budget is given and the provider reports no window', () => {
    const config = configOf({ fallback_context_window: 128_000, fallback_max_output_tokens: 16_384 })
    expect(resolveBudget(config, null, null)).toEqual({ budget: 128_000 - 8192 - 4096, source: 'fallback_window', context_window: 128_000, output_reserve: 8192, cap: null })
    expect(resolveBudget(config, null, { context_window: 0 })).toMatchObject({ source: 'fallback_window' })
    expect(resolveBudget(config, null, WINDOW_1M).source).toBe('provider')
    expect(resolveBudget(config, 9000, null).source).toBe('token_budget')
  })

  it('property: the budget is never above the cap, and equals computeBudget without guard keys', () => {
    const window = fc.option(fc.record({ context_window: fc.integer({ min: 0, max: 2_000_000 }), max_output_tokens: fc.integer({ min: 0, max: 200_000 }) }), { nil: null })
    fc.assert(
      fc.property(fc.option(fc.integer({ min: -10, max: 3_000_000 }), { nil: null }), window, fc.integer({ min: 1, max: 1_000_000 }), (tokenBudget, provider, cap) => {
        const capped = resolveBudget(configOf({ budget_cap_tokens: cap }), tokenBudget, provider)
        expect(capped.budget).toBeLessThanOrEqual(cap)
        const plain = resolveBudget(DEFAULT_CONFIG, tokenBudget, provider)
        expect(plain.budget).toBe(computeBudget(DEFAULT_CONFIG, tokenBudget, provider))
        expect(capped.budget).toBe(Math.min(plain.budget, cap))
      }),
    )
  })
})

describe('budget_provenance: context:budget', () => {
  const budgetEvents = (steps: ReadonlyArray<{ effects: ReadonlyArray<import('../../src/core/effects.js').Effect> }>) =>
    steps.flatMap((step) => effectsOf(step.effects, 'emit_hook').filter((effect) => effect.name === 'context:budget').map((effect) => effect.data))

  it('emits once per change of the effective budget or its source, first among the request events', () => {
    const step = stepFor({ budget_provenance: true, budget_cap_tokens: 150_000 })
    const { steps } = fold(step, [
      added(user('hi')),
      request({ provider: WINDOW_1M, providerGiven: true }),
      request({ provider: WINDOW_1M, providerGiven: true }),
      request({ tokenBudget: 20_000 }),
      request({ tokenBudget: 20_000 }),
    ])
    expect(budgetEvents(steps)).toEqual([
      { source: 'cap', context_window: 1_000_000, output_reserve: 32_000, cap: 150_000, effective_budget: 149_200 },
      { source: 'token_budget', context_window: null, output_reserve: null, cap: 150_000, effective_budget: 19_200 },
    ])
    expect(effectsOf(steps[1].effects, 'emit_hook').map((effect) => effect.name)).toEqual(['context:budget', 'context:token_meter'])
  })

  it('off by default', () => {
    const { steps } = fold(stepFor({ budget_cap_tokens: 150_000 }), [added(user('hi')), request({ provider: WINDOW_1M, providerGiven: true })])
    expect(budgetEvents(steps)).toEqual([])
    expect(steps[1].state.meter.stats?.budget).toBe(149_200)
  })
})
