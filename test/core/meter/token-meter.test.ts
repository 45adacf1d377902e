// Unit tests for src/core/meter/token-meter.ts: usage intake (SPEC 10.2 with 17.6), the three meters and
// their stats (10.1, 10.3, 10.6), the worked example of 10.3, the provenance gate (10.5) and the
// inner gate (6.2 step 7), driven through the reducer (B-TM-1..16).
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { EMPTY_METER, makeInitialState, type MeterState } from '../../../src/core/state.js'
import type { TokenMeterStats } from '../../../src/core/stats.js'
import { applyUsage, needsEscalation, toCacheAggregates } from '../../../src/core/meter/token-meter.js'
import {
  added,
  assistant,
  effectsOf,
  estimateMeterStats,
  fold,
  hookNames,
  meterEvent,
  request,
  stepFor,
  stored,
  tokens,
  usage,
  user,
  viewed,
  withMessages,
  workedExampleTurns,
} from '../../support/core.js'

const STATS_KEYS = [
  'mode',
  'source',
  'kind',
  'used_tokens',
  'estimated_tokens',
  'measured_tokens',
  'hybrid_tokens',
  'hybrid_kind',
  'anchor_tokens',
  'anchor_estimate',
  'anchor_rejected',
  'tail_estimated_tokens',
  'tail_messages',
  'cache_aggregates',
  'provenance_refusals',
  'provenance_overrides',
  'budget',
  'ratio',
]

const ignored = { type: 'log', level: 'warning', message: expect.stringMatching(/ignored llm:response.*keeps its last count.*onLlmResponse/) }

describe('usage intake (SPEC 10.2, 17.6)', () => {
  const base = withMessages(stepFor(), [user('a'), user('b')])
  const seeded = { ...base, meter: { ...base.meter, lastSentEstimate: 17 } }

  it('B-TM-1: measured = input_tokens + cache_write_tokens; cache_read is never added; the anchor moves to nextSeq', () => {
    const step = stepFor()
    const next = step(seeded, usage({ input_tokens: 300, output_tokens: 999, cache_read_tokens: 100, cache_write_tokens: 80 }))
    expect(next).toEqual({
      state: {
        ...seeded,
        meter: {
          ...seeded.meter,
          measured: 380,
          anchorSeq: 2,
          anchorEstimate: 17,
          usageEvents: 1,
          usageEventsWithCache: 1,
          cacheReadTotal: 100,
          cacheWriteTotal: 80,
        },
      },
      view: undefined,
      effects: [],
    })
  })

  it('B-TM-1: a missing or null cache_write counts as 0 and the event lacks cache data', () => {
    const step = stepFor()
    for (const fields of [{ input_tokens: 300 }, { input_tokens: 300, cache_write_tokens: null, cache_read_tokens: null }, { input_tokens: 300, cache_read_tokens: 5 }]) {
      const next = step(seeded, usage(fields))
      expect(next.state.meter).toEqual({ ...seeded.meter, measured: 300, anchorSeq: 2, anchorEstimate: 17, usageEvents: 1 })
      expect(next.effects).toEqual([])
    }
  })

  it('fractions are truncated toward zero', () => {
    expect(applyUsage(EMPTY_METER, { usage: { input_tokens: 300.9, cache_write_tokens: 80.7, cache_read_tokens: 1.5 } }, 0).meter).toMatchObject({
      measured: 380,
      cacheReadTotal: 1,
      cacheWriteTotal: 80,
    })
  })

  it('B-TM-2: each reading replaces the previous one (not a running sum)', () => {
    const step = stepFor()
    const { state } = fold(step, [usage({ input_tokens: 500 }), added(user('c')), usage({ input_tokens: 120, cache_write_tokens: 3 })], seeded)
    expect(state.meter).toMatchObject({ measured: 123, anchorSeq: 3, usageEvents: 2 })
  })

  it('B-TM-3/17.6: malformed payloads change nothing and yield a warning', () => {
    const step = stepFor()
    const payloads: unknown[] = [
      null,
      'usage',
      [],
      {},
      { usage: null },
      { usage: [] },
      { usage: 'x' },
      { usage: {} },
      { usage: { input_tokens: null } },
      { usage: { input_tokens: '300' } },
      { usage: { input_tokens: -1 } },
      { usage: { input_tokens: Number.POSITIVE_INFINITY } },
      { usage: { input_tokens: Number.NaN } },
      { usage: { input_tokens: 10, cache_write_tokens: 'abc' } },
      { usage: { input_tokens: 10, cache_write_tokens: -5 } },
      { usage: { input_tokens: 10, cache_write_tokens: Number.POSITIVE_INFINITY } },
      { usage: { input_tokens: 10, cache_read_tokens: 'many' } },
      { usage: { input_tokens: 10, cache_read_tokens: {} } },
    ]
    for (const data of payloads) {
      const next = step(seeded, { type: 'usage_observed', data })
      expect(next.state).toBe(seeded)
      expect(next.view).toBeUndefined()
      expect(next.effects).toEqual([ignored])
    }
  })
})

