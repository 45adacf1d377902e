// Unit tests for src/core/codecs.ts (decodeConfig): SPEC 3 defaults and warn-and-fall-back keys
// (B-CF-1..5), and SPEC 17.6: a wrong JSON type is a ConfigError naming the key, max_tokens must be
// a positive integer, and in-type out-of-range values are accepted.
import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig, type DecodedConfig } from '../../src/core/codecs.js'
import { DEFAULT_CONFIG, GUARD_DEFAULTS } from '../../src/core/config.js'
import { ConfigError } from '../../src/core/errors.js'

/** The decoded config and its fallback warnings (unknown keys are checked by their own tests). */
const right = (decoded: Either<ConfigError, DecodedConfig>): Omit<DecodedConfig, 'unknownKeys'> => {
  if (isLeft(decoded)) throw new Error(`expected Right, got ${decoded.left.message}`)
  return { config: decoded.right.config, warnings: decoded.right.warnings }
}

const left = (decoded: Either<ConfigError, DecodedConfig>): ConfigError => {
  if (isRight(decoded)) throw new Error('expected a ConfigError')
  return decoded.left
}

const warning = (...parts: string[]) => ({
  type: 'log',
  level: 'warning',
  message: expect.stringMatching(new RegExp(parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'))),
})

describe('decodeConfig: defaults (SPEC 3)', () => {
  it('an absent, null or empty config decodes to the defaults without warnings', () => {
    for (const raw of [undefined, null, {}]) expect(right(decodeConfig(raw))).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
  })

  it('the defaults are the contract values', () => {
    expect(DEFAULT_CONFIG).toEqual({
      max_tokens: 200_000,
      compact_threshold: 0.92,
      target_usage: 0.5,
      protected_recent: 0.3,
      protected_tool_results: 5,
      truncate_chars: 250,
      compaction_notice_enabled: true,
      compaction_notice_token_reserve: 800,
      compaction_notice_verbosity: 'normal',
      compaction_notice_min_level: 1,
      output_reserve_fraction: 0.5,
      token_meter: 'estimate',
      compaction_strategy: 'progressive',
      compact_clear_at_least: null,
      compact_max_consecutive_skips: 3,
      summary_trigger: 0.6,
      summarization_model: null,
      summarization_prompt_path: null,
      summarization_timeout_s: 30,
      tool_result_budget_tokens: null,
      tool_result_shape: 'head',
      tool_result_budget_by_tool: {},
      tool_result_exempt_tools: [],
      tool_result_spill_dir: null,
      replay_last_user_on_compaction: false,
      remove_short_user_messages: false,
      hybrid_rejected_anchor_override: false,
      ...GUARD_DEFAULTS,
      // the retention keys (docs/evaluation.md), at the values that keep the contract
      target_basis: 'budget',
      tool_result_truncation: 'head',
      tool_result_json_whitespace: 'keep',
      tool_result_json_projection: 'off',
      tool_result_json_eager_after: null,
      tool_result_json_eager_unit: 'answers',
      tool_result_json_projected_groups: 'kept',
      compact_early_threshold: null,
      compact_early_target: 0.15,
      compact_early_record_share: 0.2,
      protected_recent_tokens: null,
      compaction_order: 'oldest',
      working_set_window: null,
      working_set_capacity: 0.1,
      working_set_payback: 1,
      compaction_refill: 'none',
      compaction_refill_head: 'skeleton',
      calibration_overhead_tokens: 0,
      calibration_scale: 1,
      calibration_reasoning_context: 'current_turn',
    })
    expect(Object.values(GUARD_DEFAULTS).every((value) => value === false || value === null || value === 'full' || value === 'reference' || value === 'all')).toBe(true)
  })

  it('unknown keys (the README max_messages) are ignored, each reported with the closest known key', () => {
    const decoded = decodeConfig({ max_messages: 100, whatever: 'x' })
    expect(right(decoded)).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
    expect(isRight(decoded) && decoded.right.unknownKeys.map(({ key, closest }) => ({ key, closest }))).toEqual([
      { key: 'max_messages', closest: 'max_tokens' },
      { key: 'whatever', closest: expect.any(String) },
    ])
  })

  it('given values replace the defaults', () => {
    const raw = {
      max_tokens: 3000,
      compact_threshold: 0.5,
      // below the threshold: a target above it is warned about (test/core/crossed-target.test.ts)
      target_usage: 0.4,
      protected_recent: 0.5,
      protected_tool_results: 4,
      truncate_chars: 50,
      compaction_notice_enabled: false,
      compaction_notice_token_reserve: 100,
      compaction_notice_verbosity: 'minimal',
      compaction_notice_min_level: 3,
      output_reserve_fraction: 0.25,
      token_meter: 'hybrid',
      compaction_strategy: 'summary',
      compact_clear_at_least: 0.15,
      compact_max_consecutive_skips: 4,
      summary_trigger: 0.7,
      summarization_model: 'small',
      summarization_prompt_path: '/tmp/prompt.md',
      summarization_timeout_s: 2.5,
      tool_result_budget_tokens: 100,
      tool_result_shape: 'head_tail',
      tool_result_budget_by_tool: { grep: 500 },
      tool_result_exempt_tools: ['load_skill'],
      tool_result_spill_dir: '/tmp/spill',
      replay_last_user_on_compaction: true,
      remove_short_user_messages: true,
      hybrid_rejected_anchor_override: true,
    }
    expect(right(decodeConfig(raw))).toEqual({ config: { ...raw, ...GUARD_DEFAULTS, target_basis: 'budget', tool_result_truncation: 'head', tool_result_json_whitespace: 'keep', tool_result_json_projection: 'off', tool_result_json_eager_after: null, tool_result_json_eager_unit: 'answers', tool_result_json_projected_groups: 'kept', compact_early_threshold: null, compact_early_target: 0.15, compact_early_record_share: 0.2, protected_recent_tokens: null, compaction_order: 'oldest', working_set_window: null, working_set_capacity: 0.1, working_set_payback: 1, compaction_refill: 'none', compaction_refill_head: 'skeleton', calibration_overhead_tokens: 0, calibration_scale: 1, calibration_reasoning_context: 'current_turn' }, warnings: [] })
  })

  it('guard keys (production guards) are decoded, and a wrong type names the key', () => {
    const guards = { compaction_floor_guard: true, compaction_breaker_passes: 2 }
    expect(right(decodeConfig(guards)).config).toEqual({ ...DEFAULT_CONFIG, ...guards })
    expect(left(decodeConfig({ compaction_breaker_passes: 0 })).message).toMatch(/^config\.compaction_breaker_passes: expected null or a positive integer/)
    expect(left(decodeConfig({ compaction_floor_guard: 'yes' })).key).toBe('compaction_floor_guard')
    expect(right(decodeConfig({ compaction_floor_guard: 'deep' })).config.compaction_floor_guard).toBe('deep')
    expect(right(decodeConfig({ compaction_floor_guard: 'report' })).config.compaction_floor_guard).toBe('report')
    expect(right(decodeConfig({ token_meter: 'calibrated', calibration_overhead_tokens: 12_000, calibration_scale: 1.25 })).config).toMatchObject({ token_meter: 'calibrated', calibration_overhead_tokens: 12_000, calibration_scale: 1.25 })
    expect(left(decodeConfig({ calibration_scale: 0 })).key).toBe('calibration_scale')
    expect(left(decodeConfig({ calibration_overhead_tokens: -1 })).key).toBe('calibration_overhead_tokens')
    expect(left(decodeConfig({ compact_early_threshold: 0 })).message).toMatch(/^config\.compact_early_threshold: expected null or a number greater than 0/)
    expect(left(decodeConfig({ compact_early_target: 1.5 })).key).toBe('compact_early_target')
    expect(left(decodeConfig({ compact_early_record_share: -0.1 })).key).toBe('compact_early_record_share')
  })
})

describe('decodeConfig: warn-and-fall-back keys', () => {
  it('B-CF-1: unknown token_meter, compaction_strategy and tool_result_shape fall back with warnings', () => {
    expect(right(decodeConfig({ token_meter: 'bogus' }))).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [warning('unknown token_meter', 'bogus')],
    })
    expect(right(decodeConfig({ token_meter: null }))).toEqual({ config: DEFAULT_CONFIG, warnings: [warning('unknown token_meter')] })
    expect(right(decodeConfig({ token_meter: 3 }))).toEqual({ config: DEFAULT_CONFIG, warnings: [warning('unknown token_meter', '3')] })
    expect(right(decodeConfig({ compaction_strategy: 'fancy' }))).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [warning('unknown compaction_strategy', 'fancy')],
    })
    expect(right(decodeConfig({ tool_result_shape: 'middle' }))).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [warning('tool_result_shape', 'middle')],
    })
  })

  it('the three valid token_meter modes and both strategies are accepted silently', () => {
    for (const mode of ['estimate', 'actual', 'hybrid']) expect(right(decodeConfig({ token_meter: mode }))).toEqual({ config: { ...DEFAULT_CONFIG, token_meter: mode }, warnings: [] })
    for (const strategy of ['progressive', 'summary']) {
      expect(right(decodeConfig({ compaction_strategy: strategy }))).toEqual({ config: { ...DEFAULT_CONFIG, compaction_strategy: strategy }, warnings: [] })
    }
  })

  it('B-CF-2: tool_result_budget_tokens of 0, −5, "1000", 3.5 or true becomes null with a warning', () => {
    for (const value of [0, -5, '1000', 3.5, true]) {
      expect(right(decodeConfig({ tool_result_budget_tokens: value }))).toEqual({
        config: DEFAULT_CONFIG,
        warnings: [warning('tool_result_budget_tokens')],
      })
    }
    expect(right(decodeConfig({ tool_result_budget_tokens: null }))).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
    expect(right(decodeConfig({ tool_result_budget_tokens: 1 }))).toEqual({ config: { ...DEFAULT_CONFIG, tool_result_budget_tokens: 1 }, warnings: [] })
  })

  it('B-CF-3: tool_result_budget_by_tool keeps only integer ≥ 1 entries of named tools, one warning per bad entry', () => {
    expect(right(decodeConfig({ tool_result_budget_by_tool: { grep: 500, bash: -1, ls: 'big', '': 10, cat: 2.5, ok: true } }))).toEqual({
      config: { ...DEFAULT_CONFIG, tool_result_budget_by_tool: { grep: 500 } },
      warnings: [
        warning('tool_result_budget_by_tool', 'bash'),
        warning('tool_result_budget_by_tool', 'ls'),
        warning('tool_result_budget_by_tool', "''"),
        warning('tool_result_budget_by_tool', 'cat'),
        warning('tool_result_budget_by_tool', 'ok'),
      ],
    })
  })

  it('B-CF-3: a non-object by-tool value becomes {} with a warning; a falsy one silently', () => {
    for (const value of ['grep', [1], 5, true]) {
      expect(right(decodeConfig({ tool_result_budget_by_tool: value }))).toEqual({
        config: DEFAULT_CONFIG,
        warnings: [warning('tool_result_budget_by_tool')],
      })
    }
    for (const value of [null, {}, 0, '', false, []]) {
      expect(right(decodeConfig({ tool_result_budget_by_tool: value }))).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
    }
  })

  it('B-CF-4: tool_result_exempt_tools collapses duplicates and drops empty names', () => {
    expect(right(decodeConfig({ tool_result_exempt_tools: ['a', 'a', 'b', ''] })).config.tool_result_exempt_tools).toEqual(['a', 'b'])
    expect(right(decodeConfig({ tool_result_exempt_tools: null })).config.tool_result_exempt_tools).toEqual([])
  })

  it('B-CF-5: compact_max_consecutive_skips is converted to an integer and clamped to at least 1', () => {
    const cases: ReadonlyArray<readonly [unknown, number]> = [
      [0, 1],
      [-3, 1],
      [1, 1],
      [2.7, 2],
      [0.5, 1],
      ['4', 4],
      [' 4 ', 4],
      ['-2', 1],
      [true, 1],
      [false, 1],
    ]
    for (const [value, expected] of cases) {
      expect(right(decodeConfig({ compact_max_consecutive_skips: value }))).toEqual({
        config: { ...DEFAULT_CONFIG, compact_max_consecutive_skips: expected },
        warnings: [],
      })
    }
  })

  it('compact_max_consecutive_skips that cannot be converted throws at construction', () => {
    for (const value of ['abc', '4.0', null, [], {}]) {
      const error = left(decodeConfig({ compact_max_consecutive_skips: value }))
      expect(error).toBeInstanceOf(ConfigError)
      expect(error.key).toBe('compact_max_consecutive_skips')
      expect(error.message).toMatch(/^config\.compact_max_consecutive_skips: /)
    }
  })

  it('compact_clear_at_least is stored raw (resolved per judged call, SPEC 14.1); non-numeric strings never raise here', () => {
    for (const value of [null, 20000, 0.15, '20000', ' 1e4 ', 'nonsense', 'inf', true, -0.5]) {
      expect(right(decodeConfig({ compact_clear_at_least: value }))).toEqual({ config: { ...DEFAULT_CONFIG, compact_clear_at_least: value }, warnings: [] })
    }
  })

  it('truthiness keys: null reads as false; empty strings unset the optional paths', () => {
    expect(right(decodeConfig({ compaction_notice_enabled: null, replay_last_user_on_compaction: null })).config).toEqual({
      ...DEFAULT_CONFIG,
      compaction_notice_enabled: false,
      replay_last_user_on_compaction: false,
    })
    expect(right(decodeConfig({ summarization_prompt_path: '', tool_result_spill_dir: '' })).config).toEqual(DEFAULT_CONFIG)
    expect(right(decodeConfig({ summarization_model: null, tool_result_spill_dir: null })).config).toEqual(DEFAULT_CONFIG)
  })
})

