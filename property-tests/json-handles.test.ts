// toJsonHandlesText (src/core/tool-results/json-handles.ts) against a reference written over the
// parsed value: for any JSON object or array, written compact or indented, the handles form is
// the compact JSON of exactly the string leaves that hold a handle (holdsHandle,
// src/core/compaction/reference-order.ts) with the containers leading to them, copied as
// written; null when a string is longer than RECORD_STRING_MAX, when nothing is kept, or when the
// form saves nothing. So the form never depends on the whitespace of the result.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { holdsHandle } from '../src/core/compaction/reference-order.js'
import { RECORD_STRING_MAX, toJsonHandlesText } from '../src/core/tool-results/json-handles.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 300)

/** The reference: the kept sub-value, or undefined; `long` is set when a string is over the limit. */
const reference = (value: unknown, flags: { long: boolean }): unknown => {
  if (typeof value === 'string') {
    if ([...value].length > RECORD_STRING_MAX) flags.long = true
    return holdsHandle(value) ? value : undefined
  }
  if (Array.isArray(value)) {
    const kept = value.map((item) => reference(item, flags)).filter((item) => item !== undefined)
    return kept.length > 0 ? kept : undefined
  }
  if (value !== null && typeof value === 'object') {
    const kept = Object.entries(value).flatMap(([key, item]) => {
      const sub = reference(item, flags)
      return sub === undefined ? [] : [[key, sub] as const]
    })
    return kept.length > 0 ? Object.fromEntries(kept) : undefined
  }
  return undefined
}

// strings drawn so that some hold handles (ids, dates, paths), some are prose and a few are long
const stringArb = fc.oneof(
  fc.constantFrom('HAT001', 'mia_li_3668', '2024-05-20', 'src/a.ts', 'economy', 'two words', 'a.b', 'x1', ''),
  fc.string({ maxLength: 12 }),
  fc.string({ minLength: RECORD_STRING_MAX - 2, maxLength: RECORD_STRING_MAX + 2 }),
)
const { value: valueArb } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, stringArb, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom('id_x', 'name', 'flights', 'path', '__proto__x', 'a b'), tie('value'), { maxKeys: 4 }),
}))
const containerArb = fc.oneof(fc.array(valueArb, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), valueArb, { maxKeys: 4 }))

describe('toJsonHandlesText', () => {
  it('is the reference form of the parsed value, whatever the whitespace', () => {
    runProperty(
      'json handles: reference',
      fc.property(containerArb, fc.constantFrom(undefined, 2), (value, indent) => {
        const content = JSON.stringify(value, null, indent)
        const flags = { long: false }
        const kept = reference(JSON.parse(content), flags)
        const expected = flags.long || kept === undefined ? null : JSON.stringify(kept)
        const form = toJsonHandlesText(content)
        if (expected === null || [...expected].length >= [...content].length) expect(form).toBeNull()
        else expect(form).toBe(expected)
      }),
      numRuns,
    )
  })
})
