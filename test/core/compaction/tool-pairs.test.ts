// Unit tests for src/core/compaction/tool-pairs.ts and the removal of tool groups: SPEC 17.3 (groups
// formed by adjacency, duplicate call ids), 6.4 with 17.3, B-TP-1, B-TP-2, B-L3-5, B-L3-6, A-13.
import { describe, expect, it } from 'vitest'
import { endsInOpenToolGroup, isToolCallMessage, selectOpenToolGroupStart, selectResultRunEnd, toCallIds } from '../../../src/core/compaction/tool-pairs.js'
import type { Message, Messages } from '../../../src/core/messages/message.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import { assistant, calls, configOf, request, result, stepFor, stored, tokens, user, viewed, withMessages } from '../../support/core.js'

const storedAll = (messages: Messages): Message[] => messages.map((message, index) => stored(message, index))

const big = (tag: string): string => `${tag} `.padEnd(1200, '.')

/** Compact once with a target of exactly `target` tokens (token budget 2 × target, target_usage 0.5). */
const compactToTarget = (history: Messages, target: number, raw: Readonly<Record<string, unknown>> = {}) => {
  const step = stepFor(configOf({ compaction_notice_enabled: false, compact_threshold: 0.1, target_usage: 0.5, ...raw }))
  const state = withMessages(step, history)
  return step(state, request({ tokenBudget: 2 * target }))
}

describe('call ids and result runs (SPEC 1.1, 17.3)', () => {
  it('toCallIds reads id, else tool_call_id, truthy ones only, in order', () => {
    expect(toCallIds({ role: 'assistant', tool_calls: [{ id: 'a' }, { tool_call_id: 'b' }, { id: '', tool_call_id: 'c' }, { id: 0 }, 'junk', { id: 'a' }] })).toEqual(['a', 'b', 'c', 'a'])
    expect(toCallIds({ role: 'assistant', tool_calls: [] })).toEqual([])
    expect(toCallIds({ role: 'assistant', tool_calls: { id: 'x' } })).toEqual([])
    expect(toCallIds(user('x'))).toEqual([])
  })

  it('isToolCallMessage needs role assistant and truthy tool_calls', () => {
    expect(isToolCallMessage(calls(['a']))).toBe(true)
    expect(isToolCallMessage({ role: 'assistant', tool_calls: [] })).toBe(false)
    expect(isToolCallMessage({ role: 'assistant', tool_calls: null })).toBe(false)
    expect(isToolCallMessage({ role: 'user', tool_calls: [{ id: 'a' }] })).toBe(false)
  })

  it('selectResultRunEnd: the longest adjacent run of tool results answering one of the calls', () => {
    const list: Message[] = [calls(['a', 'b']), result('b', '1'), result('a', '2'), result('c', '3'), result('a', '4')]
    expect(selectResultRunEnd(list, 0)).toBe(3)
    // An interrupting message ends the run; results further on belong elsewhere.
    expect(selectResultRunEnd([calls(['a']), assistant('narration'), result('a', '1')], 0)).toBe(1)
    // A result without a truthy tool_call_id ends the run.
    expect(selectResultRunEnd([calls(['a']), { role: 'tool', content: 'x' }, result('a', '1')], 0)).toBe(1)
    // Duplicate ids: each assistant owns only its adjacent results.
    const duplicated: Message[] = [calls(['dup']), result('dup', 'first'), user('go on'), calls(['dup']), result('dup', 'second')]
    expect(selectResultRunEnd(duplicated, 0)).toBe(2)
    expect(selectResultRunEnd(duplicated, 3)).toBe(5)
    // A message without calls has no run.
    expect(selectResultRunEnd([user('x'), result('a', '1')], 0)).toBe(1)
  })
})

describe('open tool groups (SPEC 17.8)', () => {
  it('selectOpenToolGroupStart finds the assistant of a partly answered or unanswered group at the end', () => {
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b'])])).toBe(1)
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b']), result('a', 'x')])).toBe(1)
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b']), result('b', 'y')])).toBe(1)
    expect(endsInOpenToolGroup([user('go'), calls(['a', 'b']), result('a', 'x')])).toBe(true)
  })

  it('a complete group, a message after the group, or a foreign result closes it', () => {
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b']), result('a', 'x'), result('b', 'y')])).toBe(-1)
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b']), result('a', 'x'), user('stop')])).toBe(-1)
    expect(selectOpenToolGroupStart([user('go'), calls(['a', 'b']), result('z', 'x')])).toBe(-1)
    expect(selectOpenToolGroupStart([user('go'), assistant('hi')])).toBe(-1)
    expect(selectOpenToolGroupStart([])).toBe(-1)
    expect(endsInOpenToolGroup([result('a', 'x')])).toBe(false)
  })

  it('the ladder keeps an open group whether it starts from the assistant or from a result (levels 3, 5, 7)', () => {
    for (const protectedRecent of [0, -1]) {
      const history = [user('run both'), calls(['a', 'b']), result('a', big('a'))]
      const next = compactToTarget(history, 1, { protected_recent: protectedRecent, protected_tool_results: 0 })
      expect(next.state.compaction.stats?.strategy_level).toBe(8)
      expect(next.state.compaction.sticky.removed).toEqual(new Set())
      expect(next.view?.map((message) => message.role)).toEqual(['user', 'assistant', 'tool'])
    }
  })

  it('an older group before the open one is still removable', () => {
    const history = [user('start'), calls(['x']), result('x', big('x')), user('run both'), calls(['a', 'b']), result('a', 'ok')]
    const next = compactToTarget(history, 30, { protected_recent: 0, protected_tool_results: 0 })
    expect(next.state.compaction.sticky.removed).toEqual(new Set([1, 2]))
    expect(findPairingViolations(next.view ?? [])).toEqual([])
  })
})