describe('decodeConfig: SPEC 17.6 types', () => {
  const wrongTypes: ReadonlyArray<readonly [string, unknown]> = [
    ['compact_threshold', 'high'],
    ['target_usage', true],
    ['protected_recent', '0.3'],
    ['protected_tool_results', null],
    ['truncate_chars', [250]],
    ['compaction_notice_enabled', 'yes'],
    ['compaction_notice_enabled', 1],
    ['compaction_notice_token_reserve', '800'],
    ['compaction_notice_verbosity', 1],
    ['compaction_notice_min_level', false],
    ['output_reserve_fraction', {}],
    ['compact_clear_at_least', [1]],
    ['compact_clear_at_least', { floor: 1 }],
    ['summary_trigger', 'often'],
    ['summarization_model', 5],
    ['summarization_prompt_path', false],
    ['summarization_timeout_s', '30'],
    ['tool_result_exempt_tools', 'load_skill'],
    ['tool_result_exempt_tools', [1, 2]],
    ['tool_result_spill_dir', 7],
    ['replay_last_user_on_compaction', 'on'],
    ['tool_result_json_whitespace', 'minify'],
    ['tool_result_json_whitespace', true],
    ['tool_result_json_projection', 'all'],
  ]

  it.each(wrongTypes)('%s = %j is a ConfigError naming the key', (key, value) => {
    const error = left(decodeConfig({ [key]: value }))
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.name).toBe('ConfigError')
    expect(error.key).toBe(key)
    expect(error.message.startsWith(`config.${key}: expected `)).toBe(true)
    expect(error.message).toContain(JSON.stringify(value))
  })

  it('the message follows the house format', () => {
    expect(left(decodeConfig({ compact_threshold: 'high' })).message).toBe(
      'config.compact_threshold: expected a number (fraction of the effective budget), got "high"',
    )
  })

  it('compact_clear_at_least of the wrong type names every type it takes, booleans included', () => {
    expect(left(decodeConfig({ compact_clear_at_least: [1] })).message).toBe('config.compact_clear_at_least: expected null, a number, a numeric string, true or false, got [1]')
  })

  it('max_tokens must be a positive integer', () => {
    for (const value of [0, -1, 1.5, '1000', null, true, Number.NaN]) {
      const error = left(decodeConfig({ max_tokens: value }))
      expect(error.key).toBe('max_tokens')
      expect(error.message).toMatch(/^config\.max_tokens: expected a positive integer/)
    }
    expect(right(decodeConfig({ max_tokens: 1 })).config.max_tokens).toBe(1)
    expect(right(decodeConfig({ max_tokens: 100 })).config.max_tokens).toBe(100)
  })

  it('a non-object root is a ConfigError', () => {
    for (const raw of [[], 'config', 3]) expect(left(decodeConfig(raw))).toBeInstanceOf(ConfigError)
  })

  it('every in-type out-of-range value is accepted unchanged (SPEC 3: the arithmetic decides)', () => {
    const raw = {
      compact_threshold: 5,
      target_usage: -1,
      protected_recent: 2,
      protected_tool_results: -1,
      truncate_chars: -10,
      compaction_notice_token_reserve: -100,
      compaction_notice_verbosity: 'verbose',
      compaction_notice_min_level: 9,
      output_reserve_fraction: 1.5,
      summary_trigger: 0,
      summarization_timeout_s: 0,
    }
    expect(right(decodeConfig(raw))).toEqual({ config: { ...DEFAULT_CONFIG, ...raw }, warnings: [] })
  })

  it('a ConfigError stops decoding before any warning is reported', () => {
    expect(left(decodeConfig({ token_meter: 'bogus', compact_threshold: 'high' })).key).toBe('compact_threshold')
  })

  it('several warnings come out in key order, all as log effects', () => {
    expect(right(decodeConfig({ tool_result_shape: 'x', token_meter: 'y', compaction_strategy: 'z', tool_result_budget_tokens: 0 })).warnings).toEqual([
      warning('unknown token_meter'),
      warning('unknown compaction_strategy'),
      warning('tool_result_budget_tokens'),
      warning('tool_result_shape'),
    ])
  })
})

