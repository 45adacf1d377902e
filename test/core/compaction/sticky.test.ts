// Unit tests for src/core/compaction/sticky.ts: recording decisions by _seq and re-applying them
// (SPEC 7, B-SK-1..5, A-12), including the sticky-only requests of SPEC 17.1.
import { describe, expect, it } from 'vitest'
import { makePassContext } from '../../../src/core/compaction/context.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import { applySticky, hasNewDecision, recordRemoved, recordStubbed, recordTruncated, toStickyDraft } from '../../../src/core/compaction/sticky.js'
import { toStub } from '../../../src/core/compaction/stub.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import type { Message, Messages } from '../../../src/core/messages/message.js'
import { EMPTY_STICKY } from '../../../src/core/state.js'
import { truncateToolResult } from '../../../src/core/tool-results/tool-result-budget.js'
import { added, configOf, fold, hookNames, request, result, stepFor, stored, user, viewed, withMessages, workedExampleTurns, WORKED_EXAMPLE } from '../../support/core.js'


/** Early-return friendly variant of 6.8 (threshold 0.9, target 0.8 of E = 2600): compacts to level 2. */
const STABLE = { ...WORKED_EXAMPLE, compaction_notice_enabled: true, compact_threshold: 0.9, target_usage: 0.8 }
const STABLE_BUDGET = 3400 // E = 3400 − 800 = 2600

const withoutEphemeralTail = (view: Messages): Messages => {
  let end = view.length
  while (end > 0) {
    const metadata = view[end - 1].metadata as { ephemeral?: unknown } | undefined
    if (metadata?.ephemeral !== true) break
    end -= 1
  }
  return view.slice(0, end)
}

describe('recording (SPEC 7)', () => {
  it('B-SK-5: recording a removal deletes the same _seq from truncated and stubbed', () => {
    const draft = toStickyDraft(EMPTY_STICKY)
    const a = stored(result('a', 'x'), 4)
    const b = stored(user('y'), 5)
    recordTruncated(draft, a)
    recordStubbed(draft, b)
    expect(draft).toEqual({ removed: new Set(), truncated: new Set([4]), stubbed: new Set([5]) })
    recordRemoved(draft, a)
    recordRemoved(draft, b)
    expect(draft).toEqual({ removed: new Set([4, 5]), truncated: new Set(), stubbed: new Set() })
  })

  it('messages without _seq cannot be recorded', () => {
    const draft = toStickyDraft(EMPTY_STICKY)
    for (const message of [user('no metadata'), { role: 'user', metadata: { _seq: '3' } }, { role: 'tool', metadata: null }]) {
      recordRemoved(draft, message)
      recordTruncated(draft, message)
      recordStubbed(draft, message)
    }
    expect(draft).toEqual({ removed: new Set(), truncated: new Set(), stubbed: new Set() })
  })

  it('toStickyDraft copies the sets; hasNewDecision compares them with the original', () => {
    const sticky = { removed: new Set([1]), truncated: new Set([2]), stubbed: new Set([3]), cumulativeLevel: 4 }
    const draft = toStickyDraft(sticky)
    expect(hasNewDecision(draft, sticky)).toBe(false)
    draft.truncated.add(9)
    expect(sticky.truncated).toEqual(new Set([2]))
    expect(hasNewDecision(draft, sticky)).toBe(true)
    const swapped = toStickyDraft(sticky)
    swapped.stubbed.delete(3)
    swapped.stubbed.add(4)
    expect(hasNewDecision(swapped, sticky)).toBe(true)
    const removed = toStickyDraft(sticky)
    recordRemoved(removed, stored(user('x'), 2))
    expect(hasNewDecision(removed, sticky)).toBe(true)
  })
})

describe('applySticky (SPEC 7)', () => {
  const context = makePassContext({ ...DEFAULT_CONFIG, truncate_chars: 10 }, estimateOne, {}, makeDerivationMemo())
  const messages: Message[] = [
    stored(result('a', 'A'.repeat(40)), 0),
    stored(result('b', 'B'.repeat(40)), 1),
    stored(user('C'.repeat(100)), 2),
    stored(user('plain'), 3),
    { role: 'system', content: 'no seq' },
  ]

  it('drops removed, re-derives truncated then stubbed (in that priority), shares the rest, keeps order', () => {
    const sticky = { removed: new Set([0]), truncated: new Set([0, 1]), stubbed: new Set([0, 1, 2]) }
    const applied = applySticky(messages, sticky, context)
    // Message 1 is both truncated and stubbed: truncation wins.
    expect(applied).toEqual([truncateToolResult(messages[1], context.config, {}).message, toStub(messages[2]), messages[3], messages[4]])
    expect(applied[0].content).toBe('[truncated: ~10 tokens - call tool again if needed] BBBBBBBBBB...')
    expect(applied[2]).toBe(messages[3])
    expect(applied[3]).toBe(messages[4])
  })

  it('with nothing decided the same list comes back', () => {
    expect(applySticky(messages, EMPTY_STICKY, context)).toBe(messages)
  })

  it('re-derivation is memoized: the same message object gives the same derived object', () => {
    const sticky = { removed: new Set<number>(), truncated: new Set([1]), stubbed: new Set([2]) }
    const first = applySticky(messages, sticky, context)
    const second = applySticky(messages, sticky, context)
    expect(second[1]).toBe(first[1])
    expect(second[2]).toBe(first[2])
  })
})

