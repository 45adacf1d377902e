// The replay's economics carry, under the calibrated meter, the meter's own count of the view
// sent (src/core/replay/fold.ts toMeteredViewTokens): after compaction on a boundary, and equal to
// the meter's calibrated_tokens where no pass ran (the meter then counted that same view).
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { makeCachedEstimator } from '../../../src/core/meter/estimate.js'
import { DEFAULT_REPLAY_NOW, type Recording, type RecordingOp } from '../../../src/core/replay/recording.js'
import { replayRecording } from '../../../src/core/replay/replay.js'
import type { TokenMeterStats } from '../../../src/core/stats.js'

const turn = (index: number): RecordingOp[] => [
  { op: 'add_message', message: { role: 'user', content: `q${index} ${'x'.repeat(1600)}` } },
  { op: 'get_messages_for_request', token_budget: 4000 },
  { op: 'llm_response', usage: { input_tokens: 900 + 250 * index, output_tokens: 3 } },
  { op: 'add_message', message: { role: 'assistant', content: `a${index}` } },
]
const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: Array.from({ length: 14 }, (_, index) => turn(index)).flat() }

describe('metered_view_tokens', () => {
  it('is the calibrated count of the view sent: the meter stats where no pass ran, below the pre-compaction count on a boundary', () => {
    const config = { ...DEFAULT_CONFIG, token_meter: 'calibrated' as const, calibration_overhead_tokens: 500 }
    const result = replayRecording(recording, { config, estimate: makeCachedEstimator() }, { usage: { mode: 'recorded', provider: 'openai' } })
    let boundaries = 0
    result.lines.forEach((line, index) => {
      const stats = line.token_meter_stats as TokenMeterStats
      const metered = result.economics[index]?.metered_view_tokens
      expect(metered).toBeTypeOf('number')
      if (line.events.some((event) => event.name === 'context:compaction')) {
        boundaries += 1
        expect(metered).toBeLessThan(stats.calibrated_tokens ?? 0)
      } else if (!line.events.some((event) => event.name === 'context:compaction-skipped')) {
        expect(metered).toBe(stats.calibrated_tokens)
      }
    })
    expect(boundaries).toBeGreaterThan(0)
  })

  it('is absent under the estimate meter', () => {
    const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'recorded', provider: 'openai' } })
    expect(result.economics.every((economics) => economics !== null && economics.metered_view_tokens === undefined)).toBe(true)
  })
})
