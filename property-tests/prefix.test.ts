// Prefix stability (SPEC 7, 14.3, 17.1): in an append-only estimate-mode session with a constant
// budget and system prompt, a view built on a request that emitted no context:compaction event
// starts with the previous view (both without their trailing ephemeral notice/replay), so the
// provider's prompt cache stays valid between compaction boundaries. System messages only lead
// the session here: one added later moves to the front of every compacted view (SPEC 15.1 A-1),
// which is a boundary of its own. A summary swap is a boundary even when no context:compaction
// event marks it (a swap followed by a refused escalation).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Messages } from '../src/core/messages/message.js'
import { describeConfig, foldScenario, hookNames, runProperty, scenarioArb, withoutEphemeralTail, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const checkPrefix = (scenario: Scenario): void => {
  let previous: Messages | null = null
  for (const request of foldScenario(scenario).requests) {
    if (request.view === null) continue
    const current = withoutEphemeralTail(request.view)
    // A summary swap is a boundary too: it cannot be rolled back, and when the escalation after it
    // is refused the request emits context:compaction-skipped instead of context:compaction
    // (SPEC 12.6, 14.3; see regressions.test.ts).
    const swapped = request.after.history.length > request.before.history.length
    const boundary = hookNames(request.effects).includes('context:compaction') || swapped
    if (previous !== null && !boundary) {
      const where = `op ${request.index} with ${describeConfig(scenario)}`
      expect(current.length, where).toBeGreaterThanOrEqual(previous.length)
      expect(current.slice(0, previous.length), where).toStrictEqual(previous)
    }
    previous = current
  }
}

const session = { constantBudget: true, midSystems: false, resets: false, factory: 'start' as const }

describe('prefix stability between compaction boundaries', () => {
  it('holds for the progressive ladder (with the worth-the-rebuild predicate)', () => {
    runProperty('prefix: progressive', fc.property(scenarioArb({ meters: ['estimate'], strategies: ['progressive'] }, session), checkPrefix), numRuns)
  })

  it('holds for the summary strategy', () => {
    runProperty(
      'prefix: summary',
      fc.property(scenarioArb({ meters: ['estimate'], strategies: ['summary'] }, { ...session, summaries: true }), checkPrefix),
      numRuns,
    )
  })
})
