// Configuration layering of the command line: header < preset < --config < each --set.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergeConfig, toPreset, UsageError } from '../../../src/shell/cli/options.js'

const KEYS = ['a', 'b', 'c', 'd']
const layer = fc.dictionary(fc.constantFrom(...KEYS), fc.integer())

describe('mergeConfig', () => {
  it('takes each key from the highest layer that sets it', () => {
    fc.assert(
      fc.property(layer, layer, layer, fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.integer())), (header, preset, file, settings) => {
        const merged = mergeConfig(header, preset, file, settings)
        for (const key of KEYS) {
          const fromSet = settings.filter(([name]) => name === key).at(-1)
          const expected = fromSet !== undefined ? fromSet[1] : key in file ? file[key] : key in preset ? preset[key] : header[key]
          expect(merged[key]).toBe(expected)
        }
      }),
    )
  })
})

describe('toPreset', () => {
  it('returns the named preset and rejects others with a UsageError', () => {
    expect(toPreset('reference')).toEqual({})
    expect(() => toPreset('nope')).toThrow(UsageError)
  })
})