describe('sticky decisions across requests', () => {
  it('B-SK-1: a removed _seq stays removed on every later compaction-path request', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, protected_tool_results: 5 })
    const first = step(withMessages(step, workedExampleTurns()), request())
    expect(first.state.compaction.sticky.removed).toEqual(new Set([1, 2, 4, 5]))
    const { steps } = fold(step, [request(), added(user('more')), request(), request({ tokenBudget: 1_000_000 })], first.state)
    for (const next of [steps[0], steps[2], steps[3]]) {
      const removedContents = next.view?.filter((message) => message.tool_call_id === 't0' || message.tool_call_id === 't1')
      expect(removedContents).toEqual([])
      for (const seq of [1, 2, 4, 5]) expect(next.state.compaction.sticky.removed.has(seq)).toBe(true)
    }
  })

  it('B-SK-2: after growth without a new escalation the new view extends the previous one', () => {
    const step = stepFor(STABLE)
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: STABLE_BUDGET }))
    expect(first.state.compaction.stats?.strategy_level).toBe(2)
    const grown = withMessages(step, [user('ask 8'), { role: 'assistant', content: 'sure' }], first.state)
    const second = step(grown, request({ tokenBudget: STABLE_BUDGET }))
    expect(hookNames(second.effects)).toEqual(['context:token_meter'])
    const before = withoutEphemeralTail(first.view ?? [])
    const after = withoutEphemeralTail(second.view ?? [])
    expect(after.slice(0, before.length)).toEqual(before)
    expect(after.slice(before.length)).toEqual([viewed(stored(user('ask 8'), 24)), viewed(stored({ role: 'assistant', content: 'sure' }, 25))])
    // The notice is still the tail, byte-identical (no new stats).
    expect(second.view?.at(-1)).toEqual(first.view?.at(-1))
  })

  it('B-SK-3: repeating a request with no change gives identical views', () => {
    const step = stepFor(STABLE)
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: STABLE_BUDGET }))
    const second = step(first.state, request({ tokenBudget: STABLE_BUDGET }))
    const third = step(second.state, request({ tokenBudget: STABLE_BUDGET }))
    expect(JSON.stringify(second.view)).toBe(JSON.stringify(first.view))
    expect(JSON.stringify(third.view)).toBe(JSON.stringify(first.view))
  })

  it('B-SK-4: head_tail markers and spill pointers are byte-identical across requests', () => {
    const step = stepFor({
      ...STABLE,
      tool_result_budget_tokens: 10,
      tool_result_shape: 'head_tail',
      tool_result_spill_dir: '/tmp/spill',
    })
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: STABLE_BUDGET }))
    const truncatedContents = (view: Messages | undefined) => (view ?? []).filter((message) => message._truncated === true).map((message) => message.content)
    const contents = truncatedContents(first.view)
    expect(contents.length).toBeGreaterThan(0)
    expect(contents[0]).toMatch(/^\[truncated: ~200 tokens - read \/tmp\/spill\/tool-result-000002-[0-9a-f]{16}\.txt for the full result\] x{20}\n\.\.\.\[760 chars omitted\]\.\.\.\nx{20}$/)
    const second = step(first.state, request({ tokenBudget: STABLE_BUDGET }))
    const sticky = step(second.state, request({ tokenBudget: 1_000_000 }))
    expect(truncatedContents(second.view)).toEqual(contents)
    expect(truncatedContents(sticky.view)).toEqual(contents)
  })

  it('A-12: a configuration change re-derives every truncated message on the next compaction-path request', () => {
    const state = (() => {
      const step = stepFor(STABLE)
      return step(withMessages(step, workedExampleTurns()), request({ tokenBudget: STABLE_BUDGET })).state
    })()
    const wider = stepFor({ ...STABLE, truncate_chars: 60 })
    const next = wider(state, request({ tokenBudget: STABLE_BUDGET }))
    expect(next.view?.[2].content).toBe('[truncated: ~200 tokens - call tool again if needed] ' + 'x'.repeat(60) + '...')
  })

  it('17.1: when the trigger no longer fires, existing decisions are still applied (sticky-only), with no new stats or events', () => {
    const config = configOf(STABLE)
    const step = stepFor(config)
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: STABLE_BUDGET }))
    const roomy = step(first.state, request({ tokenBudget: 1_000_000 }))
    expect(roomy.state.meter.stats?.ratio).toBeLessThan(0.9)
    expect(hookNames(roomy.effects)).toEqual(['context:token_meter'])
    expect(roomy.view).toEqual(first.view)
    expect(roomy.state.compaction.stats).toBe(first.state.compaction.stats)
    expect(roomy.state.compaction.sticky).toBe(first.state.compaction.sticky)
    expect(roomy.state.compaction.skipStreak).toBe(first.state.compaction.skipStreak)
  })

  it('17.1: with no decisions yet, a request under the threshold is the plain history', () => {
    const step = stepFor(STABLE)
    const state = withMessages(step, workedExampleTurns())
    const next = step(state, request({ tokenBudget: 1_000_000 }))
    expect(next.view).toEqual(state.history.map(viewed))
  })
})
