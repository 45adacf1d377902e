// The provider model's fit (src/core/economics/provider-model.ts): least squares of the readings
// on the counts of what was sent, robust to outliers; no readings = scale 1, no overhead.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fitProviderModel, NO_READINGS_FIT, selectFitPairs, toBilledCount } from '../../../src/core/economics/provider-model.js'
import type { Recording } from '../../../src/core/replay/recording.js'
import { noisyLine } from '../../support/noisy-line.js'

describe('fitProviderModel', () => {
  it('recovers an exact line', () => {
    expect(fitProviderModel([100, 200, 300].map((count) => ({ count, reading: 2 * count + 1000 })))).toEqual({ scale: 2, overhead: 1000, points: 3, rejected: 0, source: 'readings' })
  })

  it('no readings: scale 1 and no overhead; one reading: scale 1, overhead = reading − count', () => {
    expect(fitProviderModel([])).toEqual(NO_READINGS_FIT)
    expect(fitProviderModel([{ count: 400, reading: 26_000 }])).toEqual({ scale: 1, overhead: 25_600, points: 1, rejected: 0, source: 'single' })
  })

  it('counts that do not vary, or a slope that is not positive, fall back to scale 1', () => {
    expect(fitProviderModel([{ count: 10, reading: 50 }, { count: 10, reading: 70 }])).toMatchObject({ scale: 1, overhead: 50 })
    expect(fitProviderModel([{ count: 10, reading: 500 }, { count: 20, reading: 300 }, { count: 30, reading: 100 }]).scale).toBe(1)
  })

  it('leaves out a reading far off the line (another conversation) and keeps the rest', () => {
    const pairs = Array.from({ length: 30 }, (_, index) => ({ count: 1000 * (index + 1), reading: Math.round(1.25 * 1000 * (index + 1) + 30_000 + ((index * 37) % 11) - 5) }))
    const fit = fitProviderModel([...pairs, { count: 15_000, reading: 170_000 }])
    expect(fit.rejected).toBe(1)
    expect(fit.scale).toBeCloseTo(1.25, 2)
    expect(fit.overhead).toBeGreaterThan(29_900)
    expect(fit.overhead).toBeLessThan(30_100)
  })

  it('readings at two sizes (a regression of the noisy-line property, seed 1408249031): the large readings stay in the fit', () => {
    const pairs = [
      { count: 100, reading: 50 },
      { count: 1363, reading: 676.4513982144728 },
      { count: 100, reading: 50 },
      { count: 1364, reading: 682 },
      { count: 102, reading: 50.490000000001714 },
    ]
    const fit = fitProviderModel(pairs)
    expect(fit.rejected).toBe(0)
    expect(fit.scale).toBeCloseTo(0.5, 2)
    for (const pair of pairs) expect(Math.abs(fit.scale * pair.count + fit.overhead - pair.reading)).toBeLessThanOrEqual(0.05 * 682 + 1)
  })

  it('property: on noisy linear readings the fit is close to the line and its scale positive', () => {
    fc.assert(
      fc.property(noisyLine({ scale: [0.5, 2.5], overhead: 50_000, count: [100, 200_000], noise: 0.01, points: [3, 60], round: false }), ({ points: pairs }) => {
        fc.pre(new Set(pairs.map((pair) => pair.count)).size >= 3)
        const fit = fitProviderModel(pairs)
        expect(fit.scale).toBeGreaterThan(0)
        const largest = Math.max(...pairs.map((pair) => pair.reading))
        for (const pair of pairs) {
          const predicted = fit.scale * pair.count + fit.overhead
          // within 5 % of the largest reading (noise is 1 %; a rejected point only makes the others fit better)
          expect(Math.abs(predicted - pair.reading)).toBeLessThanOrEqual(0.05 * largest + 1)
        }
      }),
    )
  })
})

describe('toBilledCount and selectFitPairs', () => {
  it('scales the counter and rounds', () => {
    expect(toBilledCount({ ...NO_READINGS_FIT, scale: 1.25 }, () => 10)({ role: 'user', content: 'x' })).toBe(13)
  })

  it('pairs each request that has a reading with the count of the history then (adds, replaces, clears)', () => {
    const recording: Recording = {
      config: {},
      now: '2026-01-01T00:00:00Z',
      ops: [
        { op: 'add_message', message: { role: 'user', content: 'a' } },
        { op: 'get_messages_for_request' },
        { op: 'llm_response', usage: { input_tokens: 100 } },
        { op: 'add_message', message: { role: 'assistant', content: 'b' } },
        { op: 'get_messages_for_request' },
        { op: 'set_messages', messages: [{ role: 'user', content: 'c' }] },
        { op: 'get_messages_for_request' },
        { op: 'clear' },
        { op: 'get_messages_for_request' },
      ],
    }
    const readings = new Map<number, unknown>([[1, 100], [4, 200], [6, 300], [8, null]])
    const pairs = selectFitPairs(recording, readings, (usage) => (typeof usage === 'number' ? usage : null), () => 7)
    expect(pairs).toEqual([{ count: 7, reading: 100 }, { count: 14, reading: 200 }, { count: 7, reading: 300 }])
  })
})
