// Unit tests for src/core/compaction/floor.ts and the guards it drives in pass.ts (docs/configuration.md, guards
// 2): the floor breakdown, `context:compaction-infeasible` once per change, removal that stops at
// E when the floor is above the target, and the breaker (`compaction_breaker_passes`).
import { describe, expect, it } from 'vitest'
import { collectSpills, makePassContext } from '../../../src/core/compaction/context.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import { measureFloor } from '../../../src/core/compaction/floor.js'
import { runLadder } from '../../../src/core/compaction/ladder.js'
import { toStickyDraft } from '../../../src/core/compaction/sticky.js'
import { EMPTY_STICKY } from '../../../src/core/state.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import { decodeSnapshot, toSnapshot } from '../../../src/core/snapshot/codec.js'
import type { Event } from '../../../src/core/events.js'
import type { Message } from '../../../src/core/messages/message.js'
import { added, calls, configOf, effectsOf, fold, hookNames, request, result, stepFor, stored, system, tokens, user } from '../../support/core.js'

const text = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')

/** A conversation of `turns` short user/assistant exchanges after a system prompt of `systemChars`. */
const chat = (systemChars: number, turns: number): Message[] => {
  const messages: Message[] = [system(text('policy', systemChars))]
  for (let i = 0; i < turns; i += 1) messages.push(user(`question ${i}`), { role: 'assistant', content: text(`answer ${i}`, 200) })
  return messages
}

/** Add each message of `messages` and request a view after every user message. */
const session = (messages: ReadonlyArray<Message>, budget: number): Event[] =>
  messages.flatMap((message) => (message.role === 'user' ? [added(message), request({ tokenBudget: budget })] : [added(message)]))

const count = (steps: ReadonlyArray<{ effects: ReadonlyArray<import('../../../src/core/effects.js').Effect> }>, name: string): number =>
  steps.reduce((sum, step) => sum + hookNames(step.effects).filter((hook) => hook === name).length, 0)

describe('measureFloor', () => {
  it('counts the system tokens, the protected messages in their smallest form and the open group apart', () => {
    const config = configOf({ protected_recent: 0.3, protected_tool_results: 1, truncate_chars: 10 })
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    const first = user(text('first', 120))
    const last = user('last question')
    const old = [calls(['a']), result('a', 'x'.repeat(400))]
    const openCall = calls(['b', 'c'])
    const openResult = result('b', 'y'.repeat(400))
    const nonSystem: Message[] = [first, ...old, user('short'), { role: 'assistant', content: 'ok' }, last, openCall, openResult]
    const floor = measureFloor(nonSystem, 500, config, context)
    // n = 8, recent zone from trunc(8 × 0.91) = 7: only the open result; the open group starts at 6.
    // Protected: the first user as its stub, the short user (cannot be stubbed), the last user.
    const stubbed = context.stub(first)
    expect(floor.protected_tokens).toBe(estimateOne(stubbed) + estimateOne(user('short')) + estimateOne(last))
    // The open result is the last tool result (protected_tool_results 1): full size.
    expect(floor.open_group_tokens).toBe(estimateOne(openCall) + estimateOne(openResult))
    expect(floor).toEqual({ floor_tokens: 500 + floor.protected_tokens + floor.open_group_tokens, system_tokens: 500, protected_tokens: floor.protected_tokens, open_group_tokens: floor.open_group_tokens })
  })

  it('an unprotected result in the recent zone counts at its truncated size', () => {
    const config = configOf({ protected_recent: 1, protected_tool_results: 0, truncate_chars: 10 })
    // A context whose truncations record their spills: measuring must record none.
    const collector = collectSpills(makePassContext(config, estimateOne, {}, makeDerivationMemo()))
    const context = collector.context
    const big = result('a', 'x'.repeat(4000))
    const floor = measureFloor([user('go'), calls(['a']), big], 0, config, context)
    expect(floor.protected_tokens).toBe(estimateOne(user('go')) + estimateOne(calls(['a'])) + estimateOne(context.truncatedForm(big)))
    expect(collector.spills().length).toBe(0)
  })
})

