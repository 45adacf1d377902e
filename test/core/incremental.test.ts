// Work per request is proportional to what changed: with a counting estimator, adding a message
// never re-estimates the history, and repeated requests neither re-estimate nor re-copy messages.
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { estimateOne, makeCachedEstimator } from '../../src/core/meter/estimate.js'
import type { Message } from '../../src/core/messages/message.js'
import { makeStep } from '../../src/core/reducer.js'
import { makeInitialState, type State } from '../../src/core/state.js'
import { NOW, added, calls, request, result, user } from '../support/core.js'

const countingStep = () => {
  const seen = new Map<object, number>()
  const counted = (message: Message): number => {
    seen.set(message, (seen.get(message) ?? 0) + 1)
    return estimateOne(message)
  }
  return { seen, step: makeStep({ config: { ...DEFAULT_CONFIG, compact_threshold: 0.5 }, estimate: makeCachedEstimator(counted) }) }
}

const turn = (i: number): Message[] => [user(`question ${i} `.repeat(20)), calls([`c${i}`]), result(`c${i}`, 'output line\n'.repeat(200))]

describe('incremental work (no timing, counts)', () => {
  it.each([null, 'You are a careful agent.'])('estimates each message object at most once, across adds and many requests (factory prompt %s)', (systemPrompt) => {
    const { seen, step } = countingStep()
    let state: State = makeInitialState()
    let estimatesBefore = 0
    const views: Array<ReadonlyArray<Message>> = []
    let checked = 0
    for (let i = 0; i < 40; i += 1) {
      for (const message of turn(i)) {
        const before = seen.size
        state = step(state, added(message, NOW)).state
        expect(seen.size).toBe(before) // adding never estimates anything
      }
      const next = step(state, request({ tokenBudget: 6000, systemPrompt }))
      state = next.state
      views.push(next.view ?? [])
      estimatesBefore = seen.size
      const again = step(state, request({ tokenBudget: 6000, systemPrompt }))
      const escalatedAgain = again.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')
      // A repeated request estimates nothing new, unless it escalated again (SPEC A-8: a floor
      // above the threshold re-runs the ladder and stores new stats, hence a new notice).
      if (!escalatedAgain) expect(seen.size).toBe(estimatesBefore)
      checked += escalatedAgain ? 0 : 1
      expect(again.view).toEqual(next.view)
      // unchanged messages are shared between repeated views, not copied again
      again.view?.forEach((message, index) => {
        if (message.metadata === undefined || (message.metadata as { ephemeral?: unknown }).ephemeral !== true) expect(message).toBe(next.view?.[index])
      })
    }
    expect(state.compaction.stats?.strategy_level ?? 0).toBeGreaterThan(0)
    expect(views.length).toBe(40)
    expect(checked).toBeGreaterThan(20)
    for (const count of seen.values()) expect(count).toBe(1)
  })
})

describe('incremental requests (counts, no timing)', () => {
  /** Estimator calls of one sticky-only request made after one added message, at a history of `turns` turns. */
  const callsPerQuietRequest = (turns: number, systemPrompt: string | null): number => {
    const calls = { count: 0 }
    const cached = makeCachedEstimator(estimateOne)
    const step = makeStep({ config: { ...DEFAULT_CONFIG, compact_threshold: 0.5 }, estimate: (message) => (calls.count += 1, cached(message)) })
    let state: State = makeInitialState()
    for (let i = 0; i < turns; i += 1) {
      for (const message of turn(i)) state = step(state, added(message, NOW)).state
      state = step(state, request({ tokenBudget: 6000, systemPrompt })).state
    }
    expect(state.compaction.sticky.removed.size).toBeGreaterThan(turns) // most of the history is compacted away
    state = step(state, added(user('one more short question'), NOW)).state
    calls.count = 0
    const quiet = step(state, request({ tokenBudget: 6000, systemPrompt }))
    expect(quiet.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')).toBe(false)
    expect(quiet.view?.at(-2)).toMatchObject({ content: 'one more short question' })
    return calls.count
  }

  it.each([null, 'You are a careful agent.'])('a request that does not compact estimates only what was added, at any history length (factory prompt %s)', (systemPrompt) => {
    const short = callsPerQuietRequest(30, systemPrompt)
    const long = callsPerQuietRequest(150, systemPrompt)
    expect(short).toBeLessThanOrEqual(4)
    expect(long).toBe(short)
  })
})
