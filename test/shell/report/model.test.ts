// The report's data model: the provider model's per-request inputs, and the projection of replay output
// lines into equal-length columns (checked on a real compacting replay and by a property).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import { makeCachedEstimator } from '../../../src/core/meter/estimate.js'
import { DEFAULT_REPLAY_NOW, type Recording, type ReplayOutputLine } from '../../../src/core/replay/recording.js'
import { replayRecording } from '../../../src/core/replay/replay.js'
import type { ModelPrice } from '../../../src/core/economics/prices.js'
import type { RequestEconomics } from '../../../src/core/economics/simulation.js'
import { toEconomicsInputs, toReportSection, type ReportSectionInput } from '../../../src/shell/report/model.js'

const price: ModelPrice = { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15, source: 'test' }

const split = (input: number, read: number, write: number): RequestEconomics => ({
  split: { input_tokens: input, cache_read_tokens: read, cache_write_tokens: write, cache_write_1h_tokens: 0, uncached_input_tokens: input - read - write },
  overhead: 0,
  clamped: false,
  recorded_input: null,
  sent_tokens: input,
  view_tokens: input,
  billed_sent_tokens: input,
  billed_view_tokens: input,
  bills_view: true,
  prefix_break: read === 0,
  usage: null,
})

describe('toEconomicsInputs', () => {
  it('turns each request economics into a reading, a prefix-break flag and a running input cost', () => {
    const economics = [split(1000, 0, 1000), null, split(1500, 1000, 500)]
    const inputs = toEconomicsInputs(economics, price)
    expect(inputs.readings).toEqual([
      { input_tokens: 1000, cache_read_tokens: 0, cache_write_tokens: 1000, output_tokens: null },
      null,
      { input_tokens: 1500, cache_read_tokens: 1000, cache_write_tokens: 500, output_tokens: null },
    ])
    expect(inputs.prefixBreaks).toEqual([true, false, false])
    const first = (1000 * 3.75) / 1e6
    expect(inputs.cumulativeCostUsd).toEqual([first, first, first + (1000 * 0.3 + 500 * 3.75) / 1e6])
    expect(toEconomicsInputs(economics, null).cumulativeCostUsd).toBeNull()
  })
})

