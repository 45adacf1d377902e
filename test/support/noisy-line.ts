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
