// Unit tests for src/core/compaction/replay-last-user.ts: the last-user replay of SPEC 13 (B-RP-1..10), its
// real-user predicate, its text and envelope, and its once-per-boundary marker in request flows.
import { describe, expect, it } from 'vitest'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import type { Message } from '../../../src/core/messages/message.js'
import { isRealUserMessage, selectLastUserReplay, toBoundaryIdentity, toLastUserReplayEnvelope, toLastUserReplayText } from '../../../src/core/compaction/replay-last-user.js'
import { added, assistant, calls, fold, hookNames, request, result, stepFor, tokens, user, withMessages, workedExampleTurns } from '../../support/core.js'

const ENVELOPE_HEAD =
  '<system-reminder source="context-replay">\nThis is a verbatim copy of your most recent instruction, repeated here because context compaction has moved it far from the end of the conversation. It is NOT a new request -- do not answer it again if it is already handled.\n\n'

const replayOf = (text: string): Message => ({ role: 'user', content: ENVELOPE_HEAD + text + '\n</system-reminder>', metadata: { source: 'context-replay', ephemeral: true } })

const WORKED_EXAMPLE = {
  max_tokens: 3000,
  compact_threshold: 0.5,
  target_usage: 0.6,
  truncate_chars: 50,
  protected_recent: 0.5,
  protected_tool_results: 4,
}
const BUDGET = 3800 // E = 3000 with the notice reserve

const source = (message: Message | undefined): unknown => (message?.metadata as { source?: unknown } | undefined)?.source

describe('the real-user predicate (SPEC 13, B-RP-8)', () => {
  it('accepts user messages that are not reminder envelopes', () => {
    for (const message of [user('fix the bug'), user(''), user([{ type: 'image', url: 'x' }]), user(42), user(null), user('note: <system-reminder> comes later')]) {
      expect(isRealUserMessage(message)).toBe(true)
    }
  })

  it('rejects bare and attributed reminders (string or text block), other roles and any tool_call_id key', () => {
    const rejected: Message[] = [
      user('<system-reminder>\nhi\n</system-reminder>'),
      user('  \n<system-reminder source="context-summary">\nsum\n</system-reminder>'),
      user([{ type: 'text', text: 'real' }, { type: 'text', text: '\t<system-reminder source="x">' }]),
      user('hello', { tool_call_id: null }),
      user('hello', { tool_call_id: 'c1' }),
      assistant('hello'),
      { role: 'system', content: 'hello' },
      result('c1', 'hello'),
    ]
    for (const message of rejected) expect(isRealUserMessage(message)).toBe(false)
  })

  it('a tool_call_id whose value is undefined is absent (SPEC 0), so the message is real', () => {
    expect(isRealUserMessage({ role: 'user', content: 'hello', tool_call_id: undefined })).toBe(true)
  })
})

describe('replay text and envelope', () => {
  it('B-RP-6: block lists are joined by line feeds (non-empty string texts only)', () => {
    expect(toLastUserReplayText(user([{ type: 'text', text: 'first' }, { type: 'image' }, { type: 'text', text: '' }, 'loose', { text: 5 }, { type: 'text', text: 'second' }]))).toBe('first\nsecond')
    expect(toLastUserReplayText(user('as is  '))).toBe('as is  ')
    expect(toLastUserReplayText(user(7))).toBe('')
  })

  it('B-RP-3: the envelope is exact', () => {
    expect(toLastUserReplayEnvelope('fix it')).toBe(ENVELOPE_HEAD + 'fix it\n</system-reminder>')
  })

  it('the boundary identity combines the cumulative level and the absorbed count', () => {
    expect(toBoundaryIdentity(3, 0)).toBe(toBoundaryIdentity(3, 0))
    expect(toBoundaryIdentity(3, 0)).not.toBe(toBoundaryIdentity(3, 1))
    expect(toBoundaryIdentity(2, 0)).not.toBe(toBoundaryIdentity(3, 0))
  })
})

