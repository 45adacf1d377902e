// Least recently referenced first (src/core/compaction/reference-order.ts, `compaction_order`):
// the handles a message provides and a later message uses, the last use of each position and tool
// group, the visit order, and the ladder under the key on hand-made histories (the default keeps
// the contract's oldest-first order).
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import { makePassContext } from '../../../src/core/compaction/context.js'
import { runLadder } from '../../../src/core/compaction/ladder.js'
import { addHandles, toLastUse, toUnitSizes, toVisitOrder } from '../../../src/core/compaction/reference-order.js'
import { toStickyDraft } from '../../../src/core/compaction/sticky.js'
import { EMPTY_STICKY } from '../../../src/core/state.js'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import type { Message } from '../../../src/core/messages/message.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import { estimateMessages, estimateOne } from '../../../src/core/meter/estimate.js'

const handles = (text: string): string[] => {
  const into = new Set<string>()
  addHandles(text, into)
  return [...into]
}

const call = (id: string, name: string, args: Record<string, unknown>): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
})
const result = (id: string, content: string): Message => ({ role: 'tool', tool_call_id: id, content })
const say = (role: 'user' | 'assistant', content: string): Message => ({ role, content })

describe('addHandles', () => {
  it('takes ids, numbers, snake names, paths and dotted names; not words of prose', () => {
    expect(handles('Flight HAT076 on 2024-05-20 for mia_li_3668 costs 1250 dollars.')).toEqual(['HAT076', '2024-05-20', 'mia_li_3668', '1250'])
    expect(handles('see /repo/src/parser.ts:42, then README.md')).toEqual(['repo/src/parser.ts:42', 'repo/src/parser.ts', 'parser.ts', 'README.md'])
    expect(handles('The well-known answer is no. Use e.g. that, ok? 12 of 7')).toEqual([])
  })
  it('trims joiners at both ends and skips runs too long to be a handle', () => {
    expect(handles('--id_7-- .../x/y...')).toEqual(['id_7', 'x/y'])
    expect(handles(`a${'b1'.repeat(100)}`)).toEqual([])
  })
})

describe('toLastUse', () => {
  it('is the latest later user or assistant message using a handle the message provides', () => {
    const working: Message[] = [
      say('user', 'I am mia_li_3668'),
      call('a', 'get_user', { user_id: 'mia_li_3668' }),
      result('a', '{"reservations":["HAT076","ZZ9001"]}'),
      say('assistant', 'You have two reservations.'),
      call('b', 'get_reservation', { reservation_id: 'HAT076' }),
      result('b', '{"flight":"HAT076","price":1250}'),
      say('user', 'cancel HAT076'),
    ]
    // the user message at 0 is used by the call at 1; the group 1-2 was last used at 6 (HAT076)
    expect(toLastUse(working)).toEqual([1, 6, 6, 3, 6, 6, 6])
  })
  it('later tool results and a repeat of the same call arguments are not uses', () => {
    const working: Message[] = [
      call('a', 'read', { path: 'src/a.ts' }),
      result('a', 'export const x = 1 // version_2'),
      call('b', 'read', { path: 'src/a.ts' }),
      result('b', 'export const x = 1 // version_2'),
    ]
    expect(toLastUse(working)).toEqual([1, 1, 3, 3])
  })
  it('parameter names of tool calls are not uses; their values are (numbers too)', () => {
    const working: Message[] = [result('x', 'order_id and 4711'), call('c', 'get_order', { order_id: 17 }), say('assistant', 'x'), call('d', 'refund', { amount: 4711 })]
    expect(toLastUse(working)).toEqual([3, 1, 2, 3])
  })
})

