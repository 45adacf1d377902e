// replay's note when a usage-reading meter meets recorded readings after a compaction
// (src/shell/cli/replay-input.ts recordedUsageNote): the readings bill what the agent sent, not the
// smaller views the replay sent, so the meter's count describes no view from there on.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { recordedUsageNote } from '../../../src/shell/cli/replay-input.js'
import { runCli } from '../../support/cli.js'
import { FIXTURES } from '../../support/fixtures.js'

const ROLLOUT = join(FIXTURES, 'sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl.gz')

describe('recordedUsageNote', () => {
  it('speaks only for recorded readings, a meter that reads them and a replay that compacted', () => {
    const facts = { usage: 'recorded', meter: 'calibrated', readings: 10, firstCompaction: 3 } as const
    expect(recordedUsageNote(facts)).toContain('from request 3 on')
    expect(recordedUsageNote({ ...facts, meter: 'hybrid' })).toContain('token_meter "hybrid"')
    expect(recordedUsageNote({ ...facts, usage: 'simulated' })).toBeNull()
    expect(recordedUsageNote({ ...facts, meter: 'estimate' })).toBeNull()
    expect(recordedUsageNote({ ...facts, readings: 0 })).toBeNull()
    expect(recordedUsageNote({ ...facts, firstCompaction: null })).toBeNull()
  })

  it('replay --preset recommended of a rollout with readings prints it once, naming the first compaction; --usage simulated does not', async () => {
    const base = ['replay', ROLLOUT, '--budget', '60000', '--preset', 'recommended', '--json', '--no-views']
    const recorded = await runCli(base)
    expect(recorded.code).toBe(0)
    const first = recorded.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { compaction_stats: unknown }).findIndex((line) => line.compaction_stats !== null)
    expect(first).toBeGreaterThan(0)
    const notes = recorded.stderr.split('\n').filter((line) => line.includes('recorded readings'))
    expect(notes).toHaveLength(1)
    expect(notes[0]).toContain(`token_meter "calibrated" reads the 169 recorded readings`)
    expect(notes[0]).toContain(`from request ${first} on`)
    const simulated = await runCli([...base, '--usage', 'simulated'])
    expect(simulated.code).toBe(0)
    expect(simulated.stderr).not.toContain('recorded readings')
  })
})
