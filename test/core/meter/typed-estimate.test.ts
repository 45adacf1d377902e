// Unit tests for src/core/meter/typed-estimate.ts and src/shell/estimators.ts (docs/configuration.md, token_estimator):
// media blocks and base64 payloads are never counted as text, images cost their provider's
// amount (from their dimensions when the payload shows them, else the ceiling), the typed
// estimator equals the reference estimator on text, and the per-message sum is the list figure.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import type { Message } from '../../../src/core/messages/message.js'
import { estimateTyped, isBase64Payload, MEDIA_TOKENS, splitMedia, toAnthropicImageTokens, toImageDimensions, toOpenAiImageTokens } from '../../../src/core/meter/typed-estimate.js'
import { loadTokenizer, makeEstimatorFor, makeTokenizerEstimator } from '../../../src/shell/estimators.js'
import { added, fold, request, stepFor } from '../../support/core.js'

// A real 1×1 PNG, and a PNG header claiming 1000×500 (IHDR) followed by padding.
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const pngOf = (width: number, height: number): string => {
  const bytes = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
  for (const n of [width, height]) bytes.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
  return Buffer.from([...bytes, ...new Array(3000).fill(7)]).toString('base64')
}

describe('image dimensions and costs', () => {
  it('reads PNG, GIF and JPEG sizes from the payload', () => {
    expect(toImageDimensions(PNG_1X1)).toEqual({ width: 1, height: 1 })
    expect(toImageDimensions(pngOf(1000, 500))).toEqual({ width: 1000, height: 500 })
    const gif = Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x20, 0x03, 0x58, 0x02, 0, 0]).toString('base64')
    expect(toImageDimensions(gif)).toEqual({ width: 800, height: 600 })
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 3, 0, 0, 0]).toString('base64')
    expect(toImageDimensions(jpeg)).toEqual({ width: 640, height: 480 })
    expect(toImageDimensions('not an image')).toBeNull()
  })

  it('Anthropic: width × height / 750 after downscaling, at most 1,600; OpenAI: 85 + 170 per tile, 85 at low detail', () => {
    expect(toAnthropicImageTokens(1000, 500)).toBe(667)
    expect(toAnthropicImageTokens(4000, 3000)).toBeLessThanOrEqual(MEDIA_TOKENS.anthropicImageMax)
    expect(toOpenAiImageTokens(1024, 1024, 'high')).toBe(765)
    expect(toOpenAiImageTokens(4096, 8192, 'auto')).toBe(1105)
    expect(toOpenAiImageTokens(4096, 8192, 'low')).toBe(85)
  })
})

describe('estimateTyped', () => {
  it('a base64 screenshot costs its image amount, not its characters', () => {
    const data = pngOf(1000, 500)
    const message: Message = { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] }
    const textOnly: Message = { role: 'user', content: [{ type: 'text', text: 'see' }, ''] }
    expect(estimateTyped(message)).toBe(estimateOne(textOnly) + 667)
    expect(estimateOne(message)).toBeGreaterThan(1000)
    expect(splitMedia(message)).toMatchObject({ media: 1, unmeasured: 0, mediaTokens: 667 })
  })

  it('images whose size cannot be read cost the provider ceiling and count as unmeasured; documents cost the document amount', () => {
    const url: Message = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.test/a.png' } }] }
    expect(splitMedia(url)).toMatchObject({ mediaTokens: MEDIA_TOKENS.openaiHighMax, media: 1, unmeasured: 1 })
    const low: Message = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'low' } }] }
    expect(splitMedia(low).mediaTokens).toBe(85)
    const pdf: Message = { role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x'.repeat(100) } }] }
    expect(splitMedia(pdf)).toMatchObject({ mediaTokens: MEDIA_TOKENS.document, unmeasured: 1 })
  })

  it('a base64 data URL inside a tool result is media, and a long base64 string is never text', () => {
    const tool: Message = { role: 'tool', tool_call_id: 'a', content: `data:image/png;base64,${pngOf(100, 100)}` }
    expect(estimateTyped(tool)).toBe(estimateOne({ role: 'tool', tool_call_id: 'a', content: '' }) + toAnthropicImageTokens(100, 100))
    expect(isBase64Payload('QUJD'.repeat(100))).toBe(true)
    expect(isBase64Payload('plain words, not base64 at all')).toBe(false)
  })

  it('property: equals the reference estimator on messages without media', () => {
    const text = fc.string({ maxLength: 200 }).filter((value) => !isBase64Payload(value))
    fc.assert(
      fc.property(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: text }), (message) => {
        expect(estimateTyped(message)).toBe(estimateOne(message))
      }),
    )
  })

  it('property: media never costs its characters (the estimate does not grow with the payload length)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 20_000 }), (length) => {
        const message: Message = { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'A'.repeat(length) } }] }
        expect(estimateTyped(message)).toBe(estimateTyped({ ...message, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'A'.repeat(300) } }] }))
      }),
    )
  })
})

describe('makeEstimatorFor (shell)', () => {
  it('builds the estimator token_estimator names, memoised', () => {
    const message: Message = { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.test/x.png' } }] }
    expect(makeEstimatorFor(DEFAULT_CONFIG)(message)).toBe(estimateOne(message))
    expect(makeEstimatorFor({ ...DEFAULT_CONFIG, token_estimator: 'typed' })(message)).toBe(estimateTyped(message))
    const tokenizer = makeEstimatorFor({ ...DEFAULT_CONFIG, token_estimator: 'tokenizer' })
    expect(tokenizer({ role: 'user', content: 'hello world' })).toBe(loadTokenizer()('user\nhello world') + 4)
  })

  it('the tokenizer estimator counts strings (not metadata) plus media plus a per-message overhead', () => {
    const estimate = makeTokenizerEstimator((text) => text.length)
    expect(estimate({ role: 'user', content: 'abc', metadata: { timestamp: 'x'.repeat(50) } })).toBe('user\nabc'.length + 4)
  })
})

describe('meter stats with a typed estimator', () => {
  it('say how many media items W holds and how many were charged a ceiling; absent with the reference estimator', () => {
    const events = [
      added({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.test/a.png' } }] }),
      added({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngOf(10, 10) } }] }),
      request(),
    ]
    expect(fold(stepFor({ token_estimator: 'typed' }), events).state.meter.stats).toMatchObject({ media_items: 2, media_unmeasured: 1 })
    expect(fold(stepFor(), events).state.meter.stats).not.toHaveProperty('media_items')
  })
})