describe('SPEC 10.3 worked example (hybrid)', () => {
  const config = { token_meter: 'hybrid', max_tokens: 10_000 }
  const history = [user('x'.repeat(400)), assistant('y'.repeat(400))]

  const firstRequest = () => {
    const step = stepFor(config)
    const state = withMessages(step, history)
    return { step, state, first: step(state, request()) }
  }

  it('first request: estimate 251, kind estimated, returned view estimate 246', () => {
    const { state, first } = firstRequest()
    const stats: TokenMeterStats = {
      mode: 'hybrid',
      source: 'hybrid',
      kind: 'estimated',
      used_tokens: 251,
      estimated_tokens: 251,
      measured_tokens: null,
      hybrid_tokens: 251,
      hybrid_kind: 'estimated',
      anchor_tokens: null,
      anchor_estimate: null,
      anchor_rejected: false,
      tail_estimated_tokens: null,
      tail_messages: null,
      cache_aggregates: null,
      provenance_refusals: 0,
      provenance_overrides: 0,
      budget: 9200,
      ratio: 251 / 9200,
    }
    expect(first).toEqual({
      state: { ...state, meter: { ...state.meter, stats: stats, lastSentEstimate: 246 } },
      view: history.map((message, index) => viewed(stored(message, index))),
      effects: [meterEvent(stats)],
    })
    expect(Object.keys(first.state.meter.stats as object)).toEqual(STATS_KEYS)
    expect(first.state.nextSeq).toBe(2)
  })

  it('reading 300 + 80 (cache read 100) anchors at 380 over 246; the next request adds the 75-token tail: 455', () => {
    const { step, first } = firstRequest()
    const afterUsage = step(first.state, usage({ input_tokens: 300, cache_read_tokens: 100, cache_write_tokens: 80 }))
    expect(afterUsage.state.meter).toEqual({
      ...first.state.meter,
      measured: 380,
      anchorSeq: 2,
      anchorEstimate: 246,
      usageEvents: 1,
      usageEventsWithCache: 1,
      cacheReadTotal: 100,
      cacheWriteTotal: 80,
    })
    const grown = step(afterUsage.state, added(user('z'.repeat(200)))).state
    expect(tokens([grown.history[2]])).toBe(75)
    const second = step(grown, request())
    const stats: TokenMeterStats = {
      mode: 'hybrid',
      source: 'hybrid',
      kind: 'usage',
      used_tokens: 455,
      estimated_tokens: 326,
      measured_tokens: 380,
      hybrid_tokens: 455,
      hybrid_kind: 'usage',
      anchor_tokens: 380,
      anchor_estimate: 246,
      anchor_rejected: false,
      tail_estimated_tokens: 75,
      tail_messages: 1,
      cache_aggregates: { events: 1, cache_read_tokens: 100, cache_write_tokens: 80 },
      provenance_refusals: 0,
      provenance_overrides: 0,
      budget: 9200,
      ratio: 455 / 9200,
    }
    expect(second.state.meter.stats).toEqual(stats)
    expect(second.effects).toEqual([meterEvent(stats)])
  })

  it('B-TM-8: a reading of 150 (measured 230 < 246) is rejected: hybrid 326, kind estimated', () => {
    const { step, first } = firstRequest()
    const { state } = fold(step, [usage({ input_tokens: 150, cache_read_tokens: 100, cache_write_tokens: 80 }), added(user('z'.repeat(200)))], first.state)
    const second = step(state, request())
    expect(second.state.meter.stats).toMatchObject({
      kind: 'estimated',
      used_tokens: 326,
      hybrid_tokens: 326,
      hybrid_kind: 'estimated',
      measured_tokens: 230,
      anchor_tokens: 230,
      anchor_estimate: 246,
      anchor_rejected: true,
      tail_estimated_tokens: 75,
      tail_messages: 1,
    })
  })

  it('B-TM-8: an anchor equal to the last sent estimate is accepted', () => {
    const { step, first } = firstRequest()
    const second = step(step(first.state, usage({ input_tokens: 246 })).state, request())
    expect(second.state.meter.stats).toMatchObject({ kind: 'usage', hybrid_tokens: 246, anchor_rejected: false })
  })

  it('B-TM-7: with no new messages the hybrid number equals the anchor', () => {
    const { step, first } = firstRequest()
    const second = step(step(first.state, usage({ input_tokens: 1000 })).state, request())
    expect(second.state.meter.stats).toMatchObject({ kind: 'usage', used_tokens: 1000, hybrid_tokens: 1000, tail_estimated_tokens: 0, tail_messages: 0 })
  })
})

