// Configuration layering of the command line: header < preset < --config < each --set.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergeConfig, parseSetting, toPreset, UsageError } from '../../../src/shell/cli/options.js'

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

describe('parseSetting', () => {
  it('parses JSON values and keeps other text as a string', () => {
    expect(parseSetting('target_usage=0.4')).toEqual(['target_usage', 0.4])
    expect(parseSetting('token_meter=hybrid')).toEqual(['token_meter', 'hybrid'])
    expect(parseSetting('strict=true')).toEqual(['strict', true])
  })

  it('rejects a key that is not a configuration key with a UsageError naming it and the closest known key', () => {
    expect(() => parseSetting('unknown_key=1')).toThrow(UsageError)
    expect(() => parseSetting('target_usgae=0.4')).toThrow(/^--set target_usgae=0\.4: unknown configuration key target_usgae, did you mean target_usage\?/)
    expect(() => parseSetting('tokenMeter=hybrid')).toThrow(/did you mean token_meter\?/)
  })

  it('leaves a wrongly typed value of a known key to the decoder (reported with the session, naming the key)', () => {
    expect(parseSetting('compact_threshold=high')).toEqual(['compact_threshold', 'high'])
  })
})
