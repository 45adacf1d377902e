// Unit tests for src/core/summary/summary.ts: the summary strategy of SPEC 12 with 17.3, 17.4, 17.6
// (B-SU-1..16): trigger and span selection, snapping, the transcript, answers keyed by request id,
// cancellation on clear / set_messages, and the swap with its shrink guard.
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import type { Event } from '../../../src/core/events.js'
import type { Message } from '../../../src/core/messages/message.js'
import { EMPTY_SUMMARY, type State } from '../../../src/core/state.js'
import {
  DEFAULT_SUMMARY_PROMPT,
  applySummaryAnswer,
  selectAbsorbSpan,
  snapAbsorbBoundary,
  toSummaryMessage,
  toTranscript,
  trySwap,
} from '../../../src/core/summary/summary.js'
import {
  LATER,
  NOW,
  added,
  assistant,
  calls,
  effectsOf,
  fold,
  hookNames,
  request,
  result,
  stepFor,
  stored,
  tokens,
  usage,
  user,
  viewed,
  withMessages,
} from '../../support/core.js'

const SUMMARY = { compaction_strategy: 'summary', compaction_notice_enabled: false, summary_trigger: 0.1 }

const HISTORY: Message[] = [
  user('first task'),
  assistant('x'.repeat(400)),
  user('second'),
  assistant('y'.repeat(400)),
  user('third'),
  assistant('z'.repeat(400)),
  user('fourth'),
  assistant('w'.repeat(400)),
  user('last'),
  assistant('ok'),
]
const STORED = HISTORY.map((message, index) => stored(message, index))
const TOTAL = tokens(STORED)
/** A budget whose excess over the target (0.5) is one token more than the first message. */
const SPAN_BUDGET = 2 * (TOTAL - (estimateOne(STORED[0]) + 1))

const summaryStarted = (step: ReturnType<typeof stepFor>, state: State, id = 'summary-1'): State =>
  fold(step, [{ type: 'summary_call_started', id }, { type: 'summary_completed', id, text: 'They asked for the first task.' }], state).state

describe('transcript (SPEC 12.3)', () => {
  it('the example entry: content lines, then an indented call line with ASCII-only compact JSON', () => {
    const message = assistant('done\nreally', { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: { path: 'é.txt' } } }] })
    expect(toTranscript([message])).toBe('[assistant]: done\nreally\n  [tool_call: read({"path":"\\u00e9.txt"})]')
    const inputForm = assistant('done\nreally', { tool_calls: [{ id: 'c1', name: 'read', input: { path: 'é.txt' } }] })
    expect(toTranscript([inputForm])).toBe('[assistant]: done\nreally\n  [tool_call: read({"path":"\\u00e9.txt"})]')
  })

  it('entries are separated by a blank line; tool results name their call; a missing role is unknown', () => {
    expect(toTranscript([user('hi'), result('c1', 'output'), { role: 'tool', content: 'x' }, { content: 'who' }])).toBe(
      '[user]: hi\n\n[tool_result for c1]: output\n\n[tool_result for ]: x\n\n[unknown]: who',
    )
  })

  it('content: block texts joined by line feeds, null as None, other values as text', () => {
    expect(toTranscript([user([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: '' }, { type: 'text', text: 'b' }])])).toBe('[user]: a\nb')
    expect(toTranscript([assistant(null)])).toBe('[assistant]: None')
    expect(toTranscript([assistant(42)])).toBe('[assistant]: 42')
  })

  it('call lines: defaults, string arguments as is, the 500-character cap, escapes', () => {
    const message = assistant('', {
      tool_calls: [
        { id: 'a', function: {} },
        { id: 'b', function: { name: 'bash', arguments: '{"cmd": "ls"}' } },
        { id: 'c', tool: 'grep' },
        { id: 'd' },
        { id: 'e', name: 'write', arguments: 'p'.repeat(600) },
        { id: 'f', name: 'esc', input: { s: 'q"\\\n\t\u001f\u007f😀', n: 1, z: null } },
      ],
    })
    expect(toTranscript([message])).toBe(
      [
        '[assistant]: ',
        '  [tool_call: unknown_tool({})]',
        '  [tool_call: bash({"cmd": "ls"})]',
        '  [tool_call: grep({})]',
        '  [tool_call: unknown_tool({})]',
        `  [tool_call: write(${'p'.repeat(500)}...)]`,
        '  [tool_call: esc({"s":"q\\"\\\\\\n\\t\\u001f\\u007f\\ud83d\\ude00","n":1,"z":null})]',
      ].join('\n'),
    )
  })
})