describe('measureFloor with protected_recent_tokens', () => {
  // The recent zone by tokens (src/core/compaction/retention.ts): 100,000 tokens hold the whole of
  // 24 messages, so neither the ladder nor the floor may take any of them out.
  const messages = chat(0, 12).slice(1)
  const raw = { compaction_notice_enabled: false, max_tokens: 600, protected_recent_tokens: 100_000 }

  it('the floor protects the zone the ladder protects', () => {
    const config = configOf(raw)
    const floor = measureFloor(messages, 0, config, makePassContext(config, estimateOne, {}, makeDerivationMemo()))
    expect(floor.floor_tokens).toBe(tokens(messages))
  })

  it('level 8 removes no stubbed message inside that zone', () => {
    const config = configOf(raw)
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    // Stubs from earlier passes, all inside the 30,000-token zone of level 8.
    const stubbedTurns: Message[] = messages.map((message, i) => (message.role === 'user' ? { ...context.stub(user(text(`question ${i}`, 400))), _seq: i } : { ...message, _seq: i }))
    const ladder = runLadder(stubbedTurns, 0, tokens(stubbedTurns), 0, toStickyDraft(EMPTY_STICKY), context)
    expect(ladder.working.filter((message) => message.role === 'user')).toHaveLength(12)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=640515045, property-tests/budget-rule.test.ts):
  // the zone at level 7 (300 × 0.3 = 90 tokens) holds only the last message while the result is
  // whole, so the floor is the first user message and the last message; masking the result at
  // level 2 shrank it and a zone measured after that held the result, so its call group could not
  // be removed and the view stayed over the floor. The zone is measured on the sizes the pass
  // started from, so the ladder reaches the floor.
  it('a result the pass masks itself does not widen the zone it protects: the ladder reaches the floor', () => {
    const config = configOf({ compaction_notice_enabled: false, protected_recent: 0, protected_tool_results: 0, tool_result_truncation: 'mask', protected_recent_tokens: 300 })
    const context = makePassContext(config, estimateOne, { c0: 'read_file' }, makeDerivationMemo())
    const list: Message[] = [user('aaaaaaaa'), calls(['c0']), result('c0', 'a'.repeat(300)), { role: 'assistant', content: '' }].map((message, i) => ({ ...message, metadata: { _seq: i } }))
    const floor = measureFloor(list, 0, config, context)
    expect(floor.floor_tokens).toBe(estimateOne(list[0]) + estimateOne(list[3]))
    // Whole, the result does not fit in the 90-token zone with the last message; masked, it does.
    expect(estimateOne(list[3]) + estimateOne(list[2])).toBeGreaterThan(90)
    expect(estimateOne(list[3]) + estimateOne(context.truncatedForm(list[2]))).toBeLessThanOrEqual(90)
    const draft = toStickyDraft(EMPTY_STICKY)
    const ladder = runLadder(list, 0, tokens(list), 6, draft, context)
    expect(ladder.levelReached).toBe(8)
    expect(ladder.working).toEqual([list[0], list[3]])
    expect(tokens(ladder.working)).toBe(floor.floor_tokens)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=640515045 at 1000 runs,
  // property-tests/counterexamples/budget-rule-640515045-first-stub.json): level 8 stubs the first
  // user message even inside the recent zone (SPEC 6.5), and the stub of an 81-character message is
  // larger than the message. The floor counted it whole, under the view the ladder must return.
  it('the first user message inside the zone counts as the stub level 8 makes of it', () => {
    const config = configOf(raw)
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    const list: Message[] = [user('a'.repeat(81)), { role: 'assistant', content: 'ok' }, user('last')].map((message, i) => ({ ...message, metadata: { _seq: i } }))
    expect(estimateOne(context.stub(list[0]))).toBeGreaterThan(estimateOne(list[0]))
    const floor = measureFloor(list, 0, config, context)
    const ladder = runLadder(list, 0, tokens(list), 0, toStickyDraft(EMPTY_STICKY), context)
    expect(ladder.levelReached).toBe(8)
    expect(ladder.working[0]).toEqual(context.stub(list[0]))
    expect(floor.floor_tokens).toBe(tokens(ladder.working))
  })

  it('under "report", a view over E because of that zone is reported', () => {
    const events = [...messages.map((message) => added(message)), request({ tokenBudget: 600 })]
    const { steps } = fold(stepFor({ ...raw, compaction_floor_guard: 'report' }), events)
    const last = steps[steps.length - 1]
    expect(tokens(last.view ?? [])).toBeGreaterThan(600)
    expect(count(steps, 'context:compaction-infeasible')).toBe(1)
  })
})

describe('compaction_floor_guard', () => {
  // A 3,500-token system prompt against E = 4,000 (budget 4,000, notice off): above the 0.92
  // threshold (3,680) once two turns are added, far above the 2,000-token target; four turns
  // still fit E.
  const base = { compaction_notice_enabled: false, max_tokens: 4000 }
  const messages = chat(14_000, 4)

  it('off (the contract): every request over the threshold compacts again', () => {
    const { steps } = fold(stepFor(base), session(messages, 4000))
    expect(count(steps, 'context:compaction')).toBeGreaterThanOrEqual(2)
    expect(count(steps, 'context:compaction-infeasible')).toBe(0)
  })

  it('on: the session compacts at most once and reports the floor once, naming no knob (the system prompt alone is too big)', () => {
    const { steps } = fold(stepFor({ ...base, compaction_floor_guard: true }), session(messages, 4000))
    expect(count(steps, 'context:compaction')).toBeLessThanOrEqual(1)
    const reports = steps.flatMap((step) => effectsOf(step.effects, 'emit_hook').filter((effect) => effect.name === 'context:compaction-infeasible'))
    expect(reports).toHaveLength(1)
    expect(reports[0].data).toMatchObject({ system_tokens: tokens([stored(messages[0], 0)]), target_tokens: 2000, budget: 4000, knob: null })
    const payload = reports[0].data as Record<string, number>
    expect(payload.floor_tokens).toBe(payload.system_tokens + payload.protected_tokens + payload.open_group_tokens)
    expect(Object.keys(payload)).toEqual(['floor_tokens', 'system_tokens', 'protected_tokens', 'open_group_tokens', 'target_tokens', 'budget', 'knob'])
  })

  it('on: removal stops as soon as the view fits E instead of chasing the target', () => {
    // System 2,500 tokens (above the 2,000 target), then long turns that push the view over E.
    const long: Message[] = [system(text('policy', 10_000))]
    for (let i = 0; i < 8; i += 1) long.push(user(`q${i}`), { role: 'assistant', content: text(`a${i}`, 800) })
    const events = long.map((message) => added(message))
    const withGuard = fold(stepFor({ ...base, compaction_floor_guard: true, protected_recent: 0.1 }), [...events, request({ tokenBudget: 4000 })])
    const without = fold(stepFor({ ...base, protected_recent: 0.1 }), [...events, request({ tokenBudget: 4000 })])
    const guarded = withGuard.state.compaction.sticky.removed.size
    expect(guarded).toBeGreaterThan(0)
    expect(guarded).toBeLessThan(without.state.compaction.sticky.removed.size)
    const view = withGuard.steps[withGuard.steps.length - 1].view ?? []
    expect(tokens(view)).toBeLessThanOrEqual(4000)
    // One message fewer removed would not fit: the last removal was needed.
    expect(withGuard.state.compaction.stats?.after_tokens).toBeGreaterThan(4000 - 210)
  })

  // protected_recent 4 protects every message even at level 7 (4 × 0.3 > 1).
  it('names protected_tool_results when keeping fewer results whole would bring the floor under the target', () => {
    const messages: Message[] = [user('start')]
    for (let i = 0; i < 6; i += 1) messages.push(calls([`t${i}`]), result(`t${i}`, 'z'.repeat(2400)))
    messages.push(user('next'))
    const step = stepFor({ ...base, compaction_floor_guard: true, protected_tool_results: 6, protected_recent: 4 })
    const { steps } = fold(step, [...messages.map((message) => added(message)), request({ tokenBudget: 4000 })])
    const report = steps.flatMap((s) => effectsOf(s.effects, 'emit_hook')).find((effect) => effect.name === 'context:compaction-infeasible')
    expect(report?.data).toMatchObject({ knob: 'protected_tool_results', system_tokens: 0 })
  })
})

describe('compaction_breaker_passes', () => {
  const base = { compaction_notice_enabled: false, max_tokens: 4000, compaction_floor_guard: true }
  // The system prompt alone (5,000 tokens) is over E = 4,000: no pass can fit.
  const messages = chat(20_000, 6)

  it('reports once after N passes over E, then stops re-escalating', () => {
    const { steps, state } = fold(stepFor({ ...base, compaction_breaker_passes: 1 }), session(messages, 4000))
    expect(count(steps, 'context:compaction')).toBe(1)
    const trips = steps.flatMap((step) => effectsOf(step.effects, 'emit_hook')).filter((effect) => effect.name === 'context:compaction-breaker')
    expect(trips).toEqual([{ type: 'emit_hook', name: 'context:compaction-breaker', data: { consecutive_over_budget: 1 } }])
    expect(state.compaction.breaker).toMatchObject({ tripped: true, overBudgetPasses: 1, budget: 4000 })
  })

  it('without the breaker every request over E compacts again', () => {
    const { steps } = fold(stepFor(base), session(messages, 4000))
    expect(count(steps, 'context:compaction')).toBeGreaterThanOrEqual(5)
  })

  it('re-arms when the floor fits E again: one pass over E (a large protected result) does not stop compaction for good', () => {
    const step = stepFor({ compaction_notice_enabled: false, max_tokens: 4000, compaction_breaker_passes: 1, protected_tool_results: 1 })
    // The 5,000-token result is the last one (protected at full size): the floor is over E, the pass ends over E, the breaker trips.
    const first = fold(step, [added(user('go')), added(calls(['big'])), added(result('big', 'z'.repeat(20_000))), request({ tokenBudget: 4000 })])
    expect(count(first.steps, 'context:compaction-breaker')).toBe(1)
    expect(first.state.compaction.breaker.tripped).toBe(true)
    // A later small result takes the protection: the floor fits E again, so the next request compacts and fits.
    const later = fold(step, [added(calls(['small'])), added(result('small', 'ok')), request({ tokenBudget: 4000 })], first.state)
    const view = later.steps[later.steps.length - 1].view
    expect(count(later.steps, 'context:compaction')).toBe(1)
    expect(view).toBeDefined()
    expect(tokens(view ?? [])).toBeLessThanOrEqual(4000)
    expect(later.state.compaction.breaker.tripped).toBe(false)
  })

  it('re-arms when the budget changes, and a pass that fits resets the count', () => {
    const step = stepFor({ ...base, compaction_breaker_passes: 2 })
    const tripped = fold(step, session(messages, 4000)).state
    expect(tripped.compaction.breaker.tripped).toBe(true)
    const bigger = fold(step, [request({ tokenBudget: 100_000 })], tripped)
    expect(bigger.state.compaction.breaker).toMatchObject({ tripped: false, overBudgetPasses: 0 })
  })

  it('clear and set_messages reset the guard state', () => {
    const step = stepFor({ ...base, compaction_breaker_passes: 1 })
    const tripped = fold(step, session(messages, 4000)).state
    expect(fold(step, [{ type: 'history_cleared' }], tripped).state.compaction.breaker.tripped).toBe(false)
    expect(fold(step, [{ type: 'messages_replaced', messages: [] }], tripped).state.compaction.breaker.tripped).toBe(false)
  })

  it('the guard state survives a snapshot round trip', () => {
    const config = configOf({ ...base, compaction_breaker_passes: 1 })
    const tripped = fold(stepFor(config), session(messages, 4000)).state
    const decoded = decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(config, tripped))))
    expect(decoded._tag === 'Right' && decoded.right.state.compaction).toEqual({ ...tripped.compaction, infeasible: true, breaker: { overBudgetPasses: 1, tripped: true, budget: 4000 } })
  })
})
