// Unit tests for src/core/compaction/refill.ts (`compaction_refill`): hand-made lists where the
// ladder's removal levels end far below the target, and what the refill puts back.
import { describe, expect, it } from 'vitest'
import { makePassContext } from '../../../src/core/compaction/context.js'
import { runLadder } from '../../../src/core/compaction/ladder.js'
import { refillHistory, refillRemoved, toRemovedUnits } from '../../../src/core/compaction/refill.js'
import { applySticky, hasNewDecision, recordRemoved, toStickyDraft } from '../../../src/core/compaction/sticky.js'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import { seqOf, type Message } from '../../../src/core/messages/message.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import { estimateMessages, estimateOne } from '../../../src/core/meter/estimate.js'
import { EMPTY_STICKY } from '../../../src/core/state.js'

const call = (id: string, seq: number, path: string): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: path }) } }],
  metadata: { _seq: seq },
})
const result = (id: string, seq: number, text: string): Message => ({ role: 'tool', tool_call_id: id, content: text, metadata: { _seq: seq } })
const say = (role: 'user' | 'assistant', seq: number, text: string): Message => ({ role, content: text, metadata: { _seq: seq } })

/**
 * The first user message, a small read of a.ts (1,000 characters), a large read of b.ts (12,000
 * characters), an assistant note naming what a.ts holds, then six short turns so the recent zone
 * is the end of the list.
 */
const history = (): Message[] => [
  say('user', 0, 'Fix the bug in src/a.ts'),
  call('r1', 1, 'src/a.ts'),
  result('r1', 2, 'export const alpha_1 = 1\n'.repeat(40)),
  call('r2', 3, 'src/b.ts'),
  result('r2', 4, 'export const beta_2 = 2\n'.repeat(500)),
  say('assistant', 5, 'alpha_1 is the value to fix'),
  ...['ok', 'next?', 'fine', 'go on', 'done', 'thanks'].map((text, i) => say(i % 2 === 0 ? 'assistant' : 'user', 6 + i, text)),
]

const ladderOf = (config: Config, target: number) => {
  const working = history()
  const draft = toStickyDraft(EMPTY_STICKY)
  const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
  const ladder = runLadder(working, 0, estimateMessages(working, estimateOne), target, draft, context)
  return { working, ladder, draft, context, tokens: estimateMessages(ladder.working, estimateOne) }
}

const seqs = (list: ReadonlyArray<Message>): number[] => list.map((message) => (message.metadata as { _seq: number })._seq)

