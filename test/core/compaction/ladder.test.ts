// Unit tests for src/core/compaction/ladder.ts (with pass.ts finalize): the outer trigger and the
// progressive levels of SPEC 6 (B-TR-*, B-L*-*, B-ST-1, B-FN-*), the exact worked example of 6.8 with
// protected_tool_results 4 and 5, and 17.2 (the first user message is never removed).
import { describe, expect, it } from 'vitest'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import type { Config } from '../../../src/core/config.js'
import { toStub } from '../../../src/core/compaction/stub.js'
import type { Message, Messages } from '../../../src/core/messages/message.js'
import type { State } from '../../../src/core/state.js'
import type { CompactionStats } from '../../../src/core/stats.js'
import { truncateToolResult } from '../../../src/core/tool-results/tool-result-budget.js'
import {
  NOW,
  assistant,
  calls,
  compactionEvent,
  configOf,
  effectsOf,
  estimateMeterStats,
  hookNames,
  meterEvent,
  request,
  result,
  stepFor,
  stored,
  system,
  tokens,
  user,
  viewed,
  withMessages,
  workedExampleTurns,
  WORKED_EXAMPLE,
} from '../../support/core.js'


const STATS_KEYS = [
  'before_tokens',
  'after_tokens',
  'before_messages',
  'after_messages',
  'messages_removed',
  'messages_truncated',
  'user_messages_stubbed',
  'system_messages_preserved',
  'strategy_level',
  'budget',
  'target_tokens',
  'protected_recent',
  'protected_tool_results',
]

/** Stored forms of `messages` numbered from 0. */
const storedAll = (messages: Messages): Message[] => messages.map((message, index) => stored(message, index))

/** A padded text of exactly `length` characters starting with `tag`. */
const text = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')

/**
 * Compact `history` once with a target of exactly `target` tokens (token budget 2 × target,
 * target_usage 0.5, a low threshold so the trigger fires; notice off so E = budget).
 */
const compactToTarget = (history: Messages, target: number, raw: Readonly<Record<string, unknown>> = {}) => {
  const config = configOf({ compaction_notice_enabled: false, compact_threshold: 0.1, target_usage: 0.5, ...raw })
  const step = stepFor(config)
  const state = withMessages(step, history)
  return { config, state, next: step(state, request({ tokenBudget: 2 * target })) }
}

const truncated = (message: Message, config: Config): Message => truncateToolResult(message, config, {}).message

