// Unit tests for the strict_fit guard (SPEC 17.11) in src/core/request/strict-fit.ts and its shell
// side: a view still over the request budget raises ContextLengthError with the breakdown; the
// failed call changes neither history nor sticky state; off by default (the view is returned).
import { describe, expect, it } from 'vitest'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextLengthError, ContextManager } from '../../src/shell/context-manager.js'
import { silentLogger } from '../../src/shell/logger.js'
import { added, calls, effectsOf, fold, hookNames, request, result, stepFor, tokens, user } from '../support/core.js'

// The newest tool result (the last message, as in an agent loop) is 40,000 characters (~10,000
// tokens): it is in the recent zone and among the protected results, so no level shrinks it.
const history = [user('read the log'), calls(['a']), result('a', 'x'.repeat(40_000))]
const events = history.map((message) => added(message))

describe('strict_fit', () => {
  it('off (the contract): the oversized view is returned', () => {
    const { steps } = fold(stepFor({ compaction_notice_enabled: false }), [...events, request({ tokenBudget: 2000 })])
    const last = steps[steps.length - 1]
    expect(tokens(last.view ?? [])).toBeGreaterThan(2000)
    expect(effectsOf(last.effects, 'raise_error')).toEqual([])
  })

  it('on: raises ContextLengthError with the breakdown and leaves history and sticky state as they were', () => {
    const step = stepFor({ compaction_notice_enabled: false, strict_fit: true })
    const before = fold(step, events).state
    const failed = step(before, request({ tokenBudget: 2000 }))
    expect(failed.view).toBeUndefined()
    const [raised] = effectsOf(failed.effects, 'raise_error')
    expect(raised.name).toBe('ContextLengthError')
    expect(raised.details).toMatchObject({ budget: 2000, effective_budget: 2000, system_tokens: 0, open_group_tokens: 0 })
    expect(raised.details?.view_tokens).toBeGreaterThan(10_000)
    expect(raised.details?.floor_tokens).toBeGreaterThan(2000)
    expect(raised.message).toMatch(/over the request budget of 2000 \(strict_fit\).*irreducible floor/)
    expect(failed.state.history).toBe(before.history)
    expect(failed.state.compaction.sticky).toBe(before.compaction.sticky)
    // The guard state (the floor verdict, the breaker, the notice, the budget, the cooldown, the intake, the ingress) is untouched.
    const guardsOf = (state: typeof before) => [state.compaction.infeasible, state.compaction.breaker, state.compaction.noticeSent, state.budget, state.summary.cooldown, state.meter.usageStale, state.meter.usageObservedOnly, state.toolResults.ingressPending]
    expect(guardsOf(failed.state)).toEqual(guardsOf(before))
    expect(failed.state.compaction.stats).toBe(before.compaction.stats)
    // Only the meter event, no compaction event: nothing was decided.
    expect(hookNames(failed.effects)).toEqual(['context:token_meter'])
  })

  it('on: a view that fits is returned as usual', () => {
    const { steps } = fold(stepFor({ strict_fit: true }), [...events, request({ tokenBudget: 100_000 })])
    expect(steps[steps.length - 1].view).toHaveLength(3)
  })

  it('on: a budget of 0 or less, or an effective budget of 1 or less, raises with the numbers (17.11)', () => {
    const cases = [
      { config: { strict_fit: true }, budget: 0, effective: 0 },
      { config: { strict_fit: true, compaction_notice_enabled: false }, budget: -5, effective: -5 },
      { config: { strict_fit: true, compaction_notice_enabled: false }, budget: 1, effective: 1 },
      { config: { strict_fit: true, compaction_notice_token_reserve: -800 }, budget: -799, effective: 1 },
    ]
    for (const { config, budget, effective } of cases) {
      const step = stepFor(config)
      const before = fold(step, events.slice(0, 1)).state
      const failed = step(before, request({ tokenBudget: budget }))
      expect(failed.view, `budget ${budget}`).toBeUndefined()
      const [raised] = effectsOf(failed.effects, 'raise_error')
      expect(raised.name).toBe('ContextLengthError')
      expect(raised.details).toMatchObject({ budget, effective_budget: effective })
      expect(raised.message).toContain(`the request budget is ${budget} tokens and the effective budget ${effective} (strict_fit)`)
      expect(failed.state.history).toBe(before.history)
      expect(failed.state.compaction.sticky).toBe(before.compaction.sticky)
    }
  })

  it('off: a budget of 0 returns the whole history with the plain-words warning (SPEC 4 unchanged)', () => {
    const { steps } = fold(stepFor({}), [...events, request({ tokenBudget: 0 })])
    const last = steps[steps.length - 1]
    expect(last.view).toHaveLength(3)
    expect(effectsOf(last.effects, 'raise_error')).toEqual([])
    expect(effectsOf(last.effects, 'log').map((effect) => effect.message)).toEqual([expect.stringContaining('the budget is 0 tokens: the view is not compacted')])
  })

  it('the manager throws the typed error and stays usable', async () => {
    const manager = new ContextManager({ strict_fit: true, compaction_notice_enabled: false }, { clock: fixedClock('2026-01-01T00:00:00Z'), logger: silentLogger })
    for (const message of history) await manager.addMessage(message)
    const error = await manager.getMessagesForRequest({ tokenBudget: 2000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ContextLengthError)
    expect((error as ContextLengthError).details.budget).toBe(2000)
    expect(await manager.getMessages()).toHaveLength(3)
    expect(await manager.getMessagesForRequest({ tokenBudget: 50_000 })).toHaveLength(3)
  })
})

// docs/contract.md 17.11 with 17.13: under the calibrated meter the view is judged in the units the
// trigger and the ladder count in, billed tokens (scale × estimate + overhead + margin, or the
// last reading + scale × what was appended), not in estimator tokens.
describe('strict_fit under the calibrated meter', () => {
  const question = user('q '.repeat(200)) // about 100 estimator tokens
  const usage = (input: number) => ({ type: 'usage_observed' as const, data: { usage: { input_tokens: input, cache_write_tokens: 0 } } })

  it('a view that fits in estimator tokens but not as billed raises, with the billed count and how it was made', () => {
    const step = stepFor({ token_meter: 'calibrated', strict_fit: true, calibration_overhead_tokens: 5000, compaction_notice_enabled: false })
    const before = fold(step, [added(question)]).state
    const failed = step(before, request({ tokenBudget: 2000 }))
    expect(failed.view).toBeUndefined()
    const [raised] = effectsOf(failed.effects, 'raise_error')
    expect(raised.name).toBe('ContextLengthError')
    // the estimate of the view (as returned: with its metadata) is under the budget
    const estimate = raised.details?.estimated_view_tokens ?? Infinity
    expect(estimate).toBeGreaterThanOrEqual(tokens([question]))
    expect(estimate).toBeLessThan(2000)
    expect(raised.details).toMatchObject({ view_tokens: 5000 + estimate, estimated_view_tokens: estimate, scale: 1, overhead_tokens: 5000, budget: 2000 })
    expect(raised.message).toContain(`the view is ${5000 + estimate} tokens as billed (calibrated meter: estimate ${estimate}, scale 1.000, overhead 5000), over the request budget of 2000`)
    expect(failed.state.history).toBe(before.history)
  })

  it('a view over the budget in estimator tokens that fits as billed is returned', () => {
    const long = user('word '.repeat(2400)) // about 3,000 estimator tokens
    const step = stepFor({ token_meter: 'calibrated', strict_fit: true, calibration_scale: 0.5, compaction_notice_enabled: false })
    const { steps } = fold(step, [added(long), request({ tokenBudget: 2500 })])
    const last = steps[steps.length - 1]
    expect(tokens([long])).toBeGreaterThan(2500)
    expect(effectsOf(last.effects, 'raise_error')).toEqual([])
    expect(last.view).toHaveLength(1)
    expect(last.state.meter.stats?.calibrated_tokens).toBeLessThanOrEqual(2500)
  })

  it('the append shape: the last reading + what was appended, over the budget, raises though the estimate is far under it', () => {
    const step = stepFor({ token_meter: 'calibrated', strict_fit: true, compaction_notice_enabled: false })
    const state = fold(step, [added(user('a')), request({ tokenBudget: 100_000 }), usage(3000), added(user('b '.repeat(100)))]).state
    const failed = step(state, request({ tokenBudget: 3020 }))
    const [raised] = effectsOf(failed.effects, 'raise_error')
    expect(raised?.name).toBe('ContextLengthError')
    expect(raised.details?.estimated_view_tokens).toBeLessThan(200)
    expect(raised.details?.view_tokens).toBe(failed.state.meter.stats?.calibrated_tokens)
    // the reading + the appended message only: more than the reading, less than the reading + the whole estimate
    expect(raised.details?.view_tokens).toBeGreaterThan(3000 + tokens([user('b '.repeat(100))]) - 1)
    expect(raised.details?.view_tokens).toBeLessThan(3000 + (raised.details?.estimated_view_tokens ?? 0))
    // the same request at a budget the billed count fits is returned
    expect(step(state, request({ tokenBudget: 3200 })).view).toHaveLength(2)
  })
})