describe('decodeConfig: unknown keys and strict', () => {
  const unknownOf = (raw: unknown) => {
    const decoded = decodeConfig(raw)
    if (isLeft(decoded)) throw decoded.left
    return decoded.right.unknownKeys
  }

  it('a misspelled key names the closest contract key', () => {
    expect(unknownOf({ compact_treshold: 0.8 })).toEqual([
      { key: 'compact_treshold', closest: 'compact_threshold', message: 'context-simple: config.compact_treshold: unknown key, ignored; did you mean compact_threshold?' },
    ])
    expect(unknownOf({ protected_tool_result: 3 })[0].closest).toBe('protected_tool_results')
    expect(unknownOf({ strikt: true })[0].closest).toBe('strict')
  })

  it('a camelCase key names its snake_case key', () => {
    expect(unknownOf({ tokenMeter: 'hybrid', compactThreshold: 0.8 })).toEqual([
      { key: 'tokenMeter', closest: 'token_meter', message: "context-simple: config.tokenMeter: unknown key, ignored; did you mean token_meter? (keys are the contract's snake_case names)" },
      { key: 'compactThreshold', closest: 'compact_threshold', message: expect.stringContaining('did you mean compact_threshold?') },
    ])
  })

  it('known keys, strict itself and keys whose value is undefined are not reported', () => {
    expect(unknownOf({ token_meter: 'hybrid', strict: false, tokenMeter: undefined })).toEqual([])
  })

  it('strict: true makes the first unknown key a ConfigError whose key is that key; the config is then not decoded', () => {
    const error = left(decodeConfig({ compact_threshold: 0.8, tokenMeter: 'hybrid', compact_treshold: 0.5, strict: true }))
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.key).toBe('tokenMeter')
    expect(error.message).toBe('config.tokenMeter: unknown key (strict: true rejects unknown keys); did you mean token_meter?')
    expect(right(decodeConfig({ compact_threshold: 0.8, strict: true })).config.compact_threshold).toBe(0.8)
  })

  it('strict must be a boolean', () => {
    expect(left(decodeConfig({ strict: 'yes' })).message).toBe('config.strict: expected true or false, got "yes"')
  })
})

