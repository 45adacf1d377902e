// Unit tests for src/core/compaction/clear-at-least.ts and the worth-the-rebuild verdict in the pass: clear-at-least
// resolution (SPEC 14.1 with 17.6), the skipped event and the fail-loud error (14.3, 14.4), streak
// rules (14.5), and SPEC 17.5: a pass that decided nothing new is never judged, in every meter mode
// (B-CA-1..11).
import { describe, expect, it } from 'vitest'
import { resolveClearAtLeast, toPythonFloat, toSkipLimitMessage, toSkippedPayload } from '../../../src/core/compaction/clear-at-least.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import type { Message } from '../../../src/core/messages/message.js'
import type { State } from '../../../src/core/state.js'
import {
  added,
  assistant,
  calls,
  effectsOf,
  estimateMeterStats,
  fold,
  hookNames,
  meterEvent,
  request,
  result,
  stepFor,
  tokens,
  usage,
  user,
  viewed,
  withMessages,
  workedExampleTurns,
  WORKED_EXAMPLE,
} from '../../support/core.js'


const notNumber = { type: 'log', level: 'warning', message: expect.stringContaining('is not a number') }

describe('clear-at-least resolution (SPEC 14.1, 17.6)', () => {
  it('B-CA-2: the examples of 14.1', () => {
    expect(resolveClearAtLeast(20000, 5)).toEqual({ required: 20000, effects: [] })
    expect(resolveClearAtLeast(20000, 0)).toEqual({ required: 20000, effects: [] })
    expect(resolveClearAtLeast(0.25, 100_000)).toEqual({ required: 25_000, effects: [] })
    expect(resolveClearAtLeast(0.25, 0)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast(0.25, -10)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast(0.999, 1000)).toEqual({ required: 999, effects: [] })
    expect(resolveClearAtLeast(1.0, 100_000)).toEqual({ required: 1, effects: [] })
    expect(resolveClearAtLeast(2.9, 100_000)).toEqual({ required: 2, effects: [] })
    expect(resolveClearAtLeast('nonsense', 1000)).toEqual({ required: 0, effects: [notNumber] })
    expect(resolveClearAtLeast(-0.5, 1000)).toEqual({ required: 0, effects: [] })
  })

  it('null, 0 and negatives disable; numeric strings and booleans convert as Python float() does', () => {
    expect(resolveClearAtLeast(null, 1000)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast(0, 1000)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast(-5, 1000)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast('20000', 1)).toEqual({ required: 20000, effects: [] })
    expect(resolveClearAtLeast(' 1e4 ', 1)).toEqual({ required: 10000, effects: [] })
    expect(resolveClearAtLeast('0.5', 1000)).toEqual({ required: 500, effects: [] })
    expect(resolveClearAtLeast('1_000', 1)).toEqual({ required: 1000, effects: [] })
    expect(resolveClearAtLeast(true, 1000)).toEqual({ required: 1, effects: [] })
    expect(resolveClearAtLeast(false, 1000)).toEqual({ required: 0, effects: [] })
    expect(resolveClearAtLeast('', 1000)).toEqual({ required: 0, effects: [notNumber] })
    expect(resolveClearAtLeast('1e', 1000)).toEqual({ required: 0, effects: [notNumber] })
  })

  it('17.6: non-finite floors ("inf", "nan") disable the predicate with a warning; −inf just disables it', () => {
    for (const raw of ['inf', 'nan', 'Infinity', ' NaN ', '+inf']) expect(resolveClearAtLeast(raw, 1000)).toEqual({ required: 0, effects: [notNumber] })
    expect(resolveClearAtLeast('-inf', 1000)).toEqual({ required: 0, effects: [] })
  })

  it('toPythonFloat', () => {
    expect(toPythonFloat(' 1e4 ')).toBe(10000)
    expect(toPythonFloat('.5')).toBe(0.5)
    expect(toPythonFloat('5.')).toBe(5)
    expect(toPythonFloat('-2.5E-1')).toBe(-0.25)
    expect(toPythonFloat('abc')).toBeNull()
    expect(toPythonFloat('1__0')).toBeNull()
    expect(toPythonFloat(null)).toBeNull()
    expect(toPythonFloat([])).toBeNull()
  })
})

