// Session figures from a replay under the provider model: boundaries, invalid views (repeated
// input ids aside), overflows against E or a window, prefix breaks, split totals and cost.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { hasOwnPairingProblem, selectRepeatedRecordingCallIds, toSessionMetrics } from '../../../src/core/economics/metrics.js'
import { selectPairingProblems } from '../../../src/core/formats/tool-pairing.js'
import { makeCachedEstimator } from '../../../src/core/meter/estimate.js'
import { DEFAULT_REPLAY_NOW, type Recording, type RecordingOp } from '../../../src/core/replay/recording.js'
import { replayRecording } from '../../../src/core/replay/replay.js'

const price = { input: 2, cached_input: 1, cache_write: 0, output: 8, source: 'test' }

const turn = (index: number, size: number): RecordingOp[] => [
  { op: 'add_message', message: { role: 'user', content: `q${index} ${'x'.repeat(size)}` } },
  { op: 'get_messages_for_request', token_budget: 1500 },
  { op: 'llm_response', usage: { input_tokens: 5000 + index, output_tokens: 3 } },
  { op: 'add_message', message: { role: 'assistant', content: `a${index}` } },
]

const recordingOf = (sizes: number[]): Recording => ({ config: {}, now: DEFAULT_REPLAY_NOW, ops: sizes.flatMap((size, index) => turn(index, size)) })

describe('toSessionMetrics', () => {
  it('counts boundaries, overflows against E, prefix breaks, and splits that sum to the input', () => {
    const recording = recordingOf([400, 400, 400, 400, 400, 400, 400, 400])
    const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai' } })
    const metrics = toSessionMetrics(result, recording, { kind: 'budget' }, price)
    expect(metrics.requests).toBe(8)
    expect(metrics.budget).toBe(700)
    const compactions = result.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction')).length
    expect(metrics.boundaries).toBe(compactions)
    expect(metrics.boundaries).toBeGreaterThan(0)
    expect(metrics.prefix_breaks).toBe(result.economics.filter((economics) => economics?.prefix_break).length)
    expect(metrics.cache_read_tokens + metrics.cache_write_tokens + metrics.uncached_input_tokens).toBe(metrics.input_tokens)
    // the recorded readings carry ~5000 tokens of hidden overhead: every request overflows E = 700
    expect(metrics.overflows).toBe(8)
    expect(metrics.cost_usd).toBeCloseTo((metrics.cache_read_tokens * 1 + metrics.uncached_input_tokens * 2) / 1e6, 9)
    expect(toSessionMetrics(result, recording, { kind: 'window', tokens: 1_000_000 }, null)).toMatchObject({ overflows: 0, cost_usd: 0, overflow_limit: 1_000_000 })
    expect(toSessionMetrics(result, recording, { kind: 'none' }, price).overflows).toBe(0)
  })

  it('infeasible_requests counts the requests that reported context:compaction-infeasible', () => {
    // ~5,000 tokens of hidden overhead in the readings against E = 700: under the calibrated meter the overhead alone fills E (docs/contract.md 17.13)
    const recording = recordingOf([400, 400, 400, 400, 400, 400, 400, 400])
    const calibrated = replayRecording(recording, { config: { ...DEFAULT_CONFIG, token_meter: 'calibrated' }, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai' } })
    const reported = calibrated.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction-infeasible')).length
    expect(reported).toBeGreaterThan(0)
    expect(toSessionMetrics(calibrated, recording, { kind: 'budget' }, price).infeasible_requests).toBe(reported)
    const plain = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai' } })
    expect(toSessionMetrics(plain, recording, { kind: 'budget' }, price).infeasible_requests).toBe(0)
  })

  it('fit_error is measured only before the first boundary (the view is W there) and fit_requests is the count it was taken over', () => {
    const recording = recordingOf([400, 400, 400, 400, 400, 400, 400, 400])
    const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai' } })
    const metrics = toSessionMetrics(result, recording, { kind: 'budget' }, price)
    const first = result.lines.findIndex((line) => line.events.some((event) => event.name === 'context:compaction'))
    expect(first).toBeGreaterThan(0)
    const measured = result.lines.slice(0, first).flatMap((line, index) => {
      const used = (line.token_meter_stats as { used_tokens: number } | null)?.used_tokens
      const billed = result.economics[index]?.split.input_tokens ?? 0
      return line.view !== null && used !== undefined && billed > 0 ? [Math.abs(used - billed) / billed] : []
    })
    expect(measured.length).toBeGreaterThan(0)
    expect(metrics.fit_requests).toBe(measured.length)
    expect(metrics.fit_error).toBeCloseTo(measured.reduce((sum, error) => sum + error, 0) / measured.length, 12)
  })

  it('property: totals equal the sums over the per-request economics', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 10, max: 900 }), { minLength: 1, maxLength: 10 }), fc.constantFrom('openai' as const, 'anthropic' as const), (sizes, provider) => {
        const recording = recordingOf(sizes)
        const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider } })
        const metrics = toSessionMetrics(result, recording, { kind: 'budget' }, price)
        const economics = result.economics.flatMap((entry) => (entry === null ? [] : [entry]))
        expect(metrics.input_tokens).toBe(economics.reduce((sum, entry) => sum + entry.split.input_tokens, 0))
        expect(metrics.cache_read_tokens).toBe(economics.reduce((sum, entry) => sum + entry.split.cache_read_tokens, 0))
        expect(metrics.invalid_views).toBe(0)
      }),
      { numRuns: 30 },
    )
  })
})

describe('repeated call ids', () => {
  it('are found across messages and excuse only the problems that name them', () => {
    const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })
    const recording: Recording = {
      config: {},
      now: DEFAULT_REPLAY_NOW,
      ops: [
        { op: 'add_message', message: { role: 'assistant', content: '', tool_calls: [call('a'), call('b')] } },
        { op: 'set_messages', messages: [{ role: 'assistant', content: '', tool_calls: [call('a')] }] },
      ],
    }
    const repeated = selectRepeatedRecordingCallIds(recording)
    expect([...repeated]).toEqual(['a'])
    const orphan = { role: 'tool', tool_call_id: 'a', content: 'x' }
    expect(hasOwnPairingProblem(selectPairingProblems([{ role: 'user', content: 'u' }, orphan]), repeated)).toBe(false)
    const unanswered = [{ role: 'assistant', content: '', tool_calls: [call('b')] }, { role: 'user', content: 'u' }]
    expect(hasOwnPairingProblem(selectPairingProblems(unanswered), repeated)).toBe(true)
  })

  it('matches call ids, not words of the problem text: an id named like a position word excuses nothing else', () => {
    // ids "0" and "3" also appear as positions in the texts of other problems
    const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })
    const repeated = new Set(['0', '3'])
    const unanswered = [{ role: 'assistant', content: '', tool_calls: [call('b')] }, { role: 'user', content: 'u' }]
    expect(selectPairingProblems(unanswered).map((problem) => problem.text)).toEqual(['R2 calls b of message 0 unanswered'])
    expect(hasOwnPairingProblem(selectPairingProblems(unanswered), repeated)).toBe(true)
    expect(hasOwnPairingProblem(selectPairingProblems([{ role: 'tool', tool_call_id: 'c', content: 'x' }]), repeated)).toBe(true)
  })
})
