// Unit tests for src/core/messages/json-value.ts: the JSON-value rules of stored messages (SPEC 17.9).
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, decodeJsonValue, decodeMessage, decodeMessages, describeValue, toMemberPath, toProblemText, type JsonValueProblem } from '../../../src/core/messages/json-value.js'

const problemsOf = <T>(decoded: E.Either<ReadonlyArray<JsonValueProblem>, T>): ReadonlyArray<JsonValueProblem> => (E.isLeft(decoded) ? decoded.left : [])
const valueOf = <T>(decoded: E.Either<ReadonlyArray<JsonValueProblem>, T>): T => {
  if (E.isLeft(decoded)) throw new Error(`unexpected problems: ${JSON.stringify(decoded.left)}`)
  return decoded.right
}
const firstOf = <T>(decoded: E.Either<ReadonlyArray<JsonValueProblem>, T>): Pick<JsonValueProblem, 'kind' | 'path'> => {
  const [first] = problemsOf(decoded)
  return { kind: first?.kind ?? ('none' as never), path: first?.path ?? '' }
}

class Point {
  constructor(readonly x: number) {}
}

const chain = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true }
  for (let i = 1; i < depth; i += 1) value = { next: value }
  return value
}

describe('decodeMessage: the library keeps its own deep copy (SPEC 17.9)', () => {
  it('copies every nested object and array, so later changes by the caller do not reach it', () => {
    const block = { type: 'text', text: 'hi' }
    const message = { role: 'user', content: [block], metadata: { tags: ['a'] } }
    const own = valueOf(decodeMessage(message))
    expect(own).toEqual(message)
    block.text = 'changed'
    message.metadata.tags.push('b')
    expect(own).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }], metadata: { tags: ['a'] } })
  })

  it('keeps a __proto__ key as an ordinary own key (as JSON.parse makes it), at the top, in metadata and in blocks', () => {
    const message = JSON.parse('{"role":"user","__proto__":{"x":1},"metadata":{"__proto__":"m"},"content":[{"type":"text","text":"hi","__proto__":{"text":"leak"}}]}') as Record<string, unknown>
    const own = valueOf(decodeMessage(message)) as Record<string, unknown>
    const block = (own.content as Array<Record<string, unknown>>)[0]
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype)
    expect(Object.keys(block)).toEqual(['type', 'text', '__proto__'])
    expect(Object.getOwnPropertyDescriptor(block, '__proto__')?.value).toEqual({ text: 'leak' })
    expect(Object.keys(own)).toEqual(['role', '__proto__', 'metadata', 'content'])
    expect(Object.getOwnPropertyDescriptor(own.metadata, '__proto__')?.value).toBe('m')
    expect(JSON.stringify(own)).toBe(JSON.stringify(message))
  })

  it('reads getters that return a value, drops members that are undefined, ignores symbol keys', () => {
    const message: Record<string | symbol, unknown> = { role: 'user', skip: undefined, [Symbol('s')]: 1 }
    Object.defineProperty(message, 'content', { get: () => 'from a getter', enumerable: true })
    expect(valueOf(decodeMessage(message))).toEqual({ role: 'user', content: 'from a getter' })
  })

  it('accepts null-prototype objects, any role and any shape (per-format rules are separate)', () => {
    const block = Object.assign(Object.create(null) as Record<string, unknown>, { type: 'text', text: 'x' })
    expect(valueOf(decodeMessage({ role: 'narrator', content: [block], extra: [1, null, true] }))).toEqual({ role: 'narrator', content: [{ type: 'text', text: 'x' }], extra: [1, null, true] })
    expect(valueOf(decodeMessage({}))).toEqual({})
    expect(valueOf(decodeMessage({ role: 'user', metadata: null }))).toEqual({ role: 'user', metadata: null })
  })

  it('shares what options.share says the caller already owns, without walking it', () => {
    const frozen = Object.freeze({ type: 'text', text: 'kept' })
    const own = valueOf(decodeMessage({ role: 'user', content: [frozen] }, 'message', { share: (value) => value === frozen })) as { content: unknown[] }
    expect(own.content[0]).toBe(frozen)
    const copied = valueOf(decodeMessage({ role: 'user', content: [frozen] })) as { content: unknown[] }
    expect(copied.content[0]).not.toBe(frozen)
  })
})

