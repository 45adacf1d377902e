// The lossless mapping per format: intake into contract pieces and the way back, on whole values.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { makeCachedEstimator, estimateOne } from '../../../src/core/meter/estimate.js'
import { expandAiSdkMessage, toAiSdkView } from '../../../src/core/formats/ai-sdk.js'
import { expandAnthropicMessage, toAnthropicView } from '../../../src/core/formats/anthropic.js'
import { withOrigin } from '../../../src/core/formats/carrier.js'
import { makeFormatEstimator, repairToolPairing, toNativeHistory, toRequestView } from '../../../src/core/formats/dispatch.js'
import { expandChatMessage, toChatView } from '../../../src/core/formats/openai-chat.js'
import { mergeResponsesPieces, toResponsesView, expandResponsesItem } from '../../../src/core/formats/openai-responses.js'
import { toProviderPieces } from '../../../src/core/history.js'
import type { Message } from '../../../src/core/messages/message.js'
import { makeStep } from '../../../src/core/reducer.js'
import { makeInitialState } from '../../../src/core/state.js'

const strip = (message: Message): Omit<Message, 'metadata'> => {
  const { metadata: _dropped, ...rest } = message
  return rest
}
const pieces = (list: ReadonlyArray<{ message: Message }>) => list.map((piece) => withOrigin(piece.message, 0))

describe('anthropic mapping', () => {
  const turn = {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'one' }, { type: 'image', source: { type: 'url', url: 'u' } }], is_error: true },
      { type: 'tool_result', tool_use_id: 'b', content: 'two' },
      { type: 'text', text: 'go on' },
    ],
  }
  it('a user turn becomes its tool pieces, then one human-turn piece', () => {
    expect(expandAnthropicMessage(turn).map((piece) => strip(piece.message))).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'one' },
      { role: 'tool', tool_call_id: 'b', content: 'two' },
      { role: 'user', content: 'go on' },
    ])
  })
  it('an assistant turn is one piece whose tool_use blocks are its calls', () => {
    const assistant = { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'x' }, { type: 'tool_use', id: 'a', name: 'f', input: { q: 1 } }] }
    expect(expandAnthropicMessage(assistant).map((piece) => strip(piece.message))).toEqual([
      { role: 'assistant', content: 'x', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"q":1}' } }] },
    ])
  })
  it('joins untouched pieces back into the object added; a truncated result keeps is_error and images', () => {
    const list = pieces(expandAnthropicMessage(turn))
    expect(toAnthropicView(list).messages[0]).toBe(turn)
    const truncated = [{ ...list[0], content: '[truncated: ~9 tokens] o', _truncated: true }, list[1]]
    expect(toAnthropicView(truncated)).toEqual({
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: '[truncated: ~9 tokens] o' }, { type: 'image', source: { type: 'url', url: 'u' } }], is_error: true }, turn.content[1]] }],
    })
  })
  it('hoists system messages: text joined with a blank line, blocks when one carries cache_control', () => {
    expect(toAnthropicView([{ role: 'system', content: 'a' }, { role: 'system', content: 'b' }, { role: 'user', content: 'q' }])).toEqual({ system: 'a\n\nb', messages: [{ role: 'user', content: 'q' }] })
    const cached = pieces(expandAnthropicMessage({ role: 'system', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] }))
    expect(toAnthropicView(cached).system).toEqual([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }])
  })
  it('estimates a piece by its provider-ready form, not by its carrier', () => {
    const estimate = makeFormatEstimator('anthropic', estimateOne)
    const [assistant] = pieces(expandAnthropicMessage({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x'.repeat(400), signature: 's'.repeat(400) }] }))
    expect(estimate(assistant)).toBe(estimateOne({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x'.repeat(400), signature: 's'.repeat(400) }] }))
  })
})

describe('ai-sdk mapping', () => {
  it('each tool part is a piece; an approval response takes its request call id; error outputs stay errors when truncated', () => {
    const history = pieces(expandAiSdkMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }, { type: 'tool-approval-request', approvalId: 'ap', toolCallId: 'c1' }] }, []))
    const tool = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap', approved: true }, { type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'error-json', value: { e: 1 } } }] }
    const list = pieces(expandAiSdkMessage(tool, history))
    expect(list.map((piece) => [piece.tool_call_id, piece.content])).toEqual([['c1', ''], ['c1', '{"e":1}']])
    expect(toAiSdkView(list)).toEqual([tool])
    const cut = [list[0], { ...list[1], content: '[truncated]', _truncated: true }]
    expect(toAiSdkView(cut)).toEqual([{ role: 'tool', content: [tool.content[0], { ...tool.content[1], output: { type: 'error-text', value: '[truncated]' } }] }])
  })
})

describe('openai-chat mapping', () => {
  it('array content counts by its text parts; a stub replaces the text part only; foreign keys dropped', () => {
    const message = { role: 'user', content: [{ type: 'text', text: 'long question' }, { type: 'image_url', image_url: { url: 'u' } }], extra: 1 }
    const [piece] = pieces(expandChatMessage(message))
    expect(piece.content).toBe('long question')
    expect(toChatView([piece])).toEqual([{ role: 'user', content: message.content }])
    expect(toChatView([{ ...piece, content: '[User message compacted]', _stubbed: true }])).toEqual([{ role: 'user', content: [{ type: 'text', text: '[User message compacted]' }, message.content[1]] }])
  })
})

