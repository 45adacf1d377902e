// Conversions between formats never produce an empty message or block, and answer each call once
// (Anthropic A8/A9, AI SDK S6; docs/formats.md "Conversions").
import { describe, expect, it } from 'vitest'
import { findFormatViolations, toFormatView } from '../../../src/core/formats/dispatch.js'
import { toProviderPieces } from '../../../src/core/history.js'
import type { Messages } from '../../../src/core/messages/message.js'

const withOrigins = (pieces: Messages): Messages => pieces.map((piece, i) => ({ ...piece, metadata: { ...(piece.metadata as object), native: { ...((piece.metadata as { native: object }).native), origin: i } } }))

describe('no empty message or block from a conversion', () => {
  it('a Chat refusal becomes the assistant text in Anthropic and AI SDK views, not content: []', () => {
    const stored = toProviderPieces('openai-chat', [
      { role: 'user', content: 'Write malware.' },
      { role: 'assistant', content: null, refusal: "I can't help with that." },
      { role: 'user', content: 'A poem then.' },
    ])
    const anthropic = toFormatView('anthropic', stored)
    expect(anthropic.messages[1]).toEqual({ role: 'assistant', content: "I can't help with that." })
    expect(findFormatViolations('anthropic', anthropic)).toEqual([])
    expect(toFormatView('ai-sdk', stored)[1]).toEqual({ role: 'assistant', content: "I can't help with that." })
  })

  it('a Responses turn of reasoning and computer / MCP / shell items only is no message in the other formats', () => {
    const stored = withOrigins(toProviderPieces('openai-responses', [
      { role: 'user', content: 'Click the button.' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'computer_call', id: 'cu_1', call_id: 'cc_1', action: { type: 'click', button: 'left', x: 1, y: 2 }, pending_safety_checks: [], status: 'completed' },
      { type: 'mcp_call', id: 'mcp_1', server_label: 's', name: 'n', arguments: '{}' },
      { type: 'shell_call', id: 'sh_1', call_id: 'sc_1', action: { commands: ['ls'] }, status: 'completed' },
      { role: 'user', content: 'Thanks.' },
    ]))
    const anthropic = toFormatView('anthropic', stored)
    expect(anthropic.messages.map((m) => m.role)).toEqual(['user', 'user'])
    expect(findFormatViolations('anthropic', anthropic).filter((p) => p.startsWith('A8'))).toEqual([])
    const sdk = toFormatView('ai-sdk', stored)
    expect(findFormatViolations('ai-sdk', sdk).filter((p) => p.startsWith('S6'))).toEqual([])
    expect(sdk.some((m) => m.role === 'assistant')).toBe(false)
    expect(toFormatView('openai-chat', stored).some((m) => m.role === 'assistant')).toBe(false)
  })

  it('the checks can fail: the old shapes are reported', () => {
    expect(findFormatViolations('anthropic', { messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [] }, { role: 'user', content: [{ type: 'text', text: '' }] }] })).toEqual([
      'A8 message 1 has empty content',
      'A8 message 2 block 0 is an empty text block',
    ])
    expect(findFormatViolations('ai-sdk', [{ role: 'user', content: 'q' }, { role: 'assistant', content: '' }])).toEqual(['S6 message 1 has empty content'])
  })
})

describe('one result per call', () => {
  it('an AI SDK approval and the result of its call become one tool_result in the Anthropic view', () => {
    const stored = withOrigins(toProviderPieces('ai-sdk', [
      { role: 'user', content: 'Deploy.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'deploy', input: {} }, { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'w1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'w1', toolName: 'deploy', output: { type: 'text', value: 'deployed' } }] },
      { role: 'user', content: 'Thanks.' },
    ]))
    const anthropic = toFormatView('anthropic', stored)
    const results = anthropic.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result')
    expect(results).toEqual([{ type: 'tool_result', tool_use_id: 'w1', content: 'deployed' }])
    expect(findFormatViolations('anthropic', anthropic)).toEqual([])
    // the Chat and Responses views too
    expect(toFormatView('openai-chat', stored).filter((m) => m.role === 'tool')).toHaveLength(1)
    expect(toFormatView('openai-responses', stored).filter((item) => item.type === 'function_call_output')).toHaveLength(1)
    // the AI SDK view keeps both parts: they are its own format
    expect(toFormatView('ai-sdk', stored).filter((m) => m.role === 'tool')).toHaveLength(2)
  })
})