describe('transcript: present vs missing keys (SPEC 0, 12.3)', () => {
  it('a function key whose value is undefined counts as absent (the name/tool branch applies)', () => {
    const message = assistant('', { tool_calls: [{ id: 'a', function: undefined, name: 'grep', input: { q: 1 } }] })
    expect(toTranscript([message])).toBe('[assistant]: \n  [tool_call: grep({"q":1})]')
  })

  it('function.name / function.arguments default only when missing; a present null renders as None / null', () => {
    const message = assistant('', { tool_calls: [{ id: 'a', function: { name: null, arguments: null } }, { id: 'b', function: { name: 'x', arguments: undefined } }] })
    expect(toTranscript([message])).toBe('[assistant]: \n  [tool_call: None(null)]\n  [tool_call: x({})]')
  })

  it('a missing role is unknown and a missing call id empty; present null values render as None', () => {
    expect(toTranscript([{ role: null, content: 'a' }, { role: 'tool', tool_call_id: null, content: 'b' }, { role: 'tool', tool_call_id: undefined, content: 'c' }, { role: undefined, content: 'd' }])).toBe(
      '[None]: a\n\n[tool_result for None]: b\n\n[tool_result for ]: c\n\n[unknown]: d',
    )
  })
})

describe('snapping the absorb boundary (SPEC 12.5 with 17.3, 17.4; B-SU-14)', () => {
  it('the four examples give 3, 1, 1 and 0', () => {
    const uCallResultU: Message[] = [user('u'), calls(['c1']), result('c1', 'r'), user('u2')]
    expect(snapAbsorbBoundary(uCallResultU, 2, 4)).toBe(3)
    expect(snapAbsorbBoundary(uCallResultU, 2, 2)).toBe(1)
    expect(snapAbsorbBoundary([calls(['c1']), assistant('narration'), result('c1', 'r')], 1, 3)).toBe(1)
    expect(snapAbsorbBoundary([calls(['a', 'b']), result('a', 'r'), result('b', 'r')], 2, 2)).toBe(0)
  })

  it('[call c1, call c2, result c1, result c2]: with adjacency neither call owns those results, so the boundary never moves', () => {
    const list: Message[] = [calls(['c1']), calls(['c2']), result('c1', 'r'), result('c2', 'r')]
    expect(snapAbsorbBoundary(list, 1, 4)).toBe(1)
    expect(snapAbsorbBoundary(list, 2, 4)).toBe(2)
    expect(snapAbsorbBoundary(list, 3, 4)).toBe(3)
  })

  it('[call c1+c2, result c1, result c2]: the call and both results go together or not at all', () => {
    const list: Message[] = [calls(['c1', 'c2']), result('c1', 'r'), result('c2', 'r'), user('u')]
    expect(snapAbsorbBoundary(list, 1, 4)).toBe(3)
    expect(snapAbsorbBoundary(list, 2, 4)).toBe(3)
    expect(snapAbsorbBoundary(list, 1, 2)).toBe(0)
    expect(snapAbsorbBoundary(list, 0, 4)).toBe(0)
  })

  it('re-examines after each extension and cuts back to the first call whose results pass the limit', () => {
    const list: Message[] = [calls(['a']), result('a', 'r'), calls(['b']), result('b', 'r'), user('u')]
    expect(snapAbsorbBoundary(list, 1, 5)).toBe(2)
    expect(snapAbsorbBoundary(list, 3, 5)).toBe(4)
    expect(snapAbsorbBoundary(list, 3, 3)).toBe(2)
  })
})

