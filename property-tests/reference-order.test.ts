// Least recently referenced first and its per-token variant (src/core/compaction/reference-order.ts)
// on generated histories whose messages share handles from a small pool and differ in size, so the
// orders really differ from the contract's: the visit order is a permutation that ranks a tool
// group as one unit (one last use, one size, its members visited together), and the ladder under it
// keeps tool groups atomic (R1-R3), the last user message, and never shortens the protected tool results, stops
// at the target whenever it stops below level 8, and reaches the same level as the contract's
// order at the removal levels' bottom (level 7 or 8) whenever the contract's does.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { makePassContext } from '../src/core/compaction/context.js'
import { runLadder } from '../src/core/compaction/ladder.js'
import { toLastUse, toUnitSizes, toVisitOrder } from '../src/core/compaction/reference-order.js'
import { toStickyDraft } from '../src/core/compaction/sticky.js'
import { isToolCallMessage, selectResultRunEnd } from '../src/core/compaction/tool-pairs.js'
import { DEFAULT_CONFIG, type CompactionOrder, type Config } from '../src/core/config.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import type { Message } from '../src/core/messages/message.js'
import { makeDerivationMemo } from '../src/core/memo/derivation-memo.js'
import { estimateMessages, estimateOne } from '../src/core/meter/estimate.js'
import { EMPTY_STICKY } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'
import { handleTurnArb, toHandleMessages, type HandleTurn } from './handle-turns.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** A non-system working list: a first user message, then the turns, then a last user message. */
const toWorking = (turns: ReadonlyArray<HandleTurn>): Message[] => toHandleMessages(turns, true).map((message, i) => ({ ...message, metadata: { _seq: i } }))

const caseArb = fc.record({
  turns: fc.array(handleTurnArb(1200), { maxLength: 14 }),
  share: fc.constantFrom(0.1, 0.3),
  tools: fc.constantFrom(0, 1, 2, 5),
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
})

const orderArb = fc.constantFrom<CompactionOrder>('oldest', 'least_referenced', 'least_referenced_per_token')

const ladderOf = (working: Message[], config: Config, fraction: number) => {
  const current = estimateMessages(working, estimateOne)
  const target = Math.floor(current * fraction)
  const draft = toStickyDraft(EMPTY_STICKY)
  const context = makePassContext(config, estimateOne, {}, makeDerivationMemo())
  return { target, ladder: runLadder(working, 0, current, target, draft, context), draft }
}

describe('least recently referenced first', () => {
  it('the visit order is a permutation that visits a tool group\'s members one after another, and a group shares one last use and one size', () => {
    runProperty(
      'reference order: permutation and groups',
      fc.property(caseArb, orderArb, ({ turns }, compactionOrder) => {
        const working = toWorking(turns)
        const positions = working.map((_, i) => i)
        const order = toVisitOrder(working, positions, compactionOrder)
        expect([...order].sort((x, y) => x - y)).toEqual(positions)
        const sizes = toUnitSizes(working, estimateOne)
        for (let a = 0; a < working.length; a += 1) {
          if (!isToolCallMessage(working[a])) continue
          const end = selectResultRunEnd(working, a)
          const at = order.indexOf(a)
          for (let i = a; i < end; i += 1) expect(order[at + i - a]).toBe(i)
          for (let i = a; i < end; i += 1) expect(sizes[i]).toBe(estimateMessages(working.slice(a, end), estimateOne))
        }
        const lastUse = toLastUse(working)
        for (let a = 0; a < working.length; a += 1) {
          expect(lastUse[a]).toBeGreaterThanOrEqual(a)
          if (!isToolCallMessage(working[a])) continue
          const end = selectResultRunEnd(working, a)
          for (let i = a; i < end; i += 1) expect(lastUse[i]).toBe(lastUse[a])
        }
      }),
      numRuns * 3,
    )
  })

  it('the ladder keeps groups atomic and the protections, and stops at the target below level 8', () => {
    runProperty(
      'reference order: ladder',
      fc.property(caseArb, fc.constantFrom<CompactionOrder>('least_referenced', 'least_referenced_per_token'), ({ turns, share, tools, fraction }, compactionOrder) => {
        const working = toWorking(turns)
        const config: Config = { ...DEFAULT_CONFIG, protected_recent: share, protected_tool_results: tools, compaction_order: compactionOrder }
        const { target, ladder, draft } = ladderOf(working, config, fraction)
        const contract = ladderOf(working, { ...config, compaction_order: 'oldest' }, fraction)
        const where = JSON.stringify({ turns: turns.length, share, tools, fraction, compactionOrder })
        expect(findPairingViolations(ladder.working), where).toEqual([])
        // the last user message stays as it was
        expect(ladder.working[ladder.working.length - 1], where).toBe(working[working.length - 1])
        // a call and its results go together
        for (let a = 0; a < working.length; a += 1) {
          if (!isToolCallMessage(working[a])) continue
          const end = selectResultRunEnd(working, a)
          const gone = [...Array(end - a).keys()].map((k) => draft.removed.has(a + k))
          expect(new Set(gone).size, where).toBeLessThanOrEqual(1)
        }
        // the last protected_tool_results results are never shortened (SPEC 6.3; a removal level may remove them with their group, 6.4)
        const results = working.flatMap((message, i) => (message.role === 'tool' ? [i] : []))
        if (ladder.levelReached < 8) {
          for (const i of results.slice(Math.max(0, results.length - tools))) {
            if (tools === 0) break
            expect(draft.truncated.has(i), where).toBe(false)
          }
          expect(estimateMessages(ladder.working, estimateOne), where).toBeLessThanOrEqual(target)
        }
        // never larger than the list it started from
        expect(estimateMessages(ladder.working, estimateOne)).toBeLessThanOrEqual(estimateMessages(working, estimateOne))
        // the contract's order reaching its target at a level means this order is not stuck above it at level 8 for lack of candidates
        if (contract.ladder.levelReached < 8 && ladder.levelReached === 8) expect(estimateMessages(ladder.working, estimateOne), where).toBeLessThanOrEqual(target)
      }),
      numRuns * 3,
    )
  })
})