describe('SPEC 6.8 worked example', () => {
  it('B-L2-1: protected_tool_results 4 stops at level 2 with after_tokens 1,793 (whole step)', () => {
    const config = configOf(WORKED_EXAMPLE)
    const step = stepFor(config)
    const history = workedExampleTurns()
    const state = withMessages(step, history)
    const storedHistory = storedAll(history)
    expect(storedHistory.map((message) => tokens([message]))).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].flatMap((turn) => [turn < 4 ? 26 : 27, 48, 231]),
    )
    expect(tokens(storedHistory)).toBe(2444)

    const next = step(state, request())
    const t0 = next.view?.[2]
    expect(t0).toEqual({
      role: 'tool',
      tool_call_id: 't0',
      content: '[truncated: ~200 tokens - call tool again if needed] ' + 'x'.repeat(50) + '...',
      metadata: { timestamp: NOW },
      _truncated: true,
      _original_tokens: 200,
    })
    expect(Object.keys(t0 as object)).toEqual(['role', 'tool_call_id', 'content', 'metadata', '_truncated', '_original_tokens'])

    const expectedView = storedHistory.map((message, index) =>
      viewed(index % 3 === 2 && index < 12 ? truncated(message, config) : message),
    )
    const stats: CompactionStats = {
      before_tokens: 2444,
      after_tokens: 1793,
      before_messages: 24,
      after_messages: 24,
      messages_removed: 0,
      messages_truncated: 4,
      user_messages_stubbed: 0,
      system_messages_preserved: 0,
      strategy_level: 2,
      budget: 3000,
      target_tokens: 1800,
      protected_recent: 0.5,
      protected_tool_results: 4,
    }
    const meterStats = estimateMeterStats(2444, 3000)
    expect(next).toEqual({
      state: {
        ...state,
        compaction: { ...state.compaction, sticky: { removed: new Set(), truncated: new Set([2, 5, 8, 11]), stubbed: new Set(), cumulativeLevel: 2 }, stats },
        meter: { ...state.meter, stats: meterStats, lastSentEstimate: 1728 },
      },
      view: expectedView,
      effects: [meterEvent(meterStats), compactionEvent(stats)],
    })
    expect(Object.keys(next.state.compaction.stats as object)).toEqual(STATS_KEYS)
    expect(tokens(next.view ?? [])).toBe(1728)
  })

  it('B-L2-2: protected_tool_results 5 protects t3, escalates to level 3 and removes the t0 and t1 groups', () => {
    const config = configOf({ ...WORKED_EXAMPLE, protected_tool_results: 5 })
    const step = stepFor(config)
    const history = workedExampleTurns()
    const state = withMessages(step, history)
    const next = step(state, request())
    const storedHistory = storedAll(history)
    const expectedView = storedHistory
      .filter((_, index) => ![1, 2, 4, 5].includes(index))
      .map((message) => viewed((message.metadata as { _seq: number })._seq === 8 ? truncated(message, config) : message))
    const stats: CompactionStats = {
      before_tokens: 2444,
      after_tokens: 1723,
      before_messages: 24,
      after_messages: 20,
      messages_removed: 4,
      messages_truncated: 1,
      user_messages_stubbed: 0,
      system_messages_preserved: 0,
      strategy_level: 3,
      budget: 3000,
      target_tokens: 1800,
      protected_recent: 0.5,
      protected_tool_results: 5,
    }
    const meterStats = estimateMeterStats(2444, 3000)
    expect(next).toEqual({
      state: {
        ...state,
        compaction: { ...state.compaction, sticky: { removed: new Set([1, 2, 4, 5]), truncated: new Set([8]), stubbed: new Set(), cumulativeLevel: 3 }, stats },
        meter: { ...state.meter, stats: meterStats, lastSentEstimate: tokens(expectedView) },
      },
      view: expectedView,
      effects: [meterEvent(meterStats), compactionEvent(stats)],
    })
  })
})