describe('toReportSection', () => {
  it('projects a compacting replay: one value per request, boundaries with their level, threshold under the budget', () => {
    const long = 'word '.repeat(400)
    const ops: Array<Recording['ops'][number]> = [{ op: 'add_message', message: { role: 'system', content: 'You are terse.' } }]
    for (let turn = 0; turn < 12; turn += 1) {
      ops.push({ op: 'add_message', message: { role: 'user', content: `question ${turn} ${long}` } })
      ops.push({ op: 'get_messages_for_request', token_budget: 3000 })
      ops.push({ op: 'llm_response', usage: { input_tokens: 500 + turn } })
      ops.push({ op: 'add_message', message: { role: 'assistant', content: `answer ${turn} ${long}` } })
    }
    const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops }
    const decoded = decodeConfig({})
    if (decoded._tag === 'Left') throw new Error(decoded.left.message)
    const estimate = makeCachedEstimator()
    const result = replayRecording(recording, { config: decoded.right.config, estimate }, { usage: { mode: 'recorded', provider: 'anthropic' } })
    const section = toReportSection(
      { title: 't', lines: result.lines, compactThreshold: decoded.right.config.compact_threshold, readingSource: 'recorded', ...toEconomicsInputs(result.economics, null) },
      estimate,
    )
    expect(section.requests).toBe(12)
    expect(section.providerInput).toEqual(Array.from({ length: 12 }, (_, turn) => 500 + turn))
    const compacted = result.lines.flatMap((line, index) => (line.events.some((event) => event.name === 'context:compaction') ? [index] : []))
    expect(compacted.length).toBeGreaterThan(0)
    expect(section.boundaries.map((boundary) => boundary.request)).toEqual(compacted)
    for (const boundary of section.boundaries) {
      expect(boundary.level).toBeGreaterThanOrEqual(1)
      expect(boundary.afterTokens).toBeLessThan(boundary.beforeTokens)
      expect(section.boundaryLevel[boundary.request]).toBe(boundary.level)
    }
    section.budget.forEach((budget, index) => expect(section.threshold[index]).toBe(Math.trunc((budget as number) * decoded.right.config.compact_threshold)))
    // the view each request sent fits its budget; the stored history grows past it
    section.viewTokens.forEach((tokens, index) => expect(tokens as number).toBeLessThanOrEqual(section.budget[index] as number))
    expect(Math.max(...(section.historyTokens as number[]))).toBeGreaterThan(3000)
    // recorded readings carry no cache fields here; a compaction changes the view's start
    expect(section.cacheRead).toEqual(Array.from({ length: 12 }, () => 0))
    expect(section.prefixBreaks).toBeGreaterThan(0)
    section.boundaries.forEach((boundary) => expect(section.prefixBreak?.[boundary.request]).toBe(1))
    expect(section.costUsd).toBeNull()
  })

  const lineArbitrary: fc.Arbitrary<ReplayOutputLine> = fc.record({
    op_index: fc.nat(),
    failed: fc.boolean(),
    compacted: fc.boolean(),
    level: fc.integer({ min: 1, max: 8 }),
    budget: fc.integer({ min: 0, max: 200_000 }),
    estimated: fc.nat({ max: 300_000 }),
    size: fc.nat({ max: 4 }),
  }).map(({ op_index, failed, compacted, level, budget, estimated, size }) => ({
    op_index,
    view: failed ? null : Array.from({ length: size }, (_, index) => ({ role: 'user', content: `m${index}` })),
    events: compacted ? [{ name: 'context:compaction', data: { strategy_level: level, before_tokens: estimated, after_tokens: 0 } }] : [],
    token_meter_stats: { estimated_tokens: estimated, budget },
    compaction_stats: null,
    ...(failed ? { error: { message: 'context-simple: failed' } } : {}),
  }))

  it('keeps every column as long as the requests, and counts boundaries, breaks and cost from its inputs', () => {
    fc.assert(
      fc.property(
        fc.array(lineArbitrary, { maxLength: 40 }).chain((lines) =>
          fc.record({
            lines: fc.constant(lines),
            readings: fc.array(fc.option(fc.record({ input_tokens: fc.nat(), cache_read_tokens: fc.option(fc.nat()), cache_write_tokens: fc.option(fc.nat()), output_tokens: fc.constant(null) })), { minLength: lines.length, maxLength: lines.length }),
            prefixBreaks: fc.option(fc.array(fc.boolean(), { minLength: lines.length, maxLength: lines.length })),
            costs: fc.option(fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: lines.length, maxLength: lines.length })),
            threshold: fc.double({ min: 0.01, max: 1, noNaN: true }),
          }),
        ),
        ({ lines, readings, prefixBreaks, costs, threshold }) => {
          const input: ReportSectionInput = { title: 'p', lines, compactThreshold: threshold, readings, readingSource: 'simulated', prefixBreaks, cumulativeCostUsd: costs }
          const section = toReportSection(input, () => 3)
          const columns = [section.request, section.historyTokens, section.viewTokens, section.providerInput, section.budget, section.threshold, section.boundaryLevel, section.cacheRead, section.cacheWrite, section.prefixBreak, section.cumulativeCostUsd]
          for (const column of columns) if (column !== null) expect(column.length).toBe(lines.length)
          expect(section.boundaries.length).toBe(lines.filter((line) => line.error === undefined && line.events.length > 0).length)
          expect(section.failedRequests).toBe(lines.filter((line) => line.error !== undefined).length)
          expect(section.viewTokens).toEqual(lines.map((line) => (line.view === null ? null : line.view.length * 3)))
          expect(section.prefixBreaks).toBe(prefixBreaks === null ? null : prefixBreaks.filter(Boolean).length)
          expect(section.costUsd).toBe(costs === null || costs.length === 0 ? null : costs[costs.length - 1])
          section.threshold.forEach((value, index) => expect(value).toBeLessThanOrEqual(section.budget[index] as number))
        },
      ),
    )
  })
})

describe('toReportSection with needed-fact recall', () => {
  it('gives recall per request, marks the requests that lost facts and lists what they lost', () => {
    const lines: ReplayOutputLine[] = [0, 1, 2].map((index) => ({ op_index: index, view: [], events: [], token_meter_stats: null, compaction_stats: null }))
    const recall = {
      needed_facts: 5,
      recalled_facts: 3,
      recall: 0.6,
      requests: [
        { op_index: 0, needed: 0, recalled: 0, lost: [] },
        { op_index: 1, needed: 2, recalled: 2, lost: [] },
        { op_index: 2, needed: 3, recalled: 1, lost: ['HAT076', 'mia_li_3668'] },
      ],
    }
    const input: ReportSectionInput = { title: 't', lines, compactThreshold: 0.75, readings: [null, null, null], readingSource: 'simulated', prefixBreaks: null, cumulativeCostUsd: null, recall }
    const section = toReportSection(input, makeCachedEstimator())
    expect(section.recall).toEqual([null, 1, 1 / 3])
    expect(section.lostFacts).toEqual([null, null, 2])
    expect(section.lossyRequests).toEqual([{ request: 2, needed: 3, recalled: 1, lost: ['HAT076', 'mia_li_3668'] }])
    expect([section.neededFacts, section.recalledFacts]).toEqual([5, 3])
    const without = toReportSection({ ...input, recall: undefined }, makeCachedEstimator())
    expect([without.recall, without.lostFacts, without.lossyRequests, without.neededFacts]).toEqual([null, null, null, null])
  })
})
