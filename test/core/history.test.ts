// Unit tests for src/core/history.ts: add_message, set_messages and clear (SPEC 1.3, 1.4, 2.4, 2.5;
// B-DM-*), tool-name harvesting (SPEC 11.4, B-TB-8), driven through the reducer.
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/core/messages/message.js'
import { harvestToolNames, toStoredMessage } from '../../src/core/history.js'
import { isAppendable } from '../../src/core/messages/appendable.js'
import { EMPTY_COMPACTION, EMPTY_METER, EMPTY_SUMMARY, makeInitialState, type State } from '../../src/core/state.js'
import { LATER, NOW, added, calls, fold, request, result, stepFor, stored, user, viewed, withMessages, workedExampleTurns } from '../support/core.js'

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/** A state with every resettable part non-trivial (sticky, stats, meter, summary, spill memo, …). */
const busyState = (history: ReadonlyArray<Message>): State => ({
  ...makeInitialState(),
  history,
  nextSeq: history.length,
  compaction: {
    ...EMPTY_COMPACTION,
    sticky: { removed: new Set([0]), truncated: new Set([2]), stubbed: new Set([3]), cumulativeLevel: 5 },
    stats: {
      before_tokens: 10,
      after_tokens: 5,
      before_messages: 4,
      after_messages: 3,
      messages_removed: 1,
      messages_truncated: 1,
      user_messages_stubbed: 1,
      system_messages_preserved: 0,
      strategy_level: 5,
      budget: 100,
      target_tokens: 50,
      protected_recent: 0.3,
      protected_tool_results: 5,
    },
    replayMarker: '5:1',
    skipStreak: 2,
  },
  meter: {
    measured: 380,
    anchorSeq: 2,
    anchorEstimate: 246,
    lastSentEstimate: 250,
    usageEvents: 3,
    usageEventsWithCache: 3,
    cacheReadTotal: 300,
    cacheWriteTotal: 240,
    provenanceRefusals: 2,
    provenanceOverrides: 1,
    stats: {
      mode: 'hybrid',
      source: 'hybrid',
      kind: 'usage',
      used_tokens: 400,
      estimated_tokens: 300,
      measured_tokens: 380,
      hybrid_tokens: 400,
      hybrid_kind: 'usage',
      anchor_tokens: 380,
      anchor_estimate: 246,
      anchor_rejected: false,
      tail_estimated_tokens: 20,
      tail_messages: 1,
      cache_aggregates: { events: 1, cache_read_tokens: 100, cache_write_tokens: 80 },
      provenance_refusals: 2,
      provenance_overrides: 1,
      budget: 9200,
      ratio: 400 / 9200,
    },
    usageStale: false,
    usageObservedOnly: 0,
  },
  toolNames: { c1: 'grep' },
  toolResults: { spillWritten: new Set(['/tmp/spill/tool-result-000002-0123456789abcdef.txt']), spillFailed: new Set(), ingressPending: {} },
  summary: {
    providerKnown: true,
    inFlight: 'summary-4',
    inFlightSeqs: [0, 1],
    pending: { seqs: [1], text: 'earlier' },
    failures: 2,
    absorbedCount: 1,
    nextRequestNumber: 5,
    cooldown: 0,
  },
})

