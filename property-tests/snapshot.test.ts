// Snapshots (docs/embedding.md): folding a recording with the state handed over at an arbitrary op — encoded
// with toSnapshot, passed through JSON.stringify/JSON.parse, decoded, and folded on by a fresh
// reducer — gives exactly the output of the uninterrupted fold; and every state a fold reaches
// is accepted by the decoder (never reported inconsistent).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { replayRecording } from '../src/core/replay/replay.js'
import { toSnapshot } from '../src/core/snapshot/codec.js'
import { describeConfig, laterKeysArb, runProperty, scenarioArb, summaryAnswerArb, toRecording, type Scenario } from './arbitraries.js'
import { depsOf, throughJson } from '../test/support/snapshot.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** Scenarios whose configuration also sets some of the later keys (guards, anchors, hysteresis). */
const withLaterKeys = (scenarios: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(scenarios, laterKeysArb).map(([scenario, later]) => ({ ...scenario, rawConfig: { ...scenario.rawConfig, ...later } }))

const checkHandOver = (scenario: Scenario, cut: number, answer: { readonly text: string } | { readonly error: string }): void => {
  const where = `${describeConfig(scenario)} cut after op ${cut}`
  const recording = toRecording(scenario)
  const summarizer = (): typeof answer => answer
  const whole = replayRecording(recording, depsOf(recording), { summarizer })
  const deps = depsOf(recording)
  const moved = replayRecording(recording, deps, { summarizer, handOver: { at: cut, through: throughJson(deps) } })
  expect(JSON.stringify(moved.lines), where).toBe(JSON.stringify(whole.lines))
  expect(moved.spills, where).toStrictEqual(whole.spills)
  expect(moved.logs, where).toStrictEqual(whole.logs)
  expect(JSON.stringify(toSnapshot(deps.config, moved.state)), where).toBe(JSON.stringify(toSnapshot(deps.config, whole.state)))
}

describe('snapshot hand-over', () => {
  it('a fold handed over at an arbitrary op through JSON gives the same output as the uninterrupted fold', () => {
    runProperty(
      'snapshot: hand-over at an arbitrary op',
      fc.property(
        withLaterKeys(scenarioArb({}, { factory: 'changing', resets: true })).chain((scenario) =>
          fc.tuple(fc.constant(scenario), fc.nat({ max: Math.max(0, scenario.ops.length - 1) }), summaryAnswerArb),
        ),
        ([scenario, cut, answer]) => checkHandOver(scenario, cut, answer),
      ),
      numRuns,
    )
  })
})
