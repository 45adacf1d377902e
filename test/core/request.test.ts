// Unit tests for src/core/request/ (the stages of one request): the request pipeline of SPEC 2.3 with 17.1 (B-RQ-1..5,
// B-EV-1, B-EV-2), factory mode (2.3 step 4, 2.6, A-1, A-2) and sticky-only requests.
import { describe, expect, it } from 'vitest'
import { toNoticeText } from '../../src/core/compaction/notice.js'
import type { Message } from '../../src/core/messages/message.js'
import { toWorkingList } from '../../src/core/request/index.js'
import { makeInitialState } from '../../src/core/state.js'
import type { CompactionStats } from '../../src/core/stats.js'
import type { Step } from '../../src/core/step.js'
import {
  effectsOf,
  estimateMeterStats,
  fold,
  hookNames,
  meterEvent,
  request,
  stepFor,
  stored,
  system,
  tokens,
  usage,
  user,
  viewed,
  withMessages,
  workedExampleTurns,
  WORKED_EXAMPLE,
} from '../support/core.js'


const hookSystem = system('hook note', { metadata: { source: 'hook' } })

describe('toWorkingList (SPEC 2.3 step 4)', () => {
  const history = [system('stored rules'), user('a'), hookSystem, user('b'), system('other', { metadata: { source: 'caller' } })].map((message, index) => stored(message, index))

  it('static mode: the stored history itself', () => {
    expect(toWorkingList(history, null)).toBe(history)
  })

  it('factory mode: the factory message (role and content only), then history without non-hook system messages', () => {
    const working = toWorkingList(history, 'You are helpful.')
    expect(working).toEqual([{ role: 'system', content: 'You are helpful.' }, history[1], history[2], history[3]])
    expect(Object.keys(working[0])).toEqual(['role', 'content'])
    expect(working[2]).toBe(history[2])
  })

  it('an empty factory prompt is still factory mode', () => {
    expect(toWorkingList(history, '')).toEqual([{ role: 'system', content: '' }, history[1], history[2], history[3]])
  })
})

describe('requests below the threshold (SPEC 2.3 step 7)', () => {
  it('B-RQ-1: the view is the stored history minus _seq, with no notice (whole step)', () => {
    const step = stepFor()
    const messages = [system('rules'), user('hello'), { role: 'assistant', content: 'hi', metadata: { source: 'x' } }]
    const state = withMessages(step, messages)
    const next = step(state, request())
    const view = messages.map((message, index) => viewed(stored(message, index)))
    const estimated = tokens(state.history)
    const stats = estimateMeterStats(estimated, 199_200)
    expect(next).toEqual({
      state: { ...state, meter: { ...state.meter, stats: stats, lastSentEstimate: tokens(view) } },
      view,
      effects: [meterEvent(stats)],
    })
    expect((next.effects[0] as { data: unknown }).data).not.toBe(next.state.meter.stats)
  })

  it('an empty history gives an empty view with kind none', () => {
    const next = stepFor()(makeInitialState(), request())
    expect(next.view).toEqual([])
    expect(next.state.meter.stats).toMatchObject({ kind: 'none', used_tokens: 0 })
    expect(next.state.meter.lastSentEstimate).toBe(0)
  })

  it('B-RQ-2/3: factory mode puts the factory message first and keeps only hook-injected stored system messages, in place', () => {
    const step = stepFor()
    const messages = [system('stored rules'), user('a'), hookSystem, user('b')]
    const state = withMessages(step, messages)
    const next = step(state, request({ systemPrompt: 'You are helpful.' }))
    expect(next.view).toEqual([{ role: 'system', content: 'You are helpful.' }, ...[1, 2, 3].map((index) => viewed(state.history[index]))])
    expect(next.state.meter.stats?.estimated_tokens).toBe(tokens(toWorkingList(state.history, 'You are helpful.')))
  })

  it('B-RQ-4: the meter budget is the budget minus the reserve; a reserve ≥ the budget leaves the budget', () => {
    const step = stepFor()
    const state = withMessages(step, [user('a')])
    expect(step(state, request({ tokenBudget: 10_000 })).state.meter.stats?.budget).toBe(9_200)
    expect(stepFor({ compaction_notice_token_reserve: 300 })(state, request({ tokenBudget: 10_000 })).state.meter.stats?.budget).toBe(9_700)
    const swallowed = step(state, request({ tokenBudget: 800 }))
    expect(swallowed.state.meter.stats?.budget).toBe(800)
    expect(effectsOf(swallowed.effects, 'log')).toHaveLength(1)
    expect(stepFor({ compaction_notice_enabled: false })(state, request({ tokenBudget: 10_000 })).state.meter.stats?.budget).toBe(10_000)
  })

  it('B-RQ-5: with token_budget 0 compaction never fires and the ratio is null', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const state = withMessages(step, workedExampleTurns())
    const next = step(state, request({ tokenBudget: 0 }))
    expect(next.state.meter.stats).toMatchObject({ budget: 0, ratio: null, used_tokens: 2444 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
    expect(next.view).toEqual(state.history.map(viewed))
    const negative = step(state, request({ tokenBudget: -100 }))
    expect(negative.state.meter.stats).toMatchObject({ budget: -100, ratio: null })
    expect(negative.state.compaction.stats).toBeNull()
  })
})

describe('hook events (SPEC 9, B-EV-1, B-EV-2)', () => {
  const scenarios = (): Array<[string, Step]> => {
    const history = workedExampleTurns()
    const plain = stepFor(WORKED_EXAMPLE)
    const base = withMessages(plain, history)
    const compacted = plain(base, request())
    const refusing = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 100_000, compact_max_consecutive_skips: 1 })
    const skipping = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 100_000 })
    return [
      ['below threshold', plain(base, request({ tokenBudget: 100_000 }))],
      ['compaction', compacted],
      ['sticky-only', plain(compacted.state, request({ tokenBudget: 100_000 }))],
      ['skipped', skipping(base, request())],
      ['fail-loud', refusing(base, request())],
    ]
  }

  it('B-EV-1: exactly one context:token_meter per request, before any compaction event', () => {
    for (const [, next] of scenarios()) {
      const names = hookNames(next.effects)
      expect(names.filter((name) => name === 'context:token_meter')).toHaveLength(1)
      expect(names[0]).toBe('context:token_meter')
      expect(names.length).toBeLessThanOrEqual(2)
      expect(effectsOf(next.effects, 'emit_hook')[0].data).toEqual(next.state.meter.stats)
    }
  })

  it('B-EV-2: context:compaction carries the stored stats; it is absent on early returns, sticky-only requests and refusals', () => {
    const byName = Object.fromEntries(scenarios())
    const compaction = effectsOf(byName.compaction.effects, 'emit_hook')[1]
    expect(compaction).toEqual({ type: 'emit_hook', name: 'context:compaction', data: byName.compaction.state.compaction.stats })
    expect(hookNames(byName['sticky-only'].effects)).toEqual(['context:token_meter'])
    expect(hookNames(byName.skipped.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    expect(hookNames(byName['fail-loud'].effects)).toEqual(['context:token_meter'])
    expect(byName['fail-loud'].effects.at(-1)?.type).toBe('raise_error')
    expect(byName['fail-loud'].view).toBeUndefined()
  })
})