describe('add_message (SPEC 1.4)', () => {
  it('B-DM-2/3: stores a copy with metadata {timestamp, _seq} added last; the step has no view and no effects', () => {
    const step = stepFor()
    const state = makeInitialState()
    const next = step(state, added(user('hello'), LATER))
    expect(next).toEqual({
      state: { ...state, history: [{ role: 'user', content: 'hello', metadata: { timestamp: LATER, _seq: 0 } }], nextSeq: 1 },
      view: undefined,
      effects: [],
    })
    expect(Object.keys(next.state.history[0])).toEqual(['role', 'content', 'metadata'])
    expect(Object.keys(next.state.history[0].metadata as object)).toEqual(['timestamp', '_seq'])
  })

  it('B-DM-1: never mutates the caller object (a frozen message is accepted)', () => {
    const message = deepFreeze({ role: 'user', content: 'hi', metadata: { source: 'x', _seq: 41 } })
    const before = structuredClone(message)
    const next = stepFor()(makeInitialState(), added(message))
    expect(message).toEqual(before)
    expect(next.state.history[0]).not.toBe(message)
    expect(next.state.history[0].metadata).not.toBe(message.metadata)
  })

  it('B-DM-2: an existing timestamp key (even null) and every other metadata key are kept in order', () => {
    const step = stepFor()
    const { state } = fold(step, [
      added(user('a', { metadata: { source: 'hook', timestamp: null } })),
      added(user('b', { metadata: { timestamp: 'yesterday', tool_name: 'x' } })),
      added(user('c', { metadata: { source: 'caller' } })),
    ])
    expect(state.history).toEqual([
      { role: 'user', content: 'a', metadata: { source: 'hook', timestamp: null, _seq: 0 } },
      { role: 'user', content: 'b', metadata: { timestamp: 'yesterday', tool_name: 'x', _seq: 1 } },
      { role: 'user', content: 'c', metadata: { source: 'caller', timestamp: NOW, _seq: 2 } },
    ])
    expect(state.history.map((message) => Object.keys(message.metadata as object))).toEqual([
      ['source', 'timestamp', '_seq'],
      ['timestamp', 'tool_name', '_seq'],
      ['source', 'timestamp', '_seq'],
    ])
  })

  it('B-DM-3: a caller-supplied _seq is overwritten in place', () => {
    const stored0 = stepFor()(makeInitialState(), added(user('a', { metadata: { _seq: 99, a: 1 } }))).state.history[0]
    expect(stored0.metadata).toEqual({ _seq: 0, a: 1, timestamp: NOW })
    expect(Object.keys(stored0.metadata as object)).toEqual(['_seq', 'a', 'timestamp'])
  })

  it('falsy metadata is replaced in its key position; a missing one is added last', () => {
    const message = { role: 'user', metadata: null, content: 'x' }
    const kept = toStoredMessage(message, NOW, 3)
    expect(kept).toEqual({ role: 'user', metadata: { timestamp: NOW, _seq: 3 }, content: 'x' })
    expect(Object.keys(kept)).toEqual(['role', 'metadata', 'content'])
    expect(toStoredMessage({ role: 'user', content: 'x', metadata: {} }, NOW, 0).metadata).toEqual({ timestamp: NOW, _seq: 0 })
  })

  it('B-DM-3: the k-th add after construction or clear() gets _seq k−1', () => {
    const step = stepFor()
    const { state } = fold(step, [added(user('a')), added(user('b')), { type: 'history_cleared' }, added(user('c')), added(user('d'))])
    expect(state.history).toEqual([stored(user('c'), 0), stored(user('d'), 1)])
    expect(state.nextSeq).toBe(2)
  })

  it('messages are always accepted, whatever their shape or size', () => {
    const odd: Message[] = [{ role: 'narrator', content: 42 }, { content: null }, { role: 'user', content: 'x'.repeat(100_000) }]
    const { state } = fold(stepFor({ max_tokens: 10 }), odd.map((message) => added(message)))
    expect(state.history).toEqual(odd.map((message, index) => stored(message, index)))
  })
})

describe('add_message appends without copying the history', () => {
  it('each add extends an appendable list; every earlier state keeps its own history', () => {
    const step = stepFor()
    const states: State[] = [makeInitialState()]
    for (const text of ['a', 'b', 'c']) states.push(step(states[states.length - 1], added(user(text))).state)
    expect(states.slice(1).every((state) => isAppendable(state.history))).toBe(true)
    expect(states.map((state) => state.history.map((message) => message.content))).toEqual([[], ['a'], ['a', 'b'], ['a', 'b', 'c']])
    // A branch: another add to an earlier state leaves the later states alone.
    const branch = step(states[1], added(user('x'))).state
    expect(branch.history.map((message) => message.content)).toEqual(['a', 'x'])
    expect(states[3].history.map((message) => message.content)).toEqual(['a', 'b', 'c'])
  })
})

describe('views and stored history (SPEC 1.5, 1.6)', () => {
  it('B-DM-4/5/6: a view strips _seq (metadata {} when it was the only key) and leaves history untouched', () => {
    const step = stepFor()
    const replaced = step(makeInitialState(), { type: 'messages_replaced', messages: [user('a'), user('b', { metadata: { source: 'x' } })] }).state
    const history = replaced.history
    const frozen = structuredClone(history)
    const next = step(replaced, request())
    expect(next.view).toEqual([
      { role: 'user', content: 'a', metadata: {} },
      { role: 'user', content: 'b', metadata: { source: 'x' } },
    ])
    expect(next.state.history).toBe(history)
    expect(history).toEqual(frozen)
  })

  it('B-DM-6/11: a compacting request leaves every stored message and its metadata as it was', () => {
    const step = stepFor({ max_tokens: 3000, compaction_notice_enabled: false, compact_threshold: 0.5, target_usage: 0.6, truncate_chars: 50, protected_recent: 0.5, protected_tool_results: 4 })
    const state = withMessages(step, workedExampleTurns())
    // A deep copy through JSON: an appended history is an appendable view, which structuredClone cannot copy (docs/architecture.md).
    const snapshot = JSON.parse(JSON.stringify(state.history)) as unknown
    const next = step(state, request())
    expect(next.state.compaction.stats?.messages_truncated).toBe(4)
    expect(next.state.history).toBe(state.history)
    expect(next.state.history).toEqual(snapshot)
    expect(next.state.nextSeq).toBe(24)
  })
})

