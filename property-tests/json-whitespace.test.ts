// JSON tool results without whitespace (tool_result_json_whitespace, src/core/tool-results/json-whitespace.ts):
// for any JSON value written with any whitespace between its tokens, the stripped text is the
// value's JSON.stringify form (an independent serialiser: the model), so it parses to the same
// value; for any text at all, a non-null result parses to what the text parses to, is shorter,
// and differs from it only by whitespace removed outside strings.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stripJsonWhitespace } from '../src/core/tool-results/json-whitespace.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const WHITESPACE = fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { maxLength: 3 }).map((chars) => chars.join(''))

/**
 * `compact` (JSON.stringify output: no whitespace outside strings) with `pads[i]` inserted after
 * its i-th character outside strings: JSON whitespace where the grammar allows it (between any
 * two tokens; inside a number or a literal it would not parse, so only next to punctuation).
 */
const spaced = (compact: string, pads: ReadonlyArray<string>): string => {
  let out = ''
  let inString = false
  let slot = 0
  for (let i = 0; i < compact.length; i += 1) {
    const c = compact[i]
    out += c
    if (inString) {
      if (c === '\\') {
        out += compact[i + 1]
        i += 1
      } else if (c === '"') inString = false
      continue
    }
    if (c === '"') {
      inString = true
      continue
    }
    if ('{}[],:'.includes(c)) out += pads[slot++ % pads.length] ?? ''
  }
  return out
}

/** Every character of `b` appears in `a` in order, and what `a` has beyond it is JSON whitespace. */
const isWhitespaceDeletion = (a: string, b: string): boolean => {
  let j = 0
  for (let i = 0; i < a.length; i += 1) {
    if (j < b.length && a[i] === b[j]) j += 1
    else if (!' \t\n\r'.includes(a[i])) return false
  }
  return j === b.length
}

describe('stripJsonWhitespace (property)', () => {
  it('any object or array written with any whitespace strips to its JSON.stringify form', () => {
    const container = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()))
    runProperty(
      'json-whitespace-roundtrip',
      fc.property(container, fc.array(WHITESPACE, { minLength: 1, maxLength: 8 }), WHITESPACE, (value, pads, outer) => {
        const compact = JSON.stringify(value)
        const text = `${outer}${spaced(compact, pads)}${outer}`
        const stripped = stripJsonWhitespace(text)
        expect(stripped ?? text).toBe(compact)
        expect(stripped === null).toBe(text === compact)
        for (const indent of [1, 2, '\t']) {
          const pretty = JSON.stringify(value, null, indent)
          expect(stripJsonWhitespace(pretty) ?? pretty).toBe(compact)
        }
      }),
      numRuns,
    )
  })

  it('for any text, a result parses to the same value, is shorter and only lost whitespace', () => {
    const jsonish = fc.stringMatching(/^[\s{}[\]",:a-z0-9\\.-]{0,40}$/)
    runProperty(
      'json-whitespace-any-text',
      fc.property(fc.oneof(fc.string(), jsonish, fc.jsonValue().map((value) => JSON.stringify(value, null, 2))), (text) => {
        const stripped = stripJsonWhitespace(text)
        if (stripped === null) return
        expect(stripped.length).toBeLessThan(text.length)
        expect(JSON.parse(stripped)).toEqual(JSON.parse(text))
        expect(isWhitespaceDeletion(text, stripped)).toBe(true)
        expect(stripJsonWhitespace(stripped)).toBeNull()
      }),
      numRuns,
    )
  })
})
