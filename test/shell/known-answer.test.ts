// Known answer of the provider model (docs/evaluation.md): at a budget where the replay never compacts,
// the simulated input equals the recorded input on every request that has a reading and was not
// clamped, on every shared Claude Code session.
import { readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { applyBudgetOverride } from '../../src/shell/cli/options.js'
import { loadRecordings } from '../../src/shell/importers/detect.js'
import { FIXTURES, readFixture } from '../support/fixtures.js'

const dir = resolve(FIXTURES, 'sessions/claude-code')
const files = readdirSync(dir).filter((name) => /\.jsonl(\.gz)?$/.test(name)).map((name) => name.replace(/\.gz$/, '')).sort()

describe('simulated usage, known answer', () => {
  it.each(files)('%s: simulated input = recorded input on every unclamped request with a reading', (name) => {
    const loaded = loadRecordings(readFixture(`sessions/claude-code/${name}`), name, 'claude-code')
    for (const raw of loaded.recordings) {
      const recording = applyBudgetOverride(raw, { kind: 'budget', tokens: 100_000_000 })
      const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'anthropic' } })
      const compactions = result.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction'))
      expect(compactions).toEqual([])
      const checked = result.economics.filter((economics) => economics !== null && economics.recorded_input !== null && !economics.clamped)
      expect(checked.length).toBeGreaterThan(0)
      for (const economics of checked) expect(economics!.split.input_tokens).toBe(economics!.recorded_input)
      // every request the meter saw got the simulated reading, whose total is the simulated input
      for (const economics of result.economics) {
        expect(economics!.usage!.input_tokens + economics!.usage!.cache_write_tokens).toBe(economics!.split.input_tokens)
      }
    }
  })
})
