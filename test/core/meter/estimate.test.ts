// Unit tests for src/core/meter/estimate.ts: the worked examples of SPEC 5.3, repr lengths and caching.
import { describe, expect, it } from 'vitest'
import {
  estimateMessages,
  estimateOne,
  makeCachedEstimator,
  pyreprLength,
  type TokenEstimator,
} from '../../../src/core/meter/estimate.js'
import type { Message } from '../../../src/core/messages/message.js'
import { codePointLength, pyrepr } from '../../../src/core/messages/text.js'

interface WorkedExample {
  readonly name: string
  readonly message: Message
  readonly rendered: string
  readonly length: number
  readonly estimate: number
}

const WORKED_EXAMPLES: ReadonlyArray<WorkedExample> = [
  {
    name: 'stored user message with _seq',
    message: { role: 'user', content: 'hello', metadata: { timestamp: '2026-02-06T10:00:00.123+00:00', _seq: 0 } },
    rendered:
      "{'role': 'user', 'content': 'hello', 'metadata': {'timestamp': '2026-02-06T10:00:00.123+00:00', '_seq': 0}}",
    length: 107,
    estimate: 26,
  },
  {
    name: 'the same message without _seq',
    message: { role: 'user', content: 'hello', metadata: { timestamp: '2026-02-06T10:00:00.123+00:00' } },
    rendered: "{'role': 'user', 'content': 'hello', 'metadata': {'timestamp': '2026-02-06T10:00:00.123+00:00'}}",
    length: 96,
    estimate: 24,
  },
  {
    name: 'assistant message with a tool call',
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
      metadata: { _seq: 12 },
    },
    rendered:
      "{'role': 'assistant', 'content': '', 'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'bash', 'arguments': '{}'}}], 'metadata': {'_seq': 12}}",
    length: 161,
    estimate: 40,
  },
  {
    name: 'content with a single quote',
    message: { role: 'user', content: "it's" },
    rendered: `{'role': 'user', 'content': "it's"}`,
    length: 35,
    estimate: 8,
  },
  {
    name: 'content with both quotes',
    message: { role: 'user', content: `say "hi" it's` },
    rendered: `{'role': 'user', 'content': 'say "hi" it\\'s'}`,
    length: 45,
    estimate: 11,
  },
  {
    name: 'content with escapes, non-ASCII and an emoji',
    message: { role: 'user', content: 'a\tb\nc\\d é 😀 \x7f \u200b' },
    rendered: "{'role': 'user', 'content': 'a\\tb\\nc\\\\d é 😀 \\x7f \\u200b'}",
    length: 57,
    estimate: 14,
  },
  {
    name: 'truncated tool result with extra fields',
    message: { role: 'tool', tool_call_id: 'c1', content: 'ok', _truncated: true, _original_tokens: 1, x: null, y: 2.5 },
    rendered:
      "{'role': 'tool', 'tool_call_id': 'c1', 'content': 'ok', '_truncated': True, '_original_tokens': 1, 'x': None, 'y': 2.5}",
    length: 119,
    estimate: 29,
  },
  {
    name: 'system message',
    message: { role: 'system', content: 'You are helpful.' },
    rendered: "{'role': 'system', 'content': 'You are helpful.'}",
    length: 49,
    estimate: 12,
  },
]

describe('SPEC 5.3 worked examples', () => {
  it.each(WORKED_EXAMPLES)('$name', ({ message, rendered, length, estimate }) => {
    expect(pyrepr(message)).toBe(rendered)
    expect(codePointLength(rendered)).toBe(length)
    expect(pyreprLength(message)).toBe(length)
    expect(estimateOne(message)).toBe(estimate)
  })

  it('sums per-message floors, not the floor of the total', () => {
    const messages = WORKED_EXAMPLES.map((example) => example.message)
    const expected = WORKED_EXAMPLES.reduce((sum, example) => sum + example.estimate, 0)
    expect(estimateMessages(messages, estimateOne)).toBe(expected)
    expect(expected).toBe(164)
    const totalLength = WORKED_EXAMPLES.reduce((sum, example) => sum + example.length, 0)
    expect(Math.floor(totalLength / 4)).toBe(167) // differs: the floors are per message
  })
})