describe('compacted requests (SPEC 2.3 steps 8–11)', () => {
  it('A-1/A-2: in factory mode a compacted view puts the factory message then hook system messages first', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const history: Message[] = [system('stored rules'), ...workedExampleTurns(4), hookSystem, ...workedExampleTurns(8).slice(12)]
    const state = withMessages(step, history)
    const next = step(state, request({ systemPrompt: 'Factory prompt.' }))
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(next.view?.slice(0, 2)).toEqual([{ role: 'system', content: 'Factory prompt.' }, viewed(state.history[13])])
    expect(next.view?.slice(2).some((message) => message.role === 'system')).toBe(false)
    expect(next.state.compaction.stats?.system_messages_preserved).toBe(2)
  })

  it('lastSentEstimate is the estimate of the stripped view actually returned, notice included', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compaction_notice_enabled: true })
    const next = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: 3800 }))
    expect(next.view?.at(-1)?.content).toBe(toNoticeText(next.state.compaction.stats as CompactionStats, 'normal'))
    expect(next.state.meter.lastSentEstimate).toBe(tokens(next.view ?? []))
  })
})

describe('sticky-only requests (SPEC 17.1)', () => {
  const compactedWithNotice = () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compaction_notice_enabled: true })
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: 3800 }))
    return { step, first }
  }

  it('a larger budget re-applies the decisions and appends the same notice, deciding nothing (whole step)', () => {
    const { step, first } = compactedWithNotice()
    const next = step(first.state, request({ tokenBudget: 100_000 }))
    const stats = estimateMeterStats(2444, 99_200)
    expect(next).toEqual({
      state: {
        ...first.state,
        meter: { ...first.state.meter, stats: stats, lastSentEstimate: tokens(first.view ?? []) },
      },
      view: first.view,
      effects: [meterEvent(stats)],
    })
  })

  it('switching to factory mode shrinks the working list: sticky-only, with the factory message first', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compaction_notice_enabled: true, compact_threshold: 0.8 })
    const history: Message[] = [system('S'.repeat(2000)), ...workedExampleTurns()]
    const first = step(withMessages(step, history), request({ tokenBudget: 4300 }))
    expect(hookNames(first.effects)).toEqual(['context:token_meter', 'context:compaction'])
    const next = step(first.state, request({ tokenBudget: 4300, systemPrompt: 'Short.' }))
    expect(next.state.meter.stats?.ratio).toBeLessThan(0.8)
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
    expect(next.view?.[0]).toEqual({ role: 'system', content: 'Short.' })
    expect(next.view?.slice(1)).toEqual(first.view?.slice(1))
    expect(next.state.compaction.stats).toBe(first.state.compaction.stats)
  })

  it('a hybrid provenance refusal with existing decisions takes the sticky-only path and counts the refusal', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, token_meter: 'hybrid' })
    const state = withMessages(step, workedExampleTurns())
    // No reading yet and usage ≥ 100%: the override fires and decides.
    const first = step(state, request({ tokenBudget: 2000 }))
    expect(first.state.meter.provenanceOverrides).toBe(1)
    expect(first.state.compaction.sticky.removed.size + first.state.compaction.sticky.truncated.size).toBeGreaterThan(0)
    // Below 100% on an estimated count: refused, yet the decisions still apply.
    const { steps } = fold(step, [usage({ input_tokens: 0 }), request({ tokenBudget: 4000 })], first.state)
    const refused = steps[1]
    expect(refused.state.meter.stats).toMatchObject({ kind: 'estimated', anchor_rejected: true })
    expect(refused.state.meter.provenanceRefusals).toBe(1)
    expect(hookNames(refused.effects)).toEqual(['context:token_meter'])
    expect(refused.view).toEqual(first.view)
    expect(refused.view).not.toEqual(state.history.map(viewed))
    expect(refused.state.compaction.sticky).toBe(first.state.compaction.sticky)
  })

  it('the meter stats are replaced on every request, compaction or not', () => {
    const { step, first } = compactedWithNotice()
    const next = step(first.state, request({ tokenBudget: 100_000 }))
    expect(next.state.meter.stats).not.toBe(first.state.meter.stats)
    expect(next.state.meter.stats?.budget).toBe(99_200)
  })
})
