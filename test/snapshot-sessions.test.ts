// Snapshots on the shared real sessions (fixtures/sessions): each session replayed at the test's budget
// (Claude Code --budget 60000, tau-bench --budget 4500) and handed over through a JSON snapshot at
// five cut points gives exactly the output of the uninterrupted replay.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { CoreDeps } from '../src/core/deps.js'
import { presets } from '../src/core/presets.js'
import type { Recording } from '../src/core/replay/recording.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { applyBudgetOverride } from '../src/shell/cli/options.js'
import { loadRecordings } from '../src/shell/importers/detect.js'
import { makeEstimatorFor } from '../src/shell/estimators.js'
import { readFixture } from './support/fixtures.js'
import { depsOf, throughJson } from './support/snapshot.js'

/** Session file, budget, and whether some of its sessions compact at that budget. */
const SESSIONS: ReadonlyArray<readonly [string, number, boolean]> = [
  ['sessions/claude-code/short.jsonl', 60000, false],
  ['sessions/claude-code/tool_heavy.jsonl', 60000, false],
  ['sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl', 60000, false],
  ['sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 60000, true],
  ['sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, true],
]

/**
 * The cut points (0-based op indexes, the hand-over happens after that op): after the
 * first add, just before and just after the first compaction, the middle, before the last op.
 */
const cutPoints = (recording: Recording, compactionOp: number | null): ReadonlyArray<number> => {
  const firstAdd = recording.ops.findIndex((op) => op.op === 'add_message')
  const around = compactionOp === null ? [] : [compactionOp - 1, compactionOp]
  return [...new Set([firstAdd, ...around, Math.trunc(recording.ops.length / 2), recording.ops.length - 2])].filter((cut) => cut >= 0)
}

const load = (relative: string, budget: number): ReadonlyArray<Recording> => {
  const { recordings } = loadRecordings(readFixture(relative), relative, 'auto')
  return recordings.map((recording) => applyBudgetOverride(recording, { kind: 'budget', tokens: budget }))
}

describe('snapshot hand-over on the shared sessions', () => {
  for (const [relative, budget, compacts] of SESSIONS) {
    it(`${relative} at --budget ${budget}`, () => {
      const recordings = load(relative, budget)
      let compacting = 0
      for (const recording of recordings) {
        const whole = replayRecording(recording, depsOf(recording))
        const compacted = whole.lines.find((line) => line.events.some((event) => event.name === 'context:compaction'))
        if (compacted !== undefined) compacting += 1
        const cuts = cutPoints(recording, compacted?.op_index ?? null)
        const expected = JSON.stringify(whole.lines)
        for (const cut of cuts) {
          const deps = depsOf(recording)
          const moved = replayRecording(recording, deps, { handOver: { at: cut, through: throughJson(deps) } })
          expect(JSON.stringify(moved.lines), `${recording.session ?? relative} cut after op ${cut}`).toBe(expected)
        }
      }
      // Where the session compacts, the cuts around its first compaction were exercised.
      expect(compacting > 0).toBe(compacts)
    })
  }
})

// The same under `recommended` (least recently referenced first, the calibrated meter with the
// typed estimator, whose pass sizes its levels as billed with W's Responses reasoning sums kept in
// the derivation memo; docs/contract.md 17.13): a restored manager starts with an empty memo, so
// every memo field must be derivable from the state alone. A Codex rollout (Responses reasoning,
// recorded readings) and the Claude Code session that compacts, each at --budget 60000.
const RECOMMENDED: ReadonlyArray<string> = [
  'sessions/codex/codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl.gz',
  'sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
]

/** Core dependencies as the CLI makes them for `recording` (the estimator its config names). */
const cliDepsOf = (recording: Recording): CoreDeps => {
  const decoded = decodeConfig(recording.config)
  if (E.isLeft(decoded)) throw decoded.left
  return { config: decoded.right.config, estimate: makeEstimatorFor(decoded.right.config) }
}

describe('snapshot hand-over on the shared sessions under recommended', () => {
  for (const relative of RECOMMENDED) {
    it(`${relative} at --budget 60000`, () => {
      const { recordings } = loadRecordings(readFixture(relative), relative, 'auto')
      for (const loaded of recordings) {
        const recording = applyBudgetOverride({ ...loaded, config: { ...loaded.config, ...presets.recommended } }, { kind: 'budget', tokens: 60000 })
        const whole = replayRecording(recording, cliDepsOf(recording))
        const compactions = whole.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction'))
        expect(compactions.length, `${recording.session ?? relative} compacts`).toBeGreaterThan(1)
        const second = compactions[1].op_index
        const cuts = new Set([...cutPoints(recording, compactions[0].op_index), second - 1, second])
        const expected = JSON.stringify(whole.lines)
        for (const cut of cuts) {
          const deps = cliDepsOf(recording)
          const moved = replayRecording(recording, deps, { handOver: { at: cut, through: throughJson(deps) } })
          expect(JSON.stringify(moved.lines), `${recording.session ?? relative} cut after op ${cut}`).toBe(expected)
        }
      }
    })
  }
})