describe('span selection (SPEC 12.4)', () => {
  const config: Config = { ...DEFAULT_CONFIG, protected_recent: 0.3 }

  it('walks from the oldest live message until the excess is covered; the first user is absorbable', () => {
    expect(selectAbsorbSpan(STORED, new Set(), config, estimateOne(STORED[0]), estimateOne)).toEqual([0])
    expect(selectAbsorbSpan(STORED, new Set(), config, estimateOne(STORED[0]) + 1, estimateOne)).toEqual([0, 1])
  })

  it('stops at the protected boundary (never past the last user) when the excess is not reached', () => {
    // |live| = 10 → trunc(10 × 0.7) = 7; the last user is at 8.
    expect(selectAbsorbSpan(STORED, new Set(), config, 1_000_000, estimateOne)).toEqual([0, 1, 2, 3, 4, 5, 6])
    // The last user at 4 lowers the boundary.
    const shortTail = [...STORED.slice(0, 4), stored(user('now'), 4), stored(assistant('a'), 5), stored(assistant('b'), 6), stored(assistant('c'), 7), stored(assistant('d'), 8), stored(assistant('e'), 9)]
    expect(selectAbsorbSpan(shortTail, new Set(), config, 1_000_000, estimateOne)).toEqual([0, 1, 2, 3])
  })

  it('skips system messages, removed messages and summaries (B-SU-9)', () => {
    const summary = toSummaryMessage('old summary', NOW, 10)
    const history = [stored({ role: 'system', content: 'rules' }, 0), ...STORED.slice(1), summary]
    const removed = new Set([1, 2])
    expect(selectAbsorbSpan(history, removed, config, 1, estimateOne)).toEqual([3])
    expect(selectAbsorbSpan([summary], new Set(), config, 1, estimateOne)).toEqual([])
  })

  it('nothing when the boundary is ≤ 0 or the live list is empty', () => {
    expect(selectAbsorbSpan([], new Set(), config, 1, estimateOne)).toEqual([])
    expect(selectAbsorbSpan(STORED, new Set(), { ...config, protected_recent: 1 }, 1, estimateOne)).toEqual([])
    expect(selectAbsorbSpan([STORED[0], STORED[1]], new Set(), config, 1, estimateOne)).toEqual([])
  })

  it('snaps to tool groups', () => {
    const history = [user('go'), calls(['c1', 'c2']), result('c1', 'r'.repeat(400)), result('c2', 'r'), user('next'), assistant('a'), user('u'), assistant('b'), user('last'), assistant('z')].map((message, index) => stored(message, index))
    const excess = estimateOne(history[0]) + estimateOne(history[1]) + 1
    expect(selectAbsorbSpan(history, new Set(), config, excess, estimateOne)).toEqual([0, 1, 2, 3])
  })

  it('17.8: the boundary is lowered to the open group the live list ends inside', () => {
    const open = { ...config, protected_recent: 0 }
    const history = [assistant('a'.repeat(400)), assistant('b'), calls(['c1', 'c2']), result('c1', 'r')].map((message, index) => stored(message, index))
    expect(selectAbsorbSpan(history, new Set(), open, 1_000_000, estimateOne)).toEqual([0, 1])
    expect(selectAbsorbSpan(history.slice(2), new Set(), open, 1_000_000, estimateOne)).toEqual([])
    // Answered, the group is absorbable again.
    const answered = [...history, stored(result('c2', 'r'), 4)]
    expect(selectAbsorbSpan(answered, new Set(), open, 1_000_000, estimateOne)).toEqual([0, 1, 2, 3, 4])
  })
})

