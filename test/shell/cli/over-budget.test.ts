// replay's over-budget mark (src/shell/cli/report.ts economicsCells): a view is over the budget
// when the meter's own count of the view sent is over E, in the units E is in; under the
// calibrated meter that is its billed count (docs/contract.md 17.13), not the estimate.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { RequestEconomics } from '../../../src/core/economics/simulation.js'
import type { ReplayOutputLine } from '../../../src/core/replay/recording.js'
import { toRequestRow } from '../../../src/shell/cli/report.js'
import { runCli } from '../../support/cli.js'
import { FIXTURES } from '../../support/fixtures.js'

const ROLLOUT = join(FIXTURES, 'sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl.gz')

const split = { input_tokens: 70000, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, uncached_input_tokens: 70000 }
const economics: RequestEconomics = {
  split, overhead: 0, clamped: false, recorded_input: 70000, prefix_break: false, usage: null,
  sent_tokens: 70000, view_tokens: 70000, billed_sent_tokens: 70000, billed_view_tokens: 70000,
}
const line: ReplayOutputLine = {
  op_index: 1, view: [{ role: 'user', content: 'hi' }], events: [],
  token_meter_stats: { mode: 'calibrated', budget: 59600 }, compaction_stats: null,
}

describe('the over-budget mark', () => {
  it('under the calibrated meter compares its billed count of the view sent, not the estimate', () => {
    const row = toRequestRow(line, 0, 1, { economics: { ...economics, metered_view_tokens: 52000 }, live: false, simulated: false })
    expect(row.viewTokens).toBe(70000)
    expect(row.overBudget).toBe(false)
    expect(toRequestRow(line, 0, 1, { economics: { ...economics, metered_view_tokens: 61000 }, live: false, simulated: false }).overBudget).toBe(true)
  })

  it('without a meter count of its own (estimate meter) compares the estimate, as before', () => {
    expect(toRequestRow(line, 0, 1, { economics, live: false, simulated: false }).overBudget).toBe(true)
    expect(toRequestRow(line, 0, 1, { economics: { ...economics, view_tokens: 50000 }, live: false, simulated: false }).overBudget).toBe(false)
  })

  it('replay --preset recommended of a rollout: no mark before the first compaction, where the meter counted the view under E', async () => {
    const result = await runCli(['replay', ROLLOUT, '--budget', '60000', '--preset', 'recommended'])
    expect(result.code).toBe(0)
    const rows = result.stdout.split('\n').filter((text) => /^│\s+\d+ │/.test(text)).map((text) => text.split('│').map((cell) => cell.trim()))
    const first = rows.findIndex((cells) => cells.includes('compacted'))
    expect(first).toBeGreaterThan(0)
    const before = rows.slice(0, first)
    // the estimate alone is over E (59,600) on some of them, the meter's count on none
    expect(before.some((cells) => Number(cells[7].replace(/[,!\s]/g, '')) > 59600)).toBe(true)
    expect(before.filter((cells) => cells[7].endsWith('!'))).toEqual([])
  })
})
