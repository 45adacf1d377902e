// The provider model: overhead from recorded readings, clamping, carrying the last overhead,
// the simulated reading for the meters, and recorded splits.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applySimulatedRequest, EMPTY_SIMULATION, toReading, type Reading, type SimulationState } from '../../../src/core/economics/simulation.js'

const items = (tokens: number[]) => tokens.map((count, index) => ({ key: `m${index}`, tokens: count, ephemeral: false }))
const reading = (total: number, output: number | null = 7): Reading => ({ total, cacheRead: 0, cacheWrite: total, output, lifetime: '5m' })

describe('toReading', () => {
  it('totals input and cache writes and reads the write lifetime', () => {
    expect(toReading({ input_tokens: 11518, output_tokens: 13, cache_read_tokens: 11515, cache_write_tokens: 13835 })).toEqual({ total: 25353, cacheRead: 11515, cacheWrite: 13835, output: 13, lifetime: null })
    expect(toReading({ input_tokens: 1, cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 0 } })?.lifetime).toBe('5m')
    expect(toReading({ input_tokens: 1, cache_creation: { ephemeral_1h_input_tokens: 2 } })?.lifetime).toBe('1h')
    expect(toReading({ output_tokens: 1 })).toBeNull()
    expect(toReading('x')).toBeNull()
  })
})

describe('applySimulatedRequest', () => {
  it('takes overhead = recorded − sent, and the simulated input = overhead + the view', () => {
    const step = applySimulatedRequest('anthropic', 'simulated', EMPTY_SIMULATION, { recorded: reading(1500), sentTokens: 900, items: items([400]), timeMs: null })
    expect(step.economics).toMatchObject({ overhead: 600, clamped: false, recorded_input: 1500 })
    expect(step.economics.split.input_tokens).toBe(1000)
    expect(step.economics.usage).toEqual({ input_tokens: 0, output_tokens: 7, cache_read_tokens: 0, cache_write_tokens: 1000 })
  })

  it('clamps a negative overhead at 0 and counts it; a request without a reading takes the last overhead', () => {
    const clamped = applySimulatedRequest('openai', 'simulated', EMPTY_SIMULATION, { recorded: reading(100), sentTokens: 150, items: items([150]), timeMs: null })
    expect(clamped.economics).toMatchObject({ overhead: 0, clamped: true })
    expect(clamped.state.clamped).toBe(1)
    const known = applySimulatedRequest('openai', 'simulated', EMPTY_SIMULATION, { recorded: reading(700), sentTokens: 200, items: items([200]), timeMs: null })
    const carried = applySimulatedRequest('openai', 'simulated', known.state, { recorded: null, sentTokens: 300, items: items([300]), timeMs: null })
    expect(carried.economics).toMatchObject({ overhead: 500, recorded_input: null })
    expect(carried.economics.split.input_tokens).toBe(800)
    expect(carried.economics.usage).not.toHaveProperty('output_tokens')
    const none = applySimulatedRequest('openai', 'simulated', EMPTY_SIMULATION, { recorded: null, sentTokens: 10, items: items([10]), timeMs: null })
    expect(none.economics.overhead).toBe(0)
  })

  it('under recorded usage reports the recorded split and hands nothing to the meters', () => {
    const step = applySimulatedRequest('anthropic', 'recorded', EMPTY_SIMULATION, {
      recorded: { total: 1000, cacheRead: 600, cacheWrite: 300, output: 5, lifetime: '1h' },
      sentTokens: 10,
      items: items([10]),
      timeMs: null,
    })
    expect(step.economics.split).toEqual({ input_tokens: 1000, cache_read_tokens: 600, cache_write_tokens: 300, cache_write_1h_tokens: 300, uncached_input_tokens: 100 })
    expect(step.economics.usage).toBeNull()
  })

  it('property: without compaction (view = what was sent) the simulated input equals every unclamped reading', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ sent: fc.array(fc.nat(2000), { maxLength: 6 }), recorded: fc.option(fc.nat(30_000), { nil: null }) }), { minLength: 1, maxLength: 8 }), (requests) => {
        let state: SimulationState = EMPTY_SIMULATION
        let clamped = 0
        for (const next of requests) {
          const sentTokens = next.sent.reduce((a, b) => a + b, 0)
          const step = applySimulatedRequest('anthropic', 'simulated', state, { recorded: next.recorded === null ? null : reading(next.recorded), sentTokens, items: items(next.sent), timeMs: null })
          if (next.recorded !== null && next.recorded >= sentTokens) expect(step.economics.split.input_tokens).toBe(next.recorded)
          if (next.recorded !== null && next.recorded < sentTokens) clamped += 1
          const usage = step.economics.usage!
          expect(usage.input_tokens + usage.cache_write_tokens).toBe(step.economics.split.input_tokens)
          state = step.state
        }
        expect(state.clamped).toBe(clamped)
      }),
    )
  })
})
