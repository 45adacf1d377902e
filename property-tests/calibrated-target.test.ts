// The calibrated meter's pass target (docs/contract.md 17.13, "The target";
// src/core/meter/calibration.ts `toCalibratedTarget`): for any model the meter can fit (scale
// 0.25..8, any overhead and margin) and any effective budget, the target is non-decreasing and
// continuous in target_usage (from Δ to Δ' it grows by at most (E × (Δ' − Δ) + 1) / scale + 1
// estimator tokens: the slope of the billed target converted, and its rounding), lies between 0 and the room when the room is positive, keeps
// target_usage × room while the overhead is over the billed target, and is never below the billed
// target converted. Before the fix it dropped from about share × room to 0 at share.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toCalibratedTarget, toEstimatorUnits, type CalibrationModel } from '../src/core/meter/calibration.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** An effective budget and a model whose overhead fills a share of it from −0.2 to 1.5 (the step sat at the share). */
const budgetArb: fc.Arbitrary<{ readonly effective: number; readonly model: CalibrationModel }> = fc
  .record({
    effective: fc.integer({ min: 1, max: 1_000_000 }),
    share: fc.integer({ min: -2_000, max: 15_000 }).map((tenThousandths) => tenThousandths / 10_000),
    scale: fc.integer({ min: 25, max: 800 }).map((hundredths) => hundredths / 100),
    margin: fc.integer({ min: 0, max: 5_000 }),
    points: fc.integer({ min: 0, max: 48 }),
  })
  .map(({ effective, share, scale, margin, points }) => ({ effective, model: { scale, overhead: Math.round(share * effective) - margin, margin, points } }))

// fc.double draws mostly values near 0 and 1 (it is uniform over the bit patterns): ten-thousandths.
const usageArb = fc.integer({ min: 0, max: 10_000 }).map((tenThousandths) => tenThousandths / 10_000)

describe('toCalibratedTarget', () => {
  it('is non-decreasing and continuous in target_usage', () => {
    runProperty(
      'calibrated target monotone and continuous',
      fc.property(budgetArb, usageArb, usageArb, ({ model, effective }, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a]
        const lower = toCalibratedTarget(model, effective, low)
        const upper = toCalibratedTarget(model, effective, high)
        const where = `model ${JSON.stringify(model)}, E ${effective}, target_usage ${low} → ${high}`
        expect(upper, where).toBeGreaterThanOrEqual(lower)
        // trunc(E × target_usage) moves by at most E × Δ + 1 billed tokens; each truncation adds 1 at most
        expect(upper - lower, where).toBeLessThanOrEqual(Math.ceil((effective * (high - low) + 1) / model.scale) + 1)
      }),
      numRuns,
    )
  })

  it('lies in 0..room, keeps target_usage × room under the overhead and is never below the billed target converted', () => {
    runProperty(
      'calibrated target bounds',
      fc.property(budgetArb, usageArb, ({ model, effective }, usage) => {
        const target = toCalibratedTarget(model, effective, usage)
        const room = toEstimatorUnits(model, effective)
        const billed = toEstimatorUnits(model, Math.trunc(effective * usage))
        const where = `model ${JSON.stringify(model)}, E ${effective}, target_usage ${usage}`
        expect(target, where).toBeGreaterThanOrEqual(billed)
        if (room <= 0) {
          expect(target, where).toBe(billed)
          return
        }
        expect(target, where).toBeGreaterThanOrEqual(0)
        expect(target, where).toBeLessThanOrEqual(room)
        if (effective * usage <= model.overhead + model.margin) expect(target, where).toBe(Math.trunc(usage * room))
      }),
      numRuns,
    )
  })
})
