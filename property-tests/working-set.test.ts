// The working set (src/core/compaction/working-set.ts) on generated histories whose messages share
// handles from a small pool and differ in size: it never splits a tool group, always keeps the last
// two messages, the last user message and an open tool group, removes only what it does not keep
// and counts its tokens, is deterministic; and a session replayed under `working_set_window`
// (src/core/request/working-set.ts) sends views without pairing problems that end with the stored
// history's last two messages.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toMessageHandles } from '../src/core/compaction/reference-order.js'
import { isToolCallMessage, selectResultRunEnd } from '../src/core/compaction/tool-pairs.js'
import { selectWorkingSet, type WorkingSetTools } from '../src/core/compaction/working-set.js'
import { configOf, added, request, stepFor } from '../test/support/core.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import type { Message } from '../src/core/messages/message.js'
import { estimateOne } from '../src/core/meter/estimate.js'
import type { State } from '../src/core/state.js'
import { makeInitialState } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'
import { handleTurnArb, toHandleMessages, type HandleTurn } from './handle-turns.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const turnArb = handleTurnArb(600, true)
const toMessages = (turns: ReadonlyArray<HandleTurn>): Message[] => toHandleMessages(turns, false)

const settingsArb = fc.record({ window: fc.integer({ min: 1, max: 6 }), capacity: fc.constantFrom(0, 50, 200, 1000), payback: fc.constantFrom(0.5, 1, 3, 100) })
const tools: WorkingSetTools = { handles: toMessageHandles, estimate: estimateOne, isAnchor: (message) => message.role === 'user' }

describe('the working set', () => {
  it('keeps tool groups whole, the last two messages, the last user message and an open group; removes only what it does not keep; deterministic', () => {
    runProperty(
      'working set: invariants',
      fc.property(fc.array(turnArb, { maxLength: 16 }), settingsArb, (turns, settings) => {
        const list = toMessages(turns).map((message, i) => ({ ...message, metadata: { _seq: i } }))
        const copy = structuredClone(list)
        const set = selectWorkingSet(list, settings, tools)
        const where = JSON.stringify({ turns: turns.length, settings })
        expect(selectWorkingSet(list, settings, tools), where).toEqual(set)
        expect(list).toEqual(copy)
        const removed = new Set(set.removable)
        for (const i of set.removable) expect(set.kept[i], where).toBe(false)
        expect(set.tokens).toBe(set.removable.reduce((sum, i) => sum + estimateOne(list[i]), 0))
        for (let i = Math.max(0, list.length - 2); i < list.length; i += 1) expect(removed.has(i), where).toBe(false)
        const lastUser = list.map((message) => message.role).lastIndexOf('user')
        expect(removed.has(lastUser), where).toBe(false)
        for (let a = 0; a < list.length; a += 1) {
          if (!isToolCallMessage(list[a])) continue
          const end = selectResultRunEnd(list, a)
          const gone = new Set([...Array(end - a).keys()].map((k) => removed.has(a + k)))
          expect(gone.size, where).toBe(1)
          if (end === list.length) expect(removed.has(a), where).toBe(false)
          a = end - 1
        }
        const rest = list.filter((_, i) => !removed.has(i))
        expect(findPairingViolations(rest), where).toEqual([])
      }),
      numRuns * 3,
    )
  })

  it('a session replayed under working_set_window sends valid views ending with the history\'s last two messages, the same on a second run', () => {
    runProperty(
      'working set: replayed views',
      fc.property(fc.array(turnArb, { maxLength: 16 }), settingsArb, fc.constantFrom(400, 2000, 100_000), (turns, settings, budget) => {
        const config = configOf({ working_set_window: settings.window, working_set_capacity: Math.min(1, settings.capacity / 1000), working_set_payback: settings.payback })
        const messages = toMessages(turns)
        const run = (): Array<Message[] | undefined> => {
          const step = stepFor(config)
          let state: State = makeInitialState()
          const views: Array<Message[] | undefined> = []
          for (const message of messages) {
            state = step(state, added(message)).state
            const out = step(state, request({ tokenBudget: budget }))
            state = out.state
            views.push(out.view === undefined ? undefined : [...out.view])
            if (out.view === undefined) continue
            expect(findPairingViolations(out.view)).toEqual([])
          }
          return views
        }
        const views = run()
        expect(run()).toEqual(views)
        const last = views[views.length - 1]
        if (last === undefined || budget < 100_000) return
        // with room to spare no ladder runs: the view ends with the history's last two messages as stored
        const tail = messages.slice(-2).map((message) => JSON.stringify(message.content))
        expect(last.filter((message) => message.role !== 'system').slice(-2).map((message) => JSON.stringify(message.content))).toEqual(tail)
      }),
      numRuns,
    )
  })
})