describe('decodeConfig: SPEC 17.9 numbers and JSON values', () => {
  const NUMBER_KEYS = [
    'compact_threshold',
    'target_usage',
    'protected_recent',
    'protected_tool_results',
    'truncate_chars',
    'compaction_notice_token_reserve',
    'compaction_notice_min_level',
    'output_reserve_fraction',
    'summary_trigger',
    'summarization_timeout_s',
  ]

  it.each(NUMBER_KEYS)('%s: NaN and ±Infinity are a ConfigError naming the key, printed as such', (key) => {
    for (const value of [Number.NaN, Infinity, -Infinity]) {
      const error = left(decodeConfig({ [key]: value }))
      expect(error).toBeInstanceOf(ConfigError)
      expect(error.key).toBe(key)
      expect(error.message).toMatch(new RegExp(`^config\\.${key}: expected a finite number .*, got ${String(value).replace('+', '')}$`))
    }
    // every finite number is still accepted (SPEC 17.6)
    expect(right(decodeConfig({ [key]: -1e9 })).config).toMatchObject({ [key]: -1e9 })
  })

  it('max_tokens and compact_max_consecutive_skips reject non-finite numbers too', () => {
    expect(left(decodeConfig({ max_tokens: Infinity })).message).toBe('config.max_tokens: expected a positive integer (tokens), got Infinity')
    expect(left(decodeConfig({ compact_max_consecutive_skips: Number.NaN })).message).toMatch(/got NaN$/)
  })

  it('warn-and-fall-back keys keep their fallback for non-finite numbers', () => {
    const decoded = right(decodeConfig({ tool_result_budget_tokens: Number.NaN, tool_result_budget_by_tool: { grep: Infinity, bash: 5 }, token_meter: Number.NaN, compact_clear_at_least: Number.NaN }))
    expect(decoded.config.tool_result_budget_tokens).toBeNull()
    expect(decoded.config.tool_result_budget_by_tool).toEqual({ bash: 5 })
    expect(decoded.config.token_meter).toBe('estimate')
    expect(decoded.warnings.map((warning) => warning.message).join('\n')).toMatch(/tool_result_budget_tokens=nan/)
  })

  it('a cycle, a function, a class instance or a throwing getter in a key is a ConfigError naming the key, never an untyped error', () => {
    const cyclic: Record<string, unknown> = { grep: 5 }
    cyclic.self = cyclic
    expect(left(decodeConfig({ tool_result_budget_by_tool: cyclic })).message).toMatch(/^config\.tool_result_budget_by_tool: at config\.tool_result_budget_by_tool\.self: expected a JSON value, got a cycle/)
    const list: unknown[] = ['ls']
    list.push(list)
    expect(left(decodeConfig({ tool_result_exempt_tools: list })).key).toBe('tool_result_exempt_tools')
    expect(left(decodeConfig({ compact_threshold: () => 0.5 })).key).toBe('compact_threshold')
    expect(left(decodeConfig({ tool_result_spill_dir: new URL('file:///tmp/x') })).message).toMatch(/got a URL/)
    const getter = {}
    Object.defineProperty(getter, 'target_usage', { enumerable: true, get: () => { throw new Error('nope') } })
    expect(left(decodeConfig(getter)).message).toBe('config.target_usage: could not be read: nope (pass plain data)')
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('trap') } })
    expect(left(decodeConfig(proxy)).key).toBe('(root)')
  })

  it('keeps its own copy of array and object values, and a tool named "__proto__"', () => {
    const exempt = ['ls']
    const byTool = JSON.parse('{"__proto__": 7, "grep": 3}') as Record<string, number>
    const config = right(decodeConfig({ tool_result_exempt_tools: exempt, tool_result_budget_by_tool: byTool })).config
    exempt.push('bash')
    expect(config.tool_result_exempt_tools).toEqual(['ls'])
    expect(Object.keys(config.tool_result_budget_by_tool)).toEqual(['__proto__', 'grep'])
    expect(Object.getOwnPropertyDescriptor(config.tool_result_budget_by_tool, '__proto__')?.value).toBe(7)
  })
})