describe('compaction_refill', () => {
  const config: Config = { ...DEFAULT_CONFIG, protected_tool_results: 0, protected_recent: 0.3 }

  it('is off by default: the ladder ends where its last removal left it, far below the target', () => {
    const plain = ladderOf(config, 1200)
    expect(DEFAULT_CONFIG.compaction_refill).toBe('none')
    expect(plain.ladder.levelReached).toBeGreaterThanOrEqual(3)
    expect(plain.tokens).toBeLessThan(600)
    expect(seqs(plain.ladder.working)).not.toContain(1)
  })

  it('puts back whole the removed units that fit under the target, and leaves out the rest', () => {
    const plain = ladderOf(config, 1200)
    const refilled = ladderOf({ ...config, compaction_refill: 'pass' }, 1200)
    expect(refilled.tokens).toBeGreaterThan(plain.tokens)
    expect(refilled.tokens).toBeLessThanOrEqual(1200)
    // the small read comes back whole with its call; the 12,000-character read does not fit whole
    expect(seqs(refilled.ladder.working)).toEqual(expect.arrayContaining([1, 2, 5]))
    expect(refilled.ladder.working.find((message) => (message.metadata as { _seq: number })._seq === 2)).toBe(refilled.working[2])
    expect(refilled.draft.removed.has(1)).toBe(false)
    expect(refilled.draft.removed.has(2)).toBe(false)
  })

  it('puts back a unit too large whole as its skeleton: the call and the truncated result, recorded as truncated', () => {
    const refilled = ladderOf({ ...config, compaction_refill: 'pass' }, 1200)
    const big = refilled.ladder.working.find((message) => (message.metadata as { _seq: number })._seq === 4)
    expect(big).toEqual(refilled.context.truncate(refilled.working[4]))
    expect(String(big?.content).length).toBeLessThan(400)
    expect(seqs(refilled.ladder.working)).toContain(3)
    expect(refilled.draft.truncated.has(4)).toBe(true)
    expect(refilled.draft.removed.has(4)).toBe(false)
  })

  it('fills in the reverse of the visit order: the most recently referenced first, or the newest first', () => {
    // room for a.ts whole, or for the skeletons of both reads
    const working = history()
    const units = toRemovedUnits(working, new Set([1, 2, 3, 4]), estimateOne)
    expect([...units.keys()]).toEqual([1, 3])
    const kept = working.filter((message) => ![1, 2, 3, 4].includes((message.metadata as { _seq: number })._seq))
    const current = estimateMessages(kept, estimateOne)
    const room = units.get(1)?.tokens ?? 0
    const refill = (order: Config['compaction_order']) => {
      const context = makePassContext({ ...config, compaction_order: order }, estimateOne, {}, makeDerivationMemo())
      const draft = toStickyDraft({ ...EMPTY_STICKY, removed: new Set([1, 2, 3, 4]) })
      return { ...refillRemoved(working, kept, current, current + room, draft, EMPTY_STICKY, context), draft }
    }
    // the note names alpha_1: a.ts is the most recently referenced and comes back whole
    const referenced = refill('least_referenced')
    expect(seqs(referenced.working)).toEqual([0, 1, 2, 5, 6, 7, 8, 9, 10, 11])
    expect(referenced.current).toBe(estimateMessages(referenced.working, estimateOne))
    expect(referenced.draft.truncated.size).toBe(0)
    // oldest first visits b.ts last, so the refill takes it first, as its skeleton; a.ts then no longer fits whole and comes back as its skeleton too
    const newest = refill('oldest')
    expect(seqs(newest.working)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect([...newest.draft.truncated].sort()).toEqual([2, 4])
    expect(newest.current).toBeLessThanOrEqual(current + room)
  })

  it('restores nothing at or above the target, and never a user message', () => {
    const working = history()
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    const kept = working.filter((message) => (message.metadata as { _seq: number })._seq !== 7)
    const draft = toStickyDraft({ ...EMPTY_STICKY, removed: new Set([7]) })
    const current = estimateMessages(kept, estimateOne)
    expect(refillRemoved(working, kept, current, current, draft, EMPTY_STICKY, context).working).toBe(kept)
    expect(toRemovedUnits(working, new Set([7]), estimateOne).size).toBe(0)
    expect(refillRemoved(working, kept, current, current + 1000, draft, EMPTY_STICKY, context).working).toBe(kept)
    expect(draft.removed.has(7)).toBe(true)
  })

  it('records again the decision of a message an earlier pass shortened, so the next view keeps it shortened', () => {
    const original = history()
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    const earlier = { ...EMPTY_STICKY, truncated: new Set([4]) }
    const start = applySticky(original, earlier, context)
    expect(start[4]).toEqual(context.truncate(original[4]))
    // this pass removed b.ts's group (recordRemoved takes 4 out of the truncated set)
    const draft = toStickyDraft({ ...earlier, removed: new Set([3, 4]), truncated: new Set() })
    const kept = start.filter((message) => ![3, 4].includes((message.metadata as { _seq: number })._seq))
    const current = estimateMessages(kept, estimateOne)
    const refilled = refillRemoved(start, kept, current, current + 1000, draft, earlier, context)
    expect(seqs(refilled.working)).toContain(4)
    expect(draft.truncated.has(4)).toBe(true)
    expect(applySticky(original, draft, context)).toEqual(refilled.working)
  })

  it('restores nothing when the list is not the start list less its removed messages', () => {
    const working = history()
    const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
    const draft = toStickyDraft({ ...EMPTY_STICKY, removed: new Set([5]) })
    expect(refillRemoved(working, working, 10, 10_000, draft, EMPTY_STICKY, context).working).toBe(working)
  })

  it('"history" lifts an earlier pass\'s removal and an earlier truncation when they fit, and returns what the draft re-applies to', () => {
    const original = history()
    const context = makePassContext({ ...config, compaction_refill: 'history' }, estimateOne, {}, makeDerivationMemo())
    // earlier passes removed a.ts's group and shortened b.ts; this pass removed the note (5)
    const draft = toStickyDraft({ removed: new Set([1, 2, 5]), truncated: new Set([4]), stubbed: new Set() })
    const before = applySticky(original, draft, context)
    const current = estimateMessages(before, estimateOne)
    const aTokens = estimateOne(original[1]) + estimateOne(original[2])
    const bLift = estimateOne(original[4]) - estimateOne(context.truncate(original[4]))
    // room for everything: b.ts whole again, a.ts and the note back
    const roomy = toStickyDraft(draft)
    const all = refillHistory(original, current, current + aTokens + bLift + estimateOne(original[5]), roomy, context)
    expect(all).toEqual(original)
    expect([...roomy.removed, ...roomy.truncated]).toEqual([])
    // room for a.ts's tokens only: what comes back fits that room, and b.ts stays shortened (lifting it costs more)
    const tight = toStickyDraft(draft)
    const some = refillHistory(original, current, current + aTokens, tight, context)
    expect(some).toEqual(applySticky(original, tight, context))
    expect(estimateMessages(some ?? [], estimateOne)).toBeLessThanOrEqual(current + aTokens)
    expect(tight.truncated.has(4)).toBe(true)
    // no room: nothing changes
    expect(refillHistory(original, current, current, toStickyDraft(draft), context)).toBeNull()
  })

  describe('compaction_refill_head', () => {
    const fit: Config = { ...config, compaction_refill: 'history', compaction_refill_head: 'fit' }
    // an earlier pass removed b.ts's group (12,000 characters, 500 lines); `room` tokens are free under the target
    const refillB = (head: Config, room: number, sticky = { removed: new Set([3, 4]), truncated: new Set<number>(), stubbed: new Set<number>() }) => {
      const original = history()
      const context = makePassContext(head, estimateOne, {}, makeDerivationMemo())
      const draft = toStickyDraft(sticky)
      const current = estimateMessages(applySticky(original, draft, context), estimateOne)
      const list = refillHistory(original, current, current + room, draft, context)
      return { original, context, draft, current, list }
    }

    it('is "skeleton" by default: a unit too large whole comes back as its skeleton and no head is recorded', () => {
      expect(DEFAULT_CONFIG.compaction_refill_head).toBe('skeleton')
      const { original, context, draft, list } = refillB({ ...config, compaction_refill: 'history' }, 800)
      expect(list?.find((message) => seqOf(message) === 4)).toEqual(context.truncate(original[4]))
      expect(draft.heads).toBeUndefined()
    })

    it('"fit" gives the result a head sized to half the room, cut after a line end, recorded for the next requests', () => {
      const { original, context, draft, current, list } = refillB(fit, 800)
      const head = draft.heads?.get(4) as number
      // 'export const beta_2 = 2\n' is 24 characters: the head ends at a line end
      expect(head % 24).toBe(0)
      expect(head).toBeGreaterThan(250)
      const form = list?.find((message) => seqOf(message) === 4)
      expect(form).toEqual(context.truncateTo(original[4], head))
      expect(String(form?.content)).toMatch(/^\[truncated: ~3,000 tokens - call tool again if needed\] (export const beta_2 = 2\n)+\.\.\.$/)
      // the call and the skeleton take their share, the head at most half of what is left: never over the target
      const skeleton = estimateOne(original[3]) + estimateOne(context.truncate(original[4]))
      expect(estimateOne(form as Message) - estimateOne(context.truncate(original[4]))).toBeLessThanOrEqual((800 - skeleton) / 2)
      expect(estimateMessages(list ?? [], estimateOne)).toBeLessThanOrEqual(current + 800)
      expect(draft.truncated.has(4)).toBe(true)
      expect(applySticky(original, draft, context)).toEqual(list)
    })

    it('"fit" lengthens a recorded head when there is more room, never shortens it, and lifts the result whole when it all fits', () => {
      const earlier = { removed: new Set<number>(), truncated: new Set([4]), stubbed: new Set<number>(), heads: new Map([[4, 480]]) }
      const longer = refillB(fit, 800, earlier)
      expect(longer.draft.heads?.get(4)).toBeGreaterThan(480)
      const none = refillB(fit, 0, earlier)
      expect(none.list).toBeNull()
      expect(none.draft.heads?.get(4)).toBe(480)
      const whole = refillB(fit, 5000, earlier)
      expect(whole.draft.truncated.has(4)).toBe(false)
      expect(whole.draft.heads?.has(4)).toBe(false)
      expect(whole.list?.find((message) => seqOf(message) === 4)).toBe(whole.original[4])
    })

    it('a recorded head is re-applied as it was cut, and is a decision of its own', () => {
      const { original, context, draft } = refillB(fit, 800)
      const again = makePassContext(fit, estimateOne, {}, makeDerivationMemo())
      expect(applySticky(original, toStickyDraft(draft), again)).toEqual(applySticky(original, draft, context))
      const other = toStickyDraft(draft)
      other.heads?.set(4, 24)
      expect(hasNewDecision(other, draft)).toBe(true)
      expect(hasNewDecision(toStickyDraft(draft), draft)).toBe(false)
      recordRemoved(other, original[4])
      expect(other.heads?.has(4)).toBe(false)
    })
  })
})
