// The retention policy pieces (src/core/compaction/retention.ts) and the keys that switch them on:
// tool_result_truncation "mask" (observation masking), protected_recent_tokens (the recent zone by
// tokens) and target_basis "compactable" under the calibrated meter. Each default keeps the
// contract (the conformance cases run with the defaults).
import { describe, expect, it } from 'vitest'
import { isShortened, selectRecentStart, toWaveRanges } from '../../../src/core/compaction/retention.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import type { Message } from '../../../src/core/messages/message.js'
import type { CompactionStats } from '../../../src/core/stats.js'
import { truncateToolResult } from '../../../src/core/tool-results/tool-result-budget.js'
import { added, fold, request, stepFor, system, user } from '../../support/core.js'

const pad = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')

/** Turns of (user, assistant call, tool result of `resultLength` characters, assistant text). */
const turns = (count: number, resultLength: number): Message[] => {
  const messages: Message[] = [system(pad('policy', 400))]
  for (let i = 0; i < count; i += 1) {
    messages.push(user(`question ${i} about order_${i}`))
    messages.push({ role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'get_order', arguments: `{"order_id":"order_${i}"}` } }] })
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: pad(`{"order_id":"order_${i}"}`, resultLength) })
    messages.push({ role: 'assistant', content: `order_${i} is on its way` })
  }
  return messages
}

const replay = (config: Record<string, unknown>, messages: Message[], budget: number) => {
  const step = stepFor({ compaction_notice_enabled: false, ...config })
  const events = messages.flatMap((message) => (message.role === 'user' ? [added(message), request({ tokenBudget: budget })] : [added(message)]))
  const { steps, state } = fold(step, events)
  const views = steps.flatMap((item) => (item.view === undefined ? [] : [item.view]))
  return { view: views[views.length - 1], stats: state.compaction.stats as CompactionStats }
}

describe('selectRecentStart', () => {
  const list: Message[] = [user('a'), user('b'), user('c'), user('d')]
  it('with tokens null is the contract share: trunc(n x (1 - share x scale))', () => {
    expect(selectRecentStart(list, 0.3, 1, null, () => 10)).toBe(Math.trunc(4 * 0.7))
    expect(selectRecentStart(list, 0.3, 0.6, null, () => 10)).toBe(Math.trunc(4 * (1 - 0.3 * 0.6)))
  })
  it('with tokens is the longest suffix within tokens x scale, at least the last message', () => {
    expect(selectRecentStart(list, 0.3, 1, 25, () => 10)).toBe(2)
    expect(selectRecentStart(list, 0.3, 0.6, 25, () => 10)).toBe(3)
    expect(selectRecentStart(list, 0.3, 1, 5, () => 10)).toBe(3)
    expect(selectRecentStart(list, 0.3, 1, 1000, () => 10)).toBe(0)
    expect(selectRecentStart([], 0.3, 1, 1000, () => 10)).toBe(0)
  })
})

describe('toWaveRanges and isShortened', () => {
  it('visit the contract quarters, and under "mask" level 2 reaches every result', () => {
    expect(toWaveRanges(10, 'head')).toEqual({ level1: [0, 2], level2: [2, 5], level4: [5, 7] })
    expect(toWaveRanges(10, 'stub')).toEqual({ level1: [0, 2], level2: [2, 5], level4: [5, 7] })
    expect(toWaveRanges(10, 'mask').level2).toEqual([2, 10])
  })
  it('shorten a result over its budget, and under "mask" any result longer than its stub', () => {
    expect(isShortened(1001, 1000, 80, 'head')).toBe(true)
    expect(isShortened(500, 1000, 80, 'stub')).toBe(false)
    expect(isShortened(500, 1000, 80, 'mask')).toBe(true)
    expect(isShortened(80, 1000, 80, 'mask')).toBe(false)
  })
})

describe('tool_result_truncation "mask"', () => {
  it('stubs a result within its budget, with its tool name and size; "head" leaves it', () => {
    const result = { role: 'tool', tool_call_id: 'c1', content: pad('{"order_id":"order_1"}', 200) }
    expect(truncateToolResult(result, { ...DEFAULT_CONFIG, tool_result_truncation: 'mask' }, { c1: 'get_order' }).message).toMatchObject({
      content: '[tool result cleared: get_order, 200 chars - call the tool again if needed]',
      _truncated: true,
    })
    expect(truncateToolResult(result, DEFAULT_CONFIG, { c1: 'get_order' }).message).toBe(result)
    // a result shorter than its stub stays
    const short = { ...result, content: 'ok' }
    expect(truncateToolResult(short, { ...DEFAULT_CONFIG, tool_result_truncation: 'mask' }, { c1: 'get_order' }).message).toBe(short)
  })

  it('clears old tool results before removing any message: the calls and the assistant text stay', () => {
    const history = turns(12, 1500)
    const head = replay({ protected_tool_results: 1 }, history, 5000)
    const mask = replay({ protected_tool_results: 1, tool_result_truncation: 'mask' }, history, 5000)
    expect(head.stats.messages_removed).toBeGreaterThan(0)
    expect(mask.stats.messages_removed).toBe(0)
    expect(mask.stats.messages_truncated).toBeGreaterThan(0)
    expect(mask.view.length).toBeGreaterThan(head.view.length)
    // the first call with its arguments survives under masking, not under the contract's ladder
    const firstCall = (view: ReadonlyArray<Message>): boolean => view.some((message) => JSON.stringify(message).includes('\\"order_id\\":\\"order_0\\"'))
    expect(firstCall(mask.view)).toBe(true)
    expect(firstCall(head.view)).toBe(false)
    const cleared = mask.view.filter((message) => message.role === 'tool' && String(message.content).startsWith('[tool result cleared: get_order, 1,500 chars'))
    expect(cleared.length).toBeGreaterThan(0)
  })
})

describe('protected_recent_tokens', () => {
  it('protects the recent zone by tokens: a larger zone keeps more of the end of the conversation', () => {
    const history = turns(16, 120)
    const small = replay({ protected_recent: 0.1 }, history, 1500)
    const tokens = replay({ protected_recent: 0.1, protected_recent_tokens: 600 }, history, 1500)
    expect(tokens.view.length).toBeGreaterThan(small.view.length)
  })

  it('rejects a value that is not a positive integer, naming the key', async () => {
    const { decodeConfig } = await import('../../../src/core/codecs.js')
    const wrong = decodeConfig({ protected_recent_tokens: -5 })
    expect(wrong._tag === 'Left' && wrong.left.message).toMatch(/protected_recent_tokens/)
    const right = decodeConfig({})
    expect(right._tag === 'Right' && right.right.config.protected_recent_tokens).toBe(null)
  })
})

describe('target_basis "compactable" under the calibrated meter', () => {
  it('sets the target above the system messages by the fraction of what is left (estimator units through the model)', () => {
    const run = (basis: 'budget' | 'compactable') => {
      const step = stepFor({ compaction_notice_enabled: false, token_meter: 'calibrated', target_basis: basis, target_usage: 0.5 })
      const events = turns(14, 200).flatMap((message) =>
        message.role === 'user' ? [added(message), request({ tokenBudget: 2400 })] : [added(message)],
      )
      return fold(step, events).state.compaction.stats as CompactionStats
    }
    const budget = run('budget')
    const compactable = run('compactable')
    expect(compactable.target_tokens).toBeGreaterThan(budget.target_tokens)
  })
})
