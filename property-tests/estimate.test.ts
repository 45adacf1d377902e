// Property tests for the estimator: pyreprLength agrees with the built repr string, and the
// code-point helpers agree with array-of-code-point models, on arbitrary JSON and full Unicode.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { estimateMessages, estimateOne, estimateWithoutSeq, makeCachedEstimator, pyreprLength } from '../src/core/meter/estimate.js'
import type { Message } from '../src/core/messages/message.js'
import { codePointLength, codePointSlice, pyrepr, pyStrip } from '../src/core/messages/text.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 300)

/** One string unit: any code point, any UTF-16 unit (lone surrogates), or a character repr treats specially. */
const unicodeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom("'", '"', '\\', '\t', '\n', '\r', '\x00', '\x7f', '\x85', '\xa0', '\xad', '\u200b', '\u2028', '😀', 'é', 'a', ' '),
)

/** Strings over the full Unicode range, lone surrogates included. */
const unicodeString = fc.string({ unit: unicodeUnit, maxLength: 40 })

/** JSON values whose strings (keys included) span the full Unicode range. */
const unicodeJson = fc.jsonValue({ stringUnit: unicodeUnit, maxDepth: 4 })

/** Numbers of every kind, including huge integers and exponent-range floats. */
const anyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e21, -1e22, 1e16, 1e-5, 0.0001, 2.5, -0))

describe('pyreprLength', () => {
  it('equals the code-point length of pyrepr on arbitrary JSON values', () => {
    fc.assert(
      fc.property(unicodeJson, (value) => {
        expect(pyreprLength(value)).toBe(codePointLength(pyrepr(value)))
      }),
      { numRuns },
    )
  })

  it('equals the code-point length of pyrepr on full-Unicode strings', () => {
    fc.assert(
      fc.property(unicodeString, (s) => {
        expect(pyreprLength(s)).toBe(codePointLength(pyrepr(s)))
      }),
      { numRuns },
    )
  })

  it('equals the code-point length of pyrepr on default JSON values and numbers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), anyNumber), (value) => {
        expect(pyreprLength(value)).toBe(codePointLength(pyrepr(value)))
      }),
      { numRuns },
    )
  })

  it('treats undefined members as absent', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.option(unicodeJson, { nil: undefined })), (record) => {
        const defined = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))
        expect(pyrepr(record)).toBe(pyrepr(defined))
        expect(pyreprLength(record)).toBe(pyreprLength(defined))
      }),
      { numRuns },
    )
  })
})

describe('estimates', () => {
  const message: fc.Arbitrary<Message> = fc.dictionary(fc.string({ unit: unicodeUnit, maxLength: 8 }), unicodeJson, {
    maxKeys: 5,
  })

  it('is additive over concatenation and unchanged by caching', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.array(message, { maxLength: 6 }), (a, b) => {
        const cached = makeCachedEstimator()
        const whole = estimateMessages([...a, ...b], estimateOne)
        expect(whole).toBe(estimateMessages(a, estimateOne) + estimateMessages(b, estimateOne))
        expect(estimateMessages([...a, ...b], cached)).toBe(whole)
        expect(estimateMessages([...a, ...b], cached)).toBe(whole)
        for (const m of a) expect(estimateOne(m)).toBe(Math.floor(codePointLength(pyrepr(m)) / 4))
      }),
      { numRuns },
    )
  })
})

