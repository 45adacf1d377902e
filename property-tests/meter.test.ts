// The token meter (SPEC 10, 17.1): in hybrid mode nothing compacts on a count that is not
// provider usage except the G-METER-PROVENANCE override; once sticky decisions exist every view
// applies them, so in actual/hybrid mode no later view drops one (a removed message never
// reappears, a truncated one never reappears untruncated: the D-1 oscillation is fixed); the
// meter's counts are never negative.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Effect } from '../src/core/effects.js'
import { hasStickyDecisions, type StickyState } from '../src/core/state.js'
import type { TokenMeterStats } from '../src/core/stats.js'
import {
  describeConfig,
  foldScenario,
  hookNames,
  modelStickyView,
  modelWorkingList,
  runProperty,
  scenarioArb,
  seqOfStored,
  stripSeq,
  withoutEphemeralTail,
  type RequestRecord,
  type Scenario,
} from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const meterEvent = (effects: ReadonlyArray<Effect>): TokenMeterStats => {
  const effect = effects.find((candidate) => candidate.type === 'emit_hook' && candidate.name === 'context:token_meter')
  if (effect === undefined || effect.type !== 'emit_hook') throw new Error('no context:token_meter event')
  return effect.data as TokenMeterStats
}

/** Compaction visibly ran the ladder: an accepted pass, a refusal, or the fail-loud error. */
const visiblyFired = (request: RequestRecord): boolean =>
  hookNames(request.effects).some((name) => name === 'context:compaction' || name === 'context:compaction-skipped') ||
  request.effects.some((effect) => effect.type === 'raise_error')

const checkProvenance = (scenario: Scenario): void => {
  const { requests } = foldScenario(scenario)
  const threshold = scenario.config.compact_threshold
  requests.forEach((request, k) => {
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    const stats = meterEvent(request.effects)
    // Counters after this request's decision: the next request's stats show them (D-6), or the state.
    const next = k + 1 < requests.length ? meterEvent(requests[k + 1].effects) : null
    const overridesAfter = next !== null ? next.provenance_overrides : request.after.meter.provenanceOverrides
    const refusalsAfter = next !== null ? next.provenance_refusals : request.after.meter.provenanceRefusals
    const overridden = overridesAfter - stats.provenance_overrides
    const refused = refusalsAfter - stats.provenance_refusals
    const usage = stats.budget > 0 ? stats.used_tokens / stats.budget : 0
    const passes = usage >= threshold
    if (scenario.config.token_meter !== 'hybrid') {
      expect([stats.provenance_overrides, stats.provenance_refusals, overridden, refused], where).toEqual([0, 0, 0, 0])
      return
    }
    // the contract's override before any reading; with hybrid_rejected_anchor_override also after a rejected anchor
    const noTrustedReading = stats.measured_tokens === null || (scenario.config.hybrid_rejected_anchor_override && stats.anchor_rejected)
    const overrideAllowed = passes && stats.kind !== 'usage' && noTrustedReading && usage >= 1
    expect(overridden, where).toBe(overrideAllowed ? 1 : 0)
    expect(refused, where).toBe(passes && stats.kind !== 'usage' && !overrideAllowed ? 1 : 0)
    if (stats.kind !== 'usage' && visiblyFired(request)) expect(overridden, `${where}: compacted on kind ${stats.kind}`).toBe(1)
  })
}

const isSubset = (a: ReadonlySet<number>, b: ReadonlySet<number>, c: ReadonlySet<number> = new Set()): boolean => {
  for (const value of a) if (!b.has(value) && !c.has(value)) return false
  return true
}