describe('decodeMessage: what is not JSON is rejected with its path (SPEC 17.9)', () => {
  it.each([
    ['a function', { role: 'user', content: [{ type: 'text', text: 'a' }, () => 1] }, 'function', 'message.content[1]'],
    ['a symbol', { role: 'user', content: Symbol('x') }, 'symbol', 'message.content'],
    ['a BigInt', { role: 'user', metadata: { n: 10n } }, 'bigint', 'message.metadata.n'],
    ['undefined in an array', { role: 'user', content: ['a', undefined] }, 'undefined', 'message.content[1]'],
    ['NaN', { role: 'user', metadata: { score: Number.NaN } }, 'non_finite_number', 'message.metadata.score'],
    ['Infinity', { role: 'user', content: [Infinity] }, 'non_finite_number', 'message.content[0]'],
    ['a class instance below the top', { role: 'user', content: [{ type: 'point', at: new Point(1) }] }, 'non_plain_object', 'message.content[0].at'],
    ['a Date', { role: 'user', content: new Date(0) }, 'non_plain_object', 'message.content'],
    ['a Map', { role: 'user', content: 'x', tool_calls: new Map() }, 'non_plain_object', 'message.tool_calls'],
    ['a boxed string', { role: 'user', content: new String('x') }, 'non_plain_object', 'message.content'],
    ['a typed array', { role: 'user', content: new Uint8Array(2) }, 'non_plain_object', 'message.content'],
    ['a sparse array', { role: 'user', content: ['a', , 'c'] }, 'sparse_array', 'message.content[1]'],
    ['a key that needs quoting', { role: 'user', 'odd key': () => 1 }, 'function', 'message["odd key"]'],
  ])('%s', (_name, message, kind, path) => {
    expect(firstOf(decodeMessage(message))).toEqual({ kind, path })
  })

  it('a cycle, however deep, and not a shared (acyclic) reference', () => {
    const message: Record<string, unknown> = { role: 'user', content: [{ type: 'text', text: 'a' }] }
    ;(message.content as Array<Record<string, unknown>>)[0].self = message
    expect(firstOf(decodeMessage(message))).toEqual({ kind: 'cycle', path: 'message.content[0].self' })
    const shared = { type: 'text', text: 'same' }
    expect(valueOf(decodeMessage({ role: 'user', content: [shared, shared] }))).toEqual({ role: 'user', content: [shared, shared] })
  })

  it('getters and Proxies that throw are "unreadable", never an exception', () => {
    const getter = { role: 'user' }
    Object.defineProperty(getter, 'content', { get: () => { throw new Error('boom') }, enumerable: true })
    expect(firstOf(decodeMessage(getter))).toEqual({ kind: 'unreadable', path: 'message.content' })
    expect(problemsOf(decodeMessage(getter))[0].detail).toMatch(/boom/)
    const keysThrow = new Proxy({}, { ownKeys: () => { throw new Error('no keys') } })
    expect(firstOf(decodeMessage({ role: 'user', content: keysThrow }))).toEqual({ kind: 'unreadable', path: 'message.content' })
    const { proxy, revoke } = Proxy.revocable({ role: 'user' }, {})
    revoke()
    expect(firstOf(decodeMessage(proxy))).toEqual({ kind: 'not_object', path: 'message' })
    expect(firstOf(decodeMessage({ role: 'user', content: [proxy] }))).toEqual({ kind: 'unreadable', path: 'message.content[0]' })
  })

  it(`nesting: ${MAX_JSON_DEPTH} levels are stored, one more is "too_deep", and a chain of 100,000 does not overflow the stack`, () => {
    expect(E.isRight(decodeMessage({ role: 'user', content: chain(MAX_JSON_DEPTH - 1) }))).toBe(true)
    expect(firstOf(decodeMessage({ role: 'user', content: chain(MAX_JSON_DEPTH) })).kind).toBe('too_deep')
    expect(firstOf(decodeMessage({ role: 'user', content: chain(100_000) })).kind).toBe('too_deep')
  })

  it('a message that is not a JSON object, and metadata that is present and not an object', () => {
    for (const value of ['hi', 42, null, undefined, [], new Date(0), new Map(), new Point(1)]) {
      expect(firstOf(decodeMessage(value))).toEqual({ kind: 'not_object', path: 'message' })
    }
    for (const metadata of ['note', 3, true, false, 0, '', [1]]) {
      expect(firstOf(decodeMessage({ role: 'user', content: 'x', metadata }))).toEqual({ kind: 'not_object', path: 'message.metadata' })
    }
    expect(problemsOf(decodeMessage(new Date(0)))[0].detail).toBe('expected a message object such as {"role": "user", "content": "hi"}, got a Date')
  })

  it('collects every problem (at most 20) and the error text names the first and counts the rest', () => {
    const problems = problemsOf(decodeMessage({ role: 'user', content: [() => 1, Symbol('a'), 1n] }))
    expect(problems.map((problem) => problem.path)).toEqual(['message.content[0]', 'message.content[1]', 'message.content[2]'])
    expect(toProblemText(problems)).toMatch(/^expected a JSON value, got a function .* \(and 2 more problems\)$/)
    expect(problemsOf(decodeMessage({ role: 'user', content: Array.from({ length: 50 }, () => Number.NaN) }))).toHaveLength(20)
  })
})