describe('outer trigger and target (SPEC 6.1, 6.2)', () => {
  const history = workedExampleTurns()

  it('B-TR-1: fires at used/E == compact_threshold exactly, not just above', () => {
    const step = stepFor({ compaction_notice_enabled: false, compact_threshold: 0.5, target_usage: 0.6, truncate_chars: 50 })
    const state = withMessages(step, history)
    const atThreshold = step(state, request({ tokenBudget: 4888 }))
    expect(atThreshold.state.meter.stats?.ratio).toBe(0.5)
    expect(hookNames(atThreshold.effects)).toEqual(['context:token_meter', 'context:compaction'])
    // T = trunc(4888 × 0.6) = 2932 ≥ 2444: level 1 stops before its first candidate, deciding nothing.
    expect(atThreshold.state.compaction.stats).toMatchObject({ strategy_level: 1, target_tokens: 2932, messages_truncated: 0, after_tokens: 2444 })
    const below = step(state, request({ tokenBudget: 4889 }))
    expect(hookNames(below.effects)).toEqual(['context:token_meter'])
    expect(below.state.compaction.stats).toBeNull()
    expect(below.view).toEqual(storedAll(history).map(viewed))
  })

  it('B-TR-2: the target is trunc(E × target_usage) and a level stops as soon as the total is ≤ target', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, target_usage: 0.5 })
    const state = withMessages(step, history)
    // E = 4563, T = trunc(2281.5) = 2281; truncating t0 gives 2444 − 163 = 2281: stop before t1.
    const next = step(state, request({ tokenBudget: 4563 }))
    expect(next.state.compaction.stats).toMatchObject({ target_tokens: 2281, after_tokens: 2281, strategy_level: 1, messages_truncated: 1 })
    expect(next.state.compaction.sticky.truncated).toEqual(new Set([2]))
  })

  it('B-TR-3/B-L8/B-FN-5: a system prompt above the target counts at every level; the ladder reaches 8 and logs OVER BUDGET', () => {
    const messages = [
      system('S'.repeat(4000)),
      user(text('first', 200)),
      assistant(text('a0', 200)),
      user(text('middle', 200)),
      assistant(text('a1', 200)),
      user('last question'),
    ]
    const config = configOf({ compaction_notice_enabled: false, compact_threshold: 0.5, target_usage: 0.5, protected_recent: 0 })
    const step = stepFor(config)
    const state = withMessages(step, messages)
    const next = step(state, request({ tokenBudget: 1000 }))
    const storedHistory = storedAll(messages)
    // Level 3 removes a0, a1 and stubs the middle user; level 8 stubs the first user, then removes
    // the old middle stub, but never the first user's stub (SPEC 17.2).
    const final = [storedHistory[0], toStub(storedHistory[1]), storedHistory[5]]
    const systemTokens = tokens([storedHistory[0]])
    expect(systemTokens).toBeGreaterThan(500)
    const stats: CompactionStats = {
      before_tokens: tokens(storedHistory),
      after_tokens: tokens(final),
      before_messages: 6,
      after_messages: 3,
      messages_removed: 3,
      messages_truncated: 0,
      user_messages_stubbed: 1,
      system_messages_preserved: 1,
      strategy_level: 8,
      budget: 1000,
      target_tokens: 500,
      protected_recent: 0,
      protected_tool_results: 5,
    }
    expect(next.view).toEqual(final.map(viewed))
    expect(next.state.compaction.stats).toEqual(stats)
    expect(next.state.compaction.sticky).toEqual({ removed: new Set([2, 3, 4]), truncated: new Set(), stubbed: new Set([1]), cumulativeLevel: 8 })
    const logs = effectsOf(next.effects, 'log')
    expect(logs).toHaveLength(1)
    expect(logs[0].level).toBe('warning')
    for (const part of ['OVER BUDGET', String(stats.after_tokens), '1000', 'level 8', '500', String(systemTokens), 'system prompt ALONE', 'floor', 'is sent over the budget', 'strict_fit', 'protected_recent']) {
      expect(logs[0].message).toContain(part)
    }
  })

  it('B-FN-5: a result within E logs no OVER BUDGET warning', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const next = step(withMessages(step, history), request())
    expect(effectsOf(next.effects, 'log')).toEqual([])
  })

  it('OVER BUDGET without the system-prompt note when the system share is under the target', () => {
    const messages = [user(text('first', 400)), assistant(text('a', 400)), user(text('last', 4000))]
    const step = stepFor({ compaction_notice_enabled: false, compact_threshold: 0.5, target_usage: 0.5 })
    const next = step(withMessages(step, messages), request({ tokenBudget: 1000 }))
    const logs = effectsOf(next.effects, 'log')
    expect(logs).toHaveLength(1)
    expect(logs[0].message).toContain('OVER BUDGET')
    expect(logs[0].message).not.toContain('ALONE')
  })

  it('B-TR-4: when sticky state alone keeps the view under the threshold, nothing changes (early return)', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, compact_threshold: 0.9, target_usage: 0.8 })
    const state = withMessages(step, history)
    // E = 2600, T = 2080: level 2 truncates t0, t1, t2 (2444 → 1955).
    const first = step(state, request({ tokenBudget: 2600 }))
    expect(first.state.compaction.stats).toMatchObject({ strategy_level: 2, messages_truncated: 3, after_tokens: 1955 })
    // Raw history still fires (2444 / 2600 ≥ 0.9), but the sticky view (1955) is under it.
    const second = step(first.state, request({ tokenBudget: 2600 }))
    const meterStats = estimateMeterStats(2444, 2600)
    expect(second).toEqual({
      state: { ...first.state, meter: { ...first.state.meter, stats: meterStats } },
      view: first.view,
      effects: [meterEvent(meterStats)],
    })
    expect(second.state.compaction.sticky).toBe(first.state.compaction.sticky)
    expect(second.state.compaction.stats).toBe(first.state.compaction.stats)
  })
})

