// Configuration layering of the command line: header < preset < --config < each --set.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { presets } from '../../../src/core/presets.js'
import { keptHeaderKeys, mergeConfig, parseSetting, parseSettings, toPreset, UsageError } from '../../../src/shell/cli/options.js'

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

describe('keptHeaderKeys', () => {
  const reference = { preset: {}, file: null, settings: [] }

  it('lists the configuration keys a header sets away from the defaults that the preset, file and --set leave, in header order', () => {
    const header = { ...presets.recommended, target_usage: 0.4, max_tokens: 9000, compact_threshold: 0.8 }
    expect(keptHeaderKeys(header, reference)).toEqual(Object.keys(header))
    expect(keptHeaderKeys(header, { preset: presets.recommended, file: { max_tokens: 8000 }, settings: [['target_usage', 0.5]] })).toEqual(['compact_threshold'])
    expect(keptHeaderKeys(header, { preset: null, file: { max_tokens: 8000 }, settings: [] })).toEqual(Object.keys(header).filter((key) => key !== 'max_tokens'))
    // the header is what was asked for without a preset or a file
    expect(keptHeaderKeys(header, { preset: null, file: null, settings: [] })).toEqual([])
  })

  it('leaves out a key at its default value (a header of makeRecorder({ ...DEFAULT_CONFIG })), objects compared deeply, and a key that is not a configuration key', () => {
    expect(keptHeaderKeys({ ...DEFAULT_CONFIG }, reference)).toEqual([])
    expect(keptHeaderKeys(JSON.parse(JSON.stringify(DEFAULT_CONFIG)) as Record<string, unknown>, reference)).toEqual([])
    const header = { ...DEFAULT_CONFIG, tool_result_budget_by_tool: { grep: 500 }, tool_result_exempt_tools: ['load_skill'], compact_threshold: 0.8, extra_key: 1, strict: true }
    expect(keptHeaderKeys(header, reference)).toEqual(['compact_threshold', 'tool_result_budget_by_tool', 'tool_result_exempt_tools'])
    expect(keptHeaderKeys({ tool_result_budget_by_tool: {}, tool_result_exempt_tools: [], compact_clear_at_least: null }, reference)).toEqual([])
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

  it('rejects a value a configuration object would replace by its fallback, naming the key, the value and the accepted values', () => {
    expect(() => parseSetting('token_meter=bogus')).toThrow(UsageError)
    expect(() => parseSetting('token_meter=bogus')).toThrow(/^--set token_meter=bogus: token_meter does not take "bogus": expected "estimate", "actual", "hybrid" or "calibrated"/)
    expect(() => parseSetting('compaction_strategy=rolling')).toThrow(/compaction_strategy does not take "rolling": expected "progressive" or "summary"/)
    expect(() => parseSetting('tool_result_shape=tail')).toThrow(/tool_result_shape does not take "tail": expected "head" or "head_tail"/)
    expect(() => parseSetting('tool_result_budget_tokens=0')).toThrow(/tool_result_budget_tokens does not take 0: expected an integer >= 1 \(tokens\) or null/)
    expect(() => parseSetting('tool_result_budget_by_tool={"Read":0}')).toThrow(/tool_result_budget_by_tool does not take \{"Read":0\}/)
    expect(() => parseSetting('compact_clear_at_least=lots')).toThrow(/compact_clear_at_least does not take "lots": expected null, true or false, or a finite number or numeric string/)
    // the other keys fall back to a default; the suffix says so
    expect(() => parseSetting('token_meter=bogus')).toThrow(/\(a configuration object falls back with a warning; --set stops instead\)$/)
  })

  it('rejects a non-finite compact_clear_at_least as not finite (not as "not a number"), saying the value would be kept and disable the predicate', () => {
    const usable = 'null, true or false, or a finite number or numeric string (Python float syntax): tokens from 1, a fraction of the effective budget below 1, 0 or less (or -infinity) turns the predicate off'
    const kept = '(a configuration object keeps it and disables the predicate with a warning each time it is resolved; --set stops instead)'
    // 1e400 parses as JSON to Infinity; Infinity and inf are not JSON and stay strings
    expect(() => parseSetting('compact_clear_at_least=1e400')).toThrow(UsageError)
    expect(() => parseSetting('compact_clear_at_least=1e400')).toThrow(`--set compact_clear_at_least=1e400: compact_clear_at_least does not take Infinity: expected ${usable} ${kept}`)
    expect(() => parseSetting('compact_clear_at_least=Infinity')).toThrow(`--set compact_clear_at_least=Infinity: compact_clear_at_least does not take "Infinity": expected ${usable} ${kept}`)
    for (const text of ['inf', '" +inf "', 'nan', '"NaN"', 'lots']) {
      expect(() => parseSetting(`compact_clear_at_least=${text}`), text).toThrow(`: expected ${usable} ${kept}`)
    }
  })

  it('takes every compact_clear_at_least value the predicate uses', () => {
    expect(parseSetting('compact_clear_at_least=null')).toEqual(['compact_clear_at_least', null])
    expect(parseSetting('compact_clear_at_least=true')).toEqual(['compact_clear_at_least', true])
    expect(parseSetting('compact_clear_at_least=false')).toEqual(['compact_clear_at_least', false])
    expect(parseSetting('compact_clear_at_least=20000')).toEqual(['compact_clear_at_least', 20000])
    expect(parseSetting('compact_clear_at_least=0.25')).toEqual(['compact_clear_at_least', 0.25])
    expect(parseSetting('compact_clear_at_least=-5')).toEqual(['compact_clear_at_least', -5])
    expect(parseSetting('compact_clear_at_least=1e300')).toEqual(['compact_clear_at_least', 1e300])
    expect(parseSetting('compact_clear_at_least=2_000')).toEqual(['compact_clear_at_least', '2_000'])
    expect(parseSetting('compact_clear_at_least=-inf')).toEqual(['compact_clear_at_least', '-inf'])
  })

  it('takes every accepted value of those keys', () => {
    for (const meter of ['estimate', 'actual', 'hybrid', 'calibrated']) expect(parseSetting(`token_meter=${meter}`)).toEqual(['token_meter', meter])
    expect(parseSetting('compaction_strategy=summary')).toEqual(['compaction_strategy', 'summary'])
    expect(parseSetting('tool_result_shape=head_tail')).toEqual(['tool_result_shape', 'head_tail'])
    expect(parseSetting('tool_result_budget_tokens=null')).toEqual(['tool_result_budget_tokens', null])
    expect(parseSetting('tool_result_budget_by_tool={"Read":200}')).toEqual(['tool_result_budget_by_tool', { Read: 200 }])
    expect(parseSetting('compact_clear_at_least=" 1e4 "')).toEqual(['compact_clear_at_least', ' 1e4 '])
    expect(parseSetting('compact_clear_at_least=0.1')).toEqual(['compact_clear_at_least', 0.1])
    // keys that warn for another reason than their own value are not rejected: a companion key may come from the preset
    expect(parseSetting('target_usage=0.95')).toEqual(['target_usage', 0.95])
    expect(parseSetting('compaction_refill_head=fit')).toEqual(['compaction_refill_head', 'fit'])
  })

  it('leaves a wrongly typed value of a known key to the decoder (reported with the session, naming the key)', () => {
    expect(parseSetting('compact_threshold=high')).toEqual(['compact_threshold', 'high'])
  })
})

describe('parseSettings', () => {
  it('keeps a key given more than once at its last value, shown once where it was last given, with one warning per value overridden', () => {
    const parsed = parseSettings(['target_usage=0.4', 'token_meter=hybrid', 'target_usage=0.6', 'target_usage=0.75'])
    expect(parsed.settings).toEqual([['token_meter', 'hybrid'], ['target_usage', 0.75]])
    expect(parsed.shown).toEqual(['token_meter=hybrid', 'target_usage=0.75'])
    expect(parsed.warnings).toEqual([
      '--set target_usage=0.4 is overridden by --set target_usage=0.75 (the last --set of a key wins)',
      '--set target_usage=0.6 is overridden by --set target_usage=0.75 (the last --set of a key wins)',
    ])
    // the same value again is no conflict: shown once, no warning
    expect(parseSettings(['target_usage=0.4', 'target_usage=0.4'])).toEqual({ settings: [['target_usage', 0.4]], shown: ['target_usage=0.4'], warnings: [] })
  })

  it('applies as mergeConfig applies the flags as given', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('target_usage', 'compact_threshold', 'protected_recent'), fc.constantFrom(0.1, 0.2, 0.3))), (pairs) => {
        const texts = pairs.map(([key, value]) => `${key}=${value}`)
        const parsed = parseSettings(texts)
        expect(mergeConfig({}, null, null, parsed.settings)).toEqual(mergeConfig({}, null, null, texts.map(parseSetting)))
        expect(new Set(parsed.settings.map(([key]) => key)).size).toBe(parsed.settings.length)
      }),
    )
  })
})
