import { describe, expect, it } from 'vitest'
import { findFormatViolations } from '../../../src/core/formats/dispatch.js'
import { canonicalJson } from '../../../src/core/formats/anthropic.js'

const call = (id: string) => ({ type: 'tool_use', id, name: 'grep', input: {} })
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })

describe('anthropic rules (A1-A7)', () => {
  it('accepts a paired view, results before text, and an open group at the tail', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [call('a'), call('b')] },
      { role: 'user', content: [result('a'), result('b'), { type: 'text', text: 'more' }] },
      { role: 'assistant', content: [call('c')] },
    ]
    expect(findFormatViolations('anthropic', { messages })).toEqual([])
  })
  it('reports each rule with its code', () => {
    const messages = [
      { role: 'assistant', content: [call('a')], metadata: {} },
      { role: 'user', content: [{ type: 'text', text: 'x' }, result('a'), result('z')] },
      { role: 'system', content: 'no' },
      { role: 'assistant', content: [call('a'), { type: 'thinking', thinking: 't', signature: 's' }] },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'done' },
    ]
    const codes = findFormatViolations('anthropic', { messages }, { thinkingSource: new Set() }).map((p) => p.split(' ')[0])
    expect(new Set(codes)).toEqual(new Set(['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7']))
  })
  it('merges consecutive same-role messages into one turn, as the API does', () => {
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [result('a')] },
      { role: 'user', content: 'and then' },
      { role: 'assistant', content: 'ok' },
    ]
    expect(findFormatViolations('anthropic', messages)).toEqual([])
  })
  it('A6 accepts a thinking block found verbatim in the source, whatever its key order', () => {
    const block = { type: 'thinking', thinking: 't', signature: 's' }
    const messages = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ signature: 's', thinking: 't', type: 'thinking' }] }]
    expect(findFormatViolations('anthropic', { messages }, { thinkingSource: new Set([canonicalJson(block)]) })).toEqual([])
  })
})

describe('ai-sdk rules (S1-S5)', () => {
  const tc = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'f', input: {} })
  const tr = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'f', output: { type: 'text', value: 'ok' } })
  it('accepts calls answered across several tool messages and provider-executed calls', () => {
    const view = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [tc('a'), tc('b'), { ...tc('p'), providerExecuted: true }] },
      { role: 'tool', content: [tr('a')] },
      { role: 'tool', content: [tr('b')] },
      { role: 'assistant', content: 'done' },
    ]
    expect(findFormatViolations('ai-sdk', view)).toEqual([])
  })
  it('reports S1-S5', () => {
    const view = [
      { role: 'tool', content: [tr('x')] },
      { role: 'assistant', content: [tc('a')], metadata: {} },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [tc('a')] },
      { role: 'tool', content: [tr('a'), tr('q')] },
      { role: 'developer', content: 'x' },
    ]
    const codes = new Set(findFormatViolations('ai-sdk', view).map((p) => p.split(' ')[0]))
    expect(codes).toEqual(new Set(['S1', 'S2', 'S3', 'S4', 'S5']))
  })
})

describe('openai-responses rules (O1-O4)', () => {
  it('tolerates an open call at the tail, reasoning included', () => {
    const view = [
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'reasoning', id: 'rs_2', summary: [] },
    ]
    expect(findFormatViolations('openai-responses', view)).toEqual([])
  })
  it('reports O1-O4', () => {
    const view = [
      { type: 'function_call_output', call_id: 'z', output: '' },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}', _seq: 1 },
      { role: 'user', content: 'q' },
    ]
    expect(new Set(findFormatViolations('openai-responses', view).map((p) => p.split(' ')[0]))).toEqual(new Set(['O1', 'O2', 'O3', 'O4']))
  })
})

describe('openai-chat rules (R1-R4, C5)', () => {
  it('reports R1-R4 and C5', () => {
    const view = [
      { role: 'tool', tool_call_id: 'x', content: '' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a' }, { id: 'b' }] },
      { role: 'tool', tool_call_id: 'a', content: '', _truncated: true },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a' }] },
      { role: 'tool', tool_call_id: 'a', content: '' },
    ]
    expect(new Set(findFormatViolations('openai-chat', view).map((p) => p.split(' ')[0]))).toEqual(new Set(['R1', 'R2', 'R3', 'R4', 'C5']))
  })
  it('contract: the same pairing rules without C5', () => {
    expect(findFormatViolations('contract', [{ role: 'user', content: 'q', metadata: {} }])).toEqual([])
  })
})
