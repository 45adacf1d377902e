// Tool groups are never split (SPEC 17.3, B-TP-1): every view of a valid session passes the
// provider pairing rules R1-R3 (a trailing unanswered call aside, with or without some of its
// results), in every meter mode, with the progressive and the summary strategy (summary
// requests answered with random text).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import { describeConfig, foldScenario, runProperty, scenarioArb, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const checkPairing = (scenario: Scenario): void => {
  const { requests } = foldScenario(scenario)
  for (const request of requests) {
    if (request.view === null) continue
    const problems = findPairingViolations(request.view)
    expect(problems, `op ${request.index} with ${describeConfig(scenario)}`).toEqual([])
  }
}

describe('tool pairing', () => {
  it('no view splits a tool group (progressive, every meter mode)', () => {
    runProperty('tool pairs: progressive', fc.property(scenarioArb({ strategies: ['progressive'] }), checkPairing), numRuns)
  })

  it('no view splits a tool group (summary strategy, every meter mode, random summaries)', () => {
    runProperty('tool pairs: summary', fc.property(scenarioArb({ strategies: ['summary'] }, { summaries: true }), checkPairing), numRuns)
  })

  it('no view splits a tool group across factory prompts, resets and resumes', () => {
    runProperty(
      'tool pairs: factory and resets',
      fc.property(scenarioArb({}, { factory: 'changing', resets: true }), checkPairing),
      Math.max(1, Math.trunc(numRuns / 2)),
    )
  })
})
