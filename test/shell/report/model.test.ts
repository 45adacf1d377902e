// The report's data model: recorded readings per request, and the projection of replay output
// lines into equal-length columns (checked on a real compacting replay and by a property).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import { makeCachedEstimator } from '../../../src/core/estimate.js'
import { DEFAULT_REPLAY_NOW, type Recording, type ReplayOutputLine } from '../../../src/core/recording.js'
import { replayRecording } from '../../../src/core/replay.js'
import { toProviderReading, toRecordedReadings, toReportSection, type ReportSectionInput } from '../../../src/shell/report/model.js'

const reading = (input: number) => ({ input_tokens: input, cache_read_tokens: null, cache_write_tokens: null, output_tokens: null })

describe('toRecordedReadings', () => {
  it('gives each request the first reading after it, null where none follows before the next request', () => {
    const recording: Recording = {
      config: {},
      now: DEFAULT_REPLAY_NOW,
      ops: [
        { op: 'llm_response', usage: { input_tokens: 1 } },
        { op: 'get_messages_for_request', token_budget: 900 },
        { op: 'llm_response', usage: { input_tokens: 80, cache_read_tokens: 60, cache_write_tokens: 20, output_tokens: 7 } },
        { op: 'llm_response', usage: { input_tokens: 99 } },
        { op: 'get_messages_for_request', token_budget: 900 },
        { op: 'add_message', message: { role: 'user', content: 'x' } },
        { op: 'get_messages_for_request', token_budget: 900 },
        { op: 'llm_response', usage: { input_tokens: 'many' } },
      ],
    }
    expect(toRecordedReadings(recording)).toEqual([{ input_tokens: 80, cache_read_tokens: 60, cache_write_tokens: 20, output_tokens: 7 }, null, null])
  })

  it('reads only numeric fields', () => {
    expect(toProviderReading({ input_tokens: 5, cache_read_tokens: '3' })).toEqual(reading(5))
    expect(toProviderReading(null)).toBeNull()
    expect(toProviderReading({ output_tokens: 5 })).toBeNull()
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
    const result = replayRecording(recording, { config: decoded.right.config, estimate })
    const section = toReportSection(
      { title: 't', lines: result.lines, compactThreshold: decoded.right.config.compact_threshold, readings: toRecordedReadings(recording), readingSource: 'recorded', prefixBreaks: null, cumulativeCostUsd: null },
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
    expect(section.cacheRead).toBeNull()
    expect(section.prefixBreak).toBeNull()
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