describe('code-point helpers', () => {
  it('codePointLength and codePointSlice agree with an array of code points', () => {
    const index = fc.integer({ min: -50, max: 50 })
    fc.assert(
      fc.property(unicodeString, index, fc.option(index, { nil: undefined }), (s, start, end) => {
        const points = Array.from(s)
        expect(codePointLength(s)).toBe(points.length)
        expect(codePointSlice(s, start, end)).toBe(points.slice(start, end).join(''))
      }),
      { numRuns },
    )
  })

  it('pyStrip removes only Python whitespace and is idempotent', () => {
    const pyWhitespace = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/
    fc.assert(
      fc.property(unicodeString, (s) => {
        const stripped = pyStrip(s)
        expect(s.includes(stripped)).toBe(true)
        expect(pyStrip(stripped)).toBe(stripped)
        if (stripped.length > 0) {
          expect(pyWhitespace.test(stripped[0])).toBe(false)
          expect(pyWhitespace.test(stripped[stripped.length - 1])).toBe(false)
        }
        const start = s.indexOf(stripped)
        for (const c of s.slice(0, start)) expect(pyWhitespace.test(c)).toBe(true)
        for (const c of s.slice(start + stripped.length)) expect(pyWhitespace.test(c)).toBe(true)
      }),
      { numRuns },
    )
  })
})

describe('estimateWithoutSeq', () => {
  /** A message whose metadata holds `_seq` (any value, undefined included) among other members, some absent. */
  const member = fc.option(unicodeJson, { nil: undefined })
  interface MessageParts {
    readonly before: Record<string, unknown>
    readonly seq: unknown
    readonly seqFirst: boolean
    readonly others: Record<string, unknown>
    readonly after: Record<string, unknown>
  }
  const messageArb: fc.Arbitrary<MessageParts> = fc.record({
    before: fc.dictionary(fc.string({ unit: unicodeUnit, maxLength: 6 }), unicodeJson, { maxKeys: 3 }),
    seq: fc.oneof(anyNumber, member, fc.constant(undefined)),
    seqFirst: fc.boolean(),
    others: fc.dictionary(fc.string({ unit: unicodeUnit, maxLength: 6 }), member, { maxKeys: 3 }),
    after: fc.dictionary(fc.string({ unit: unicodeUnit, maxLength: 6 }), unicodeJson, { maxKeys: 3 }),
  })
  const build = ({ before, seq, seqFirst, others, after }: MessageParts): Message => {
    const rest = Object.fromEntries(Object.entries(others).filter(([key]) => key !== '_seq'))
    const metadata = seqFirst ? { _seq: seq, ...rest } : { ...rest, _seq: seq }
    const message: Record<string, unknown> = { ...before, metadata }
    for (const [key, value] of Object.entries(after)) if (key !== 'metadata') message[key] = value
    return message as Message
  }
  // What `stripMessage` (src/core/compaction/context.ts) makes of it.
  const strip = (message: Message): Message => {
    const { _seq: _dropped, ...rest } = message.metadata as Record<string, unknown>
    return { ...message, metadata: rest }
  }

  it('equals the estimate of the stripped copy measured afresh, and memoises it', () => {
    fc.assert(
      fc.property(messageArb, (parts) => {
        const original = build(parts)
        const stripped = strip(original)
        const estimate = makeCachedEstimator()
        estimate(original)
        expect(estimateWithoutSeq(estimate, stripped, original)).toBe(estimateOne(stripped))
        expect(estimate(stripped)).toBe(estimateOne(stripped))
      }),
      { numRuns },
    )
  })

  it('measures when it cannot derive: original not measured, metadata not enumerable, another estimator', () => {
    const original = { role: 'user', content: 'a much longer text than the metadata', metadata: { _seq: 123456, source: 'hook' } }
    const stripped = strip(original)
    expect(estimateWithoutSeq(makeCachedEstimator(), stripped, original)).toBe(estimateOne(stripped))
    const hidden = Object.defineProperty({ role: 'user', content: 'hi' }, 'metadata', { value: { _seq: 99999 }, enumerable: false }) as Message
    const estimate = makeCachedEstimator()
    estimate(hidden)
    const copy = { ...hidden, metadata: {} }
    expect(estimateWithoutSeq(estimate, copy, hidden)).toBe(estimateOne(copy))
    const typed = makeCachedEstimator((message) => JSON.stringify(message).length)
    typed(original)
    expect(estimateWithoutSeq(typed, stripped, original)).toBe(JSON.stringify(stripped).length)
  })
})