describe('trigger (SPEC 12.2, B-SU-1..3, B-SU-16)', () => {
  it('B-SU-1: in progressive mode a provider is never cached and never called', () => {
    const step = stepFor({ compaction_notice_enabled: false, summary_trigger: 0.1 })
    const next = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    expect(next.state.summary).toEqual(EMPTY_SUMMARY)
    expect(effectsOf(next.effects, 'request_summary')).toEqual([])
  })

  it('B-SU-2: one background summarization starts when used/E ≥ summary_trigger and used > target; the view is unchanged', () => {
    const step = stepFor({ ...SUMMARY, summarization_model: 'small', summarization_timeout_s: 12.5, summarization_prompt_path: '/tmp/prompt.md' })
    const state = withMessages(step, HISTORY)
    const next = step(state, request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    expect(next.view).toEqual(STORED.map(viewed))
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
    expect(effectsOf(next.effects, 'request_summary')).toEqual([
      {
        type: 'request_summary',
        id: 'summary-1',
        seqs: [0, 1],
        messageCount: 2,
        transcript: `[user]: first task\n\n[assistant]: ${'x'.repeat(400)}`,
        prompt: DEFAULT_SUMMARY_PROMPT,
        promptPath: '/tmp/prompt.md',
        model: 'small',
        timeoutSeconds: 12.5,
      },
    ])
    expect(next.state.summary).toEqual({ ...EMPTY_SUMMARY, providerKnown: true, inFlight: 'summary-1', inFlightSeqs: [0, 1], nextRequestNumber: 2 })
    expect(next.state.history).toBe(state.history)
  })

  it('the default prompt carries the five headings and the guidelines', () => {
    for (const heading of ['## User Requests & Decisions', '## Files Examined or Modified', '## Errors Encountered & Resolutions', '## Current Task State', '## Key Technical Details', '## Guidelines']) {
      expect(DEFAULT_SUMMARY_PROMPT).toContain(heading)
    }
  })

  it('no trigger without a provider, below summary_trigger, at or below the target, or with E ≤ 0', () => {
    const step = stepFor(SUMMARY)
    const state = withMessages(step, HISTORY)
    expect(effectsOf(step(state, request({ tokenBudget: SPAN_BUDGET })).effects, 'request_summary')).toEqual([])
    expect(effectsOf(stepFor({ ...SUMMARY, summary_trigger: 0.99 })(state, request({ tokenBudget: SPAN_BUDGET, providerGiven: true })).effects, 'request_summary')).toEqual([])
    expect(effectsOf(step(state, request({ tokenBudget: 2 * TOTAL, providerGiven: true })).effects, 'request_summary')).toEqual([])
    expect(effectsOf(step(state, request({ tokenBudget: 0, providerGiven: true })).effects, 'request_summary')).toEqual([])
    expect(effectsOf(step(state, request({ tokenBudget: 2 * TOTAL - 2, providerGiven: true })).effects, 'request_summary')).toHaveLength(1)
  })

  it('the provider is remembered: a later request without one still triggers', () => {
    const step = stepFor(SUMMARY)
    const state = step(withMessages(step, HISTORY), request({ tokenBudget: 2 * TOTAL, providerGiven: true })).state
    expect(state.summary.providerKnown).toBe(true)
    expect(effectsOf(step(state, request({ tokenBudget: SPAN_BUDGET })).effects, 'request_summary')).toHaveLength(1)
  })

  it('B-SU-3: no second summarization while one is in flight or a result is pending', () => {
    const step = stepFor(SUMMARY)
    const first = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    const inFlight = step(first.state, request({ tokenBudget: SPAN_BUDGET }))
    expect(effectsOf(inFlight.effects, 'request_summary')).toEqual([])
    const pending = summaryStarted(step, inFlight.state)
    expect(pending.summary.pending).not.toBeNull()
    expect(effectsOf(step(pending, request({ tokenBudget: SPAN_BUDGET })).effects, 'request_summary')).toEqual([])
  })

  it('B-SU-16: in actual mode a reading starts the summarizer while the estimate alone is below summary_trigger', () => {
    const step = stepFor({ ...SUMMARY, summary_trigger: 0.6, token_meter: 'actual' })
    const state = withMessages(step, HISTORY)
    const budget = 4 * TOTAL
    expect(effectsOf(step(state, request({ tokenBudget: budget, providerGiven: true })).effects, 'request_summary')).toEqual([])
    const measured = step(state, usage({ input_tokens: Math.ceil(0.7 * budget) })).state
    const next = step(measured, request({ tokenBudget: budget, providerGiven: true }))
    expect(next.state.meter.stats?.estimated_tokens).toBeLessThan(0.6 * budget)
    expect(effectsOf(next.effects, 'request_summary')).toHaveLength(1)
  })
})

describe('answers (SPEC 12.3, 17.6)', () => {
  const inFlight = () => {
    const step = stepFor(SUMMARY)
    return { step, state: step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true })).state }
  }

  it('B-SU-4: call started emits pre_summarize {message_count}; success stores the pending summary and emits post_summarize', () => {
    const { step, state } = inFlight()
    const started = step(state, { type: 'summary_call_started', id: 'summary-1' })
    expect(started).toEqual({ state, view: undefined, effects: [{ type: 'emit_hook', name: 'context:pre_summarize', data: { message_count: 2 } }] })
    const done = step(state, { type: 'summary_completed', id: 'summary-1', text: 'Sum 😀' })
    expect(done).toEqual({
      state: { ...state, summary: { ...state.summary, inFlight: null, inFlightSeqs: [], pending: { seqs: [0, 1], text: 'Sum 😀' } } },
      view: undefined,
      effects: [{ type: 'emit_hook', name: 'context:post_summarize', data: { summary_length: 5 } }],
    })
  })

  it('B-SU-12: failures and empty summaries count a failure and leave nothing pending', () => {
    const { step, state } = inFlight()
    for (const event of [
      { type: 'summary_failed', id: 'summary-1', error: 'timeout' },
      { type: 'summary_completed', id: 'summary-1', text: ' \n\t' },
    ] as Event[]) {
      const next = step(state, event)
      expect(next).toEqual({
        state: { ...state, summary: { ...state.summary, inFlight: null, inFlightSeqs: [], failures: 1 } },
        view: undefined,
        effects: [{ type: 'log', level: 'warning', message: expect.stringMatching(/summarization failed.*compacts progressively.*compaction_strategy/) }],
      })
    }
    expect(applySummaryAnswer({ ...state.summary, failures: 3 }, 'summary-1', { text: 'fine' }).summary.failures).toBe(0)
  })

  it('answers for an id that is not in flight leave the state alone (stale ids)', () => {
    const { step, state } = inFlight()
    for (const event of [
      { type: 'summary_completed', id: 'summary-9', text: 'late' },
      { type: 'summary_failed', id: 'summary-0', error: 'x' },
    ] as Event[]) {
      const next = step(state, event)
      expect(next.state).toBe(state)
      expect(next.effects).toEqual([{ type: 'log', level: 'debug', message: expect.stringContaining('ignored') }])
    }
    expect(step(state, { type: 'summary_call_started', id: 'summary-9' })).toEqual({ state, view: undefined, effects: [] })
  })

  it('clear() and set_messages() cancel the in-flight request; its late answer is ignored', () => {
    const { step, state } = inFlight()
    for (const reset of [{ type: 'history_cleared' }, { type: 'messages_replaced', messages: HISTORY }] as Event[]) {
      const cancelled = step(state, reset)
      expect(cancelled.effects).toEqual([{ type: 'cancel_summary', id: 'summary-1' }])
      const late = step(cancelled.state, { type: 'summary_completed', id: 'summary-1', text: 'late' })
      expect(late.state).toBe(cancelled.state)
      expect(late.state.summary.pending).toBeNull()
      // A new request gets a fresh id.
      const refilled = reset.type === 'history_cleared' ? withMessages(step, HISTORY, cancelled.state) : cancelled.state
      const again = step(refilled, request({ tokenBudget: TOTAL, providerGiven: true }))
      expect(effectsOf(again.effects, 'request_summary').map((effect) => effect.id)).toEqual(['summary-2'])
    }
  })
})