describe('toVisitOrder', () => {
  const working: Message[] = [
    say('user', 'help'),
    call('a', 'get_user', { user_id: 'u_1' }),
    result('a', 'payment pm_42, reservation R_77'),
    call('b', 'search', { q: 'x' }),
    result('b', 'flight HAT001 at 0900'),
    say('assistant', 'Using pm_42 to pay.'),
  ]
  it('oldest keeps the positions as given (the contract)', () => {
    expect(toVisitOrder(working, [2, 4], 'oldest')).toEqual([2, 4])
  })
  it('least_referenced visits the group whose content was used last at the end, ties by position', () => {
    expect(toVisitOrder(working, [2, 4], 'least_referenced')).toEqual([4, 2])
    expect(toVisitOrder(working, [0, 1, 2, 3, 4, 5], 'least_referenced')).toEqual([0, 3, 4, 1, 2, 5])
  })
  it('least_referenced_per_token weighs a unit by its tokens times the messages since its last use, largest first', () => {
    const size = (message: Message): number => String(message.content).length
    // sizes: group a (1-2) 31, group b (3-4) 21, 0: 4, 5: 19; last uses: a 5, b 4, 0 0, 5 5; n = 6
    expect(toUnitSizes(working, size)).toEqual([4, 31, 31, 21, 21, 19])
    // weights: 0: 4 x 6 = 24, a: 31 x 1 = 31, b: 21 x 2 = 42, 5: 19 x 1 = 19
    expect(toVisitOrder(working, [0, 1, 2, 3, 4, 5], 'least_referenced_per_token', undefined, size)).toEqual([3, 4, 1, 2, 0, 5])
    // with equal sizes it is least recently referenced first
    expect(toVisitOrder(working, [0, 1, 2, 3, 4, 5], 'least_referenced_per_token', undefined, () => 1)).toEqual([0, 3, 4, 1, 2, 5])
  })
  it('least_referenced_per_token puts a large stale result before a small one unused as long, where least_referenced keeps their age order', () => {
    const stale: Message[] = [
      say('user', 'go'),
      call('s', 'lookup', { key: 'k_s' }),
      result('s', 'small S_1'),
      call('l', 'lookup', { key: 'k_l' }),
      result('l', `large L_2 ${'.'.repeat(2000)}`),
      say('assistant', 'Done.'),
    ]
    expect(toVisitOrder(stale, [2, 4], 'least_referenced')).toEqual([2, 4])
    expect(toVisitOrder(stale, [2, 4], 'least_referenced_per_token')).toEqual([4, 2])
  })
})

describe('the ladder under compaction_order', () => {
  const context = (order: Config['compaction_order']) =>
    makePassContext({ ...DEFAULT_CONFIG, protected_tool_results: 1, protected_recent: 0.2, compaction_order: order }, estimateOne, {}, makeDerivationMemo())
  // Four lookups; the second one's record is what the conversation keeps coming back to.
  const history: Message[] = ([
    say('user', 'Book the cheapest of my options.'),
    call('a', 'lookup', { key: 'k_a' }),
    result('a', `option OPT_A1 ${'.'.repeat(400)}`),
    call('b', 'lookup', { key: 'k_b' }),
    result('b', `option OPT_B7 ${'.'.repeat(400)}`),
    call('c', 'lookup', { key: 'k_c' }),
    result('c', `option OPT_C3 ${'.'.repeat(400)}`),
    say('assistant', 'OPT_B7 is cheapest so far.'),
    call('d', 'price', { option: 'OPT_B7' }),
    result('d', `OPT_B7 costs 120 ${'.'.repeat(400)}`),
    say('user', 'Then book OPT_B7.'),
  ] as Message[]).map((message, i) => ({ ...message, metadata: { _seq: i } }))
  const run = (order: Config['compaction_order']) => {
    const draft = toStickyDraft(EMPTY_STICKY)
    const current = estimateMessages(history, estimateOne)
    const ladder = runLadder(history, 0, current, current - 250, draft, context(order))
    return { ladder, removed: [...draft.removed], truncated: [...draft.truncated] }
  }
  it('oldest removes the first group; least_referenced keeps the group the agent still uses and removes an unused one', () => {
    const oldest = run('oldest')
    const used = run('least_referenced')
    const holds = (view: ReadonlyArray<Message>, text: string): boolean => view.some((message) => String(message.content).includes(text))
    // the contract removes the two oldest groups, the record in use among them
    expect(oldest.removed).toEqual([1, 2, 3, 4])
    expect(holds(oldest.ladder.working, 'option OPT_B7')).toBe(false)
    // least recently referenced: the unused lookups go, the one the agent keeps naming stays
    expect(used.removed).toEqual([1, 2, 5, 6])
    expect(holds(used.ladder.working, 'option OPT_B7')).toBe(true)
    expect(used.ladder.levelReached).toBe(oldest.ladder.levelReached)
    for (const outcome of [oldest, used]) {
      expect(findPairingViolations(outcome.ladder.working)).toEqual([])
      expect(outcome.ladder.working[outcome.ladder.working.length - 1]).toBe(history[history.length - 1])
    }
  })
})

