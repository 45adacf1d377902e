// The working set (src/core/compaction/working-set.ts, `working_set_window`): what it keeps and
// removes on hand-made histories, the cut that waits for a removal to pay, and the request stage
// (src/core/request/working-set.ts): off by default (the contract's views unchanged), on it sends
// the working set, keeps tool groups whole and the last two messages.
import { isLeft } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import { toMessageHandles } from '../../../src/core/compaction/reference-order.js'
import { selectWorkingSet, type WorkingSetTools } from '../../../src/core/compaction/working-set.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import type { Message } from '../../../src/core/messages/message.js'
import { added, calls, configOf, effectsOf, fold, hookNames, request, result, stepFor, user, assistant } from '../../support/core.js'

const tools = (size = 10): WorkingSetTools => ({ handles: toMessageHandles, estimate: () => size, isAnchor: (message) => message.role === 'user' })
const seq = (messages: Message[]): Message[] => messages.map((message, i) => ({ ...message, metadata: { _seq: i } }))
const callOf = (id: string, args: Record<string, unknown>): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify(args) } }],
})

describe('selectWorkingSet', () => {
  it('keeps the window, the units providing a handle the window uses, and the always-kept messages; removes the rest', () => {
    const list = seq([
      user('I am mia_li_3668'),
      callOf('a', { user_id: 'mia_li_3668' }),
      { role: 'tool', tool_call_id: 'a', content: '{"reservations":["HAT076","XYZ123"]}' },
      assistant('You have two reservations.'),
      user('What is the weather?'),
      assistant('Sunny today.'),
      user('Cancel HAT076 please'),
      assistant('Cancelling HAT076.'),
    ])
    const set = selectWorkingSet(list, { window: 2, capacity: 0, payback: 100 }, tools())
    // the tool group providing HAT076 stays whole; the user message giving the id is not used by the window
    expect(set.kept).toEqual([false, true, true, false, false, false, true, true])
    expect(set.removable).toEqual([0, 3, 4, 5])
    expect(set.tokens).toBe(40)
  })

  it('the least recently used fill keeps the units used last while they fit the capacity', () => {
    const list = seq([
      user('My id is mia_li_3668 and pm_42'),
      assistant('noted'),
      user('use pm_42'),
      assistant('ok'),
      user('hello'),
      assistant('hi'),
    ])
    expect(selectWorkingSet(list, { window: 2, capacity: 0, payback: 100 }, tools()).removable).toEqual([0, 1, 2, 3])
    // 10 tokens of room: the unit used last (position 3, by its own arrival)
    expect(selectWorkingSet(list, { window: 2, capacity: 10, payback: 100 }, tools()).removable).toEqual([0, 1, 2])
    // 30 tokens: then the two that provide pm_42, used at position 2 (newest first), not position 1, newer than 0 but never used
    const filled = selectWorkingSet(list, { window: 2, capacity: 30, payback: 100 }, tools())
    expect(filled.kept).toEqual([true, false, true, true, true, true])
    expect(filled.removable).toEqual([1])
  })

  it('removes from the cut that pays: a removal far back waits while the kept tokens after it outweigh what it frees', () => {
    const list = seq([user('old question'), assistant('old answer'), user('HAT076?'), assistant('HAT076 is booked'), user('fine'), assistant('bye')])
    // position 2 is kept for its HAT076 only when the window reaches position 3: window 3 keeps 3..5, and 2 by reference
    const paying = selectWorkingSet(list, { window: 3, capacity: 0, payback: 3 }, tools())
    expect(paying.kept).toEqual([false, false, true, true, true, true])
    // freeing 20 re-bills 40 (positions 2-5): with payback 1 nothing is worth it, with 3 it is
    expect(selectWorkingSet(list, { window: 3, capacity: 0, payback: 1 }, tools()).removable).toEqual([])
    expect(paying.removable).toEqual([0, 1])
  })

  it('never removes the last two messages, the last user message, an open tool group, a result without its call or a message without _seq', () => {
    const list: Message[] = [
      ...seq([user('first'), user('the task'), assistant('working'), { role: 'tool', tool_call_id: 'orphan', content: 'x' }, assistant('more')]),
      { role: 'assistant', content: 'no seq' },
      { ...callOf('open', { q: 1 }), metadata: { _seq: 10 } },
    ]
    const set = selectWorkingSet(list, { window: 1, capacity: 0, payback: 100 }, tools())
    expect(set.removable).toEqual([0, 2, 4])
  })

  it('is deterministic and leaves its input alone', () => {
    const list = seq([user('a_1'), assistant('b_2'), user('c'), assistant('a_1 again'), user('d')])
    const copy = structuredClone(list)
    const first = selectWorkingSet(list, { window: 2, capacity: 5, payback: 2 }, tools())
    expect(selectWorkingSet(list, { window: 2, capacity: 5, payback: 2 }, tools())).toEqual(first)
    expect(list).toEqual(copy)
  })
})

