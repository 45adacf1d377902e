// Snapshots on the shared real sessions (fixtures/sessions): each session replayed at the test's budget
// (Claude Code --budget 60000, tau-bench --budget 4500) and handed over through a JSON snapshot at
// five cut points gives exactly the output of the uninterrupted replay.
import { describe, expect, it } from 'vitest'
import type { Recording } from '../src/core/replay/recording.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { applyBudgetOverride } from '../src/shell/cli/options.js'
import { loadRecordings } from '../src/shell/importers/detect.js'
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
