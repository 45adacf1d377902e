// Unit tests for src/core/budget.ts: SPEC 4 (budget sources and the worked examples) and the
// effective budget of SPEC 2.3 step 3 (notice reserve), through the functions and the reducer.
import { describe, expect, it } from 'vitest'
import { BUDGET_SAFETY_MARGIN, computeBudget, computeEffectiveBudget } from '../../src/core/budget.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { makeInitialState } from '../../src/core/state.js'
import { configOf, estimateMeterStats, meterEvent, request, stepFor, tokens, user, withMessages, stored, viewed } from '../support/core.js'

const WINDOW_200K = { context_window: 200_000, max_output_tokens: 64_000 }

describe('computeBudget (SPEC 4)', () => {
  it('B-BU-1: an explicit token_budget wins over the provider and max_tokens, returned as is', () => {
    const config = { ...DEFAULT_CONFIG, max_tokens: 1_000 }
    expect(computeBudget(config, 10_000, WINDOW_200K)).toBe(10_000)
    expect(computeBudget(config, 0, WINDOW_200K)).toBe(0)
    expect(computeBudget(config, -5, null)).toBe(-5)
  })

  it('B-BU-2: the worked examples give 163,904 / 179,904 / 115,712', () => {
    expect(computeBudget(DEFAULT_CONFIG, null, WINDOW_200K)).toBe(163_904)
    expect(computeBudget({ ...DEFAULT_CONFIG, output_reserve_fraction: 0.25 }, null, WINDOW_200K)).toBe(179_904)
    expect(computeBudget(DEFAULT_CONFIG, null, { context_window: 128_000, max_output_tokens: 16_384 })).toBe(115_712)
    expect(BUDGET_SAFETY_MARGIN).toBe(4096)
  })

  it('truncates max_output × fraction toward zero', () => {
    // 1001 × 0.5 = 500.5 → 500; 10000 − 500 − 4096 = 5404
    expect(computeBudget(DEFAULT_CONFIG, null, { context_window: 10_000, max_output_tokens: 1001 })).toBe(5404)
    // 3 × 0.3333 = 0.9999 → 0
    expect(computeBudget({ ...DEFAULT_CONFIG, output_reserve_fraction: 0.3333 }, null, { context_window: 10_000, max_output_tokens: 3 })).toBe(5904)
  })

  it('B-BU-3: a falsy window or max output falls through to max_tokens', () => {
    const config = { ...DEFAULT_CONFIG, max_tokens: 777 }
    expect(computeBudget(config, null, { context_window: 200_000, max_output_tokens: 0 })).toBe(777)
    expect(computeBudget(config, null, { context_window: 0, max_output_tokens: 64_000 })).toBe(777)
    expect(computeBudget(config, null, { context_window: null, max_output_tokens: 64_000 })).toBe(777)
    expect(computeBudget(config, null, {})).toBe(777)
    expect(computeBudget(config, null, null)).toBe(777)
    expect(computeBudget(config, undefined as unknown as null, undefined as unknown as null)).toBe(777)
  })

  it('B-BU-4 (core side): a window that cannot be used in arithmetic falls back to max_tokens', () => {
    // The reference raises on `"200000" - …` and abandons the provider step (SPEC 4 step 2).
    expect(computeBudget({ ...DEFAULT_CONFIG, max_tokens: 321 }, null, { context_window: '200000', max_output_tokens: 64_000 })).toBe(321)
  })

  it('B-BU-5: max_tokens does not cap a provider-derived budget', () => {
    expect(computeBudget({ ...DEFAULT_CONFIG, max_tokens: 1_000 }, null, WINDOW_200K)).toBe(163_904)
  })

  it('a provider window can give a zero or negative budget, used as is', () => {
    expect(computeBudget(DEFAULT_CONFIG, null, { context_window: 4_000, max_output_tokens: 100 })).toBe(4_000 - 50 - 4096)
  })
})

