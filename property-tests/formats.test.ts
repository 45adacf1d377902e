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

const numRuns = Number(process.env.FC_NUM_RUNS ?? 40)
const NOW = '2026-01-01T00:00:00.000+00:00'

interface Call {
  readonly id: string
  readonly input: Readonly<Record<string, unknown>>
  readonly result: string
  readonly error: boolean
}
type Turn =
  | { readonly kind: 'user'; readonly text: string }
  | { readonly kind: 'tools'; readonly thinking: boolean; readonly text: string; readonly calls: ReadonlyArray<Call>; readonly answered: number; readonly after: string | null }
  | { readonly kind: 'answer'; readonly thinking: boolean; readonly text: string }

const wordsArb = (min: number, max: number) => fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', "it's", 'q"uote', 'ü', '😀', '\n'), { minLength: min, maxLength: max }).map((w) => w.join(' '))

const callArb = fc.record({ input: fc.dictionary(fc.constantFrom('path', 'q', 'n'), fc.oneof(fc.string({ maxLength: 8 }), fc.integer())), result: wordsArb(0, 300), error: fc.boolean() })

/** A session skeleton: turns, the positions after which a request is made, and the last group's answered count. */
const makeSessionArb = (interrupted: boolean) => fc
  .record({
    turns: fc.array(
      fc.oneof(
        { arbitrary: wordsArb(1, 60).map((text): Turn => ({ kind: 'user', text })), weight: 2 },
        { arbitrary: fc.record({ thinking: fc.boolean(), text: wordsArb(0, 10), calls: fc.array(callArb, { minLength: 1, maxLength: 4 }), after: fc.option(wordsArb(1, 40), { nil: null }) }), weight: 4 },
        { arbitrary: fc.record({ thinking: fc.boolean(), text: wordsArb(1, 20) }).map((t): Turn => ({ kind: 'answer', ...t })), weight: 1 },
      ),
      { minLength: 1, maxLength: 14 },
    ),
    openAnswered: fc.nat(3),
    cuts: fc.array(fc.nat(4), { minLength: 14, maxLength: 14 }),
    requests: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
    config: fc.record({
      max_tokens: fc.integer({ min: 300, max: 9000 }),
      truncate_chars: fc.integer({ min: 40, max: 2000 }),
      protected_recent: fc.constantFrom(0.1, 0.3, 0.5),
      protected_tool_results: fc.nat(3),
      compaction_notice_enabled: fc.boolean(),
      replay_last_user_on_compaction: fc.boolean(),
    }),
  })
  .map(({ turns, openAnswered, cuts, requests, config }) => {
    let n = 0
    const shaped: Turn[] = [{ kind: 'user', text: 'start the task please' }]
    turns.forEach((turn, index) => {
      if ('calls' in turn) {
        const calls = turn.calls.map((call) => ({ ...call, id: `call_${(n += 1)}` }))
        const last = index === turns.length - 1
        // interrupted: a turn in the middle loses some of its results (an interrupted parallel turn)
        const answered = last ? Math.min(openAnswered, calls.length) : interrupted ? Math.min(cuts[index], calls.length) : calls.length
        shaped.push({ kind: 'tools', thinking: turn.thinking, text: turn.text, calls, answered, after: last ? null : turn.after })
      } else shaped.push(turn as Turn)
    })
    return { turns: shaped, requests, config }
  })
const sessionArb = makeSessionArb(false)

type Session = { readonly turns: ReadonlyArray<Turn>; readonly requests: ReadonlyArray<boolean>; readonly config: Record<string, unknown> }

const thinkingBlock = (i: number) => ({ type: 'thinking', thinking: `plan ${i}`, signature: `sig-${i}-EqQBCkgIAhAB` })

/** The native messages of a turn in `format`. */
const render = (format: ProviderFormat, turn: Turn, i: number): ReadonlyArray<Record<string, unknown>> => {
  switch (format) {
    case 'anthropic':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'text', text: turn.text, cache_control: { type: 'ephemeral' } }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: [...(turn.thinking ? [thinkingBlock(i)] : []), { type: 'text', text: turn.text }] }]
      return [
        { role: 'assistant', content: [...(turn.thinking ? [thinkingBlock(i)] : []), ...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool_use', id: c.id, name: 'tool', input: c.input }))] },
        ...(turn.answered > 0 || turn.after !== null
          ? [{ role: 'user', content: [...turn.calls.slice(0, turn.answered).map((c, k) => ({ type: 'tool_result', tool_use_id: c.id, content: k % 2 === 0 ? c.result : [{ type: 'text', text: c.result }], ...(c.error ? { is_error: true } : {}) })), ...(turn.after !== null ? [{ type: 'text', text: turn.after }] : [])] }]
          : []),
      ]
    case 'ai-sdk':
      if (turn.kind === 'user') return [{ role: 'user', content: [{ type: 'text', text: turn.text }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: [...(turn.thinking ? [{ type: 'reasoning', text: `plan ${i}`, providerOptions: { anthropic: { signature: `sig-${i}` } } }] : []), { type: 'text', text: turn.text }] }]
      return [
        { role: 'assistant', content: [...(turn.thinking ? [{ type: 'reasoning', text: `plan ${i}`, providerOptions: { anthropic: { signature: `sig-${i}` } } }] : []), ...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: 'tool', input: c.input }))] },
        ...(turn.answered > 0
          ? [{ role: 'tool', content: turn.calls.slice(0, turn.answered).map((c, k) => ({ type: 'tool-result', toolCallId: c.id, toolName: 'tool', output: c.error ? { type: 'error-text', value: c.result } : k % 2 === 0 ? { type: 'text', value: c.result } : { type: 'json', value: { text: c.result } } })) }]
          : []),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
    case 'openai-responses':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'input_text', text: turn.text }] }]
      if (turn.kind === 'answer') return [...(turn.thinking ? [{ type: 'reasoning', id: `rs_${i}`, summary: [], encrypted_content: `enc-${i}` }] : []), { type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }]
      return [
        ...(turn.thinking ? [{ type: 'reasoning', id: `rs_${i}`, summary: [], encrypted_content: `enc-${i}` }] : []),
        ...(turn.text ? [{ type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }] : []),
        ...turn.calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: 'tool', arguments: JSON.stringify(c.input) })),
        ...turn.calls.slice(0, turn.answered).map((c) => ({ type: 'function_call_output', call_id: c.id, output: c.result })),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
    case 'openai-chat':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'text', text: turn.text }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: turn.text }]
      return [
        { role: 'assistant', content: turn.text || null, tool_calls: turn.calls.map((c) => ({ id: c.id, type: 'function', function: { name: 'tool', arguments: JSON.stringify(c.input) } })) },
        ...turn.calls.slice(0, turn.answered).map((c) => ({ role: 'tool', tool_call_id: c.id, content: c.result })),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
  }
}

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
    // Issue 14: the memo of earlier requests (extended across appends and merged Responses items)
    // never changes a result: a fresh reducer gives the same view, effects and state.
    const fresh = makeStep(deps)(state, event)
    expect(result.view, `${label}: view with the memo`).toEqual(fresh.view)
    expect(result.effects).toEqual(fresh.effects)
    expect(result.state).toEqual(fresh.state)
    state = result.state
    if (result.view === undefined) return
    if (state.sticky.removed.size + state.sticky.truncated.size + state.sticky.stubbed.size > 0) compacted[format] = (compacted[format] ?? 0) + 1
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
