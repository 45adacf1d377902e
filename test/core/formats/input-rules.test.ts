// The history checks of src/core/formats/input-rules.ts against the pairing rules of
// src/core/formats/tool-pairing.ts: a Chat (or contract) result whose call never appeared is always
// an R1 problem at the same message, but not every R1 problem is a history refusal (a result after
// an unrelated message, whose call was made earlier, is R1 and is not one: the provider-ready
// check reports only what repair must leave out). So the history check keeps its own walk; the AI
// SDK one walks parts (`toolCallId`), a shape selectPairingProblems does not read.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findHistoryRefusals, makeHistoryWalks, repairHistoryRefusals, resumeChatHistory, resumeResponsesHistory } from '../../../src/core/formats/input-rules.js'
import { selectPairingProblems } from '../../../src/core/formats/tool-pairing.js'
import type { Message } from '../../../src/core/messages/message.js'

const ALPHABET: ReadonlyArray<Message> = [
  { role: 'system', content: 's' },
  { role: 'user', content: 'u' },
  { role: 'assistant', content: 'a' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
  { role: 'assistant', content: '', tool_calls: [{ id: 'a' }, { id: 'b' }] },
  { role: 'tool', tool_call_id: 'a', content: 'ra' },
  { role: 'tool', tool_call_id: 'b', content: 'rb' },
]

/** Every view of `length` messages over ALPHABET. */
const views = function* (length: number): Generator<Message[]> {
  if (length === 0) {
    yield []
    return
  }
  for (const rest of views(length - 1)) for (const message of ALPHABET) yield [...rest, message]
}

const refusedAt = (view: ReadonlyArray<Message>): number[] => findHistoryRefusals('openai-chat', view).map((refusal) => Number(/^\[(\d+)\]$/.exec(refusal.path)?.[1]))

describe('Chat history refusals and the pairing rules', () => {
  it('every refusal is an R1 problem of selectPairingProblems at the same message (all views up to 5 messages)', () => {
    let checked = 0
    let refusals = 0
    for (let length = 0; length <= 5; length += 1) {
      for (const view of views(length)) {
        const r1 = new Set(selectPairingProblems(view).filter((problem) => problem.rule === 'R1').map((problem) => problem.index))
        for (const index of refusedAt(view)) {
          expect(r1.has(index), JSON.stringify(view)).toBe(true)
          refusals += 1
        }
        checked += 1
      }
    }
    expect(checked).toBe(19_608) // 1 + 7 + 49 + 343 + 2401 + 16807
    expect(refusals).toBeGreaterThan(1000)
  })

  it('is not the same check: a result whose call was made before an unrelated message is R1 but not refused', () => {
    const view: Message[] = [ALPHABET[1], ALPHABET[3], ALPHABET[1], ALPHABET[5]]
    expect(selectPairingProblems(view).map((problem) => [problem.rule, problem.index])).toEqual([['R2', 1], ['R1', 3]])
    expect(findHistoryRefusals('openai-chat', view)).toEqual([])
    expect(repairHistoryRefusals('openai-chat', view)).toEqual({ view, repaired: 0 })
  })

  it('a result whose call never appeared is both', () => {
    const view: Message[] = [ALPHABET[1], ALPHABET[6]]
    expect(selectPairingProblems(view).map((problem) => [problem.rule, problem.index])).toEqual([['R1', 1]])
    expect(refusedAt(view)).toEqual([1])
    expect(repairHistoryRefusals('openai-chat', view)).toEqual({ view: [ALPHABET[1]], repaired: 1 })
  })
})

describe('the chat check resumed where the next view parts from the last (resumeChatHistory)', () => {
  // Views made from one another as requests make them: the last view cut somewhere (a tail item
  // replaced, a compaction) and messages appended, some of them the very objects seen before.
  const pool: ReadonlyArray<unknown> = [...ALPHABET, null, 'text', { role: 'tool', tool_call_id: 'c', content: 'rc' }, { role: 'assistant', content: '', tool_calls: [{ id: 'c' }, null] }]
  const edits = fc.array(fc.record({ keep: fc.nat(12), append: fc.array(fc.nat(pool.length - 1), { maxLength: 6 }) }), { maxLength: 12 })

  it('finds what a walk from the start finds, in the same order, on every view of a chain', () => {
    fc.assert(
      fc.property(edits, (chain) => {
        const walk = resumeChatHistory([])
        let view: unknown[] = []
        for (const edit of chain) {
          view = [...view.slice(0, edit.keep), ...edit.append.map((index) => pool[index])]
          expect(resumeChatHistory(view, walk).found).toEqual(resumeChatHistory(view).found)
          expect(findHistoryRefusals('contract', view, { ...makeHistoryWalks(), chat: walk })).toEqual(findHistoryRefusals('contract', view))
        }
      }),
      { seed: 18, numRuns: 500 },
    )
  })

  it('with the view it extends (base, as StrippedView.prefix gives it), or the same view again, finds the same without comparing', () => {
    fc.assert(
      fc.property(edits, fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (chain, extend) => {
        const walk = resumeChatHistory([])
        let view: unknown[] = []
        chain.forEach((edit, index) => {
          const previous = view
          // An extension is made from the last view by appending (its base is that view); a cut is not, and has no base.
          view = extend[index] ? previous.concat(edit.append.map((item) => pool[item])) : [...previous.slice(0, edit.keep), ...edit.append.map((item) => pool[item])]
          expect(resumeChatHistory(view, walk, extend[index] ? previous : undefined).found).toEqual(resumeChatHistory(view).found)
          expect(walk.view).toBe(view)
          expect(resumeChatHistory(view, walk).found).toEqual(resumeChatHistory(view).found)
        })
      }),
      { seed: 18, numRuns: 500 },
    )
  })

  it('resumes from the first message that differs (a refusal before it is kept, one after it is dropped)', () => {
    const walk = resumeChatHistory([ALPHABET[1], ALPHABET[5], ALPHABET[3], ALPHABET[6]])
    expect(walk.found.map((refusal) => refusal.message)).toEqual([1, 3])
    resumeChatHistory([ALPHABET[1], ALPHABET[5], ALPHABET[4], ALPHABET[6]], walk)
    expect(walk.found.map((refusal) => refusal.message)).toEqual([1])
    expect([...walk.firstCall]).toEqual([['a', 2], ['b', 2]])
  })
})

describe('the Responses check resumed where the next view parts from the last (resumeResponsesHistory)', () => {
  // Items as converted views hold them: calls, outputs (answered or not), computer calls, reasoning
  // followed or not (by the next item, which a cut may replace), messages, non-objects.
  const pool: ReadonlyArray<unknown> = [
    { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
    { type: 'custom_tool_call', call_id: 'b', name: 'g', input: 'x' },
    { type: 'function_call_output', call_id: 'a', output: 'ra' },
    { type: 'custom_tool_call_output', call_id: 'b', output: 'rb' },
    { type: 'function_call_output', call_id: 'c', output: 'rc' },
    { type: 'computer_call', call_id: 'a', action: {} },
    { type: 'computer_call_output', call_id: 'a', output: {} },
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'reasoning', id: 'rs_2', summary: [] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'go' },
    { type: 'message', role: 'assistant', content: 'done' },
    null,
    'text',
  ]
  const edits = fc.array(fc.record({ keep: fc.nat(12), append: fc.array(fc.nat(pool.length - 1), { maxLength: 6 }) }), { maxLength: 12 })

  it('finds what a walk from the start finds, in the same order, on every view of a chain', () => {
    fc.assert(
      fc.property(edits, (chain) => {
        const walks = makeHistoryWalks()
        let view: unknown[] = []
        for (const edit of chain) {
          view = [...view.slice(0, edit.keep), ...edit.append.map((index) => pool[index])]
          expect(findHistoryRefusals('openai-responses', view, walks)).toEqual(findHistoryRefusals('openai-responses', view))
          expect(walks.responses.items).toEqual(view)
        }
      }),
      { seed: 18, numRuns: 500 },
    )
  })

  it('decides a reasoning item by the item after it, again when a cut replaces that item', () => {
    const walks = makeHistoryWalks()
    const [call, , output, , , , , reasoning, , answer] = pool
    expect(resumeResponsesHistory([reasoning], walks.responses).map((refusal) => refusal.message)).toEqual([0])
    expect(resumeResponsesHistory([reasoning, call, output], walks.responses)).toEqual([])
    expect(resumeResponsesHistory([reasoning, output], walks.responses).map((refusal) => refusal.message)).toEqual([0, 1])
    expect(resumeResponsesHistory([reasoning, answer], walks.responses)).toEqual([])
    expect(walks.responses.found).toEqual([])
    expect([...walks.responses.calls]).toEqual([])
  })
})