describe('meter modes (SPEC 10.1)', () => {
  const history = [user('x'.repeat(400)), assistant('y'.repeat(400))]

  it('B-TM-4: in estimate mode a reading never changes the view or the trigger, but measured_tokens shows it', () => {
    const step = stepFor({ compaction_notice_enabled: false })
    const state = withMessages(step, history)
    const withReading = step(state, usage({ input_tokens: 1_000_000 })).state
    const plain = step(state, request({ tokenBudget: 1000 }))
    const measured = step(withReading, request({ tokenBudget: 1000 }))
    expect(measured.view).toEqual(plain.view)
    expect(hookNames(measured.effects)).toEqual(['context:token_meter'])
    expect(measured.state.meter.stats).toMatchObject({ mode: 'estimate', source: 'estimate', kind: 'estimated', used_tokens: 251, estimated_tokens: 251, measured_tokens: 1_000_000 })
  })

  it('B-TM-5: in actual mode a reading above the threshold fires while the estimate is below', () => {
    const step = stepFor({ token_meter: 'actual', compaction_notice_enabled: false })
    const state = step(withMessages(step, history), usage({ input_tokens: 950 })).state
    const next = step(state, request({ tokenBudget: 1000 }))
    expect(next.state.meter.stats).toMatchObject({ source: 'measured', kind: 'usage', used_tokens: 950, estimated_tokens: 251, ratio: 0.95 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
    // The sizing is the estimator's: 251 ≤ target 500, so the ladder decides nothing at level 1.
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 1, before_tokens: 251, after_tokens: 251, messages_truncated: 0 })
  })

  it('B-TM-5: in actual mode a low reading prevents compaction while the estimate is above', () => {
    const step = stepFor({ token_meter: 'actual', compaction_notice_enabled: false })
    const state = step(withMessages(step, history), usage({ input_tokens: 10 })).state
    const next = step(state, request({ tokenBudget: 260 }))
    expect(next.state.meter.stats).toMatchObject({ used_tokens: 10, estimated_tokens: 251 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
    expect(next.view).toEqual(state.history.map(viewed))
  })

  it('B-TM-6: in actual mode before any reading the estimator drives the trigger', () => {
    const step = stepFor({ token_meter: 'actual', compaction_notice_enabled: false })
    const next = step(withMessages(step, history), request({ tokenBudget: 260 }))
    expect(next.state.meter.stats).toEqual(estimateMeterStats(251, 260, { mode: 'actual' }))
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
  })

  it('B-TM-14: the stats have the keys of 10.6 in order; kind is none for an empty working list in every mode without a reading', () => {
    for (const mode of ['estimate', 'actual', 'hybrid'] as const) {
      const next = stepFor({ token_meter: mode })(makeInitialState(), request({ tokenBudget: 10_000 }))
      const stats = next.state.meter.stats as TokenMeterStats
      expect(Object.keys(stats)).toEqual(STATS_KEYS)
      expect(stats).toEqual({
        mode,
        source: mode === 'hybrid' ? 'hybrid' : 'estimate',
        kind: 'none',
        used_tokens: 0,
        estimated_tokens: 0,
        measured_tokens: null,
        hybrid_tokens: 0,
        hybrid_kind: 'none',
        anchor_tokens: null,
        anchor_estimate: null,
        anchor_rejected: false,
        tail_estimated_tokens: 0,
        tail_messages: 0,
        cache_aggregates: null,
        provenance_refusals: 0,
        provenance_overrides: 0,
        budget: 9200,
        ratio: 0,
      })
    }
  })

  it('B-TM-9: an anchor ≤ 0 is rejected even when no view was sent before', () => {
    const step = stepFor({ token_meter: 'hybrid' })
    const state = step(withMessages(step, history), usage({ input_tokens: 0 })).state
    expect(state.meter.anchorEstimate).toBeNull()
    const next = step(state, request())
    expect(next.state.meter.stats).toMatchObject({ kind: 'estimated', hybrid_tokens: 251, anchor_tokens: 0, anchor_estimate: null, anchor_rejected: true, tail_messages: 0 })
  })

  it('B-TM-15: after set_messages the surviving reading is the anchor and the tail is empty', () => {
    const step = stepFor({ token_meter: 'hybrid' })
    const { state } = fold(step, [request(), usage({ input_tokens: 5000 }), { type: 'messages_replaced', messages: [user('a'), user('b'), user('c')] }], withMessages(step, history))
    const next = step(state, request())
    expect(next.state.meter.stats).toMatchObject({ kind: 'usage', measured_tokens: 5000, hybrid_tokens: 5000, anchor_tokens: 5000, anchor_estimate: null, tail_estimated_tokens: 0, tail_messages: 0, cache_aggregates: null })
  })

  it('B-TM-13: cache_aggregates is null before any event and after any event lacking a cache field; otherwise the sums', () => {
    const step = stepFor()
    const stats = (events: Parameters<typeof fold>[1]) => {
      const { state } = fold(step, [...events, request()])
      return state.meter.stats?.cache_aggregates
    }
    expect(stats([])).toBeNull()
    expect(stats([usage({ input_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 }), usage({ input_tokens: 1, cache_read_tokens: 10, cache_write_tokens: 0 })])).toEqual({
      events: 2,
      cache_read_tokens: 12,
      cache_write_tokens: 3,
    })
    expect(stats([usage({ input_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 }), usage({ input_tokens: 1, cache_read_tokens: 2 })])).toBeNull()
    expect(stats([usage({ input_tokens: 1 }), usage({ input_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3 })])).toBeNull()
    expect(toCacheAggregates({ ...EMPTY_METER, usageEvents: 1, usageEventsWithCache: 1, cacheReadTotal: 4, cacheWriteTotal: 5 })).toEqual({ events: 1, cache_read_tokens: 4, cache_write_tokens: 5 })
  })

  it('clear() resets measured usage and the meter stats to null', () => {
    const step = stepFor()
    const { state } = fold(step, [request(), usage({ input_tokens: 10 }), { type: 'history_cleared' }], withMessages(step, history))
    expect(state.meter.stats).toBeNull()
    expect(state.meter).toEqual(EMPTY_METER)
  })
})

describe('G-METER-PROVENANCE (SPEC 10.5)', () => {
  const history = workedExampleTurns(2) // 6 messages
  const hybrid = { token_meter: 'hybrid', compaction_notice_enabled: false }

  it('B-TM-10/B-TM-16: hybrid refuses on an estimated count below 100% of E; the counter shows one request later', () => {
    const step = stepFor(hybrid)
    const state = withMessages(step, history)
    const estimated = tokens(state.history)
    const budget = Math.ceil(estimated / 0.95)
    const first = step(state, request({ tokenBudget: budget }))
    expect(first.state.meter.stats).toMatchObject({ kind: 'estimated', provenance_refusals: 0, provenance_overrides: 0 })
    expect(first.state.meter).toMatchObject({ provenanceRefusals: 1, provenanceOverrides: 0 })
    expect(hookNames(first.effects)).toEqual(['context:token_meter'])
    expect(effectsOf(first.effects, 'log')).toEqual([{ type: 'log', level: 'info', message: expect.stringContaining('not compacting yet: the count of') }])
    expect(String(effectsOf(first.effects, 'log')[0]?.message)).toContain('token_meter "hybrid"')
    expect(first.view).toEqual(state.history.map(viewed))
    const second = step(first.state, request({ tokenBudget: budget }))
    expect(second.state.meter.stats).toMatchObject({ provenance_refusals: 1, provenance_overrides: 0 })
    expect(second.state.meter.provenanceRefusals).toBe(2)
  })

  it('B-TM-10: a rejected anchor refuses even at ≥ 100% of E (no override)', () => {
    const step = stepFor(hybrid)
    const state = step(withMessages(step, history), usage({ input_tokens: 0 })).state
    const next = step(state, request({ tokenBudget: 100 }))
    expect(next.state.meter.stats).toMatchObject({ kind: 'estimated', anchor_rejected: true })
    expect(next.state.meter).toMatchObject({ provenanceRefusals: 1, provenanceOverrides: 0 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
  })

  it('hybrid_rejected_anchor_override: a rejected anchor at ≥ 100% of E fires and counts an override; below 100% it still refuses', () => {
    const step = stepFor({ ...hybrid, hybrid_rejected_anchor_override: true })
    const state = step(withMessages(step, history), usage({ input_tokens: 0 })).state
    const over = step(state, request({ tokenBudget: 100 }))
    expect(over.state.meter.stats).toMatchObject({ kind: 'estimated', anchor_rejected: true })
    expect(over.state.meter).toMatchObject({ provenanceRefusals: 0, provenanceOverrides: 1 })
    expect(hookNames(over.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(effectsOf(over.effects, 'log')[0]).toEqual({ type: 'log', level: 'warning', message: expect.stringContaining('reading was rejected') })
    const under = step(state, request({ tokenBudget: Math.ceil(tokens(state.history) / 0.95) }))
    expect(under.state.meter).toMatchObject({ provenanceRefusals: 1, provenanceOverrides: 0 })
    expect(hookNames(under.effects)).toEqual(['context:token_meter'])
  })

  it('B-TM-11: no reading ever and usage ≥ 100% fires anyway and counts an override (with a warning)', () => {
    const step = stepFor(hybrid)
    const state = withMessages(step, history)
    const next = step(state, request({ tokenBudget: 100 }))
    expect(next.state.meter).toMatchObject({ provenanceRefusals: 0, provenanceOverrides: 1 })
    expect(next.state.meter.stats).toMatchObject({ provenance_overrides: 0 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(effectsOf(next.effects, 'log')[0]).toEqual({ type: 'log', level: 'warning', message: expect.stringContaining('no provider usage has arrived yet') })
    expect(step(next.state, request({ tokenBudget: 100 })).state.meter.stats).toMatchObject({ provenance_overrides: 1 })
  })

  it('hybrid fires normally on a usage count', () => {
    const step = stepFor(hybrid)
    const { state } = fold(step, [request({ tokenBudget: 10_000 }), usage({ input_tokens: 9_500 })], withMessages(step, history))
    const next = step(state, request({ tokenBudget: 10_000 }))
    expect(next.state.meter.stats).toMatchObject({ kind: 'usage', used_tokens: 9_500 })
    expect(next.state.meter).toMatchObject({ provenanceRefusals: 0, provenanceOverrides: 0 })
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
  })

  it('B-TM-12: estimate and actual modes never refuse; both counters stay 0', () => {
    for (const mode of ['estimate', 'actual']) {
      const step = stepFor({ token_meter: mode, compaction_notice_enabled: false })
      const state = withMessages(step, history)
      const budget = Math.ceil(tokens(state.history) / 0.95)
      const { state: after, steps } = fold(step, [request({ tokenBudget: budget }), request({ tokenBudget: 100 })], state)
      expect(after.meter).toMatchObject({ provenanceRefusals: 0, provenanceOverrides: 0 })
      expect(hookNames(steps[0].effects)).toEqual(['context:token_meter', 'context:compaction'])
    }
  })
})

describe('needsEscalation, the inner gate (SPEC 6.2 step 7)', () => {
  const meter = (measured: number | null): MeterState => ({ ...EMPTY_METER, measured })
  const usageReading = (tokensValue: number) => ({ tokens: tokensValue, kind: 'usage' as const, anchorTokens: tokensValue, anchorEstimate: null, anchorRejected: false, tailEstimatedTokens: 0, tailMessages: 0 })
  const estimatedReading = (tokensValue: number) => ({ ...usageReading(tokensValue), kind: 'estimated' as const })

  it('estimate mode uses the sticky view estimate (≥ threshold)', () => {
    expect(needsEscalation(DEFAULT_CONFIG, meter(5000), null, 92, 100)).toBe(true)
    expect(needsEscalation(DEFAULT_CONFIG, meter(5000), null, 91, 100)).toBe(false)
  })

  it('actual mode uses the measurement once there is one', () => {
    const actual = { ...DEFAULT_CONFIG, token_meter: 'actual' as const }
    expect(needsEscalation(actual, meter(95), null, 10, 100)).toBe(true)
    expect(needsEscalation(actual, meter(10), null, 95, 100)).toBe(false)
    expect(needsEscalation(actual, meter(null), null, 95, 100)).toBe(true)
  })

  it('hybrid mode uses the hybrid number only when its kind is usage', () => {
    const hybridConfig = { ...DEFAULT_CONFIG, token_meter: 'hybrid' as const }
    expect(needsEscalation(hybridConfig, meter(95), usageReading(95), 10, 100)).toBe(true)
    expect(needsEscalation(hybridConfig, meter(10), usageReading(10), 95, 100)).toBe(false)
    expect(needsEscalation(hybridConfig, meter(10), estimatedReading(10), 95, 100)).toBe(true)
  })

  it('is false whenever E ≤ 0', () => {
    expect(needsEscalation({ ...DEFAULT_CONFIG, compact_threshold: 0 }, meter(null), null, 10, 0)).toBe(false)
    expect(needsEscalation({ ...DEFAULT_CONFIG, token_meter: 'actual' }, meter(10), null, 10, -5)).toBe(false)
  })
})