describe('set_messages (SPEC 2.4)', () => {
  it('B-DM-7: stamps _seq 0..n−1 ignoring incoming values, adds no timestamp; the next add gets n', () => {
    const step = stepFor()
    const incoming: Message[] = [user('a', { metadata: { _seq: 7, timestamp: 'old' } }), { role: 'assistant', content: 'b', metadata: null }, user('c')]
    const start = makeInitialState()
    const replaced = step(start, { type: 'messages_replaced', messages: incoming })
    expect(replaced).toEqual({
      state: {
        ...start,
        history: [
          { role: 'user', content: 'a', metadata: { _seq: 0, timestamp: 'old' } },
          { role: 'assistant', content: 'b', metadata: { _seq: 1 } },
          { role: 'user', content: 'c', metadata: { _seq: 2 } },
        ],
        nextSeq: 3,
      },
      view: undefined,
      effects: [],
    })
    expect(step(replaced.state, added(user('d'))).state.history[3]).toEqual(stored(user('d'), 3))
  })

  it('B-DM-8: resets sticky, level, stats, replay marker, streak, summary and anchor; keeps measured, meter stats, spill memo, provenance counters', () => {
    const before = busyState([stored(user('a'), 0), stored(user('b'), 1), stored(user('c'), 2), stored(user('d'), 3)])
    const next = stepFor()(before, { type: 'messages_replaced', messages: [user('x')] })
    expect(next).toEqual({
      state: {
        ...before,
        history: [{ role: 'user', content: 'x', metadata: { _seq: 0 } }],
        nextSeq: 1,
        compaction: EMPTY_COMPACTION,
        toolNames: {},
        summary: { ...EMPTY_SUMMARY, nextRequestNumber: 5 },
        meter: { ...EMPTY_METER, measured: 380, provenanceRefusals: 2, provenanceOverrides: 1, stats: before.meter.stats },
      },
      view: undefined,
      effects: [{ type: 'cancel_summary', id: 'summary-4' }],
    })
    expect(next.state.meter.stats).toBe(before.meter.stats)
    expect(next.state.toolResults.spillWritten).toBe(before.toolResults.spillWritten)
  })

  it('set_messages with nothing in flight cancels nothing', () => {
    const before = { ...busyState([]), summary: { ...EMPTY_SUMMARY, nextRequestNumber: 2 } }
    expect(stepFor()(before, { type: 'messages_replaced', messages: [] }).effects).toEqual([])
  })
})

describe('clear (SPEC 2.5)', () => {
  it('B-DM-9: resets everything, including measured usage, meter stats and the spill memo; keeps provenance counters', () => {
    const before = busyState([stored(user('a'), 0), stored(user('b'), 1)])
    const next = stepFor()(before, { type: 'history_cleared' })
    expect(next).toEqual({
      state: {
        ...makeInitialState(),
        meter: { ...EMPTY_METER, provenanceRefusals: 2, provenanceOverrides: 1 },
        summary: { ...EMPTY_SUMMARY, nextRequestNumber: 5 },
      },
      view: undefined,
      effects: [{ type: 'cancel_summary', id: 'summary-4' }],
    })
    expect(next.state.toolResults.spillWritten.size).toBe(0)
  })

  it('clear() keeps the summary request counter so a cancelled id is never reused', () => {
    const before = busyState([])
    const cleared = stepFor()(before, { type: 'history_cleared' }).state
    expect(cleared.summary.nextRequestNumber).toBe(before.summary.nextRequestNumber)
  })
})

describe('tool-name harvesting (SPEC 11.4, B-TB-8)', () => {
  const history: Message[] = [
    calls(['c1'], 'grep'),
    { role: 'assistant', content: '', tool_calls: [{ tool_call_id: 'c2', name: 'bash' }, { id: 'c3', tool: 'ls' }, { id: '', name: 'skip' }, { id: 'c4' }] },
    result('c1', 'out'),
  ]

  it('harvestToolNames reads id or tool_call_id and function.name, name or tool; skips falsy ids and names', () => {
    let names = {}
    for (const message of history) names = harvestToolNames(names, message)
    expect(names).toEqual({ c1: 'grep', c2: 'bash', c3: 'ls' })
    expect(harvestToolNames({ c1: 'old' }, calls(['c1'], 'new'))).toEqual({ c1: 'new' })
    const same = { a: 'b' }
    expect(harvestToolNames(same, user('x'))).toBe(same)
  })

  it('without per-tool config no names are harvested', () => {
    expect(withMessages(stepFor(), history).toolNames).toEqual({})
  })

  it('with per-tool config add_message harvests, set_messages rebuilds and clear empties', () => {
    const step = stepFor({ tool_result_exempt_tools: ['ls'] })
    const state = withMessages(step, history)
    expect(state.toolNames).toEqual({ c1: 'grep', c2: 'bash', c3: 'ls' })
    const replaced = step(state, { type: 'messages_replaced', messages: [calls(['z9'], 'cat')] }).state
    expect(replaced.toolNames).toEqual({ z9: 'cat' })
    expect(step(replaced, { type: 'history_cleared' }).state.toolNames).toEqual({})
    expect(withMessages(stepFor({ tool_result_budget_by_tool: { grep: 10 } }), history).toolNames).toEqual({ c1: 'grep', c2: 'bash', c3: 'ls' })
  })

  it('a view of a harvested history is still the plain stripped history', () => {
    const step = stepFor({ tool_result_exempt_tools: ['ls'] })
    const state = withMessages(step, history)
    expect(step(state, request()).view).toEqual(history.map((message, index) => viewed(stored(message, index))))
  })
})
