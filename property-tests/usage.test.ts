// Usage normalisation (SPEC 17.10): for generated SDK usage objects (Anthropic with present, null
// or absent cache fields, OpenAI Chat, AI SDK v6 and LanguageModelV3Usage), the decoded figure is
// the table's, and the contract form a recording stores decodes again to the same figure.
import fc from 'fast-check'
import { isLeft, isRight } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeUsage, toRecordedUsage } from '../src/core/meter/usage.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100) * 3

/** Measured tokens of a decoded usage: the contract's `input_tokens + cache_write_tokens`. */
const measuredOf = (usage: unknown): number | string => {
  const decoded = decodeUsage(usage)
  if (isLeft(decoded)) return decoded.left
  return decoded.right.usage.input_tokens + (decoded.right.usage.cache_write_tokens ?? 0)
}

describe('property: the normalised usage measures what the SDK object measured', () => {
  const count = fc.nat({ max: 2_000_000 })
  const optional = fc.oneof(count, fc.constant(null), fc.constant(undefined))
  const sdkUsage = fc.oneof(
    fc.record({ input_tokens: count, output_tokens: count, cache_read_input_tokens: optional, cache_creation_input_tokens: optional }).map((u) => ({
      usage: u as unknown,
      measured: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
    })),
    fc.record({ prompt_tokens: count, completion_tokens: count }).chain((u) =>
      fc.nat({ max: u.prompt_tokens }).map((cached) => ({ usage: { ...u, prompt_tokens_details: { cached_tokens: cached } } as unknown, measured: u.prompt_tokens })),
    ),
    fc.tuple(count, count, count).map(([fresh, read, write]) => ({
      usage: { inputTokens: fresh + read + write, outputTokens: 1, inputTokenDetails: { noCacheTokens: fresh, cacheReadTokens: read, cacheWriteTokens: write } } as unknown,
      measured: fresh + read + write,
    })),
    fc.tuple(count, count, count).map(([fresh, read, write]) => ({
      usage: { inputTokens: { total: fresh + read + write, noCache: fresh, cacheRead: read, cacheWrite: write }, outputTokens: { total: 3 } } as unknown,
      measured: fresh + read + write,
    })),
  )

  it('decoding the recorded (contract) form again gives the same measured tokens and cache fields', () => {
    runProperty(
      'usage normalisation',
      fc.property(sdkUsage, ({ usage, measured }) => {
        const decoded = decodeUsage(usage)
        expect(isRight(decoded)).toBe(true)
        expect(measuredOf(usage)).toBe(measured)
        const recorded = toRecordedUsage({ usage })
        const again = decodeUsage(recorded)
        expect(isRight(again) && again.right.shape).toBe('contract')
        expect(measuredOf(recorded)).toBe(measured)
        expect(isRight(again) && isRight(decoded) && again.right.usage).toEqual(isRight(decoded) && decoded.right.usage)
      }),
      numRuns,
    )
  })
})