describe('swap (SPEC 12.6)', () => {
  const TEXT = 'They asked for the first task.'

  const pendingState = () => {
    const step = stepFor({ ...SUMMARY, compact_threshold: 0.92 })
    const first = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    return { step, state: summaryStarted(step, first.state) }
  }

  it('B-SU-5: a finished summary is not absorbed by requests that take no compaction pass', () => {
    const { step, state } = pendingState()
    const next = step(state, request({ tokenBudget: 10 * TOTAL }))
    expect(next.state.history).toBe(state.history)
    expect(next.state.summary.pending).toEqual({ seqs: [0, 1], text: TEXT })
  })

  it('B-SU-6/7/15, B-DM-11: a swap that alone suffices appends the summary and finalizes at the cumulative level (0)', () => {
    const { step, state } = pendingState()
    const next = step(state, request({ tokenBudget: TOTAL, now: LATER }))
    const summary: Message = {
      role: 'user',
      content: `<system-reminder source="context-summary">\n${TEXT}\n</system-reminder>`,
      metadata: { timestamp: LATER, type: 'context_summary', _seq: 10 },
    }
    expect(next.state.history).toEqual([...state.history, summary])
    expect(Object.keys(next.state.history[10].metadata as object)).toEqual(['timestamp', 'type', '_seq'])
    expect(next.state.nextSeq).toBe(11)
    const finalList = [...STORED.slice(2), summary]
    const stats = {
      before_tokens: TOTAL,
      after_tokens: tokens(finalList),
      before_messages: 10,
      after_messages: 9,
      messages_removed: 2,
      messages_truncated: 0,
      user_messages_stubbed: 0,
      system_messages_preserved: 0,
      strategy_level: 0,
      budget: TOTAL,
      target_tokens: Math.trunc(TOTAL * 0.5),
      protected_recent: 0.3,
      protected_tool_results: 5,
      messages_absorbed_by_summary: 2,
    }
    expect(next.state.compaction.stats).toEqual(stats)
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(next.view).toEqual(finalList.map(viewed))
    expect(next.state.compaction.sticky).toEqual({ removed: new Set([0, 1]), truncated: new Set(), stubbed: new Set(), cumulativeLevel: 0 })
    expect(next.state.summary).toMatchObject({ pending: null, absorbedCount: 2, failures: 0 })
    // B-SU-7: later turns come after the summary.
    expect(step(next.state, added(user('next'))).state.history[11]).toEqual(stored(user('next'), 11))
  })

  it('keeps the summary pending while the history ends inside an open tool group, and swaps once it is answered', () => {
    const { step, state } = pendingState()
    const open = step(state, added(calls(['open1', 'open2']))).state
    const waiting = step(open, request({ tokenBudget: TOTAL }))
    expect(waiting.state.history).toEqual(open.history)
    expect(waiting.state.summary.pending).toEqual({ seqs: [0, 1], text: TEXT })
    expect(findPairingViolations(waiting.view ?? [])).toEqual([])
    const partly = step(waiting.state, added(result('open1', 'one'))).state
    expect(step(partly, request({ tokenBudget: TOTAL })).state.summary.pending).not.toBeNull()
    const answered = step(partly, added(result('open2', 'two'))).state
    const swapped = step(answered, request({ tokenBudget: TOTAL }))
    expect(swapped.state.summary.pending).toBeNull()
    // Consumed now (swapped, stale or refused by the shrink guard); a summary can only follow the answered group.
    const appended = swapped.state.history.slice(answered.history.length)
    expect(appended.every((message) => (message.metadata as { type?: unknown }).type === 'context_summary')).toBe(true)
    expect(findPairingViolations(swapped.view ?? [])).toEqual([])
  })

  it('A-7: the summary-only pass shows no notice under the default min level', () => {
    const step = stepFor({ compaction_strategy: 'summary', summary_trigger: 0.1 })
    const first = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET + 800, providerGiven: true }))
    const state = summaryStarted(step, first.state)
    const next = step(state, request({ tokenBudget: TOTAL + 800 }))
    expect(next.state.compaction.stats?.strategy_level).toBe(0)
    expect(next.view?.at(-1)?.metadata).toEqual({ timestamp: NOW, type: 'context_summary' })
  })

  it('B-SU-8: absorbed messages never reappear; repeated requests give identical views', () => {
    const { step, state } = pendingState()
    const { steps } = fold(step, [request({ tokenBudget: TOTAL }), request({ tokenBudget: TOTAL }), request({ tokenBudget: 10 * TOTAL })], state)
    expect(steps[1].view).toEqual(steps[0].view)
    expect(steps[2].view).toEqual(steps[0].view)
    for (const next of steps) expect(next.view?.some((message) => message.content === 'first task')).toBe(false)
    expect(steps[2].state.history).toHaveLength(11)
  })

  it('17.1: a sticky-only request never swaps a pending summary', () => {
    const { step, state } = pendingState()
    const withDecision: State = { ...state, compaction: { ...state.compaction, sticky: { ...state.compaction.sticky, cumulativeLevel: 1 } } }
    const next = step(withDecision, request({ tokenBudget: 10 * TOTAL }))
    expect(next.state.history).toBe(withDecision.history)
    expect(next.state.summary.pending).toEqual({ seqs: [0, 1], text: TEXT })
    expect(hookNames(next.effects)).toEqual(['context:token_meter'])
  })

  it('B-SU-10: a summary not smaller than its span is refused; its _seq stays consumed and the ladder runs', () => {
    const { step, state } = pendingState()
    const span = tokens(STORED.slice(0, 2))
    let text = ''
    while (estimateOne(toSummaryMessage(text, NOW, 10)) < span) text += 's'
    expect(estimateOne(toSummaryMessage(text, NOW, 10))).toBe(span)
    const equal: State = { ...state, summary: { ...state.summary, pending: { seqs: [0, 1], text } } }
    const next = step(equal, request({ tokenBudget: TOTAL }))
    expect(next.state.history).toBe(equal.history)
    expect(next.state.nextSeq).toBe(11)
    expect(next.state.summary).toMatchObject({ pending: null, absorbedCount: 0, failures: 0 })
    expect(next.state.compaction.sticky.removed.has(0)).toBe(false)
    expect(effectsOf(next.effects, 'log')).toEqual([{ type: 'log', level: 'warning', message: expect.stringMatching(/shrink guard.*dropped.*summary_min_span_tokens/) }])
    expect(next.state.compaction.stats).toMatchObject({ messages_absorbed_by_summary: 0 })
    expect(next.state.compaction.stats?.strategy_level).toBeGreaterThanOrEqual(1)
    // One token smaller is accepted.
    const smaller: State = { ...state, summary: { ...state.summary, pending: { seqs: [0, 1], text: text.slice(0, -4) } } }
    expect(step(smaller, request({ tokenBudget: TOTAL })).state.summary.absorbedCount).toBe(2)
  })

  it('B-SU-11: a pending summary whose span was already removed is discarded silently, consuming no _seq', () => {
    const { step, state } = pendingState()
    const stale: State = { ...state, compaction: { ...state.compaction, sticky: { ...state.compaction.sticky, removed: new Set([0, 1]) } } }
    const next = step(stale, request({ tokenBudget: TOTAL }))
    expect(next.state.history).toBe(stale.history)
    expect(next.state.nextSeq).toBe(10)
    expect(next.state.summary).toMatchObject({ pending: null, absorbedCount: 0, failures: 0 })
    expect(effectsOf(next.effects, 'log')).toEqual([])
  })

  it('a swap is never judged or rolled back: when the ladder continues and is refused, the swap stays', () => {
    const step = stepFor({ ...SUMMARY, compact_clear_at_least: 100_000 })
    const first = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    const state = summaryStarted(step, first.state)
    const next = step(state, request({ tokenBudget: 400 }))
    const summary = toSummaryMessage(TEXT, NOW, 10)
    expect(next.state.history).toEqual([...state.history, summary])
    expect(next.state.compaction.sticky.removed).toEqual(new Set([0, 1]))
    expect(next.state.summary.absorbedCount).toBe(2)
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    // The refusal returns the post-swap baseline and measures freed tokens against it.
    const baseline = [...STORED.slice(2), summary]
    expect(next.view).toEqual(baseline.map(viewed))
    expect(effectsOf(next.effects, 'emit_hook')[1].data).toMatchObject({ baseline_tokens: tokens(baseline), required_tokens: 100_000 })
    expect(next.state.compaction.stats).toBeNull()
  })

  it('trySwap only absorbs pending seqs present in the working list and not removed', () => {
    const nonSystem = STORED.slice(1)
    const swap = trySwap({ seqs: [0, 1, 2], text: 't' }, nonSystem, new Set([2]), NOW, 10, estimateOne)
    expect(swap.swapped).toBe(true)
    expect(swap.absorbed).toEqual([STORED[1]])
    expect(swap.nonSystem).toEqual([...nonSystem, toSummaryMessage('t', NOW, 10)])
    expect(swap.seqConsumed).toBe(true)
  })

  it('B-SU-12: after a failed summarization the next pass is the progressive ladder', () => {
    const step = stepFor(SUMMARY)
    const first = step(withMessages(step, HISTORY), request({ tokenBudget: SPAN_BUDGET, providerGiven: true }))
    const failed = step(first.state, { type: 'summary_failed', id: 'summary-1', error: 'boom' }).state
    const progressive = stepFor({ compaction_notice_enabled: false })
    const reference = progressive(withMessages(progressive, HISTORY), request({ tokenBudget: TOTAL }))
    const next = step(failed, request({ tokenBudget: TOTAL }))
    expect(next.view).toEqual(reference.view)
    expect(next.state.history).toBe(failed.history)
    expect(next.state.compaction.stats).toEqual({ ...reference.state.compaction.stats, messages_absorbed_by_summary: 0 })
  })

  it('B-SU-13: with no provider ever passed the summary strategy is progressive plus messages_absorbed_by_summary: 0', () => {
    const step = stepFor(SUMMARY)
    const progressive = stepFor({ compaction_notice_enabled: false })
    const next = step(withMessages(step, HISTORY), request({ tokenBudget: TOTAL }))
    const reference = progressive(withMessages(progressive, HISTORY), request({ tokenBudget: TOTAL }))
    expect(next.view).toEqual(reference.view)
    expect(next.state.compaction.stats).toEqual({ ...reference.state.compaction.stats, messages_absorbed_by_summary: 0 })
    expect(Object.keys(next.state.compaction.stats as object).at(-1)).toBe('messages_absorbed_by_summary')
    expect(reference.state.compaction.stats).not.toHaveProperty('messages_absorbed_by_summary')
  })
})
