// The provider model folded through random sessions (docs/evaluation.md): simulated readings never change
// the views an estimate-metered replay sends; every request's split adds up; prefix breaks are
// exactly the views that do not begin with the previous view minus its ephemeral tail; the
// reading handed to the meters totals the simulated input.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import { toWireKey } from '../src/core/economics/items.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import type { Message } from '../src/core/messages/message.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { describeConfig, isEphemeral, runProperty, scenarioArb, toRecording, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const replay = (scenario: Scenario, usage?: { mode: 'recorded' | 'simulated'; provider: 'anthropic' | 'openai' }) => {
  const recording = toRecording(scenario)
  const decoded = decodeConfig(recording.config)
  if (E.isLeft(decoded)) throw decoded.left
  return replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() }, usage === undefined ? {} : { usage })
}

/** The definition of a prefix break, computed from the views alone (provider order of OpenAI: as sent). */
const breaksPrefix = (previous: ReadonlyArray<Message>, current: ReadonlyArray<Message>): boolean => {
  let kept = previous.length
  while (kept > 0 && isEphemeral(previous[kept - 1])) kept -= 1
  if (current.length < kept) return true
  return previous.slice(0, kept).some((message, index) => toWireKey(message) !== toWireKey(current[index]))
}

describe('provider model over random sessions', () => {
  it('simulated readings leave the views of an estimate-metered progressive replay unchanged', () => {
    runProperty(
      'simulated usage keeps estimate views',
      fc.property(scenarioArb({ meters: ['estimate'], strategies: ['progressive'] }), fc.constantFrom('anthropic' as const, 'openai' as const), (scenario, provider) => {
        const plain = replay(scenario)
        const simulated = replay(scenario, { mode: 'simulated', provider })
        expect(simulated.lines.map((line) => line.view), describeConfig(scenario)).toEqual(plain.lines.map((line) => line.view))
      }),
      numRuns,
    )
  })

  it('every split adds up, prefix breaks follow their definition, and the meters get the simulated total', () => {
    runProperty(
      'economics invariants',
      fc.property(scenarioArb(), fc.constantFrom('recorded' as const, 'simulated' as const), (scenario, mode) => {
        const result = replay(scenario, { mode, provider: 'openai' })
        const where = describeConfig(scenario)
        expect(result.economics.length, where).toBe(result.lines.length)
        let previous: ReadonlyArray<Message> | null = null
        result.lines.forEach((line, index) => {
          const economics = result.economics[index]
          if (line.view === null) {
            expect(economics, where).toBeNull()
            return
          }
          if (economics === null) throw new Error('a request with a view has economics')
          const split = economics.split
          expect(split.cache_read_tokens + split.cache_write_tokens + split.uncached_input_tokens, where).toBe(split.input_tokens)
          for (const value of Object.values(split)) expect(value, where).toBeGreaterThanOrEqual(0)
          expect(economics.overhead, where).toBeGreaterThanOrEqual(0)
          expect(economics.prefix_break, where).toBe(previous !== null && breaksPrefix(previous, line.view))
          if (mode === 'simulated') {
            const usage = economics.usage ?? {}
            expect((usage.input_tokens ?? 0) + (usage.cache_write_tokens ?? 0), where).toBe(split.input_tokens)
            expect(split.input_tokens, where).toBe(economics.overhead + economics.billed_view_tokens)
          } else expect(economics.usage, where).toBeNull()
          previous = line.view
        })
      }),
      numRuns,
    )
  })
})
