// The presets export: names, shapes, and that every preset decodes cleanly over any header.
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { isRight } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../src/core/codecs.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { isPresetName, PRESET_NAMES, presets } from '../../src/core/presets.js'

describe('presets', () => {
  it('reference is empty, recommended-summary is recommended plus the summary strategy with its hysteresis', () => {
    expect(presets.reference).toEqual({})
    expect(presets['recommended-summary']).toEqual({
      ...presets.recommended,
      compaction_strategy: 'summary',
      summary_hysteresis: true,
      tool_result_json_projection: 'off',
      tool_result_json_projected_groups: 'kept',
      compact_early_threshold: null,
    })
    expect(Object.keys(presets)).toEqual([...PRESET_NAMES])
    expect(presets['recommended-retention']).toEqual({ ...presets.recommended, target_basis: 'compactable', target_usage: 0.67, compact_early_threshold: null, tool_result_json_projected_groups: 'kept' })
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

  // docs/evaluation.md "`recommended`" justifies each key of the preset with its contract default
  // and its value; the table and src/core/presets.ts must name the same keys with the same values.
  it('docs/evaluation.md\'s recommended table names exactly the preset\'s keys, values and contract defaults', () => {
    const text = readFileSync(new URL('../../docs/evaluation.md', import.meta.url), 'utf8')
    const section = text.slice(text.indexOf('## `recommended`\n'), text.indexOf('\n## ', text.indexOf('## `recommended`\n') + 1))
    const rows = section.split('\n').filter((line) => /^\| `[a-z_]+`/.test(line))
    const cell = (value: string): unknown => JSON.parse(value.trim().replace(/^`|`$/g, ''))
    const table = rows.map((line) => {
      const [key, contract, recommended] = line.split('|').slice(1, 4)
      return [/`([a-z_]+)`/.exec(key)?.[1], cell(contract), cell(recommended)]
    })
    const preset = presets.recommended as Readonly<Record<string, unknown>>
    const defaults = DEFAULT_CONFIG as unknown as Readonly<Record<string, unknown>>
    expect(table.map(([key]) => key).sort()).toEqual(Object.keys(preset).sort())
    for (const [key, contract, recommended] of table) expect([key, contract, recommended]).toEqual([key, defaults[key as string], preset[key as string]])
  })

  it('is frozen', () => {
    expect(Object.isFrozen(presets)).toBe(true)
    expect(Object.isFrozen(presets['recommended-summary'])).toBe(true)
  })
})