describe('openai-responses mapping', () => {
  it('merges consecutive model items into one assistant piece and gives them back in order', () => {
    const items = [
      { type: 'reasoning', id: 'rs', summary: [], encrypted_content: 'e' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'custom_tool_call', call_id: 'c2', name: 'g', input: 'raw' },
    ]
    const stored = toProviderPieces('openai-responses', [...items, { type: 'function_call_output', call_id: 'c1', output: 'ok' }])
    expect(stored.map((piece) => strip(piece))).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }, { id: 'c2', type: 'function', function: { name: 'g', arguments: 'raw' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ])
    expect(toResponsesView(stored)).toEqual([...items, { type: 'function_call_output', call_id: 'c1', output: 'ok' }])
    expect(mergeResponsesPieces(stored[1], expandResponsesItem(items[0])[0].message)).toBeNull()
  })
  it('a message after an unanswered call starts the next model turn (regression found by the repair property)', () => {
    const items = [{ role: 'user', content: 'q' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }]
    const stored = toProviderPieces('openai-responses', items)
    expect(stored.map((piece) => piece.role)).toEqual(['user', 'assistant', 'assistant'])
    expect(toRequestView('openai-responses', stored).problems).toEqual(['O1 call c1 at 1 has no output'])
    expect(toRequestView('openai-responses', stored, { repair: true }).view).toEqual([items[0], items[1], { type: 'function_call_output', call_id: 'c1', output: '[no result recorded]' }, items[2]])
  })
  it('the reducer merges an added model item into the stored model piece (same _seq)', () => {
    const step = makeStep({ config: DEFAULT_CONFIG, estimate: makeCachedEstimator(), format: 'openai-responses' })
    let state = makeInitialState()
    for (const item of [{ role: 'user', content: 'q' }, { type: 'reasoning', id: 'rs', summary: [] }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }]) {
      state = step(state, { type: 'message_added', message: item, timestamp: '2026-01-01T00:00:00.000+00:00' }).state
    }
    expect(state.history.map((m) => [m.role, (m.metadata as { _seq: number })._seq])).toEqual([['user', 0], ['assistant', 1]])
    expect(toNativeHistory('openai-responses', state.history)).toEqual([{ role: 'user', content: 'q' }, { type: 'reasoning', id: 'rs', summary: [] }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }])
  })
})

describe('repair', () => {
  it('answers a call that will never be answered and drops an orphan result, leaving the open tail group', () => {
    const view: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', tool_calls: [{ id: 'a' }, { id: 'b' }] },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
      { role: 'tool', tool_call_id: 'zz', content: 'orphan' },
      { role: 'user', content: 'next' },
      { role: 'assistant', tool_calls: [{ id: 'c' }] },
    ]
    expect(repairToolPairing(view).map((m) => [m.role, m.tool_call_id ?? null, m.content ?? null])).toEqual([
      ['user', null, 'q'],
      ['assistant', null, null],
      ['tool', 'a', 'ok'],
      ['tool', 'b', '[no result recorded]'],
      ['user', null, 'next'],
      ['assistant', null, null],
    ])
    expect(toRequestView('openai-chat', view, { repair: true }).problems).toEqual([])
    expect(toRequestView('openai-chat', view).problems.map((p) => p.slice(0, 2))).toEqual(['R1', 'R2'])
    expect(toRequestView('openai-chat', view, { repair: true }).repaired).toBe(true)
    expect(toRequestView('openai-chat', view).repaired).toBe(false)
    expect(toRequestView('contract', view, { repair: true }).repaired).toBe(false)
    expect(toRequestView('openai-chat', view.slice(0, 3), { repair: true }).repaired).toBe(false)
  })

  // Views of users, assistants with 0-3 calls (unique ids) and results answering any call so far or none.
  const arbitraryView = fc
    .array(fc.oneof(fc.constant({ kind: 'user' as const }), fc.record({ kind: fc.constant('assistant' as const), calls: fc.nat(3) }), fc.record({ kind: fc.constant('tool' as const), answers: fc.nat(20) })), { maxLength: 14 })
    .map((items) => {
      let next = 0
      return items.map((item): Message => {
        if (item.kind === 'user') return { role: 'user', content: 'u' }
        if (item.kind === 'assistant') return { role: 'assistant', content: 'a', tool_calls: Array.from({ length: item.calls }, () => ({ id: `c${next++}`, type: 'function', function: { name: 'f', arguments: '{}' } })) }
        return { role: 'tool', tool_call_id: item.answers < next ? `c${item.answers}` : 'orphan', content: 'r' }
      })
    })

  it('property: repair changes exactly the views that break pairing, and a repaired view breaks none', () => {
    fc.assert(
      fc.property(arbitraryView, fc.constantFrom('anthropic' as const, 'openai-chat' as const, 'openai-responses' as const, 'ai-sdk' as const), (view, format) => {
        const plain = toRequestView(format, view)
        const fixed = toRequestView(format, view, { repair: true })
        expect(plain.repaired).toBe(false)
        const pairing = toRequestView('openai-chat', view).problems.filter((problem) => /^R[123] /.test(problem))
        expect(fixed.repaired).toBe(pairing.length > 0)
        if (!fixed.repaired) expect(fixed.view).toEqual(plain.view)
        expect(toRequestView('openai-chat', view, { repair: true }).problems.filter((problem) => /^R[123] /.test(problem))).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
