// Unit tests for notice hygiene (docs/configuration.md, compaction_notice_repeat): the full notice
// goes out once per compaction, later requests carry a short standing notice or none, and the
// hygienic text has no estimator token figures and no "affects only this request" claim.
import { describe, expect, it } from 'vitest'
import { STANDING_NOTICE_TEXT } from '../../../src/core/compaction/notice.js'
import type { Message } from '../../../src/core/messages/message.js'
import { added, fold, request, stepFor, user, workedExampleTurns, WORKED_EXAMPLE } from '../../support/core.js'

// SPEC 6.8's history with the notice on (budget 3,800 − reserve 800 = E 3,000) and a threshold
// of 0.7, so the requests after the first compaction re-apply it without escalating.
const config = { ...WORKED_EXAMPLE, compaction_notice_enabled: true, max_tokens: 3800, compact_threshold: 0.7 }
const noticeOf = (view: ReadonlyArray<Message> | undefined): string | null => {
  const last = view?.[view.length - 1]
  return last !== undefined && (last.metadata as Record<string, unknown> | undefined)?.source === 'context-compaction' ? String(last.content) : null
}
const run = (repeat: string | undefined) => {
  const step = stepFor(repeat === undefined ? config : { ...config, compaction_notice_repeat: repeat })
  const { steps, state } = fold(step, [
    ...workedExampleTurns().map((message) => added(message)),
    request(),
    added(user('next question')),
    request(),
    added(user('and another')),
    request(),
  ])
  return { notices: steps.filter((s) => s.view !== undefined).map((s) => noticeOf(s.view)), state }
}

describe('compaction_notice_repeat', () => {
  it('"full" (the contract): the same full notice on every compaction-path request, with token figures and the ephemeral claim', () => {
    const { notices } = run(undefined)
    expect(notices).toHaveLength(3)
    expect(notices[0]).toContain('- Tokens: 2,444 \u2192')
    expect(notices[0]).toContain('ephemeral (affects only this request)')
    expect(notices[1]).toBe(notices[0])
    expect(notices[2]).toBe(notices[0])
  })

  it('"standing": the clean full notice once, then the short standing notice until the next compaction', () => {
    const { notices, state } = run('standing')
    expect(notices[0]).toContain('Compaction summary:')
    expect(notices[0]).not.toContain('Tokens:')
    expect(notices[0]).not.toContain('affects only this request')
    expect(notices[0]).toContain('Full history is preserved in session transcript.')
    expect(notices[1]).toBe(STANDING_NOTICE_TEXT)
    expect(notices[2]).toBe(STANDING_NOTICE_TEXT)
    expect(STANDING_NOTICE_TEXT).not.toMatch(/\d/)
    expect(state.compaction.noticeSent).toBe(true)
  })

  it('"none": the clean full notice once, then nothing', () => {
    const { notices } = run('none')
    expect(notices[0]).toContain('Compaction summary:')
    expect(notices.slice(1)).toEqual([null, null])
  })

  it('a new compaction sends the full notice again', () => {
    const step = stepFor({ ...config, compaction_notice_repeat: 'standing' })
    const first = fold(step, [...workedExampleTurns().map((message) => added(message)), request(), request()])
    expect(first.state.compaction.noticeSent).toBe(true)
    // Eight more long turns push the view over the threshold again: a new pass, new stats.
    const more = workedExampleTurns(8).map((message) => added({ ...message, content: message.content }))
    const second = fold(step, [...more, request()], first.state)
    expect(second.state.compaction.stats).not.toBe(first.state.compaction.stats)
    expect(noticeOf(second.steps[second.steps.length - 1].view)).toContain('Compaction summary:')
  })
})
