// Needed-fact recall on hand-made sessions: one test per rule of the definition (salient
// classes, needed = in the history before the request outside system messages and the last two
// messages, recalled = in the view's original content, library text excluded, JSON values only,
// skipped fields, once per request, failed requests).
import { describe, expect, it } from 'vitest'
import { isSalientToken, toOriginalText, toRecallFigures, toSalientTokens, toValueStrings, toViewMessageText } from '../../../src/core/economics/recall.js'
import type { Message } from '../../../src/core/messages/message.js'
import { DEFAULT_REPLAY_NOW, type Recording, type RecordingOp } from '../../../src/core/replay/recording.js'
import { toLastUserReplayEnvelope } from '../../../src/core/compaction/replay-last-user.js'
import { toStub } from '../../../src/core/compaction/stub.js'
import { toSummaryMessage } from '../../../src/core/summary/summary.js'
import { truncateToolResult } from '../../../src/core/tool-results/tool-result-budget.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'

const add = (message: Message): RecordingOp => ({ op: 'add_message', message })
const request: RecordingOp = { op: 'get_messages_for_request' }
const recordingOf = (ops: RecordingOp[]): Recording => ({ config: {}, now: DEFAULT_REPLAY_NOW, ops })
const filler = (index: number): Message[] => [
  { role: 'assistant', content: `noted ${index}` },
  { role: 'user', content: `go on ${index}` },
]

/** A session where the user names `fact` early, two filler turns follow, then the agent uses it. */
const sessionUsing = (early: Message, answer: Message): Recording =>
  recordingOf([add({ role: 'system', content: 'You are an agent.' }), add(early), ...filler(1).map(add), ...filler(2).map(add), request, add(answer)])

const fullView = (recording: Recording): Message[] => recording.ops.flatMap((op) => (op.op === 'add_message' ? [op.message] : [])).slice(0, -1)

describe('salient tokens', () => {
  it('keeps the five classes and drops plain words, short tokens and overlong ones', () => {
    for (const token of ['HAT076', 'mia_li_3668', '2024', 'src/parser.ts', 'payment_id', 'getMessages', 'README.md', 'a/b/c']) expect(isSalientToken(token), token).toBe(true)
    for (const token of ['flight', 'Hello', 'e.g.', '123', 'x_1'.slice(0, 2), 'HTTP', 'well-known', 'https:example']) expect(isSalientToken(token), token).toBe(false)
    expect(isSalientToken('a1'.repeat(60))).toBe(true)
    expect(isSalientToken('a1'.repeat(61))).toBe(false)
  })

  it('matches tokens without trailing punctuation, each once; a dash-joined number is one token of no class', () => {
    expect(toSalientTokens('Open src/parser.ts. Then src/parser.ts, HAT076; (2024-05-20) x12 1500.')).toEqual(['src/parser.ts', 'HAT076', '1500'])
  })
})

