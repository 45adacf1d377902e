// Readings on a noisy line, for the properties of the two fits of provider readings on counts:
// the provider model's (src/core/economics/provider-model.ts) and the calibrated meter's
// (src/core/meter/calibration.ts). A line `reading = scale × count + overhead`, each point off it
// by a relative noise.
import fc from 'fast-check'

/** The ranges of a noisy line: scale, overhead (tokens), counts (tokens), relative noise, points. */
export interface NoisyLineRanges {
  readonly scale: readonly [number, number]
  readonly overhead: number
  readonly count: readonly [number, number]
  readonly noise: number
  readonly points: readonly [number, number]
  /** Round each reading to whole tokens (a provider reports integers). */
  readonly round: boolean
}

/** A drawn line and its points (`count`, `reading`). */
export interface NoisyLine {
  readonly scale: number
  readonly overhead: number
  readonly points: ReadonlyArray<{ readonly count: number; readonly reading: number }>
}

export const noisyLine = (ranges: NoisyLineRanges): fc.Arbitrary<NoisyLine> =>
  fc
    .tuple(
      fc.double({ min: ranges.scale[0], max: ranges.scale[1], noNaN: true }),
      fc.integer({ min: 0, max: ranges.overhead }),
      fc.array(fc.record({ count: fc.integer({ min: ranges.count[0], max: ranges.count[1] }), noise: fc.double({ min: -ranges.noise, max: ranges.noise, noNaN: true }) }), {
        minLength: ranges.points[0],
        maxLength: ranges.points[1],
      }),
    )
    .map(([scale, overhead, draws]) => ({
      scale,
      overhead,
      points: draws.map((draw) => {
        const reading = (scale * draw.count + overhead) * (1 + draw.noise)
        return { count: draw.count, reading: ranges.round ? Math.round(reading) : reading }
      }),
    }))

/** The ranges of readings at two sizes: a line as above, the small size's counts, how many times larger the large size is, and how much the counts of a size vary. */
export interface TwoSizesRanges {
  readonly scale: readonly [number, number]
  readonly overhead: number
  /** The small size's count (tokens). */
  readonly count: readonly [number, number]
  /** The large size is this many times the small one. */
  readonly factor: readonly [number, number]
  /** A size's counts are its count × (1 + up to one of these shares): 0.003 is about one size, 0.3 a size that tells a line on its own. */
  readonly spreads: ReadonlyArray<number>
  readonly noise: number
  /** Points at each size. */
  readonly points: readonly [number, number]
  readonly round: boolean
}

/**
 * Readings on a noisy line at two sizes, as a session whose views are long and then, after a
 * compaction, short: each point off the line by a relative noise, readings rounded to whole tokens
 * when `round` (the counts' lower bound keeps that rounding well under the noise).
 */
export const twoSizes = (ranges: TwoSizesRanges): fc.Arbitrary<NoisyLine> => {
  const size = fc.array(fc.record({ step: fc.double({ min: 0, max: 1, noNaN: true }), noise: fc.double({ min: -ranges.noise, max: ranges.noise, noNaN: true }) }), {
    minLength: ranges.points[0],
    maxLength: ranges.points[1],
  })
  return fc
    .record({
      scale: fc.double({ min: ranges.scale[0], max: ranges.scale[1], noNaN: true }),
      overhead: fc.integer({ min: 0, max: ranges.overhead }),
      count: fc.integer({ min: ranges.count[0], max: ranges.count[1] }),
      factor: fc.integer({ min: ranges.factor[0], max: ranges.factor[1] }),
      spread: fc.constantFrom(...ranges.spreads),
      small: size,
      large: size,
    })
    .map(({ scale, overhead, count, factor, spread, small, large }) => {
      const at = (base: number) => (draw: { readonly step: number; readonly noise: number }) => {
        const drawn = Math.round(base * (1 + spread * draw.step))
        const reading = (scale * drawn + overhead) * (1 + draw.noise)
        return { count: drawn, reading: ranges.round ? Math.round(reading) : reading }
      }
      return { scale, overhead, points: [...small.map(at(count)), ...large.map(at(count * factor))] }
    })
}