describe('selectLastUserReplay conditions (SPEC 13)', () => {
  const list: Message[] = [user('do the thing'), calls(['c1']), result('c1', 'done')]

  it('appends a copy of the most recent real user message', () => {
    const replay = selectLastUserReplay(list, '2:0', null, 10_000, estimateOne)
    expect(replay).toEqual(replayOf('do the thing'))
    expect(Object.keys(replay as object)).toEqual(['role', 'content', 'metadata'])
  })

  it('B-RP-5: does nothing for the same boundary, an unsafe or empty tail, no real user, a user tail, a stub, no text, or over E', () => {
    expect(selectLastUserReplay(list, '2:0', '2:0', 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([user('x'), calls(['c1'])], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([assistant('a'), result('c1', 'r')], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([assistant('a'), user('latest')], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([user('x'.repeat(100), { _stubbed: true }), assistant('a')], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([user(' \n\t'), assistant('a')], '2:0', null, 10_000, estimateOne)).toBeNull()
    expect(selectLastUserReplay([user([{ type: 'image' }]), assistant('a')], '2:0', null, 10_000, estimateOne)).toBeNull()
    const exact = tokens(list) + estimateOne(replayOf('do the thing'))
    expect(selectLastUserReplay(list, '2:0', null, exact - 1, estimateOne)).toBeNull()
    expect(selectLastUserReplay(list, '2:0', null, exact, estimateOne)).toEqual(replayOf('do the thing'))
    expect(selectLastUserReplay(list, '2:0', null, 0, estimateOne)).toEqual(replayOf('do the thing'))
  })

  it('B-RP-7: reaches past reminder envelopes to an earlier real user message', () => {
    const withSummary: Message[] = [user('the real ask'), assistant('ok'), user('<system-reminder source="context-summary">\nsummary\n</system-reminder>'), assistant('more')]
    expect(selectLastUserReplay(withSummary, '1:1', null, 10_000, estimateOne)).toEqual(replayOf('the real ask'))
  })

  it('the found message itself is replayed as is (block text joined)', () => {
    const blocks: Message[] = [user([{ type: 'text', text: 'line one' }, { type: 'text', text: 'line two' }]), assistant('ok')]
    expect(selectLastUserReplay(blocks, '1:0', null, 10_000, estimateOne)).toEqual(replayOf('line one\nline two'))
  })
})

describe('replay in request flows', () => {
  const history = workedExampleTurns()

  it('B-RP-1: off by default: no replay, marker never set, views identical to the explicit false', () => {
    const off = stepFor(WORKED_EXAMPLE)
    const explicit = stepFor({ ...WORKED_EXAMPLE, replay_last_user_on_compaction: false })
    const a = off(withMessages(off, history), request({ tokenBudget: BUDGET }))
    const b = explicit(withMessages(explicit, history), request({ tokenBudget: BUDGET }))
    expect(a.view).toEqual(b.view)
    expect(a.state.compaction.replayMarker).toBeNull()
    expect(a.view?.some((message) => source(message) === 'context-replay')).toBe(false)
  })

  it('B-RP-2/3/10: on a boundary the replay sits right before the notice; nothing else changes', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, replay_last_user_on_compaction: true })
    const state = withMessages(step, history)
    const next = step(state, request({ tokenBudget: BUDGET }))
    const plain = stepFor(WORKED_EXAMPLE)
    const withoutReplay = plain(withMessages(plain, history), request({ tokenBudget: BUDGET }))
    const view = next.view ?? []
    expect(view).toHaveLength(26)
    expect(view.slice(0, 24)).toEqual(withoutReplay.view?.slice(0, 24))
    expect(view[24]).toEqual(replayOf('ask 7'))
    expect(source(view[25])).toBe('context-compaction')
    expect(view[25]).toEqual(withoutReplay.view?.[24])
    expect(next.state.compaction.replayMarker).toBe(toBoundaryIdentity(2, 0))
    expect(next.state.history).toBe(state.history)
    expect(next.state.nextSeq).toBe(24)
    expect(next.state.compaction.sticky).toEqual(withoutReplay.state.compaction.sticky)
    expect(next.state.meter.lastSentEstimate).toBe(tokens(view))
  })

  it('B-RP-4: at most once per boundary; a later escalation re-arms it', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, replay_last_user_on_compaction: true })
    const first = step(withMessages(step, history), request({ tokenBudget: BUDGET }))
    // Same boundary (the re-escalation stays at cumulative level 2): no replay.
    const second = step(first.state, request({ tokenBudget: BUDGET }))
    expect(hookNames(second.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(second.state.compaction.sticky.cumulativeLevel).toBe(2)
    expect(second.view?.some((message) => source(message) === 'context-replay')).toBe(false)
    // Enough growth to need level 3: a new boundary, a new replay of the newest ask.
    const grown = withMessages(step, [...workedExampleTurns(3)].map((message) => (message.role === 'user' ? { ...message, content: `later ${String(message.content)}` } : message)), second.state)
    const third = step(grown, request({ tokenBudget: BUDGET }))
    expect(third.state.compaction.sticky.cumulativeLevel).toBeGreaterThanOrEqual(3)
    expect(third.view?.at(-2)).toEqual(replayOf('later ask 2'))
    expect(third.state.compaction.replayMarker).toBe(toBoundaryIdentity(third.state.compaction.sticky.cumulativeLevel, 0))
  })

  it('B-RP-5: no replay without compaction, and a skipped replay goes out later at the same boundary', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, replay_last_user_on_compaction: true })
    const state = withMessages(step, history)
    const roomy = step(state, request({ tokenBudget: 1_000_000 }))
    expect(roomy.view).toHaveLength(24)
    expect(roomy.state.compaction.replayMarker).toBeNull()
    // A tail of unanswered tool calls: no replay (and no notice) now, marker unset.
    const pendingCall = step(withMessages(step, [user('ask 8'), calls(['t8'])], state), request({ tokenBudget: BUDGET }))
    expect(pendingCall.view?.at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 't8' }] })
    expect(pendingCall.state.compaction.replayMarker).toBeNull()
    const { steps } = fold(step, [added(result('t8', 'ok')), request({ tokenBudget: BUDGET })], pendingCall.state)
    const answered = steps[1]
    expect(answered.view?.at(-2)).toEqual(replayOf('ask 8'))
    expect(answered.state.compaction.replayMarker).toBe(toBoundaryIdentity(answered.state.compaction.sticky.cumulativeLevel, 0))
  })

  it('B-RP-9: a compaction refused by the predicate appends no replay and leaves the marker unset', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, replay_last_user_on_compaction: true, compact_clear_at_least: 100_000 })
    const next = step(withMessages(step, history), request({ tokenBudget: BUDGET }))
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction-skipped'])
    expect(next.view?.some((message) => source(message) === 'context-replay')).toBe(false)
    expect(next.state.compaction.replayMarker).toBeNull()
  })
})