describe('pyreprLength', () => {
  const EMOJI = '😀'
  const values: ReadonlyArray<unknown> = [
    null,
    true,
    false,
    0,
    -0,
    7,
    -123,
    2.5,
    -0.5,
    0.1 + 0.2,
    1e-5,
    1e16,
    1e21,
    -1e21,
    1.5e300,
    5e-324,
    123456789.123,
    NaN,
    Infinity,
    -Infinity,
    '',
    'abc',
    "'",
    '"',
    `'"`,
    `''""`,
    "it's",
    `say "hi" it's`,
    '\\',
    '\\\\\'',
    '\t\n\r\x00\x0b\x1f\x7f',
    '\x80\x85\x9f\xa0\xa1\xad\xff',
    'é ü ß 中文 한국어',
    EMOJI,
    `${EMOJI}${EMOJI}`,
    '\ud83d',
    '\ude00',
    '\ude00\ud83d',
    'x\ud83d',
    '\u200b\u2028\u2029\ufeff\u3000\u1680',
    '\ue000\uf8ff\u{f0000}\u{10fffd}\u{10ffff}',
    '\u0378\u0379', // unassigned
    '\u{1f1e6}\u{1f1e8}', // regional indicators
    'x'.repeat(10_000),
    "'".repeat(100),
    `${'"'.repeat(3)}${"'".repeat(4)}`,
    [],
    {},
    [[]],
    [{}],
    [null, 1, 'a', [true, [false]]],
    { a: 1 },
    { "it's": "it's", 'say "x"': 'say "x"' },
    { a: { b: { c: [1, 2, { d: null }] } } },
    { a: undefined },
    { a: undefined, b: 1 },
    { a: 1, b: undefined, c: 2 },
    [undefined],
    [1, undefined, 2],
    undefined,
    12n,
    { [EMOJI]: EMOJI, '\u200b': '\x85' },
  ]

  it.each(values.map((value, index) => ({ index, value })))('equals codePointLength(pyrepr(value #$index))', ({ value }) => {
    expect(pyreprLength(value)).toBe(codePointLength(pyrepr(value)))
  })

  it('gives exact lengths for quoting and escaping', () => {
    expect(pyreprLength('')).toBe(2)
    expect(pyreprLength("it's")).toBe(6) // "it's"
    expect(pyreprLength(`'"`)).toBe(5) // '\'"'
    expect(pyreprLength('\\')).toBe(4) // '\\'
    expect(pyreprLength('\t')).toBe(4) // '\t'
    expect(pyreprLength('\x01')).toBe(6) // '\x01'
    expect(pyreprLength('\xa0')).toBe(6) // '\xa0'
    expect(pyreprLength('\u200b')).toBe(8) // '\u200b'
    expect(pyreprLength('\u{f0000}')).toBe(12) // '\U000f0000'
    expect(pyreprLength('\ud83d')).toBe(8) // '\ud83d'
    expect(pyreprLength('😀')).toBe(3)
    expect(pyreprLength('é')).toBe(3)
    expect(pyreprLength(1e21)).toBe(22)
    expect(pyreprLength(null)).toBe(4)
    expect(pyreprLength(false)).toBe(5)
    expect(pyreprLength([1, 2, 3])).toBe(9) // [1, 2, 3]
    expect(pyreprLength({ a: 1 })).toBe(8) // {'a': 1}
    expect(pyreprLength({ a: 1, b: 2 })).toBe(16) // {'a': 1, 'b': 2}
  })

  it('measures a long ASCII string in one pass', () => {
    const content = 'A'.repeat(5000)
    expect(pyreprLength(content)).toBe(5002)
    expect(estimateOne({ role: 'tool', tool_call_id: 'c1', content })).toBe(
      Math.floor((codePointLength("{'role': 'tool', 'tool_call_id': 'c1', 'content': ''}") + 5000) / 4),
    )
  })
})

describe('estimateOne', () => {
  it('is the floor of a quarter of the repr length', () => {
    expect(estimateOne({})).toBe(0) // '{}'
    expect(estimateOne({ a: 'bc' })).toBe(2) // {'a': 'bc'} is 11 code points
    expect(estimateOne({ a: 'bcd' })).toBe(3) // 12 code points
    expect(estimateOne({ a: 'bcdefg' })).toBe(3) // 15 code points
    expect(estimateOne({ role: 'user', content: 'hello' })).toBe(9) // 36 code points
  })

  it('counts everything, including metadata and view-only flags', () => {
    const bare = { role: 'user', content: 'x' }
    const flagged = { role: 'user', content: 'x', _stubbed: true, _original_length: 118 }
    expect(estimateOne(flagged)).toBeGreaterThan(estimateOne(bare))
  })
})

describe('makeCachedEstimator', () => {
  it('uses estimateOne by default', () => {
    const estimate = makeCachedEstimator()
    for (const example of WORKED_EXAMPLES) expect(estimate(example.message)).toBe(example.estimate)
  })

  it('calls the wrapped estimator once per message object', () => {
    const calls: Array<Message> = []
    const counting: TokenEstimator = (message) => {
      calls.push(message)
      return 7
    }
    const estimate = makeCachedEstimator(counting)
    const a: Message = { role: 'user', content: 'a' }
    const b: Message = { role: 'user', content: 'a' }
    expect(estimate(a)).toBe(7)
    expect(estimate(a)).toBe(7)
    expect(estimate(b)).toBe(7)
    expect(estimate(b)).toBe(7)
    expect(calls).toEqual([a, b])
    expect(calls[0]).toBe(a)
    expect(calls[1]).toBe(b)
  })

  it('keeps separate caches per estimator', () => {
    const message: Message = { role: 'user', content: 'hello' }
    const one = makeCachedEstimator(() => 1)
    const two = makeCachedEstimator(() => 2)
    expect(one(message)).toBe(1)
    expect(two(message)).toBe(2)
  })

  it('accepts a custom pure estimator', () => {
    const byContentLength = makeCachedEstimator((message) =>
      typeof message.content === 'string' ? codePointLength(message.content) : 0,
    )
    expect(byContentLength({ role: 'user', content: 'a😀b' })).toBe(3)
    expect(byContentLength({ role: 'user', content: [] })).toBe(0)
  })
})

describe('estimateMessages', () => {
  it('is zero for an empty list', () => {
    expect(estimateMessages([], estimateOne)).toBe(0)
  })

  it('is additive over concatenation', () => {
    const first = WORKED_EXAMPLES.slice(0, 3).map((example) => example.message)
    const second = WORKED_EXAMPLES.slice(3).map((example) => example.message)
    expect(estimateMessages([...first, ...second], estimateOne)).toBe(
      estimateMessages(first, estimateOne) + estimateMessages(second, estimateOne),
    )
  })

  it('uses the given estimator for every message', () => {
    const messages: Array<Message> = [{ role: 'user' }, { role: 'assistant' }, { role: 'tool' }]
    expect(estimateMessages(messages, () => 5)).toBe(15)
    expect(estimateMessages(messages, makeCachedEstimator())).toBe(estimateMessages(messages, estimateOne))
  })
})