describe('skipped payload and fail-loud text (SPEC 14.3, 14.4)', () => {
  const refusal = {
    freed: 3882,
    required: 20000,
    levelReached: 8,
    streak: 2,
    cap: 2,
    baseline: Array.from({ length: 80 }, (_, i): Message => (i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))),
    baselineTokens: 4035,
    effective: 1200,
  }
  const config = { ...DEFAULT_CONFIG, compact_clear_at_least: 20000, protected_tool_results: 1, protected_recent: 0.2 }

  it('the exact example message of 14.4', () => {
    expect(toSkipLimitMessage(config, refusal)).toBe(
      'context-simple: compact_clear_at_least=20000 could not be satisfied 2 consecutive times (cap: 2). The compaction ladder reached level 8 and freed only 3,882 tokens against a required floor of 20,000. Protected set holding the floor: protected_tool_results=1 (of 0 tool results in the view), protected_recent=20% of 80 messages. Baseline view is 4,035 tokens against a budget of 1,200. Lower compact_clear_at_least, lower protected_recent/protected_tool_results, or raise the budget -- compacting harder will not help.',
    )
  })

  it('<RAW> is the configured value in Python repr; <TOOLS> counts tool messages of the baseline', () => {
    const withTools = { ...refusal, baseline: [...refusal.baseline.slice(0, 78), calls(['c']), result('c', 'x')] }
    expect(toSkipLimitMessage({ ...config, compact_clear_at_least: '20000' }, withTools)).toMatch(/^context-simple: compact_clear_at_least='20000' could not .*protected_tool_results=1 \(of 1 tool results in the view\)/)
    expect(toSkipLimitMessage({ ...config, compact_clear_at_least: 0.15 }, refusal)).toMatch(/^context-simple: compact_clear_at_least=0\.15 could not/)
    expect(toSkipLimitMessage({ ...config, compact_clear_at_least: true }, refusal)).toMatch(/^context-simple: compact_clear_at_least=True could not/)
    expect(toSkipLimitMessage({ ...config, compact_clear_at_least: 10_000_000 }, { ...refusal, streak: 3 })).toMatch(/^context-simple: compact_clear_at_least=10000000 could not be satisfied 3 consecutive times \(cap: 2\)\./)
  })

  it('the skipped payload has the keys of SPEC 9 in order', () => {
    const payload = toSkippedPayload(config, refusal)
    expect(payload).toEqual({
      freed_tokens: 3882,
      required_tokens: 20000,
      level_reached: 8,
      consecutive_skips: 2,
      max_consecutive_skips: 2,
      baseline_tokens: 4035,
      budget: 1200,
      protected_recent: 0.2,
      protected_tool_results: 1,
    })
    expect(Object.keys(payload)).toEqual(['freed_tokens', 'required_tokens', 'level_reached', 'consecutive_skips', 'max_consecutive_skips', 'baseline_tokens', 'budget', 'protected_recent', 'protected_tool_results'])
  })
})