describe('tool-result waves (SPEC 6.3, levels 1, 2, 4, 6)', () => {
  it('B-L1-1: level 1 takes the oldest quarter of the results, level 2 the next quarter', () => {
    const config = configOf({ ...WORKED_EXAMPLE, protected_tool_results: 0 })
    const history = workedExampleTurns()
    // T = 2118 is reached after t0 and t1 (level 1); T = 2117 needs t2 (level 2).
    const step = stepFor(config)
    const state = withMessages(step, history)
    const levelOne = step(state, request({ tokenBudget: Math.ceil(2118 / 0.6) }))
    expect(levelOne.state.compaction.stats).toMatchObject({ target_tokens: 2118, strategy_level: 1, messages_truncated: 2 })
    expect(levelOne.state.compaction.sticky.truncated).toEqual(new Set([2, 5]))
    const levelTwo = step(state, request({ tokenBudget: 3528 })) // trunc(3528 × 0.6) = 2116
    expect(levelTwo.state.compaction.stats).toMatchObject({ target_tokens: 2116, strategy_level: 2, messages_truncated: 3 })
    expect(levelTwo.state.compaction.sticky.truncated).toEqual(new Set([2, 5, 8]))
  })

  it('B-L1-2: protected_tool_results ≥ the count protects every result (removal takes over at level 3)', () => {
    for (const protectedCount of [8, 9]) {
      const step = stepFor({ ...WORKED_EXAMPLE, protected_tool_results: protectedCount })
      const next = step(withMessages(step, workedExampleTurns()), request())
      // Removal drops the groups of t0, t1, t2 (279 tokens each): 2444 − 837 = 1607 ≤ 1800.
      expect(next.state.compaction.stats).toMatchObject({ strategy_level: 3, messages_truncated: 0, messages_removed: 6, after_tokens: 1607 })
      expect(next.state.compaction.sticky.removed).toEqual(new Set([1, 2, 4, 5, 7, 8]))
    }
  })

  it('B-L1-2: protected_tool_results ≤ 0 protects none (level 6 truncates the last result)', () => {
    const messages = [user('ask 0'), calls(['t0']), result('t0', 'x'.repeat(800)), user('thanks')]
    const storedHistory = storedAll(messages)
    for (const protectedCount of [0, -3]) {
      const raw = { protected_recent: 1.0, protected_tool_results: protectedCount }
      const config = configOf({ compaction_notice_enabled: false, ...raw })
      const final = [storedHistory[0], storedHistory[1], truncated(storedHistory[2], config), storedHistory[3]]
      const { next } = compactToTarget(messages, tokens(final), raw)
      expect(next.state.compaction.stats).toMatchObject({ strategy_level: 6, messages_truncated: 1, messages_removed: 0 })
      expect(next.view).toEqual(final.map(viewed))
    }
    // With one protected result nothing can be decided: the ladder runs to level 8 and changes nothing.
    const { next } = compactToTarget(messages, 200, { protected_recent: 1.0, protected_tool_results: 1 })
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 8, messages_truncated: 0, messages_removed: 0, user_messages_stubbed: 0 })
    expect(next.view).toEqual(storedHistory.map(viewed))
  })

  it('B-L1-3: a result with a truthy _truncated is never truncated again', () => {
    const history = workedExampleTurns()
    history[2] = { ...history[2], _truncated: true }
    const config = configOf({ ...WORKED_EXAMPLE, target_usage: 0.66 })
    const step = stepFor(config)
    const state = withMessages(step, history)
    const next = step(state, request())
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 2, messages_truncated: 3 })
    expect(next.state.compaction.sticky.truncated).toEqual(new Set([5, 8, 11]))
    expect(next.view?.[2]).toEqual(viewed(stored(history[2], 2)))
    expect((next.view?.[2].content as string).length).toBe(800)
  })

  it('B-L1-4: exempt results are never truncated and never recorded', () => {
    const history = workedExampleTurns()
    history[2] = { ...history[2], name: 'load_skill' }
    const step = stepFor({ ...WORKED_EXAMPLE, target_usage: 0.66, tool_result_exempt_tools: ['load_skill'] })
    const next = step(withMessages(step, history), request())
    expect(next.state.compaction.sticky.truncated).toEqual(new Set([5, 8, 11]))
    expect(next.view?.[2]).toEqual(viewed(stored(history[2], 2)))
  })

  it('B-L1-5: a short or non-string result processed by a wave is recorded as truncated, unchanged', () => {
    const history = workedExampleTurns()
    history[2] = { ...history[2], content: 'ok' }
    history[5] = { ...history[5], content: [{ type: 'text', text: 'x'.repeat(800) }] }
    // Estimate 2251; T = trunc(3000 × 0.65) = 1950: t0, t1 (unchanged), t2 (−163), t3 (−162) → 1926.
    const step = stepFor({ ...WORKED_EXAMPLE, target_usage: 0.65 })
    const next = step(withMessages(step, history), request())
    expect(next.state.compaction.stats).toMatchObject({ before_tokens: 2251, after_tokens: 1926, strategy_level: 2, messages_truncated: 4 })
    expect(next.state.compaction.sticky.truncated).toEqual(new Set([2, 5, 8, 11]))
    expect(next.view?.[2]).toEqual(viewed(stored(history[2], 2)))
    expect(next.view?.[5]).toEqual(viewed(stored(history[5], 5)))
  })

  it('B-L4-1: level 4 recomputes the results after level 3 and takes the [50%, 75%) slice', () => {
    const history = workedExampleTurns()
    const raw = { protected_recent: 1.0, protected_tool_results: 0, truncate_chars: 50 }
    const config = configOf({ compaction_notice_enabled: false, ...raw })
    const storedHistory = storedAll(history)
    // Everything is in the recent zone at level 3, so levels 1, 2 and 4 truncate t0..t3, then t4.
    const final = storedHistory.map((message, index) => (index % 3 === 2 && index <= 14 ? truncated(message, config) : message))
    const { next } = compactToTarget(history, tokens(final), raw)
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 4, messages_truncated: 5, messages_removed: 0 })
    expect(next.view).toEqual(final.map(viewed))
  })
})

