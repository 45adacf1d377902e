// Unit tests for src/core/reducer.ts: routing of every event type to its handler, the Step shape,
// purity (inputs never mutated, same input → same output) and odd input leaving state alone.
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { estimateOne, makeCachedEstimator } from '../../src/core/meter/estimate.js'
import type { Event } from '../../src/core/events.js'
import { makeStep } from '../../src/core/reducer.js'
import { EMPTY_SUMMARY, makeInitialState, type State } from '../../src/core/state.js'
import { NOW, added, fold, request, stepFor, stored, usage, user, viewed, withMessages, workedExampleTurns, WORKED_EXAMPLE } from '../support/core.js'


/** A JSON-comparable snapshot of a state (Sets as sorted arrays). */
const snapshot = (state: State): unknown =>
  JSON.parse(JSON.stringify(state, (_key, value: unknown) => (value instanceof Set ? [...value].sort() : value)))

describe('routing (STYLE: reducer.ts routes on event.type)', () => {
  const step = makeStep({ config: DEFAULT_CONFIG, estimate: makeCachedEstimator() })
  const empty = makeInitialState()

  it('message_added → history', () => {
    expect(step(empty, added(user('hi')))).toEqual({ state: { ...empty, history: [stored(user('hi'), 0)], nextSeq: 1 }, view: undefined, effects: [] })
  })

  it('messages_replaced → set_messages', () => {
    expect(step(empty, { type: 'messages_replaced', messages: [user('a')] })).toEqual({
      state: { ...empty, history: [{ role: 'user', content: 'a', metadata: { _seq: 0 } }], nextSeq: 1 },
      view: undefined,
      effects: [],
    })
  })

  it('history_cleared → clear', () => {
    const state = withMessages(step, [user('a')])
    expect(step(state, { type: 'history_cleared' })).toEqual({ state: empty, view: undefined, effects: [] })
  })

  it('request_received → a view', () => {
    const state = withMessages(step, [user('a')])
    const next = step(state, request())
    expect(next.view).toEqual([viewed(stored(user('a'), 0))])
    expect(next.state.meter.stats).not.toBeNull()
  })

  it('usage_observed → the meter', () => {
    const next = step(empty, usage({ input_tokens: 5 }))
    expect(next).toEqual({ state: { ...empty, meter: { ...empty.meter, measured: 5, anchorSeq: 0, usageEvents: 1 } }, view: undefined, effects: [] })
  })

  it('spill_written → the memo; spill_failed → a warning, context:spill_failed and the path never pointed at again (SPEC 17.9)', () => {
    expect(step(empty, { type: 'spill_written', path: '/p' })).toEqual({ state: { ...empty, toolResults: { ...empty.toolResults, spillWritten: new Set(['/p']) } }, view: undefined, effects: [] })
    const failed = step(empty, { type: 'spill_failed', path: '/p', error: 'EROFS' })
    expect(failed).toEqual({
      state: { ...empty, toolResults: { ...empty.toolResults, spillFailed: new Set(['/p']) } },
      view: undefined,
      effects: [
        { type: 'log', level: 'warning', message: expect.stringContaining('/p') },
        { type: 'emit_hook', name: 'context:spill_failed', data: { path: '/p', error: 'EROFS' } },
      ],
    })
  })

  it('summary events with an unknown id leave the state alone (the same object)', () => {
    const state: State = { ...empty, summary: { ...EMPTY_SUMMARY, inFlight: 'summary-3', inFlightSeqs: [0] } }
    for (const event of [
      { type: 'summary_completed', id: 'summary-2', text: 'late' },
      { type: 'summary_failed', id: 'nope', error: 'x' },
      { type: 'summary_call_started', id: 'nope' },
    ] as Event[]) {
      const next = step(state, event)
      expect(next.state).toBe(state)
      expect(next.view).toBeUndefined()
      expect(next.effects.every((effect) => effect.type === 'log' && effect.level === 'debug')).toBe(true)
    }
    expect(step(empty, { type: 'summary_completed', id: 'summary-1', text: 'x' }).state).toBe(empty)
  })

  it('a malformed usage payload leaves the state alone (the same object)', () => {
    const next = step(empty, { type: 'usage_observed', data: 'garbage' })
    expect(next.state).toBe(empty)
    expect(next.effects).toHaveLength(1)
  })
})

describe('purity', () => {
  it('never mutates the input state or the event', () => {
    const step = stepFor(WORKED_EXAMPLE)
    const state = withMessages(step, workedExampleTurns())
    const before = snapshot(state)
    const event = request()
    const eventBefore = structuredClone(event)
    const first = step(state, event)
    expect(snapshot(state)).toEqual(before)
    expect(event).toEqual(eventBefore)
    expect(first.state.compaction.stats).not.toBeNull()
  })

  it('the same state and event give equal steps, in one reducer and across reducers', () => {
    const events: Event[] = [...workedExampleTurns().map((message) => added(message)), request(), usage({ input_tokens: 100 }), added(user('more')), request()]
    const a = fold(stepFor(WORKED_EXAMPLE), events)
    const b = fold(stepFor(WORKED_EXAMPLE), events)
    expect(snapshot(a.state)).toEqual(snapshot(b.state))
    expect(a.steps.map((next) => [next.view, next.effects])).toEqual(b.steps.map((next) => [next.view, next.effects]))
    const step = stepFor(WORKED_EXAMPLE)
    const state = fold(step, events.slice(0, -1)).state
    expect(step(state, request())).toEqual(step(state, request()))
  })

  it('effects survive JSON round trips (plain data)', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, tool_result_spill_dir: '/tmp/spill' })
    const next = step(withMessages(step, workedExampleTurns()), request())
    expect(JSON.parse(JSON.stringify(next.effects))).toEqual(next.effects)
    expect(next.effects.length).toBeGreaterThan(2)
  })

  it('a custom pure estimator is used everywhere tokens are counted', () => {
    const doubled = makeStep({ config: { ...DEFAULT_CONFIG, ...WORKED_EXAMPLE }, estimate: makeCachedEstimator((message) => 2 * estimateOne(message)) })
    const next = doubled(withMessages(doubled, workedExampleTurns()), request({ now: NOW }))
    expect(next.state.meter.stats?.estimated_tokens).toBe(4888)
    expect(next.state.compaction.stats?.before_tokens).toBe(4888)
  })
})
