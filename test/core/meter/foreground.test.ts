// Unit tests for foreground usage (docs/configuration.md, usage_intake) in src/core/meter/foreground.ts:
// only payloads marked foreground: true feed the meter, others are observed; a malformed
// foreground reading keeps the last good one, marked stale; off by default.
import { describe, expect, it } from 'vitest'
import { fixedClock } from '../../../src/shell/clock.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { silentLogger } from '../../../src/shell/logger.js'
import { added, fold, request, stepFor, user } from '../../support/core.js'

const reading = (input: number, foreground?: boolean) => ({ type: 'usage_observed' as const, data: { usage: { input_tokens: input, cache_write_tokens: 0 }, ...(foreground === undefined ? {} : { foreground }) } })

describe('usage_intake', () => {
  it('"all" (the contract): every reading is recorded, the latest wins; no extra meter keys', () => {
    const { state } = fold(stepFor(), [added(user('hi')), reading(500, true), reading(90), request()])
    expect(state.meter.stats?.measured_tokens).toBe(90)
    expect(state.meter.stats).not.toHaveProperty('usage_stale')
  })

  it('"foreground": an unmarked reading (a title or evaluator call) is observed, not recorded', () => {
    const { state, steps } = fold(stepFor({ usage_intake: 'foreground' }), [added(user('hi')), reading(500, true), reading(90), request()])
    expect(state.meter.stats?.measured_tokens).toBe(500)
    expect(state.meter.stats).toMatchObject({ usage_stale: false, usage_observed_only: 1 })
    expect(steps[2].effects).toEqual([expect.objectContaining({ type: 'log', level: 'debug' })])
  })

  it('"foreground": a malformed foreground reading keeps the last good one, marked stale until the next good one', () => {
    const step = stepFor({ usage_intake: 'foreground' })
    const malformed = { type: 'usage_observed' as const, data: { usage: { input_tokens: 'many' }, foreground: true } }
    const stale = fold(step, [added(user('hi')), reading(500, true), malformed, request()]).state
    expect(stale.meter.stats).toMatchObject({ measured_tokens: 500, usage_stale: true })
    const fresh = fold(step, [reading(700, true), request()], stale).state
    expect(fresh.meter.stats).toMatchObject({ measured_tokens: 700, usage_stale: false })
  })

  it('the manager records onLlmResponse({ usage, foreground: true }) and observes the rest', async () => {
    const manager = new ContextManager({ usage_intake: 'foreground', token_meter: 'actual' }, { clock: fixedClock('2026-01-01T00:00:00Z'), logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.onLlmResponse({ usage: { input_tokens: 1234, output_tokens: 5 }, foreground: true })
    await manager.onLlmResponse({ usage: { input_tokens: 7, output_tokens: 5 } })
    await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(manager.lastTokenMeterStats).toMatchObject({ measured_tokens: 1234, used_tokens: 1234, usage_observed_only: 1 })
  })
})
