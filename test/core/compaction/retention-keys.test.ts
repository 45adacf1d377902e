// The retention keys (docs/configuration.md, docs/evaluation.md): target_basis ("budget" is the
// contract's target trunc(E × target_usage); "compactable" measures the fraction on E less the
// system messages) and tool_result_truncation ("head" is SPEC 11.2; "stub" replaces an old result
// by what identifies it).
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import type { CompactionStats } from '../../../src/core/stats.js'
import type { Message } from '../../../src/core/messages/message.js'
import { added, fold, request, stepFor, system, user } from '../../support/core.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { toRecallFigures, toViewMessageText } from '../../../src/core/economics/recall.js'
import { truncateToolResult } from '../../../src/core/tool-results/tool-result-budget.js'

const text = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')
const chat = (turns: number): Message[] => {
  const messages: Message[] = [system(text('policy', 4000))]
  for (let i = 0; i < turns; i += 1) messages.push(user(`question ${i}`), { role: 'assistant', content: text(`answer ${i}`, 400) })
  return messages
}

const lastPass = (basis: 'budget' | 'compactable') => {
  const step = stepFor({ compaction_notice_enabled: false, target_basis: basis, target_usage: 0.5 })
  const events = chat(30).flatMap((message) => (message.role === 'user' ? [added(message), request({ tokenBudget: 3000 })] : [added(message)]))
  const { steps, state } = fold(step, events)
  const views = steps.flatMap((item) => (item.view === undefined ? [] : [item.view]))
  return { view: views[views.length - 1], stats: state.compaction.stats as CompactionStats }
}

describe('target_basis', () => {
  it('"compactable" puts the target above the system prompt by the fraction of what is left, and keeps more conversation', () => {
    const budget = lastPass('budget')
    const compactable = lastPass('compactable')
    expect(budget.stats.target_tokens).toBe(Math.trunc(budget.stats.budget * 0.5))
    expect(compactable.stats.target_tokens).toBeGreaterThan(budget.stats.target_tokens)
    expect(compactable.view.length).toBeGreaterThan(budget.view.length)
  })

  it('defaults to "budget" and rejects other values naming the key', () => {
    const decoded = decodeConfig({})
    expect(decoded._tag === 'Right' && decoded.right.config.target_basis).toBe('budget')
    const wrong = decodeConfig({ target_basis: 'system' })
    expect(wrong._tag === 'Left' && wrong.left.message).toMatch(/target_basis/)
  })
})

describe('tool_result_truncation', () => {
  const result = { role: 'tool', tool_call_id: 'c1', content: `{"reservation_id":"HAT076","flights":"${'x'.repeat(900)}"}` }
  it('"stub" replaces an over-budget result by its tool name and size, marked truncated; "head" is the contract', () => {
    const stub = truncateToolResult(result, { ...DEFAULT_CONFIG, tool_result_truncation: 'stub' }, { c1: 'get_reservation_details' }).message
    expect(stub.content).toBe('[tool result cleared: get_reservation_details, 940 chars - call the tool again if needed]')
    expect(stub).toMatchObject({ _truncated: true, _original_tokens: 235 })
    const head = truncateToolResult(result, DEFAULT_CONFIG, {}).message
    expect(String(head.content).startsWith('[truncated: ~235 tokens - call tool again if needed] {"reservation_id":"HAT076"')).toBe(true)
    // a result within its budget is unchanged either way
    expect(truncateToolResult({ ...result, content: 'ok' }, { ...DEFAULT_CONFIG, tool_result_truncation: 'stub' }, {}).message.content).toBe('ok')
  })

  it('recall reads the stub\'s tool name as original content and nothing of its frame', () => {
    const stub = truncateToolResult(result, { ...DEFAULT_CONFIG, tool_result_truncation: 'stub' }, { c1: 'get_reservation_details' }).message
    expect(toViewMessageText(stub)).toBe('get_reservation_details')
    const recording = { config: {}, now: '', ops: [
      { op: 'add_message' as const, message: result },
      { op: 'add_message' as const, message: { role: 'user', content: 'a' } },
      { op: 'add_message' as const, message: { role: 'user', content: 'b' } },
      { op: 'get_messages_for_request' as const },
      { op: 'add_message' as const, message: { role: 'assistant', content: 'HAT076 it is' } },
    ] }
    expect(toRecallFigures(recording, [[stub]])).toMatchObject({ needed_facts: 1, recalled_facts: 0 })
  })
})