describe('computeEffectiveBudget (SPEC 2.3 step 3)', () => {
  it('subtracts the notice reserve when the notice is enabled', () => {
    expect(computeEffectiveBudget(DEFAULT_CONFIG, 163_904)).toEqual({ effective: 163_104, effects: [] })
    expect(computeEffectiveBudget(DEFAULT_CONFIG, 115_712)).toEqual({ effective: 114_912, effects: [] })
    expect(computeEffectiveBudget(DEFAULT_CONFIG, 10_000)).toEqual({ effective: 9_200, effects: [] })
  })

  it('uses the whole budget when the notice is disabled', () => {
    expect(computeEffectiveBudget({ ...DEFAULT_CONFIG, compaction_notice_enabled: false }, 10_000)).toEqual({ effective: 10_000, effects: [] })
  })

  it('falls back to the whole budget with a warning when the reserve leaves nothing', () => {
    for (const budget of [100, 800]) {
      expect(computeEffectiveBudget(DEFAULT_CONFIG, budget)).toEqual({
        effective: budget,
        effects: [{ type: 'log', level: 'warning', message: expect.stringContaining('compaction_notice_token_reserve') }],
      })
    }
    expect(computeEffectiveBudget(DEFAULT_CONFIG, 801).effective).toBe(1)
  })

  it('a budget of 0 or less keeps the contract value and says in plain words that nothing is compacted (17.11)', () => {
    for (const config of [DEFAULT_CONFIG, { ...DEFAULT_CONFIG, compaction_notice_enabled: false }]) {
      for (const budget of [0, -10]) {
        expect(computeEffectiveBudget(config, budget)).toEqual({
          effective: budget,
          effects: [{ type: 'log', level: 'warning', message: expect.stringContaining(`the budget is ${budget} tokens: the view is not compacted`) }],
        })
      }
    }
    // A negative reserve turns the budget -799 into E = 1: the warning names both numbers.
    const odd = computeEffectiveBudget({ ...DEFAULT_CONFIG, compaction_notice_token_reserve: -800 }, -799)
    expect(odd.effective).toBe(1)
    expect(odd.effects).toEqual([{ type: 'log', level: 'warning', message: expect.stringContaining('the budget is -799 tokens and a negative compaction_notice_token_reserve makes the effective budget 1') }])
  })

  it('a negative reserve enlarges the budget (not validated, SPEC 3)', () => {
    expect(computeEffectiveBudget({ ...DEFAULT_CONFIG, compaction_notice_token_reserve: -100 }, 1_000)).toEqual({ effective: 1_100, effects: [] })
  })
})

describe('budget through the request reducer', () => {
  const history = [user('hello')]

  it('a provider window sets the meter budget to the effective budget 163,104', () => {
    const step = stepFor()
    const state = withMessages(step, history)
    const next = step(state, request({ provider: WINDOW_200K, providerGiven: true }))
    const estimated = tokens([stored(history[0], 0)])
    const stats = estimateMeterStats(estimated, 163_104)
    expect(next).toEqual({
      state: {
        ...state,
        meter: { ...state.meter, stats: stats, lastSentEstimate: tokens([viewed(stored(history[0], 0))]) },
      },
      view: [viewed(stored(history[0], 0))],
      effects: [meterEvent(stats)],
    })
  })

  it('an explicit token budget wins over the provider window', () => {
    const step = stepFor({ max_tokens: 50_000 })
    const state = withMessages(step, history)
    expect(step(state, request({ tokenBudget: 10_000, provider: WINDOW_200K, providerGiven: true })).state.meter.stats?.budget).toBe(9_200)
    expect(step(state, request({ provider: null })).state.meter.stats?.budget).toBe(49_200)
  })

  it('max_tokens 100 with the notice on: the reserve is ignored and a warning logged (SPEC 4 table)', () => {
    const step = stepFor({ max_tokens: 100 })
    const next = step(makeInitialState(), request())
    expect(next.effects).toEqual([
      { type: 'log', level: 'warning', message: expect.stringContaining('compaction_notice_token_reserve') },
      {
        type: 'emit_hook',
        name: 'context:token_meter',
        data: estimateMeterStats(0, 100, { kind: 'none', hybrid_kind: 'none', tail_estimated_tokens: 0, tail_messages: 0, ratio: 0 }),
      },
    ])
  })

  it('worked example row 1: with E = 163,104 the trigger fires from 150,056 tokens and the target is 81,552', () => {
    const step = stepFor()
    // A stored user message with _seq 0 renders as 102 characters plus its content.
    const sized = (estimate: number) => withMessages(step, [user('x'.repeat(estimate * 4 - 102))])
    const fires = step(sized(150_056), request({ provider: WINDOW_200K, providerGiven: true }))
    expect(fires.state.meter.stats).toMatchObject({ used_tokens: 150_056, budget: 163_104 })
    expect(fires.state.compaction.stats).toMatchObject({ budget: 163_104, target_tokens: 81_552 })
    const quiet = step(sized(150_055), request({ provider: WINDOW_200K, providerGiven: true }))
    expect(quiet.state.meter.stats?.used_tokens).toBe(150_055)
    expect(quiet.state.compaction.stats).toBeNull()
  })

  it('decodeConfig defaults give an effective budget of 199,200', () => {
    const step = stepFor(configOf({}))
    expect(step(makeInitialState(), request()).state.meter.stats?.budget).toBe(199_200)
  })
})