const checkSticky = (scenario: Scenario): void => {
  const { ops } = foldScenario(scenario)
  let removedUids = new Set<unknown>()
  let previous: StickyState | null = null
  for (const record of ops) {
    const where = `op ${record.index} (${record.op.op}) with ${describeConfig(scenario)}`
    if (record.op.op === 'clear' || record.op.op === 'set_messages') {
      removedUids = new Set()
      previous = null
      continue
    }
    const sticky = record.after.compaction.sticky
    if (previous !== null) {
      // Decisions are never reversed: removed only grows; truncated/stubbed only move to removed.
      expect(isSubset(previous.removed, sticky.removed), `${where}: removed shrank`).toBe(true)
      expect(isSubset(previous.truncated, sticky.truncated, sticky.removed), `${where}: truncated dropped`).toBe(true)
      expect(isSubset(previous.stubbed, sticky.stubbed, sticky.removed), `${where}: stubbed dropped`).toBe(true)
      expect(sticky.cumulativeLevel, where).toBeGreaterThanOrEqual(previous.cumulativeLevel)
    }
    previous = sticky
    for (const message of record.after.history) {
      const seq = seqOfStored(message)
      if (seq !== undefined && sticky.removed.has(seq)) removedUids.add(message.uid)
    }
    if (record.op.op !== 'get_messages_for_request') continue
    const view = (record as RequestRecord).view
    if (view === null) continue
    for (const message of view) {
      expect(message.uid !== undefined && removedUids.has(message.uid), `${where}: removed ${String(message.uid)} reappeared`).toBe(false)
    }
    const core = withoutEphemeralTail(view)
    const expected = modelStickyView(scenario.config, record.after, sticky, record.systemPrompt)
    if (hasStickyDecisions(sticky)) {
      // Every view once decisions exist applies all of them (SPEC 17.1, 7).
      expect(core, where).toStrictEqual(expected)
    } else {
      const raw = modelWorkingList(record.after.history, record.systemPrompt).map(stripSeq)
      expect(JSON.stringify(core) === JSON.stringify(raw) || JSON.stringify(core) === JSON.stringify(expected), where).toBe(true)
    }
  }
}

const checkNonNegative = (scenario: Scenario): void => {
  for (const request of foldScenario(scenario).requests) {
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    const stats = meterEvent(request.effects)
    const counts: Array<number | null> = [
      stats.used_tokens,
      stats.estimated_tokens,
      stats.measured_tokens,
      stats.hybrid_tokens,
      stats.anchor_tokens,
      stats.anchor_estimate,
      stats.tail_estimated_tokens,
      stats.tail_messages,
      stats.provenance_refusals,
      stats.provenance_overrides,
      ...(stats.cache_aggregates === null ? [] : [stats.cache_aggregates.events, stats.cache_aggregates.cache_read_tokens, stats.cache_aggregates.cache_write_tokens]),
    ]
    for (const count of counts) {
      if (count === null) continue
      expect(Number.isInteger(count) && count >= 0, `${where}: ${JSON.stringify(stats)}`).toBe(true)
    }
    if (stats.ratio !== null) expect(stats.ratio, where).toBeGreaterThanOrEqual(0)
    expect(request.meterStats, where).toStrictEqual(stats)
  }
}

describe('token meter', () => {
  it('hybrid mode compacts on a non-usage count only through the provenance override', () => {
    runProperty('meter: provenance gate', fc.property(scenarioArb({ meters: ['hybrid', 'hybrid', 'estimate', 'actual'] }, { usage: true }), checkProvenance), numRuns)
  })

  it('after a compaction in actual or hybrid mode no view drops a sticky decision', () => {
    runProperty(
      'meter: sticky decisions kept',
      fc.property(scenarioArb({ meters: ['actual', 'hybrid'] }, { usage: true, factory: 'changing', resets: true, summaries: true }), checkSticky),
      numRuns,
    )
  })

  it('every view applies the sticky decisions in estimate mode too (varying budgets)', () => {
    runProperty('meter: sticky decisions kept (estimate)', fc.property(scenarioArb({ meters: ['estimate'] }, { factory: 'changing' }), checkSticky), Math.max(1, Math.trunc(numRuns / 2)))
  })

  it('meter counts are never negative', () => {
    runProperty('meter: non-negative', fc.property(scenarioArb({}, { usage: true, resets: true }), checkNonNegative), Math.max(1, Math.trunc(numRuns / 2)))
  })
})
