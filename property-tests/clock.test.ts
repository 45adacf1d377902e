// Property test for the shell's timestamp format: formatTimestamp (which reuses the text of the
// second it formatted last) agrees with the plain `toISOString` form on any time, in any call
// order: the same second again, the next millisecond, a jump across the epoch or to Date's limits.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatTimestamp } from '../src/shell/clock.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 300)

/** The format as defined (SPEC 1.4): `toISOString` of the truncated time, `Z` as `+00:00`; throws a RangeError outside Date's range. */
const reference = (ms: number): string => new Date(Math.trunc(ms)).toISOString().slice(0, -1) + '+00:00'

const LIMIT = 8.64e15
/** Times near the interesting places: the epoch, second boundaries, Date's limits, anywhere; fractions and -0 too. */
const time = fc.oneof(
  fc.integer({ min: -5000, max: 5000 }),
  fc.integer({ min: -LIMIT, max: LIMIT }),
  fc.integer({ min: 0, max: 2000 }).map((k) => LIMIT - k),
  fc.integer({ min: 0, max: 2000 }).map((k) => -LIMIT + k),
  fc.integer({ min: 1, max: 2000 }).map((k) => LIMIT + k),
  fc.integer({ min: 1, max: 2000 }).map((k) => -LIMIT - k),
  fc.double({ min: -1e13, max: 1e13, noNaN: true }),
  fc.constantFrom(-0, 0.5, -0.5, 999.9, -999.9, 1000, -1000, Number.NaN, Infinity, -Infinity, 1767225600000, 1767225600999),
)

const outcome = (format: (ms: number) => string, ms: number): string => {
  try {
    return format(ms)
  } catch (error) {
    return `threw ${(error as Error).name}`
  }
}

describe('formatTimestamp', () => {
  it('agrees with toISOString on every time of any call sequence (same second, neighbours, jumps, out of range)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(time, fc.integer({ min: -2, max: 2 })), { minLength: 1, maxLength: 20 }), (calls) => {
        for (const [ms, step] of calls) {
          // A time and then its neighbour: the cached second is hit, left by one millisecond, or left backwards.
          for (const at of [ms, ms + step, ms]) expect(outcome(formatTimestamp, at)).toBe(outcome(reference, at))
        }
      }),
      { numRuns },
    )
  })
})
