// Deterministic replay (docs/recording-format.md, docs/style.md "Deterministic replay"): a recording built from a
// random op sequence replays to identical output every time (same or fresh deps, and after a
// JSON round trip that gives every message a new identity), and the replay equals folding the
// same events through the pure reducer by hand.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { CoreDeps } from '../src/core/deps.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import type { Recording, ReplayOutputLine } from '../src/core/replay/recording.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { describeConfig, foldScenario, runProperty, scenarioArb, toRecording, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const depsOf = (recording: Recording): CoreDeps => {
  const decoded = decodeConfig(recording.config)
  if (E.isLeft(decoded)) throw decoded.left
  return { config: decoded.right.config, estimate: makeCachedEstimator() }
}

const checkReplay = (scenario: Scenario): void => {
  const where = describeConfig(scenario)
  const recording = toRecording(scenario)
  const deps = depsOf(recording)
  const first = replayRecording(recording, deps)
  const second = replayRecording(recording, deps)
  const fresh = replayRecording(recording, depsOf(recording))
  const roundTripped = JSON.parse(JSON.stringify(recording)) as Recording
  const copied = replayRecording(roundTripped, depsOf(roundTripped))
  expect(second.lines, where).toStrictEqual(first.lines)
  expect(second.spills, where).toStrictEqual(first.spills)
  expect(fresh.lines, where).toStrictEqual(first.lines)
  expect(JSON.stringify(copied.lines), where).toBe(JSON.stringify(first.lines))
  expect(first.historySizes, where).toEqual(second.historySizes)

  // The same events folded by hand give the same lines.
  const byHand = foldScenario(scenario)
  const expected: ReplayOutputLine[] = byHand.requests.map((request) => ({
    op_index: request.index,
    view: request.view,
    events: request.events,
    token_meter_stats: request.meterStats,
    compaction_stats: request.compactionStats,
    ...(request.error !== null ? { error: { message: request.error } } : {}),
  }))
  expect(first.lines, where).toStrictEqual(expected)
  expect(first.historySizes, where).toEqual(byHand.requests.map((request) => request.after.history.length))
  expect(first.state, where).toStrictEqual(byHand.final)
}

describe('replay', () => {
  it('is deterministic and equals the hand fold (every mode, strategy, factory prompts, resets)', () => {
    runProperty(
      'replay: deterministic fold',
      fc.property(scenarioArb({}, { factory: 'changing', resets: true }), checkReplay),
      numRuns,
    )
  })
})