describe('the tool-result waves under compaction_order', () => {
  // Four large lookups; the first one's record is named again at the end, the others are not.
  const history: Message[] = ([
    say('user', 'Compare my options.'),
    call('a', 'lookup', { key: 'k_a' }),
    result('a', `option OPT_A1 ${'.'.repeat(2000)}`),
    call('b', 'lookup', { key: 'k_b' }),
    result('b', `option OPT_B7 ${'.'.repeat(2000)}`),
    call('c', 'lookup', { key: 'k_c' }),
    result('c', `option OPT_C3 ${'.'.repeat(2000)}`),
    call('d', 'lookup', { key: 'k_d' }),
    result('d', `option OPT_D5 ${'.'.repeat(2000)}`),
    say('user', 'Take OPT_A1.'),
  ] as Message[]).map((message, i) => ({ ...message, metadata: { _seq: i } }))
  const wave = (order: Config['compaction_order']) => {
    const context = makePassContext({ ...DEFAULT_CONFIG, protected_tool_results: 1, compaction_order: order }, estimateOne, {}, makeDerivationMemo())
    const draft = toStickyDraft(EMPTY_STICKY)
    const current = estimateMessages(history, estimateOne)
    const ladder = runLadder(history, 0, current, current - 300, draft, context)
    return { level: ladder.levelReached, truncated: [...draft.truncated] }
  }
  it('level 1 shortens the oldest result under "oldest", the least recently referenced under "least_referenced"', () => {
    expect(wave('oldest')).toEqual({ level: 1, truncated: [2] })
    expect(wave('least_referenced')).toEqual({ level: 1, truncated: [4] })
    // equal sizes: the per-token order is the least recently referenced one
    expect(wave('least_referenced_per_token')).toEqual({ level: 1, truncated: [4] })
  })
})

describe('compaction_order key', () => {
  it('defaults to the contract order and rejects other values, naming the key', () => {
    const decoded = decodeConfig({})
    expect(decoded._tag === 'Right' && decoded.right.config.compaction_order).toBe('oldest')
    const wrong = decodeConfig({ compaction_order: 'lru' })
    expect(wrong._tag === 'Left' && wrong.left.message).toMatch(/compaction_order/)
  })
})

describe('the handles across ladder runs', () => {
  it('a message is scanned once: the levels of a run and the next request ranking it read no content again, and the memo keeps only the last run\'s messages', () => {
    let reads = 0
    // Content behind a counting getter; the estimate reads only metadata, so only the handle scan
    // (and the first run's truncations, memoized) reads content.
    const counted = (message: Message, i: number): Message => {
      const { content, ...rest } = message
      const out = { ...rest, metadata: { _seq: i, tokens: 100 } } as Message
      Object.defineProperty(out, 'content', { enumerable: true, get: () => ((reads += 1), content) })
      return out
    }
    const history: Message[] = [
      say('user', 'Compare my options.'),
      call('a', 'lookup', { key: 'k_a' }),
      result('a', 'option OPT_A1'),
      call('b', 'lookup', { key: 'k_b' }),
      result('b', 'option OPT_B7'),
      say('assistant', 'OPT_B7 looks best.'),
      call('c', 'lookup', { key: 'k_c' }),
      result('c', 'option OPT_C3'),
      say('user', 'Take OPT_B7.'),
    ].map(counted)
    const estimate = (message: Message): number => Number((message.metadata as { tokens?: number } | undefined)?.tokens ?? 10)
    const config: Config = { ...DEFAULT_CONFIG, protected_tool_results: 0, protected_recent: 0.1, compaction_order: 'least_referenced' }
    const memo = makeDerivationMemo()
    // one pass context per request, as the request pipeline makes them
    const compact = (list: Message[], current: number) => {
      const draft = toStickyDraft(EMPTY_STICKY)
      const ladder = runLadder(list, 0, current, 600, draft, makePassContext(config, estimate, {}, memo))
      return { level: ladder.levelReached, removed: [...draft.removed] }
    }
    const first = compact(history, 900)
    expect(first.level).toBeGreaterThanOrEqual(3)
    expect(first.removed).toEqual([1, 2, 6, 7])
    expect(reads).toBeGreaterThan(0)
    reads = 0
    expect(compact(history, 900)).toEqual(first)
    expect(reads).toBe(0)
    // a later run over what the first kept: still no scan, and the memo forgets the removed messages
    const kept = history.filter((_, i) => !first.removed.includes(i))
    compact(kept, 500)
    expect(reads).toBe(0)
    const ranked = [...memo.rankedHandles.keys()]
    expect(ranked.length).toBe(kept.length)
    expect(ranked.every((message) => kept.includes(message))).toBe(true)
  })
})