describe('removal (SPEC 6.4, levels 3, 5, 7)', () => {
  const plainHistory = (): Message[] => [
    user('first'),
    ...Array.from({ length: 10 }, (_, i) => assistant(text(`a${i}`, 400))),
    user('last'),
  ]

  it('B-L3-4/B-L3-7: removal is oldest-first, stops at the target, and respects the recent zone of each level', () => {
    const history = plainHistory()
    const storedHistory = storedAll(history)
    const keepAfter = (count: number): Message[] => storedHistory.filter((_, index) => index === 0 || index === 11 || index > count)
    const run = (removedCount: number) => {
      const final = keepAfter(removedCount)
      const { next } = compactToTarget(history, tokens(final), { protected_recent: 0.5 })
      expect(next.view).toEqual(final.map(viewed))
      return next.state.compaction.stats?.strategy_level
    }
    // n = 12, p = 0.5: level 3 may remove positions < 6 (a0..a4).
    expect(run(4)).toBe(3)
    expect(run(5)).toBe(3)
    // a5 needs level 5: on [first, a5..a9, last] (n = 7) p = 0.3 protects positions ≥ 4.
    expect(run(6)).toBe(5)
    expect(run(8)).toBe(5)
    // a8 needs level 7: on [first, a8, a9, last] (n = 4) p = 0.15 protects positions ≥ 3.
    expect(run(9)).toBe(7)
    expect(run(10)).toBe(7)
  })

  it('B-L3-1/2/3/8: users are never removed at 3/5/7; intermediate long users are stubbed oldest-first; first and last never', () => {
    const history = [
      user(text('first', 1000)),
      assistant(text('a0', 400)),
      user(text('second', 1000)),
      assistant(text('a1', 400)),
      user(text('third', 1000)),
      assistant(text('a2', 400)),
      user(text('last', 1000)),
    ]
    const storedHistory = storedAll(history)
    const final = [storedHistory[0], toStub(storedHistory[2]), storedHistory[4], storedHistory[6]]
    const { next } = compactToTarget(history, tokens(final), { protected_recent: 0 })
    expect(next.view).toEqual(final.map(viewed))
    expect(next.state.compaction.sticky).toEqual({ removed: new Set([1, 3, 5]), truncated: new Set(), stubbed: new Set([2]), cumulativeLevel: 3 })
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 3, messages_removed: 3, user_messages_stubbed: 1, after_tokens: tokens(final) })
  })

  it('B-L3-2/B-L8-1..3: under impossible pressure the last user stays whole; level 8 stubs the first user and removes other old stubs', () => {
    const history = [
      user(text('first', 1000)),
      assistant(text('a0', 400)),
      user(text('second', 1000)),
      user(text('third', 1000)),
      user(text('last', 1000)),
    ]
    const storedHistory = storedAll(history)
    const { next } = compactToTarget(history, 10, { protected_recent: 0 })
    expect(next.view).toEqual([toStub(storedHistory[0]), storedHistory[4]].map(viewed))
    expect(next.state.compaction.sticky).toEqual({ removed: new Set([1, 2, 3]), truncated: new Set(), stubbed: new Set([0]), cumulativeLevel: 8 })
  })

  it('17.2: the first user stub survives level 8 and stays in every later view', () => {
    const history = [user(text('first', 1000)), user(text('second', 1000)), user(text('last', 1000))]
    const storedHistory = storedAll(history)
    const { config, next } = compactToTarget(history, 10, { protected_recent: 0 })
    const expected = [toStub(storedHistory[0]), storedHistory[2]].map(viewed)
    expect(next.view).toEqual(expected)
    expect(next.state.compaction.sticky.removed).toEqual(new Set([1]))
    const step = stepFor(config)
    const again = step(next.state, request({ tokenBudget: 20 }))
    expect(again.view).toEqual(expected)
    expect(again.state.compaction.sticky.removed.has(0)).toBe(false)
  })

  it('B-L8-3/A-4: level 8 removes old stubs (caller-supplied ones too) before trunc(n × (1 − 0.3 p)) only', () => {
    const history = [
      user(text('first', 1000)),
      user('[earlier stub A]', { _stubbed: true }),
      user('short'),
      user('[earlier stub B]', { _stubbed: true }),
      user('last'),
    ]
    const storedHistory = storedAll(history)
    // protected_recent 1.0: levels 3/5/7 find nothing to remove or stub (caller stubs are skipped).
    // Level 8 stubs the first user; boundary trunc(5 × 0.7) = 3: stub A (1) goes, stub B (3) stays,
    // and the first user's stub is never removed (17.2).
    const { next } = compactToTarget(history, 10, { protected_recent: 1.0 })
    expect(next.state.compaction.stats?.strategy_level).toBe(8)
    expect(next.view).toEqual([toStub(storedHistory[0]), storedHistory[2], storedHistory[3], storedHistory[4]].map(viewed))
    expect(next.state.compaction.sticky).toEqual({ removed: new Set([1]), truncated: new Set(), stubbed: new Set([0]), cumulativeLevel: 8 })
  })
})