describe('the working-set stage', () => {
  const session = (): Message[] =>
    Array.from({ length: 10 }, (_, i) => [user(`question ${i} about item_${i}`), calls([`c${i}`]), result(`c${i}`, `result for item_${i} `.padEnd(400, '.'))]).flat()

  it('is off by default: the view is the contract\'s with or without the defaults of the other working-set keys', () => {
    const events = session().map((message) => added(message))
    const plain = fold(stepFor({}), events).state
    const view = stepFor({})(plain, request({ tokenBudget: 100_000 })).view
    const keyed = stepFor({ working_set_capacity: 0.5, working_set_payback: 3 })
    expect(keyed(fold(keyed, events).state, request({ tokenBudget: 100_000 })).view).toEqual(view)
    expect(view?.length).toBe(30)
  })

  it('under working_set_window sends the working set well under the budget, keeps groups whole and the last two messages', () => {
    const config = configOf({ working_set_window: 2, working_set_capacity: 0, working_set_payback: 10 })
    const step = stepFor(config)
    const messages = session()
    const { state } = fold(step, messages.map((message) => added(message)))
    const out = step(state, request({ tokenBudget: 100_000 }))
    const view = out.view ?? []
    expect(findPairingViolations(view)).toEqual([])
    expect(view.slice(-2).map((message) => message.content)).toEqual(messages.slice(-2).map((message) => message.content))
    // the last user message and its group; everything older unused is gone
    expect(view.length).toBe(3)
    // the decisions are sticky: the next request, with one more message, does not bring them back
    const next = step(step(out.state, { type: 'message_added', message: assistant('done'), timestamp: '2026-01-01T00:00:00.000+00:00' }).state, request({ tokenBudget: 100_000 }))
    expect(next.view?.length).toBeLessThanOrEqual(4)
  })

  it('a request whose working set removes finalizes like a summary-only swap (SPEC 6.2 step 9, SPEC 9): one context:compaction at level 0 with the removals counted; a request that removes nothing more emits none', () => {
    const step = stepFor({ working_set_window: 2, working_set_capacity: 0, working_set_payback: 10 })
    const { state } = fold(step, session().map((message) => added(message)))
    // far under the threshold: the trigger does not fire, only the working set removes
    const out = step(state, request({ tokenBudget: 100_000 }))
    expect(hookNames(out.effects)).toEqual(['context:token_meter', 'context:compaction'])
    const stats = effectsOf(out.effects, 'emit_hook').find((effect) => effect.name === 'context:compaction')?.data
    expect(stats).toMatchObject({ before_messages: 30, after_messages: 3, messages_removed: 27, messages_truncated: 0, strategy_level: 0 })
    expect(out.state.compaction.stats).toEqual(stats)
    // level 0 is under the notice's default min level (SPEC 8): nothing appended
    expect(out.view?.length).toBe(3)
    // the same request again: the decisions are re-applied (SPEC 17.1), nothing new, no event
    const again = step(out.state, request({ tokenBudget: 100_000 }))
    expect(again.view).toEqual(out.view)
    expect(hookNames(again.effects)).toEqual(['context:token_meter'])
    expect(again.state.compaction.stats).toBe(out.state.compaction.stats)
  })

  it('rejects out-of-range settings with the key named', () => {
    const error = (raw: Record<string, unknown>): string => {
      const decoded = decodeConfig(raw)
      return isLeft(decoded) ? decoded.left.message : 'accepted'
    }
    expect(error({ working_set_capacity: 1.5 })).toMatch(/working_set_capacity.*0 to 1/)
    expect(error({ working_set_payback: 0 })).toMatch(/working_set_payback.*greater than 0/)
    expect(error({ working_set_window: 0 })).toMatch(/working_set_window.*positive integer/)
    expect(error({ working_set_window: 3, working_set_capacity: 0, working_set_payback: 0.5 })).toBe('accepted')
  })
})