describe('removing tool groups (SPEC 6.4 with 17.3)', () => {
  it('duplicate call ids: removing the first group leaves the second call with its own result', () => {
    const history = [user('start'), calls(['dup'], 'keep'), result('dup', big('first'), { name: 'keep' }), user('next'), calls(['dup'], 'keep'), result('dup', big('second'), { name: 'keep' }), user('last')]
    const storedHistory = storedAll(history)
    const final = [storedHistory[0], storedHistory[3], storedHistory[4], storedHistory[5], storedHistory[6]]
    const next = compactToTarget(history, tokens(final), { protected_recent: 0, tool_result_exempt_tools: ['keep'] })
    expect(next.view).toEqual(final.map(viewed))
    expect(next.state.compaction.sticky.removed).toEqual(new Set([1, 2]))
    expect(findPairingViolations(next.view ?? [])).toEqual([])
  })

  it('B-L3-6: an orphan result (no assistant with calls right before its run) is never removed', () => {
    const history = [user('start'), result('zz', 'orphan output'), user('next'), assistant(big('plain')), user('last')]
    const storedHistory = storedAll(history)
    const next = compactToTarget(history, 10, { protected_recent: 0 })
    expect(next.state.compaction.stats?.strategy_level).toBe(8)
    expect(next.view).toEqual([storedHistory[0], storedHistory[1], storedHistory[2], storedHistory[4]].map(viewed))
  })

  it('17.3: a result separated from its call by another message is not part of the group', () => {
    const history = [user('start'), calls(['c1']), assistant(big('narration')), result('c1', 'late result'), user('last')]
    const storedHistory = storedAll(history)
    const next = compactToTarget(history, 10, { protected_recent: 0 })
    // The call has no adjacent results (removed alone, A-13); the late result is an orphan and stays.
    expect(next.view).toEqual([storedHistory[0], storedHistory[3], storedHistory[4]].map(viewed))
    expect(next.state.compaction.sticky.removed).toEqual(new Set([1, 2]))
  })

  it('A-13: an assistant whose calls have no results yet is removable on its own outside the recent zone', () => {
    const history = [user('start'), calls(['c9'], 'read_file', big('calling')), user('last')]
    const storedHistory = storedAll(history)
    const final = [storedHistory[0], storedHistory[2]]
    const next = compactToTarget(history, tokens(final), { protected_recent: 0 })
    expect(next.view).toEqual(final.map(viewed))
    expect(next.state.compaction.stats?.strategy_level).toBe(3)
  })

  const sixCalls = (): Message[] => {
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']
    return [user('start'), assistant(big('filler')), calls(ids), ...ids.map((id) => result(id, big(id))), user('last')]
  }

  it('B-TP-2/B-L3-5: a six-call assistant with some results in the recent zone keeps all six results right after it', () => {
    const history = sixCalls()
    const storedHistory = storedAll(history)
    const next = compactToTarget(history, 10, { protected_recent: 0.5, protected_tool_results: 6 })
    expect(next.state.compaction.stats?.strategy_level).toBe(8)
    expect(next.view).toEqual(storedHistory.filter((_, index) => index !== 1).map(viewed))
    expect(findPairingViolations(next.view ?? [])).toEqual([])
  })

  it('B-L3-5: with nothing protected the whole group goes at once, never a part of it', () => {
    const history = sixCalls()
    const storedHistory = storedAll(history)
    // A target reachable by removing the filler and one result would split the group; the group goes whole.
    const next = compactToTarget(history, tokens([storedHistory[0], storedHistory[2], ...storedHistory.slice(4)]), { protected_recent: 0, protected_tool_results: 6 })
    expect(next.view).toEqual([storedHistory[0], storedHistory[9]].map(viewed))
    expect(next.state.compaction.sticky.removed).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]))
  })

  it('B-TP-1: well-formed histories with parallel calls never yield a split pair, at any budget', () => {
    const history: Message[] = [user('start: ' + big('task'))]
    for (let turn = 0; turn < 6; turn += 1) {
      const ids = Array.from({ length: (turn % 3) + 1 }, (_, k) => `t${turn}-${k}`)
      history.push(user(`turn ${turn} ` + '.'.repeat(40 * turn)))
      history.push(calls(ids, turn % 2 === 0 ? 'grep' : 'read_file', `thinking ${turn}`))
      for (const id of ids) history.push(result(id, `${id} `.repeat(50 * (turn + 1))))
      history.push(assistant(`done ${turn}`))
    }
    history.push(user('last'))
    const total = tokens(storedAll(history))
    const levels = new Set<number>()
    for (let target = 20; target < total; target += Math.ceil(total / 25)) {
      for (const protectedRecent of [0, 0.3]) {
        const next = compactToTarget(history, target, { protected_recent: protectedRecent, protected_tool_results: 1 })
        expect(findPairingViolations(next.view ?? [])).toEqual([])
        levels.add(next.state.compaction.stats?.strategy_level ?? 0)
      }
    }
    expect(levels.size).toBeGreaterThanOrEqual(4)
  })
})