describe('open tool group at the tail (port decision beyond SPEC 6.4)', () => {
  it('never removes an assistant whose calls are still waiting for results, so later results are never orphans', () => {
    const history = [user(text('task', 200)), assistant(text('old answer', 400)), user(text('next', 200)), calls(['late1', 'late2'])]
    const { config, state, next } = compactToTarget(history, 10, { protected_recent: 0 })
    expect(next.view?.at(-1)).toEqual(viewed(stored(calls(['late1', 'late2']), 3)))
    expect(next.state.compaction.sticky.removed.has(1)).toBe(true)
    expect(next.state.compaction.sticky.removed.has(3)).toBe(false)
    const step = stepFor(config)
    const answered = withMessages(step, [result('late1', 'one'), result('late2', 'two')], next.state)
    const later = step(answered, request({ tokenBudget: 20 }))
    expect(findPairingViolations(later.view ?? [])).toEqual([])
  })
})

describe('finalize (SPEC 6.7)', () => {
  it('B-FN-1: compacted views put every system message first in original relative order', () => {
    const history: Message[] = [system('rules'), ...workedExampleTurns(4), system('late system'), ...workedExampleTurns(4).slice(0, 3)]
    const step = stepFor({ ...WORKED_EXAMPLE, protected_tool_results: 2, target_usage: 0.5 })
    const state = withMessages(step, history)
    const uncompacted = step(state, request({ tokenBudget: 100_000 }))
    expect(uncompacted.view?.map((message) => message.role)).toEqual(history.map((message) => message.role))
    const next = step(state, request())
    expect(next.view?.slice(0, 2).map((message) => message.content)).toEqual(['rules', 'late system'])
    expect(next.view?.slice(2).every((message) => message.role !== 'system')).toBe(true)
    expect(next.state.compaction.stats?.system_messages_preserved).toBe(2)
  })

  it('B-FN-2: stats carry exactly the keys of 6.7 in order, with cumulative set sizes', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, protected_tool_results: 5 })
    const first = step(withMessages(step, workedExampleTurns()), request())
    expect(Object.keys(first.state.compaction.stats as object)).toEqual(STATS_KEYS)
    expect(first.state.compaction.sticky.removed).toEqual(new Set([1, 2, 4, 5]))
    const grown = withMessages(step, workedExampleTurns(2), first.state)
    const second = step(grown, request())
    // The second pass keeps the first pass's removals and adds its own: the counts are set sizes.
    const { removed, truncated, stubbed } = second.state.compaction.sticky
    for (const seq of [1, 2, 4, 5]) expect(removed.has(seq)).toBe(true)
    expect(removed.size).toBeGreaterThan(4)
    expect(second.state.compaction.stats).toMatchObject({ messages_removed: removed.size, messages_truncated: truncated.size, user_messages_stubbed: stubbed.size })
  })

  it('B-FN-4/A-8: strategy_level never decreases; a re-escalation reaching level 1 keeps the cumulative level', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const first = step(withMessages(step, workedExampleTurns()), request())
    // Target (0.6) above threshold (0.5): the sticky view (1793) still needs escalation on every request.
    const second = step(first.state, request())
    expect(hookNames(second.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(second.state.compaction.stats).toEqual(first.state.compaction.stats)
    expect(second.state.compaction.stats).not.toBe(first.state.compaction.stats)
    expect(second.state.compaction.sticky.cumulativeLevel).toBe(2)
    expect(second.view).toEqual(first.view)
  })

  it('messages without _seq (the factory prompt) are never recorded', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const state = withMessages(step, workedExampleTurns())
    const next = step(state, request({ systemPrompt: 'You are helpful.' }))
    expect(next.view?.[0]).toEqual({ role: 'system', content: 'You are helpful.' })
    expect(next.state.compaction.stats?.system_messages_preserved).toBe(1)
    const all = [...next.state.compaction.sticky.removed, ...next.state.compaction.sticky.truncated, ...next.state.compaction.sticky.stubbed]
    expect(all.length).toBeGreaterThan(0)
    expect(all.every((seq) => Number.isInteger(seq) && seq >= 0 && seq < 24)).toBe(true)
    // The factory prompt takes part in every count: 2444 + 12 tokens needs level 3 here (6.8 alone stops at 2).
    expect(next.state.compaction.stats).toMatchObject({ before_tokens: 2456, strategy_level: 3 })
  })
})

