// Unit tests for src/core/compaction/anchors.ts and the human_anchors guard (docs/configuration.md, "Human anchors"):
// first/last-user protection anchors on human prompts, not on hook-injected, ephemeral, notice,
// replay or summary messages; off by default (any user-role message, the contract).
import { describe, expect, it } from 'vitest'
import { isHumanPrompt, toAnchorPositions } from '../../../src/core/compaction/anchors.js'
import { toStub } from '../../../src/core/compaction/stub.js'
import type { Message } from '../../../src/core/messages/message.js'
import { added, assistant, fold, request, stepFor, user, viewed, stored } from '../../support/core.js'

const text = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')

describe('isHumanPrompt', () => {
  it('accepts typed prompts and rejects hook, ephemeral, notice, replay, summary and reminder messages', () => {
    expect(isHumanPrompt(user('fix the bug'))).toBe(true)
    expect(isHumanPrompt(user([{ type: 'text', text: 'look at this' }, { type: 'image' }]))).toBe(true)
    expect(isHumanPrompt(user('lint passed', { metadata: { source: 'hook' } }))).toBe(false)
    expect(isHumanPrompt(user('x', { metadata: { ephemeral: true } }))).toBe(false)
    expect(isHumanPrompt(user('x', { metadata: { source: 'context-compaction', ephemeral: true } }))).toBe(false)
    expect(isHumanPrompt(user('x', { metadata: { type: 'context_summary' } }))).toBe(false)
    expect(isHumanPrompt(user('<system-reminder>be brief</system-reminder>'))).toBe(false)
    expect(isHumanPrompt(assistant('hi'))).toBe(false)
  })

  it('toAnchorPositions finds the first and last anchor', () => {
    const list: Message[] = [user('a', { metadata: { source: 'hook' } }), user('b'), assistant('c'), user('d'), user('e', { metadata: { source: 'hook' } })]
    expect(toAnchorPositions(list, isHumanPrompt)).toEqual({ first: 1, last: 3 })
    expect(toAnchorPositions(list, (message) => message.role === 'user')).toEqual({ first: 0, last: 4 })
  })
})

describe('human_anchors', () => {
  // The human's current task sits before a hook reminder that is the last user-role message.
  const task = user(text('please migrate the billing tables to the new schema', 200))
  const reminder = user(text('<hook> tests are still failing, keep going', 200), { metadata: { source: 'hook' } })
  const history: Message[] = [user(text('first: set up the project', 200))]
  for (let i = 0; i < 4; i += 1) history.push(assistant(text(`old work ${i}`, 600)))
  history.push(task)
  for (let i = 0; i < 4; i += 1) history.push(assistant(text(`new work ${i}`, 600)))
  history.push(reminder)
  const config = { compaction_notice_enabled: false, max_tokens: 600, protected_recent: 0.1 }
  const run = (extra: Record<string, unknown>) => {
    const { steps } = fold(stepFor({ ...config, ...extra }), [...history.map((message) => added(message)), request()])
    return steps[steps.length - 1].view ?? []
  }
  const taskStored = viewed(stored(task, 5))

  it('off (the contract): the hook reminder takes the last-user protection and the task is stubbed', () => {
    const view = run({})
    expect(view).toContainEqual(viewed(toStub(stored(task, 5))))
    expect(view).not.toContainEqual(taskStored)
  })

  it('on: the human task keeps its last-user protection, verbatim', () => {
    const view = run({ human_anchors: true })
    expect(view).toContainEqual(taskStored)
  })
})
