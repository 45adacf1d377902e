// The presets export: names, shapes, and that every preset decodes cleanly over any header.
import fc from 'fast-check'
import { isRight } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../src/core/codecs.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { isPresetName, PRESET_NAMES, presets } from '../../src/core/presets.js'

describe('presets', () => {
  it('reference is empty, recommended-summary is recommended plus the summary strategy with its hysteresis', () => {
    expect(presets.reference).toEqual({})
    expect(presets['recommended-summary']).toEqual({ ...presets.recommended, compaction_strategy: 'summary', summary_hysteresis: true })
    expect(Object.keys(presets)).toEqual([...PRESET_NAMES])
    expect(presets['recommended-retention']).toEqual({ ...presets.recommended, target_basis: 'compactable', target_usage: 0.65 })
  })

  it('every preset names only contract keys and decodes without warnings', () => {
    for (const name of PRESET_NAMES) {
      for (const key of Object.keys(presets[name])) expect(Object.keys(DEFAULT_CONFIG)).toContain(key)
      const decoded = decodeConfig(presets[name])
      expect(isRight(decoded) && decoded.right.warnings).toEqual([])
    }
  })

  it('recognises exactly the preset names', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.constantFrom(...PRESET_NAMES)), (name) => isPresetName(name) === (PRESET_NAMES as ReadonlyArray<string>).includes(name)))
    expect(isPresetName('recommended')).toBe(true)
  })

  it('is frozen', () => {
    expect(Object.isFrozen(presets)).toBe(true)
    expect(Object.isFrozen(presets['recommended-summary'])).toBe(true)
  })
})
