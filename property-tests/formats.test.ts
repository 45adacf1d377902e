// Provider formats (docs/formats.md): for random sessions in each format, folded through the pure
// reducer across compactions, every view passes that format's provider rules (atomic groups, no
// orphan, no unanswered call but an open group at the tail), assistant turns and thinking blocks
// are never altered or reordered, every block of a view is the block that was added or carries a
// truncation/stub marker, and the stored history is the messages as added.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import type { MessageFormat, ProviderFormat } from '../src/core/formats/carrier.js'
import { toNativeHistory, toRequestView } from '../src/core/formats/dispatch.js'
import { makeStep } from '../src/core/reducer.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'
import { makeSessionArb, render, sessionArb, type Session } from './format-sessions.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 40)
const NOW = '2026-01-01T00:00:00.000+00:00'

// Truncation and stub markers, and the library's own tail messages (replay, compaction notice).
const MARKERS = ['[truncated:', '[User message compacted', '[no result recorded]', 'source=\\"context-replay\\"', 'source=\\"context-compaction\\"']
const marked = (value: unknown): boolean => MARKERS.some((marker) => JSON.stringify(value).includes(marker))

const blocksOf = (message: Readonly<Record<string, unknown>>): ReadonlyArray<unknown> => (Array.isArray(message.content) ? message.content : [])

/** The messages (items) of a provider view. */
const messagesOf = (format: ProviderFormat, view: unknown): ReadonlyArray<Readonly<Record<string, unknown>>> =>
  (format === 'anthropic' ? (view as { messages: unknown[] }).messages : (view as unknown[])) as ReadonlyArray<Readonly<Record<string, unknown>>>

const isModelSide = (format: ProviderFormat, message: Readonly<Record<string, unknown>>): boolean =>
  format === 'openai-responses' ? message.role === 'assistant' || (typeof message.type === 'string' && !message.type.endsWith('_output') && message.type !== 'message') : message.role === 'assistant'

/** How many requests compacted (removed, truncated or stubbed) across the runs, per format. */
const compacted: Record<string, number> = {}

const check = (format: ProviderFormat, session: Session, repair = false): void => {
  const decoded = decodeConfig(session.config)
  if (decoded._tag === 'Left') throw decoded.left
  const deps = { config: decoded.right.config, estimate: makeCachedEstimator(), format }
  const step = makeStep(deps)
  let state: State = makeInitialState()
  const added: Array<Record<string, unknown>> = []
  const request = (label: string): void => {
    const event = { type: 'request_received', tokenBudget: null, provider: null, providerGiven: false, systemPrompt: 'You are a careful agent.', now: NOW } as const
    const result = step(state, event)
    // docs/architecture.md: the memo of earlier requests (extended across appends and merged Responses items)
    // never changes a result: a fresh reducer gives the same view, effects and state.
    const fresh = makeStep(deps)(state, event)
    expect(result.view, `${label}: view with the memo`).toEqual(fresh.view)
    expect(result.effects).toEqual(fresh.effects)
    expect(result.state).toEqual(fresh.state)
    state = result.state
    if (result.view === undefined) return
    if (state.compaction.sticky.removed.size + state.compaction.sticky.truncated.size + state.compaction.sticky.stubbed.size > 0) compacted[format] = (compacted[format] ?? 0) + 1
    const { view, problems } = toRequestView(format as MessageFormat, result.view, { history: state.history, repair })
    expect(problems, `${label}: ${JSON.stringify(view).slice(0, 400)}`).toEqual([])
    const messages = messagesOf(format, view)
    const addedJson = new Set(added.map((message) => JSON.stringify(message)))
    const addedBlocks = new Set(added.flatMap((message) => blocksOf(message).map((block) => JSON.stringify(block))))
    // Model-side messages (assistant turns, reasoning, calls) are never altered, and keep their order.
    let cursor = -1
    for (const message of messages) {
      if (!isModelSide(format, message)) continue
      const json = JSON.stringify(message)
      const at = added.findIndex((candidate, index) => index > cursor && JSON.stringify(candidate) === json)
      expect(at, `${label}: model message not as added or out of order: ${json.slice(0, 200)}`).toBeGreaterThan(cursor)
      cursor = at
    }
    // Every other message is as added, or each of its blocks is as added or marked.
    for (const message of messages) {
      if (isModelSide(format, message) || addedJson.has(JSON.stringify(message)) || message.role === 'system') continue
      if (!Array.isArray(message.content)) {
        expect(marked(message) || (format === 'anthropic' && message.role === 'user'), `${label}: ${JSON.stringify(message).slice(0, 200)}`).toBe(true)
        continue
      }
      for (const block of message.content) expect(addedBlocks.has(JSON.stringify(block)) || marked(block), `${label}: block ${JSON.stringify(block).slice(0, 200)}`).toBe(true)
    }
  }
  session.turns.forEach((turn, index) => {
    for (const message of render(format, turn, index)) {
      added.push(message)
      state = step(state, { type: 'message_added', message, timestamp: NOW }).state
    }
    if (session.requests[index] === true || index === session.turns.length - 1) request(`turn ${index}`)
  })
  // Compaction never changes the stored history: joined back, it is the messages as added.
  expect(JSON.stringify(toNativeHistory(format, state.history))).toBe(JSON.stringify(added))
}

describe('provider formats across compactions', () => {
  for (const format of ['anthropic', 'ai-sdk', 'openai-responses', 'openai-chat'] as const) {
    it(`${format}: valid views, model turns untouched and in order, blocks as added or marked, history as added`, () => {
      runProperty(`formats: ${format}`, fc.property(sessionArb, (session) => check(format, session)), numRuns)
      // The runs do exercise compaction (the properties would hold vacuously otherwise).
      // (checked below)
      if (process.env.FC_PROPERTY === undefined) expect(compacted[format] ?? 0).toBeGreaterThan(0)
    })
  }

  for (const format of ['anthropic', 'ai-sdk', 'openai-responses', 'openai-chat'] as const) {
    it(`${format}: with the opt-in repair, histories with interrupted turns mid-history give valid views`, () => {
      runProperty(`formats repair: ${format}`, fc.property(makeSessionArb(true), (session) => check(format, session, true)), numRuns)
    })
  }
})