describe('stubs (SPEC 6.6, B-ST-1)', () => {
  it('the 118-character example', () => {
    const content = 'Please refactor the payment module so that every\ncurrency conversion goes through the new rates service and add tests.'
    expect([...content].length).toBe(118)
    const message = { role: 'user', content, metadata: { _seq: 3 } }
    const stub = toStub(message)
    expect(stub).toEqual({
      role: 'user',
      content: '[User message compacted - original: "Please refactor the payment module so that every c..."]',
      metadata: { _seq: 3 },
      _stubbed: true,
      _original_length: 118,
    })
    expect(Object.keys(stub)).toEqual(['role', 'content', 'metadata', '_stubbed', '_original_length'])
  })

  it('counts code points, strips the preview, and leaves short or non-string content alone', () => {
    const emoji = '😀'.repeat(81)
    expect(toStub(user(emoji))).toEqual({ role: 'user', content: `[User message compacted - original: "${'😀'.repeat(50)}..."]`, _stubbed: true, _original_length: 81 })
    expect(toStub(user(`\n  ${'y'.repeat(100)}`)).content).toBe(`[User message compacted - original: "${'y'.repeat(47)}..."]`)
    const short = user('z'.repeat(80))
    expect(toStub(short)).toBe(short)
    const blocks = user([{ type: 'text', text: 'z'.repeat(200) }])
    expect(toStub(blocks)).toBe(blocks)
  })
})

