// Stored messages are JSON values owned by the library (SPEC 17.9): for any value, decoding never
// throws; it succeeds exactly when the value is JSON (an independent model below), and then gives
// a deep copy that shares no object with the input and serialises like the input.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, decodeJsonValue, decodeMessage } from '../src/core/messages/json-value.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** The model: is `value` JSON (finite numbers, plain objects, arrays without holes or undefined)? */
const isJson = (value: unknown, depth = 1, ancestors: ReadonlyArray<object> = []): boolean => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (typeof value !== 'object') return false
  if (ancestors.includes(value) || depth > MAX_JSON_DEPTH) return false
  const inside = [...ancestors, value]
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!(i in value) || value[i] === undefined || !isJson(value[i], depth + 1, inside)) return false
    return true
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  return Object.keys(value).every((key) => (value as Record<string, unknown>)[key] === undefined || isJson((value as Record<string, unknown>)[key], depth + 1, inside))
}

const objectsOf = (value: unknown, into = new Set<object>()): Set<object> => {
  if (typeof value === 'object' && value !== null && !into.has(value)) {
    into.add(value)
    for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], into)
  }
  return into
}

/** Any JavaScript value fast-check makes: class-like objects, Map, Set, Date, BigInt, boxed values, holes, null prototypes, __proto__ keys. */
const anyValue = fc.anything({
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
})

describe('JSON values (SPEC 17.9)', () => {
  it('decoding any value never throws and succeeds exactly for JSON values, with an unshared copy', () => {
    runProperty(
      'json value: any value',
      fc.property(anyValue, (value) => {
        const decoded = decodeJsonValue(value)
        expect(E.isRight(decoded)).toBe(isJson(value))
        if (E.isRight(decoded)) {
          expect(JSON.stringify(decoded.right)).toBe(JSON.stringify(value))
          const mine = objectsOf(decoded.right)
          for (const object of objectsOf(value)) expect(mine.has(object)).toBe(false)
        } else {
          expect(decoded.left.length).toBeGreaterThan(0)
          for (const problem of decoded.left) expect(problem.path.startsWith('value')).toBe(true)
        }
      }),
      numRuns * 3,
    )
  })

  it('every parsed JSON message is stored as it serialises, __proto__ keys included', () => {
    const keyArb = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', 'metadata'))
    const jsonArb = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(keyArb, tie('value'), { maxKeys: 4 })),
    })).value
    runProperty(
      'json value: parsed messages',
      fc.property(fc.dictionary(keyArb, jsonArb, { maxKeys: 6 }), jsonArb, (members, metadata) => {
        const text = JSON.stringify({ role: 'user', ...members, metadata: typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata : { value: metadata } })
        const parsed: unknown = JSON.parse(text)
        const decoded = decodeMessage(parsed)
        expect(E.isRight(decoded)).toBe(true)
        if (E.isRight(decoded)) {
          expect(JSON.stringify(decoded.right)).toBe(text)
          for (const object of objectsOf(decoded.right)) expect([Object.prototype, null]).toContain(Object.getPrototypeOf(object) === Array.prototype ? null : Object.getPrototypeOf(object))
        }
      }),
      numRuns,
    )
  })
})