describe('what the metric reads of a message', () => {
  it('reads JSON string values, not keys, and skips ids, names, type, role, signatures, encrypted and base64 data', () => {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking up HAT076' },
        { type: 'thinking', thinking: 'maybe FLY999', signature: 'sig_ABC123' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJDMTIz' } },
      ],
      tool_calls: [{ id: 'call_XYZ789', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668","count":3}' } }],
      encrypted_content: 'enc_QWE456',
      metadata: { timestamp: '2026-01-01T00:00:00Z' },
    }
    expect(toValueStrings(message)).toEqual(['Looking up HAT076', 'maybe FLY999', 'mia_li_3668'])
    expect(toValueStrings(message, true)).toEqual(['Looking up HAT076', 'mia_li_3668'])
    expect(toValueStrings({ role: 'tool', tool_call_id: 'call_1', content: '{"payment_id":"credit_card_7447","reservation":["HAT076"]}' })).toEqual(['credit_card_7447', 'HAT076'])
    expect(toValueStrings({ role: 'user', content: 'data:image/png;base64,QUJD' })).toEqual([])
  })

  it('strips what the library wrote around original content', () => {
    expect(toOriginalText('<system-reminder source="context-compaction">\nsee HAT076\n</system-reminder>')).toBe('')
    expect(toOriginalText(toLastUserReplayEnvelope('book HAT076'))).toBe('book HAT076')
    const stub = toStub({ role: 'user', content: `My id is mia_li_3668 and ${'more words '.repeat(10)}` })
    expect(toViewMessageText(stub)).toBe('My id is mia_li_3668 and more words more words mor')
    const summary = toSummaryMessage('user paid with credit_card_7447', DEFAULT_REPLAY_NOW, 3)
    expect(toViewMessageText(summary)).toBe('user paid with credit_card_7447')
    const spilled = truncateToolResult({ role: 'tool', tool_call_id: 'c', content: `RES4242 ${'x'.repeat(3000)}`, metadata: { _seq: 4 } }, { ...DEFAULT_CONFIG, tool_result_spill_dir: '/spill_dir/s1' }, {}).message
    const text = toViewMessageText(spilled)
    expect(text.startsWith('RES4242 xxx')).toBe(true)
    expect(text).not.toContain('spill_dir')
    expect(toOriginalText('[no result recorded]')).toBe('')
    expect(toOriginalText('head HAT076\n[tool result cut at ingress: 100 of 900 bytes kept (tool_result_ingress_cap_bytes); spilled to /x/y_1.txt]')).toBe('head HAT076')
    expect(toOriginalText('[tool result cleared: get_user({"user_id":"a_1"}), 812 chars - call the tool again if needed]')).toBe('get_user({"user_id":"a_1"})')
    expect(toViewMessageText({ role: 'user', content: 'HAT076', metadata: { source: 'context-compaction' } })).toBe('')
  })
})

describe('toRecallFigures', () => {
  const early: Message = { role: 'user', content: 'My reservation is HAT076.' }
  const answer: Message = { role: 'assistant', content: 'Cancelling HAT076 now (HAT076).' }

  it('a fact read earlier and used in the answer is needed once; recalled when the view holds it', () => {
    const recording = sessionUsing(early, answer)
    expect(toRecallFigures(recording, [fullView(recording)])).toEqual({ needed_facts: 1, recalled_facts: 1, recall: 1, requests: [{ op_index: 6, needed: 1, recalled: 1, lost: [] }] })
    const compacted = fullView(recording).filter((message) => message !== early)
    expect(toRecallFigures(recording, [compacted])).toMatchObject({ needed_facts: 1, recalled_facts: 0, recall: 0, requests: [{ lost: ['HAT076'] }] })
  })

  it('a token the history never held is not needed', () => {
    const recording = sessionUsing({ role: 'user', content: 'cancel my booking' }, answer)
    expect(toRecallFigures(recording, [[]])).toMatchObject({ needed_facts: 0, recall: null })
  })

  it('a token in a system message or in the last two messages is not needed', () => {
    const inSystem = recordingOf([add({ role: 'system', content: 'Known flight HAT076.' }), add(early), ...filler(1).map(add), request, add(answer)])
    expect(toRecallFigures(inSystem, [[]]).needed_facts).toBe(0)
    const recent = recordingOf([add({ role: 'user', content: 'hello there' }), ...filler(1).map(add), add({ role: 'assistant', content: 'ok' }), add(early), request, add(answer)])
    expect(toRecallFigures(recent, [[]]).needed_facts).toBe(0)
    // one message further back it is needed
    const third = recordingOf([add(early), add({ role: 'assistant', content: 'ok' }), add({ role: 'user', content: 'go' }), request, add(answer)])
    expect(toRecallFigures(third, [[]]).needed_facts).toBe(1)
  })

  it('the answer is the assistant messages after the request: text and tool-call arguments, not reasoning', () => {
    const withCall: Message = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'cancel', arguments: '{"reservation_id":"HAT076"}' } }] }
    expect(toRecallFigures(sessionUsing(early, withCall), [[]]).needed_facts).toBe(1)
    const reasoning: Message = { role: 'assistant', content: [{ type: 'thinking', thinking: 'HAT076', signature: 's' }, { type: 'text', text: 'done' }] }
    expect(toRecallFigures(sessionUsing(early, reasoning), [[]]).needed_facts).toBe(0)
    // a tool result after the request is not part of the answer
    const tool = recordingOf([add(early), ...filler(1).map(add), ...filler(2).map(add), request, add({ role: 'tool', tool_call_id: 'c', content: 'HAT076' })])
    expect(toRecallFigures(tool, [[]]).needed_facts).toBe(0)
  })

  it('JSON keys of the history are not facts; its values are', () => {
    const keyOnly = sessionUsing({ role: 'tool', tool_call_id: 'c', content: '{"payment_id": "x"}' }, { role: 'assistant', content: 'need payment_id' })
    expect(toRecallFigures(keyOnly, [[]]).needed_facts).toBe(0)
    const value = sessionUsing({ role: 'tool', tool_call_id: 'c', content: '{"method": "payment_id"}' }, { role: 'assistant', content: 'need payment_id' })
    expect(toRecallFigures(value, [[]]).needed_facts).toBe(1)
    const id = sessionUsing({ role: 'tool', tool_call_id: 'call_AB12', content: 'ok' }, { role: 'assistant', content: 'call_AB12 done' })
    expect(toRecallFigures(id, [[]]).needed_facts).toBe(0)
  })

  it('a fact only in library text of the view is not recalled', () => {
    const recording = sessionUsing(early, answer)
    const notice: Message = { role: 'user', content: '<system-reminder source="context-compaction">\nHAT076\n</system-reminder>' }
    expect(toRecallFigures(recording, [[notice]]).recalled_facts).toBe(0)
    const truncated: Message = { role: 'tool', content: '[truncated: ~9 tokens - read /s/HAT076.txt for the full result] abc...', _truncated: true }
    expect(toRecallFigures(recording, [[truncated]]).recalled_facts).toBe(0)
    const stub = toStub({ role: 'user', content: `${'words '.repeat(14)} HAT076` })
    expect(toRecallFigures(recording, [[stub]]).recalled_facts).toBe(0)
    // the head of a truncated result and a replayed message are original content
    expect(toRecallFigures(recording, [[{ ...truncated, content: '[truncated: ~9 tokens - call tool again if needed] HAT076...' }]]).recalled_facts).toBe(1)
    expect(toRecallFigures(recording, [[{ role: 'user', content: toLastUserReplayEnvelope('keep HAT076') }]]).recalled_facts).toBe(1)
  })

  it('case-sensitive substring: a fact inside a longer token of the view is recalled, another case is not', () => {
    const recording = sessionUsing(early, answer)
    expect(toRecallFigures(recording, [[{ role: 'user', content: 'ref=HAT0761' }]]).recalled_facts).toBe(1)
    expect(toRecallFigures(recording, [[{ role: 'user', content: 'hat076' }]]).recalled_facts).toBe(0)
  })

  it('a failed request (null view) counts its needed facts, none recalled; totals sum over requests', () => {
    const recording = recordingOf([
      add(early),
      ...filler(1).map(add),
      request,
      add(answer),
      add({ role: 'user', content: 'and flight 2024' }),
      ...filler(3).map(add),
      request,
      add({ role: 'assistant', content: 'HAT076 in 2024' }),
    ])
    const figures = toRecallFigures(recording, [null, fullView(recording)])
    expect(figures.requests.map((item) => [item.needed, item.recalled])).toEqual([
      [1, 0],
      [2, 2],
    ])
    expect(figures).toMatchObject({ needed_facts: 3, recalled_facts: 2 })
    expect(figures.recall).toBeCloseTo(2 / 3, 12)
  })

  it('set_messages replaces the history the facts are looked for in', () => {
    const recording = recordingOf([add(early), ...filler(1).map(add), { op: 'set_messages', messages: [{ role: 'user', content: 'fresh start' }, ...filler(1)] }, request, add(answer)])
    expect(toRecallFigures(recording, [[]]).needed_facts).toBe(0)
  })
})
