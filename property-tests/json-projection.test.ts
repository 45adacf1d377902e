// JSON tool results by named fields (tool_result_json_projection, src/core/tool-results/json-projection.ts):
// for any JSON value and key set, the projection is a sub-document (each of its leaves is a leaf
// of the value at the same path) that holds every leaf under a named key; and the frozen sets,
// learned incrementally over the history, equal the batch `toNamedKeys` of the history up to
// each result's freeze point (two implementations of the same learning, compared); a walk resumed
// request by request over a growing history gives the batch walk's sets at every length; and the
// text form (`toJsonProjectionText`, copied from the result as written, indented or not) parses
// to the value `projectJsonValue` gives.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../src/core/messages/message.js'
import { projectJsonValue, resumeFrozenNamedKeys, toFrozenNamedKeys, toJsonProjectionText, toNamedKeys, type NamedKeysWalk } from '../src/core/tool-results/json-projection.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
const KEYS = ['id', 'name', 'flight', 'price', 'items', 'x_1']
const WORDS = ['HAT001', 'ZFA04Y', 'abc', '120', 'mia_li', 'no']

const valueArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(...WORDS), fc.integer({ min: 0, max: 999 }), fc.boolean(), tie('object'), tie('array')),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
})).value

/** Every scalar leaf with its path (keys and array indexes), `under` true when a key on the path is in `keys`. */
const leafPaths = (value: unknown, keys: ReadonlySet<string>, path: string, under: boolean, out: Array<{ path: string; value: unknown; under: boolean }>): void => {
  if (Array.isArray(value)) value.forEach((item, i) => leafPaths(item, keys, `${path}[${i}]`, under, out))
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) leafPaths(item, keys, `${path}.${key}`, under || keys.has(key), out)
  else out.push({ path, value, under })
}

/** Leaves compared without array indexes (the projection drops array items that keep nothing). */
const unindexed = (path: string): string => path.replace(/\[\d+\]/g, '[]')

describe('json projection properties', () => {
  it('the projection is a sub-document holding every leaf under a named key', () => {
    runProperty(
      'json projection: sub-document',
      fc.property(valueArb, fc.subarray(KEYS), (value, names) => {
        const keys = new Set(names)
        const projected = projectJsonValue(value, keys)
        const original: Array<{ path: string; value: unknown; under: boolean }> = []
        leafPaths(value, keys, '', false, original)
        const kept: Array<{ path: string; value: unknown; under: boolean }> = []
        if (projected !== undefined) leafPaths(projected, keys, '', false, kept)
        const count = (list: typeof original, under: boolean | null): Map<string, number> => {
          const out = new Map<string, number>()
          for (const leaf of list) if (under === null || leaf.under === under) out.set(`${unindexed(leaf.path)}=${JSON.stringify(leaf.value)}`, (out.get(`${unindexed(leaf.path)}=${JSON.stringify(leaf.value)}`) ?? 0) + 1)
          return out
        }
        // every kept leaf sits under a named key, and the kept leaves are exactly the original's leaves under named keys
        expect(kept.every((leaf) => leaf.under)).toBe(true)
        expect(count(kept, null)).toEqual(count(original, true))
      }),
      numRuns,
    )
  })

  it('the frozen sets equal the batch learning of the history up to each freeze point', () => {
    const messageArb: fc.Arbitrary<Message> = fc.oneof(
      valueArb.map((value): Message => ({ role: 'tool', tool_call_id: 't', content: JSON.stringify(value) })),
      fc.constantFrom(...WORDS).map((word): Message => ({ role: 'assistant', content: `about ${word}` })),
      fc.constantFrom(...WORDS).map((word): Message => ({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: JSON.stringify({ q: word }) } }] })),
      fc.constantFrom(...WORDS).map((word): Message => ({ role: 'user', content: `${word}?` })),
    )
    runProperty(
      'json projection: frozen sets',
      fc.property(fc.array(messageArb, { maxLength: 12 }), fc.integer({ min: 0, max: 3 }), (history, later) => {
        const frozen = toFrozenNamedKeys(history, later)
        history.forEach((message, i) => {
          if (message.role !== 'tool') return
          let seen = 0
          let end = i
          while (seen < later && end + 1 < history.length) {
            end += 1
            if (history[end].role === 'tool') seen += 1
          }
          const isJson = ['{', '['].includes(String(message.content)[0])
          if (seen < later || !isJson) expect(frozen.has(message)).toBe(false)
          else expect(frozen.get(message)).toEqual(toNamedKeys(history.slice(0, end + 1)))
        })
      }),
      numRuns,
    )
  })

  it('a walk resumed over a growing history gives the batch sets at every length', () => {
    const messageArb: fc.Arbitrary<Message> = fc.oneof(
      valueArb.map((value): Message => ({ role: 'tool', tool_call_id: 'c', content: JSON.stringify(value) })),
      fc.constantFrom(...WORDS).map((word): Message => ({ role: 'assistant', content: `about ${word}` })),
      fc.constantFrom(...WORDS).map((word): Message => ({ role: 'user', content: `${word}?` })),
    )
    runProperty(
      'json projection: resumed walk',
      fc.property(fc.array(messageArb, { maxLength: 12 }), fc.integer({ min: 0, max: 3 }), fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 4 }), (history, later, cuts) => {
        let walk: NamedKeysWalk | null = null
        for (const length of [...cuts.map((cut) => Math.min(cut, history.length)).sort((x, y) => x - y), history.length]) {
          walk = resumeFrozenNamedKeys(walk, history.slice(0, length), later)
          expect(new Map(walk.frozen)).toEqual(new Map(toFrozenNamedKeys(history.slice(0, length), later)))
        }
      }),
      numRuns,
    )
  })

  it('the text form parses to the projected value, whatever the indentation', () => {
    runProperty(
      'json projection: text form',
      fc.property(fc.oneof(fc.array(valueArb, { maxLength: 3 }), fc.dictionary(fc.constantFrom(...KEYS), valueArb, { maxKeys: 4 })), fc.subarray(KEYS), fc.constantFrom(undefined, 2), (value, names, indent) => {
        const keys = new Set(names)
        const content = JSON.stringify(value, null, indent)
        const text = toJsonProjectionText({ role: 'tool', tool_call_id: 'c', content }, keys)
        const projected = keys.size === 0 ? undefined : projectJsonValue(value, keys)
        if (projected === undefined || JSON.stringify(projected).length >= [...content].length) expect(text).toBeNull()
        else expect(JSON.parse(String(text))).toEqual(projected)
      }),
      numRuns,
    )
  })
})