describe('the verdict in request flows (SPEC 14.2–14.5)', () => {
  const history = workedExampleTurns()

  const run = (raw: Readonly<Record<string, unknown>>, initial?: (state: State) => State) => {
    const step = stepFor({ ...WORKED_EXAMPLE, ...raw })
    const filled = withMessages(step, history)
    const state = initial === undefined ? filled : initial(filled)
    return { step, state, next: step(state, request()) }
  }

  it('B-CA-1: null, 0 and negative floors behave exactly like no option', () => {
    const reference = run({}).next
    for (const floor of [null, 0, -5, -0.5, '-inf']) {
      const { next } = run({ compact_clear_at_least: floor })
      expect(next.view).toEqual(reference.view)
      expect(next.effects).toEqual(reference.effects)
      expect(next.state.compaction.stats).toEqual(reference.state.compaction.stats)
      expect(next.state.compaction.skipStreak).toBe(0)
    }
  })

  it('B-CA-3/B-EV-2: an unreachable floor returns the baseline, emits the skipped event and no compaction event (whole step)', () => {
    const { state, next } = run({ compact_clear_at_least: 100_000 })
    const meterStats = estimateMeterStats(2444, 3000)
    expect(next).toEqual({
      state: { ...state, compaction: { ...state.compaction, skipStreak: 1 }, meter: { ...state.meter, stats: meterStats, lastSentEstimate: tokens(state.history.map(viewed)) } },
      view: state.history.map(viewed),
      effects: [
        meterEvent(meterStats),
        {
          type: 'emit_hook',
          name: 'context:compaction-skipped',
          data: {
            freed_tokens: 651,
            required_tokens: 100_000,
            level_reached: 2,
            consecutive_skips: 1,
            max_consecutive_skips: 3,
            baseline_tokens: 2444,
            budget: 3000,
            protected_recent: 0.5,
            protected_tool_results: 4,
          },
        },
      ],
    })
  })

  it('B-CA-5: a floor of 1 is identical to the disabled predicate when the pass frees tokens', () => {
    const reference = run({}).next
    const { next } = run({ compact_clear_at_least: 1 })
    expect(next.view).toEqual(reference.view)
    expect(next.effects).toEqual(reference.effects)
    expect(next.state.compaction.sticky).toEqual(reference.state.compaction.sticky)
  })

  it('B-CA-5: a pass whose only new decision is a short result recorded as truncated frees 0 and is refused', () => {
    const messages = [user('ask'), calls(['c0']), result('c0', 'ok'), user('x'.repeat(4000))]
    const raw = { compaction_notice_enabled: false, compact_threshold: 0.5, protected_recent: 1.0, protected_tool_results: 0 }
    const disabled = stepFor(raw)
    const accepted = disabled(withMessages(disabled, messages), request({ tokenBudget: 1000 }))
    expect(accepted.state.compaction.stats).toMatchObject({ strategy_level: 8, messages_truncated: 1, messages_removed: 0 })
    expect(accepted.state.compaction.stats?.after_tokens).toBe(accepted.state.compaction.stats?.before_tokens)
    const judged = stepFor({ ...raw, compact_clear_at_least: 1 })
    const refused = judged(withMessages(judged, messages), request({ tokenBudget: 1000 }))
    expect(hookNames(refused.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    expect(effectsOf(refused.effects, 'emit_hook')[1].data).toMatchObject({ freed_tokens: 0, required_tokens: 1, level_reached: 8, consecutive_skips: 1 })
    expect(refused.state.compaction.sticky.truncated.size).toBe(0)
  })

  it('B-CA-4/B-CA-6: a refusal after an accepted pass restores the sticky sets, keeps level and stats, measures freed against the sticky baseline, and keeps the old notice', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compaction_notice_enabled: true, compact_clear_at_least: 600 })
    const first = step(withMessages(step, history), request({ tokenBudget: 3800 }))
    expect(hookNames(first.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(first.state.compaction.stats).toMatchObject({ strategy_level: 2, after_tokens: 1793 })
    const notice = first.view?.at(-1)
    const turn = workedExampleTurns(9).slice(24)
    const grown = withMessages(step, turn, first.state)
    const second = step(grown, request({ tokenBudget: 3800 }))
    // The sticky view: t0..t3 truncated plus the new turn.
    const baseline = first.view?.slice(0, -1).concat(grown.history.slice(24).map(viewed))
    expect(second.view).toEqual([...(baseline ?? []), notice])
    expect(hookNames(second.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    const skipped = effectsOf(second.effects, 'emit_hook')[1].data as Record<string, number>
    const baselineTokens = 1793 + tokens(grown.history.slice(24))
    expect(skipped).toMatchObject({ baseline_tokens: baselineTokens, required_tokens: 600, level_reached: 3, consecutive_skips: 1 })
    expect(skipped.freed_tokens).toBeGreaterThan(0)
    expect(skipped.freed_tokens).toBeLessThan(600)
    expect(second.state.compaction.sticky).toEqual(first.state.compaction.sticky)
    expect(second.state.compaction.stats).toBe(first.state.compaction.stats)
    expect(second.state.compaction.skipStreak).toBe(1)
  })

  it('B-CA-4: a refusal with no earlier stats shows no notice', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compaction_notice_enabled: true, compact_clear_at_least: 100_000 })
    const state = withMessages(step, history)
    const next = step(state, request({ tokenBudget: 3800 }))
    expect(next.view).toEqual(state.history.map(viewed))
  })

  it('B-CA-8: reaching the cap fails loud after restoring sticky state; every further refusal throws again', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 100_000, compact_max_consecutive_skips: 2 })
    const state = withMessages(step, history)
    const { steps } = fold(step, [request(), request(), request()], state)
    expect(hookNames(steps[0].effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    const message = (streak: number) =>
      `context-simple: compact_clear_at_least=100000 could not be satisfied ${streak} consecutive times (cap: 2). The compaction ladder reached level 2 and freed only 651 tokens against a required floor of 100,000. Protected set holding the floor: protected_tool_results=4 (of 8 tool results in the view), protected_recent=50% of 24 messages. Baseline view is 2,444 tokens against a budget of 3,000. Lower compact_clear_at_least, lower protected_recent/protected_tool_results, or raise the budget -- compacting harder will not help.`
    const meterStats = estimateMeterStats(2444, 3000)
    expect(steps[1]).toEqual({
      state: { ...steps[0].state, compaction: { ...steps[0].state.compaction, skipStreak: 2 }, meter: { ...steps[0].state.meter, stats: meterStats } },
      view: undefined,
      effects: [meterEvent(meterStats), { type: 'raise_error', name: 'CompactionSkipLimitError', message: message(2) }],
    })
    expect(steps[1].state.compaction.sticky).toEqual({ removed: new Set(), truncated: new Set(), stubbed: new Set(), cumulativeLevel: 0 })
    expect(steps[2].view).toBeUndefined()
    expect(steps[2].effects.at(-1)).toEqual({ type: 'raise_error', name: 'CompactionSkipLimitError', message: message(3) })
    expect(steps[2].state.compaction.skipStreak).toBe(3)
  })

  it('B-CA-9: an accepted judged pass resets the streak; clear() and set_messages() reset it too', () => {
    const seeded = (state: State): State => ({ ...state, compaction: { ...state.compaction, skipStreak: 2 } })
    expect(run({ compact_clear_at_least: 600 }, seeded).next.state.compaction.skipStreak).toBe(0)
    const step = stepFor(WORKED_EXAMPLE)
    expect(step(seeded(withMessages(step, history)), { type: 'history_cleared' }).state.compaction.skipStreak).toBe(0)
    expect(step(seeded(withMessages(step, history)), { type: 'messages_replaced', messages: [] }).state.compaction.skipStreak).toBe(0)
  })

  it('14.5: disabling the predicate, early returns and non-compaction calls leave the streak as it is', () => {
    const seeded = (state: State): State => ({ ...state, compaction: { ...state.compaction, skipStreak: 2 } })
    const disabled = run({}, seeded).next
    expect(hookNames(disabled.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(disabled.state.compaction.skipStreak).toBe(2)
    const step = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 1, compact_max_consecutive_skips: 3 })
    const roomy = step(seeded(withMessages(step, history)), request({ tokenBudget: 1_000_000 }))
    expect(roomy.state.compaction.skipStreak).toBe(2)
  })

  it('B-CA-7: in estimate mode early-return calls are never judged and never add to the streak', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compact_threshold: 0.9, target_usage: 0.8, compact_clear_at_least: 400, compact_max_consecutive_skips: 1 })
    const first = step(withMessages(step, history), request({ tokenBudget: 2600 }))
    expect(first.state.compaction.stats).toMatchObject({ strategy_level: 2, after_tokens: 1955 })
    const { steps, state } = fold(step, [request({ tokenBudget: 2600 }), added(user('more')), request({ tokenBudget: 2600 }), request({ tokenBudget: 2600 })], first.state)
    for (const next of [steps[0], steps[2], steps[3]]) {
      expect(hookNames(next.effects)).toEqual(['context:token_meter'])
      expect(next.view).toBeDefined()
    }
    expect(state.compaction.skipStreak).toBe(0)
  })

  it('17.5: a re-escalation that decides nothing new is not judged (estimate mode), even with a cap of 1', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 600, compact_max_consecutive_skips: 1 })
    const first = step(withMessages(step, history), request())
    // Target 0.6 above threshold 0.5: the next request escalates again but everything is already decided.
    const second = step(first.state, request())
    expect(hookNames(second.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(second.state.compaction.stats).toMatchObject({ strategy_level: 2, after_tokens: 1793 })
    expect(second.state.compaction.skipStreak).toBe(0)
    expect(second.view).toEqual(first.view)
  })

  it('17.5: in actual mode a pass escalated by the measurement that decides nothing is never judged', () => {
    const messages = [user('x'.repeat(400)), assistant('y'.repeat(400))]
    const step = stepFor({ token_meter: 'actual', compaction_notice_enabled: false, compact_clear_at_least: 1, compact_max_consecutive_skips: 1 })
    const state = step(withMessages(step, messages), usage({ input_tokens: 950 })).state
    const seeded: State = { ...state, compaction: { ...state.compaction, skipStreak: 5 } }
    const { steps } = fold(step, [request({ tokenBudget: 1000 }), request({ tokenBudget: 1000 })], seeded)
    for (const next of steps) {
      expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
      expect(next.state.compaction.stats).toMatchObject({ strategy_level: 1, before_tokens: 251, after_tokens: 251 })
      expect(next.state.compaction.skipStreak).toBe(5)
      expect(effectsOf(next.effects, 'raise_error')).toEqual([])
    }
  })

  it('17.5: in hybrid mode a usage-driven pass that decides nothing is never judged', () => {
    const messages = [user('x'.repeat(400)), assistant('y'.repeat(400))]
    const step = stepFor({ token_meter: 'hybrid', compaction_notice_enabled: false, compact_clear_at_least: 1, compact_max_consecutive_skips: 1 })
    const { state } = fold(step, [request({ tokenBudget: 1000 }), usage({ input_tokens: 950 })], withMessages(step, messages))
    const next = step(state, request({ tokenBudget: 1000 }))
    expect(next.state.meter.stats).toMatchObject({ kind: 'usage', used_tokens: 950 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(next.state.compaction.skipStreak).toBe(0)
    expect(next.view).toBeDefined()
  })

  it('B-CA-10: two refused requests separated by one turn are prefix-identical, and no stored _seq changes', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compact_clear_at_least: 100_000, compact_max_consecutive_skips: 5 })
    const state = withMessages(step, history)
    const first = step(state, request())
    const grown = withMessages(step, workedExampleTurns(9).slice(24), first.state)
    const second = step(grown, request())
    expect(hookNames(second.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    expect(second.view?.slice(0, first.view?.length)).toEqual(first.view)
    expect(second.state.history.slice(0, 24)).toEqual(state.history)
    expect(second.state.compaction.skipStreak).toBe(2)
  })

  it('B-CA-11: a non-numeric or non-finite floor disables the predicate with a warning, and compaction proceeds', () => {
    const reference = run({}).next
    for (const floor of ['nonsense', 'inf', 'nan']) {
      const { next } = run({ compact_clear_at_least: floor })
      expect(next.view).toEqual(reference.view)
      expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
      expect(effectsOf(next.effects, 'log')).toEqual([notNumber])
    }
  })
})