describe('E ≤ 0 (SPEC 6.1)', () => {
  it('with token_budget 0 the trigger fires only for a threshold ≤ 0, and the pass only moves system messages first', () => {
    const history = [user('a'), system('late'), user('b')]
    const step = stepFor({ compact_threshold: 0 })
    const state: State = withMessages(step, history)
    const next = step(state, request({ tokenBudget: 0 }))
    expect(next.view).toEqual([history[1], history[0], history[2]].map((message, index) => viewed(stored(message, [1, 0, 2][index]))))
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
    expect(next.state.compaction.stats).toBeNull()
    expect(next.state.meter.stats?.ratio).toBeNull()
  })
})

describe('remove_short_user_messages (off by default = the contract)', () => {
  const thanks = (): Message[] => {
    const history: Message[] = [user('please fix the build '.repeat(6))]
    for (let i = 0; i < 60; i += 1) history.push(user(`thanks ${i}`), { role: 'assistant', content: `ok ${i}` })
    history.push(user('last question'))
    return history
  }
  const compact = (raw: Readonly<Record<string, unknown>>) => {
    const step = stepFor(configOf({ compaction_notice_enabled: false, compact_threshold: 0.1, target_usage: 0.5, protected_recent: 0.1, ...raw }))
    return step(withMessages(step, thanks()), request({ tokenBudget: 400 }))
  }

  it('off: short user messages are never removed, so the view stays over the target', () => {
    const next = compact({})
    expect(next.state.compaction.stats?.strategy_level).toBe(8)
    expect(next.view?.filter((message) => message.role === 'user')).toHaveLength(62)
    expect(next.state.compaction.stats?.after_tokens).toBeGreaterThan(200)
  })

  it('on: old short user messages go at level 8, oldest first, never the first or the last', () => {
    const next = compact({ remove_short_user_messages: true })
    const users = (next.view ?? []).filter((message) => message.role === 'user').map((message) => String(message.content))
    expect(users.length).toBeLessThan(62)
    expect(users[0]).toMatch(/^\[User message compacted/)
    expect(users.at(-1)).toBe('last question')
    expect(users.slice(1, -1)).toEqual(users.slice(1, -1).sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1])))
    expect(next.state.compaction.stats?.after_tokens).toBeLessThanOrEqual(200)
    expect(findPairingViolations(next.view ?? [])).toEqual([])
  })
})
