// Protected messages are in every view (SPEC 2.3, 6.4, 6.5, 17.2, B-FN-1, B-L3-2, B-L3-3,
// B-RQ-2/3): the stored system messages (static mode) or the factory's system message and the
// hook-injected ones (factory mode); the first user message (possibly stubbed, never removed;
// the summary strategy may absorb it, SPEC 17.2); the last user message, verbatim.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, Messages } from '../src/core/messages/message.js'
import { toStub } from '../src/core/compaction/stub.js'
import { isPlainObject } from '../src/core/messages/values.js'
import { describeConfig, foldScenario, isEphemeral, runProperty, scenarioArb, seqOfStored, stripSeq, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const contains = (view: Messages, message: Message): boolean => {
  const wanted = JSON.stringify(message)
  return view.some((candidate) => JSON.stringify(candidate) === wanted)
}

const checkProtected = (scenario: Scenario): void => {
  const summary = scenario.config.compaction_strategy === 'summary'
  for (const request of foldScenario(scenario).requests) {
    if (request.view === null) continue
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    const view = request.view
    const core = view.filter((message) => !isEphemeral(message))
    const history = request.after.history

    // System messages: all of them, content unchanged, in their relative order.
    const systems = core.filter((message) => message.role === 'system')
    if (request.systemPrompt === null) {
      expect(systems, where).toEqual(history.filter((message) => message.role === 'system').map(stripSeq))
    } else {
      expect(view[0], where).toStrictEqual({ role: 'system', content: request.systemPrompt })
      const hooks = history.filter((message) => message.role === 'system' && isPlainObject(message.metadata) && message.metadata.source === 'hook')
      expect(systems, where).toEqual([{ role: 'system', content: request.systemPrompt }, ...hooks.map(stripSeq)])
    }

    const users = history.filter((message) => message.role === 'user')
    if (users.length === 0) continue
    // The last user message: verbatim.
    const last = users[users.length - 1]
    expect(contains(core, stripSeq(last)), `${where}: last user ${String(last.uid)} missing`).toBe(true)
    // The first user message: verbatim or as its stub; never removed (absorbable in summary strategy).
    const first = users[0]
    const firstSeq = seqOfStored(first)
    const removed = firstSeq !== undefined && request.after.compaction.sticky.removed.has(firstSeq)
    if (!summary) expect(removed, `${where}: first user ${String(first.uid)} recorded removed`).toBe(false)
    if (!removed) {
      const present = contains(core, stripSeq(first)) || contains(core, stripSeq(toStub(first)))
      expect(present, `${where}: first user ${String(first.uid)} missing`).toBe(true)
    }
  }
}

describe('protected messages', () => {
  it('are in every view (progressive; static and factory mode; resets)', () => {
    runProperty(
      'protected: progressive',
      fc.property(scenarioArb({ strategies: ['progressive'] }, { factory: 'changing', resets: true }), checkProtected),
      numRuns,
    )
  })

  it('are in every view (summary strategy)', () => {
    runProperty('protected: summary', fc.property(scenarioArb({ strategies: ['summary'] }, { factory: 'changing', summaries: true }), checkProtected), numRuns)
  })
})
