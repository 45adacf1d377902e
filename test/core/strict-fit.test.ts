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