describe('decodeMessages (setMessages)', () => {
  it('paths start at messages[i]; holes, non-objects and deep problems are reported', () => {
    expect(firstOf(decodeMessages([{ role: 'user' }, , { role: 'user' }]))).toEqual({ kind: 'sparse_array', path: 'messages[1]' })
    expect(firstOf(decodeMessages([{ role: 'user' }, 'x']))).toEqual({ kind: 'not_object', path: 'messages[1]' })
    expect(firstOf(decodeMessages([{ role: 'user' }, { role: 'user' }, { role: 'user' }, { role: 'user', content: [{}, new Date()] }]))).toEqual({ kind: 'non_plain_object', path: 'messages[3].content[1]' })
    expect(firstOf(decodeMessages({ length: 1 }))).toEqual({ kind: 'not_object', path: 'messages' })
    expect(valueOf(decodeMessages([{ role: 'user', content: 'a' }]))).toEqual([{ role: 'user', content: 'a' }])
  })
})

describe('decodeJsonValue, toMemberPath and describeValue', () => {
  it('decodeJsonValue accepts every JSON value and rejects the rest', () => {
    expect(valueOf(decodeJsonValue([1, 'a', null, true, { b: [] }]))).toEqual([1, 'a', null, true, { b: [] }])
    expect(firstOf(decodeJsonValue(Number.NEGATIVE_INFINITY, 'config.x'))).toEqual({ kind: 'non_finite_number', path: 'config.x' })
  })

  it('toMemberPath quotes keys that are not identifiers', () => {
    expect(toMemberPath('m', 'a')).toBe('m.a')
    expect(toMemberPath('m', 2)).toBe('m[2]')
    expect(toMemberPath('m', '1x')).toBe('m["1x"]')
    expect(toMemberPath('m', '__proto__')).toBe('m.__proto__')
  })

  it('describeValue prints NaN and Infinity as such, never throws, and stays short', () => {
    expect(describeValue(Number.NaN)).toBe('NaN')
    expect(describeValue(-Infinity)).toBe('-Infinity')
    expect(describeValue({ a: Number.NaN, b: [Infinity] })).toBe('{"a":NaN,"b":[Infinity]}')
    expect(describeValue(undefined)).toBe('nothing')
    expect(describeValue(new Map())).toBe('a Map')
    expect(describeValue(new Point(1))).toBe('a Point')
    expect(describeValue(10n)).toBe('10n')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(describeValue(cyclic)).toBe('{"self":(cycle)}')
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(describeValue(proxy)).toBe('an unreadable object')
    expect(describeValue('x'.repeat(100))).toHaveLength(60)
  })
})
