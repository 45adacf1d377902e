// Incremental requests (docs/architecture.md): the reducer's memo (the previous request's working list,
// estimates, sticky-applied list and stripped views, extended by what was appended) never
// changes a result. Folding a recording through one reducer gives exactly the output of folding
// it with a fresh reducer (empty memo) after every operation, and two sessions interleaved
// through one reducer give exactly what each gives alone.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Event } from '../src/core/events.js'
import type { RecordingOp } from '../src/core/replay/recording.js'
import { makeStep } from '../src/core/reducer.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { depsOf } from '../test/support/snapshot.js'
import { describeConfig, laterKeysArb, runProperty, scenarioArb, summaryAnswerArb, toRecording, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/**
 * Scenarios whose configuration also sets some of the later keys (guards, anchors, hysteresis),
 * and the typed estimator half the time (its media counts are extended incrementally too).
 */
const withLaterKeys = (scenarios: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc
    .tuple(scenarios, laterKeysArb, fc.constantFrom('reference', 'typed'))
    .map(([scenario, later, estimator]) => ({ ...scenario, rawConfig: { ...scenario.rawConfig, ...later, token_estimator: estimator } }))

/** The events of the ops a plain fold can apply without answering effects (summaries are left unanswered). */
const toEvents = (ops: ReadonlyArray<RecordingOp>, now: string): ReadonlyArray<Event> => {
  const events: Event[] = []
  let systemPrompt: string | null = null
  for (const op of ops) {
    if (op.op === 'add_message') events.push({ type: 'message_added', message: op.message, timestamp: now })
    else if (op.op === 'llm_response') events.push({ type: 'usage_observed', data: { usage: op.usage } })
    else if (op.op === 'set_messages') events.push({ type: 'messages_replaced', messages: op.messages })
    else if (op.op === 'clear') events.push({ type: 'history_cleared' })
    else if (op.op === 'set_system_prompt') systemPrompt = op.content
    else if (op.op === 'get_messages_for_request') {
      const provider = op.provider ?? null
      events.push({ type: 'request_received', tokenBudget: op.token_budget ?? null, provider, providerGiven: provider !== null, systemPrompt, now })
    }
  }
  return events
}

describe('incremental requests', () => {
  it('one reducer folds a recording exactly like a fresh reducer per operation', () => {
    runProperty(
      'incremental: memo never changes a result',
      fc.property(withLaterKeys(scenarioArb({}, { factory: 'changing', resets: true })), summaryAnswerArb, (scenario: Scenario, answer) => {
        const recording = toRecording(scenario)
        const summarizer = (): typeof answer => answer
        const shared = replayRecording(recording, depsOf(recording), { summarizer })
        const fresh = replayRecording(recording, depsOf(recording), { summarizer, handOver: { at: () => true, through: (state) => state } })
        expect(JSON.stringify(shared.lines), describeConfig(scenario)).toBe(JSON.stringify(fresh.lines))
        expect(shared.spills, describeConfig(scenario)).toStrictEqual(fresh.spills)
        expect(shared.logs, describeConfig(scenario)).toStrictEqual(fresh.logs)
      }),
      numRuns,
    )
  })

  it('two sessions interleaved through one reducer give what each gives alone', () => {
    runProperty(
      'incremental: interleaved sessions',
      fc.property(withLaterKeys(scenarioArb({}, { factory: 'changing', resets: true })), fc.array(fc.boolean(), { minLength: 1, maxLength: 400 }), (scenario: Scenario, picks) => {
        const recording = toRecording(scenario)
        const events = toEvents(recording.ops, recording.now)
        const alone = (): ReadonlyArray<string> => {
          const step = makeStep(depsOf(recording))
          let state: State = makeInitialState()
          return events.map((event) => {
            const result = step(state, event)
            state = result.state
            return JSON.stringify([result.view, result.effects])
          })
        }
        const expected = alone()
        // Session A runs the events in order; session B the same events, both through one reducer,
        // advancing whichever the picks say.
        const step = makeStep(depsOf(recording))
        const states: [State, State] = [makeInitialState(), makeInitialState()]
        const next: [number, number] = [0, 0]
        const outputs: [string[], string[]] = [[], []]
        for (let i = 0; next[0] < events.length || next[1] < events.length; i += 1) {
          const which = next[0] >= events.length ? 1 : next[1] >= events.length ? 0 : picks[i % picks.length] ? 1 : 0
          const result = step(states[which], events[next[which]])
          states[which] = result.state
          outputs[which].push(JSON.stringify([result.view, result.effects]))
          next[which] += 1
        }
        expect(outputs[0], describeConfig(scenario)).toStrictEqual(expected)
        expect(outputs[1], describeConfig(scenario)).toStrictEqual(expected)
      }),
      numRuns,
    )
  })
})
