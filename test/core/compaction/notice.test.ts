// Unit tests for src/core/compaction/notice.ts: the tail compaction notice of SPEC 8 (B-NT-1..7),
// its texts, its conditions and its place in request views.
import { describe, expect, it } from 'vitest'
import { endsOutsideToolCall, selectNotice, toNoticeText } from '../../../src/core/compaction/notice.js'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import type { CompactionStats } from '../../../src/core/stats.js'
import { added, calls, fold, hookNames, request, result, stepFor, user, withMessages, workedExampleTurns, WORKED_EXAMPLE } from '../../support/core.js'

const STATS: CompactionStats = {
  before_tokens: 2444,
  after_tokens: 1793,
  before_messages: 24,
  after_messages: 24,
  messages_removed: 0,
  messages_truncated: 4,
  user_messages_stubbed: 0,
  system_messages_preserved: 0,
  strategy_level: 2,
  budget: 3000,
  target_tokens: 1800,
  protected_recent: 0.5,
  protected_tool_results: 4,
}

const MINIMAL =
  '<system-reminder source="context-compaction">\nContext has been compacted to fit within token budget. Some older messages and tool results may be truncated.\n</system-reminder>'

const normal = (head: string, preserved: string, affected: string): string =>
  '<system-reminder source="context-compaction">\n' +
  'Context has been compacted to fit within token budget.\n' +
  '\n' +
  'Compaction summary:\n' +
  head +
  '\n' +
  'What was preserved:\n' +
  '- All system messages (your instructions and identity)\n' +
  '- Last user message (current task)\n' +
  preserved +
  '\n' +
  'What may be affected:\n' +
  affected +
  '\n' +
  'Note: This compaction is ephemeral (affects only this request). Full history is preserved in session transcript.\n' +
  '</system-reminder>'

const LOW =
  '- Older tool results are truncated with "[truncated: ~N tokens]" prefix\n' + '- You can re-run tools if you need the full output\n'
const MIDDLE =
  '- Older tool results are truncated with "[truncated: ~N tokens]" prefix\n' +
  '- Older conversation messages have been removed\n' +
  '- You can re-run tools if you need full output\n'
const high = (kept: number): string =>
  `- Most tool results are truncated (except last ${kept})\n` +
  '- Significant conversation history has been removed\n' +
  '- Some user messages may be stubbed as "[User message compacted...]"\n' +
  '- If context is critical, consider asking user to clarify their current goal\n'


describe('notice texts (SPEC 8)', () => {
  it('B-NT-3: the minimal text is exact', () => {
    expect(toNoticeText(STATS, 'minimal')).toBe(MINIMAL)
    expect(toNoticeText({ ...STATS, strategy_level: 8 }, 'minimal')).toBe(MINIMAL)
  })

  it('B-NT-4: the normal text follows the template for levels ≤ 2', () => {
    expect(toNoticeText(STATS, 'normal')).toBe(
      normal(
        '- Strategy level: 2/8\n- Messages: 24 \u2192 24 (0 removed, 0 stubbed)\n- Tool results: 4 truncated\n- Tokens: 2,444 \u2192 1,793 (target: 1,800)\n',
        '- Recent messages (50% of conversation)\n- Last 4 tool results (full content)\n',
        LOW,
      ),
    )
    expect(toNoticeText({ ...STATS, strategy_level: 0 }, 'normal')).toContain(`What may be affected:\n${LOW}\nNote:`)
  })

  it('B-NT-4: levels 3–5 and 6–8 have their own affected block; numbers use thousands separators', () => {
    const stats: CompactionStats = {
      ...STATS,
      before_tokens: 1_234_567,
      after_tokens: 98_765,
      before_messages: 1200,
      after_messages: 80,
      messages_removed: 1120,
      user_messages_stubbed: 7,
      messages_truncated: 12,
      target_tokens: 100_000,
      protected_recent: 0.3,
      protected_tool_results: 5,
    }
    const head = (level: number) =>
      `- Strategy level: ${level}/8\n- Messages: 1200 \u2192 80 (1120 removed, 7 stubbed)\n- Tool results: 12 truncated\n- Tokens: 1,234,567 \u2192 98,765 (target: 100,000)\n`
    const preserved = '- Recent messages (30% of conversation)\n- Last 5 tool results (full content)\n'
    for (const level of [3, 4, 5]) expect(toNoticeText({ ...stats, strategy_level: level }, 'normal')).toBe(normal(head(level), preserved, MIDDLE))
    for (const level of [6, 7, 8]) expect(toNoticeText({ ...stats, strategy_level: level }, 'normal')).toBe(normal(head(level), preserved, high(5)))
  })

  it('B-NT-4: "verbose" and unknown verbosities give the normal text', () => {
    const text = toNoticeText(STATS, 'normal')
    for (const verbosity of ['verbose', 'loud', '', 'Minimal']) expect(toNoticeText(STATS, verbosity)).toBe(text)
  })

  it('B-NT-7: percentages round ties to even', () => {
    expect(toNoticeText({ ...STATS, protected_recent: 0.125 }, 'normal')).toContain('- Recent messages (12% of conversation)\n')
    expect(toNoticeText({ ...STATS, protected_recent: 0.015 }, 'normal')).toContain('- Recent messages (2% of conversation)\n')
    expect(toNoticeText({ ...STATS, protected_recent: 0.025 }, 'normal')).toContain('- Recent messages (2% of conversation)\n')
    expect(toNoticeText({ ...STATS, protected_recent: 1 }, 'normal')).toContain('- Recent messages (100% of conversation)\n')
  })
})

describe('selectNotice conditions (SPEC 8)', () => {
  const notice = { role: 'user', content: toNoticeText(STATS, 'normal'), metadata: { source: 'context-compaction', ephemeral: true } }

  it('B-NT-1: the notice message is role user with metadata exactly {source, ephemeral}', () => {
    const message = selectNotice(DEFAULT_CONFIG, STATS, [user('x')])
    expect(message).toEqual(notice)
    expect(Object.keys(message as object)).toEqual(['role', 'content', 'metadata'])
    expect(Object.keys((message as { metadata: object }).metadata)).toEqual(['source', 'ephemeral'])
  })

  it('an empty list does not block the notice; a tail with truthy tool_calls does', () => {
    expect(selectNotice(DEFAULT_CONFIG, STATS, [])).toEqual(notice)
    expect(selectNotice(DEFAULT_CONFIG, STATS, [user('x'), calls(['a'])])).toBeNull()
    expect(selectNotice(DEFAULT_CONFIG, STATS, [calls(['a']), result('a', 'done')])).toEqual(notice)
    expect(selectNotice(DEFAULT_CONFIG, STATS, [{ role: 'assistant', content: 'x', tool_calls: [] }])).toEqual(notice)
    expect(endsOutsideToolCall([user('x'), { role: 'user', tool_calls: [{ id: 'odd' }] }])).toBe(false)
  })

  it('B-NT-5: no notice when disabled, without stats, or below compaction_notice_min_level', () => {
    expect(selectNotice({ ...DEFAULT_CONFIG, compaction_notice_enabled: false }, STATS, [])).toBeNull()
    expect(selectNotice(DEFAULT_CONFIG, null, [])).toBeNull()
    expect(selectNotice({ ...DEFAULT_CONFIG, compaction_notice_min_level: 3 }, STATS, [])).toBeNull()
    expect(selectNotice({ ...DEFAULT_CONFIG, compaction_notice_min_level: 2 }, STATS, [])).toEqual(notice)
    expect(selectNotice(DEFAULT_CONFIG, { ...STATS, strategy_level: 0 }, [])).toBeNull()
  })
})

describe('the notice in request views', () => {
  const config = { ...WORKED_EXAMPLE, compaction_notice_enabled: true }
  const budget = 3800 // E = 3000, as in SPEC 6.8

  it('B-NT-1: the notice is the last view message after a compaction, and not counted in the stats', () => {
    const step = stepFor(config)
    const next = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: budget }))
    expect(next.state.compaction.stats).toEqual({ ...STATS })
    expect(next.view).toHaveLength(25)
    expect(next.view?.at(-1)).toEqual({ role: 'user', content: toNoticeText(STATS, 'normal'), metadata: { source: 'context-compaction', ephemeral: true } })
  })

  it('B-NT-5: no notice without compaction, and none when disabled', () => {
    const step = stepFor(config)
    const state = withMessages(step, workedExampleTurns())
    expect(step(state, request({ tokenBudget: 100_000 })).view).toHaveLength(24)
    const quiet = stepFor(WORKED_EXAMPLE)
    expect(quiet(withMessages(quiet, workedExampleTurns()), request()).view).toHaveLength(24)
  })

  it('B-NT-2: a view ending on an assistant with tool calls skips the notice; it returns when the tail is safe', () => {
    const step = stepFor(config)
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: budget }))
    const { steps } = fold(
      step,
      [added(calls(['t8'])), request({ tokenBudget: budget }), added(result('t8', 'ok')), request({ tokenBudget: budget })],
      first.state,
    )
    const pending = steps[1]
    expect(pending.view?.at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 't8' }] })
    expect(pending.view?.some((message) => (message.metadata as { source?: string } | undefined)?.source === 'context-compaction')).toBe(false)
    const answered = steps[3]
    expect(answered.view?.at(-1)).toMatchObject({ role: 'user', metadata: { source: 'context-compaction', ephemeral: true } })
    expect(answered.view?.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 't8' })
  })

  it('B-NT-6: between escalations the notice text is byte-identical; a new escalation changes it', () => {
    const step = stepFor({ ...config, compact_threshold: 0.9, target_usage: 0.8 })
    const budgetStable = 3400 // E = 2600
    const first = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: budgetStable }))
    const noticeText = first.view?.at(-1)?.content
    const { steps } = fold(step, [added(user('ask 8')), request({ tokenBudget: budgetStable }), request({ tokenBudget: 1_000_000 })], first.state)
    expect(hookNames(steps[1].effects)).toEqual(['context:token_meter'])
    expect(steps[1].view?.at(-1)?.content).toBe(noticeText)
    expect(steps[2].view?.at(-1)?.content).toBe(noticeText)
    // Grow enough to force a new escalation: new stats, new text.
    const grown = fold(step, workedExampleTurns(3).map((message) => added(message)), steps[2].state).state
    const escalated = step(grown, request({ tokenBudget: budgetStable }))
    expect(hookNames(escalated.effects)).toEqual(['context:token_meter', 'context:compaction'])
    expect(escalated.view?.at(-1)?.content).not.toBe(noticeText)
    expect(escalated.view?.at(-1)?.content).toBe(toNoticeText(escalated.state.compaction.stats as CompactionStats, 'normal'))
  })

  it('the reserve is subtracted whenever the notice is enabled, shown or not', () => {
    const step = stepFor({ ...config, compaction_notice_min_level: 9 })
    const next = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: budget }))
    expect(next.state.compaction.stats?.budget).toBe(3000)
    expect(next.view).toHaveLength(24)
  })

  it('minimal verbosity puts the minimal text in the view', () => {
    const step = stepFor({ ...config, compaction_notice_verbosity: 'minimal' })
    const next = step(withMessages(step, workedExampleTurns()), request({ tokenBudget: budget }))
    expect(next.view?.at(-1)?.content).toBe(MINIMAL)
  })
})
