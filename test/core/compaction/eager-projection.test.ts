// Unit tests for eager tail projection (`tool_result_json_eager_after`, src/core/compaction/eager-projection.ts,
// src/core/request/eager-projection.ts) and the values-only form (`tool_result_json_projection:
// "handle_values"`, src/core/tool-results/json-handles.ts): which results are shortened when,
// that the decision is sticky (later views keep the form, the prefix before it unchanged), that
// the stored history keeps the whole result, that no `context:compaction` is emitted for it, and
// that the default sends the contract's views.
import { describe, expect, it } from 'vitest'
import { selectEagerProjections, withEagerProjections } from '../../../src/core/compaction/eager-projection.js'
import { makePassContext } from '../../../src/core/compaction/context.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import type { Message } from '../../../src/core/messages/message.js'
import { seqOf } from '../../../src/core/messages/message.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import { EMPTY_STICKY, makeInitialState, type State } from '../../../src/core/state.js'
import { isJsonProjection } from '../../../src/core/tool-results/json-projection.js'
import { toJsonHandleValuesText } from '../../../src/core/tool-results/json-handles.js'
import { added, assistant, call, configOf, request, result, stepFor, user } from '../../support/core.js'

const record = (id: string, flight: string): string =>
  JSON.stringify({ reservation_id: id, cabin: 'economy', flights: [{ flight_number: flight, date: '2024-05-20', price: 120 }, { flight_number: `${flight}B`, date: '2024-05-20', price: 80 }], note: 'window seat, please'.repeat(3) })

const lookup = (callId: string): Message => ({ role: 'assistant', content: null, tool_calls: [call(callId, 'get_reservation_details', '{}')] })

describe('toJsonHandleValuesText', () => {
  it('keeps the distinct handle strings in order, without keys or nesting', () => {
    expect(toJsonHandleValuesText(record('ZFA04Y', 'HAT001'))).toBe('["ZFA04Y","HAT001","2024-05-20","HAT001B"]')
  })

  it('copies strings as written and is null where the handles form is', () => {
    expect(toJsonHandleValuesText('{"path":"src\\/a.ts","n":"two words","k":"src\\/a.ts"}')).toBe('["src\\/a.ts"]')
    expect(toJsonHandleValuesText('{"status":"active","price":120}')).toBeNull()
    expect(toJsonHandleValuesText('found HAT001')).toBeNull()
  })
})

describe('selectEagerProjections', () => {
  const list: Message[] = [
    user('Find my trips', { metadata: { _seq: 0 } }),
    { ...lookup('a'), metadata: { _seq: 1 } },
    result('a', record('AAA111', 'HAT001'), { metadata: { _seq: 2 } }),
    { ...lookup('b'), metadata: { _seq: 3 } },
    result('b', record('BBB222', 'HAT002'), { metadata: { _seq: 4 } }),
    assistant('Two trips.', { metadata: { _seq: 5 } }),
    user('Thanks', { metadata: { _seq: 6 } }),
    { ...lookup('c'), metadata: { _seq: 7 } },
    result('c', 'plain text, not JSON', { metadata: { _seq: 8 } }),
    { ...lookup('d'), metadata: { _seq: 9 } },
    result('d', record('DDD444', 'HAT004'), { metadata: { _seq: 10 } }),
  ]
  const context = makePassContext(configOf({ tool_result_json_projection: 'handles' }), estimateOne, {}, makeDerivationMemo())
  const seqs = (after: number, unit: 'answers' | 'turns', sticky = EMPTY_STICKY): Array<number | undefined> => selectEagerProjections(list, sticky, { after, unit }, context).map(seqOf)

  it('"answers" counts assistant messages that call no tool; "turns" every assistant message', () => {
    expect(seqs(1, 'answers')).toEqual([2, 4])
    expect(seqs(2, 'answers')).toEqual([])
    // 8 is text: its truncated form is no JSON projection, so it stays whole
    expect(seqs(1, 'turns')).toEqual([2, 4])
    expect(seqs(3, 'turns')).toEqual([2, 4])
    expect(seqs(4, 'turns')).toEqual([2])
    expect(seqs(5, 'turns')).toEqual([])
  })

  it('skips results a sticky decision already names', () => {
    expect(seqs(1, 'answers', { ...EMPTY_STICKY, truncated: new Set([2]) })).toEqual([4])
    expect(seqs(1, 'answers', { ...EMPTY_STICKY, removed: new Set([4]) })).toEqual([2])
  })

  it('keeps the recorded heads of earlier decisions (compaction_refill_head "fit") when it adds projections', () => {
    const heads = new Map([[8, 12]])
    const sticky = { ...EMPTY_STICKY, truncated: new Set([8]), heads }
    const next = withEagerProjections(list, sticky, { after: 1, unit: 'answers' }, context)
    expect([...next.truncated].sort((a, b) => a - b)).toEqual([2, 4, 8])
    expect(next.heads).toBe(heads)
  })

  it('projects nothing under "off" (the truncated form is the contract\'s)', () => {
    const off = makePassContext(configOf({}), estimateOne, {}, makeDerivationMemo())
    expect(selectEagerProjections(list, EMPTY_STICKY, { after: 1, unit: 'turns' }, off)).toEqual([])
  })
})

describe('tool_result_json_eager_after', () => {
  const events = (): Message[] => [
    user('Find my trips'),
    lookup('a'),
    result('a', record('AAA111', 'HAT001')),
    assistant('One trip, AAA111.'),
    user('And the other?'),
    lookup('b'),
    result('b', record('BBB222', 'HAT002')),
    assistant('BBB222.'),
    user('Thanks'),
  ]
  /** The view after each added message, with the state after the last request. */
  const run = (raw: Record<string, unknown>): { views: Array<ReadonlyArray<Message>>; state: State; hooks: string[] } => {
    const step = stepFor(raw)
    let state = makeInitialState()
    const views: Array<ReadonlyArray<Message>> = []
    const hooks: string[] = []
    for (const message of events()) {
      state = step(state, added(message)).state
      const out = step(state, request({ tokenBudget: 100_000 }))
      state = out.state
      views.push(out.view ?? [])
      for (const effect of out.effects) if (effect.type === 'emit_hook') hooks.push(effect.name)
    }
    return { views, state, hooks }
  }
  const eager = { tool_result_json_projection: 'handles', tool_result_json_eager_after: 1 }

  it('null (the default) sends the same views as without the key', () => {
    expect(run({ tool_result_json_projection: 'handles' }).views).toEqual(run({ tool_result_json_projection: 'handles', tool_result_json_eager_after: null }).views)
    expect(run({}).views.at(-1)?.filter(isJsonProjection)).toEqual([])
  })

  it('shortens a JSON result once the agent answered after it, and every later view keeps the form', () => {
    const { views } = run(eager)
    // after the result and before the answer: whole
    expect(views[2][2].content).toBe(record('AAA111', 'HAT001'))
    // the request after the answer: the form, then kept in every later view
    const form = views[3][2]
    expect(isJsonProjection(form)).toBe(true)
    expect(String(form.content)).toContain('"reservation_id":"AAA111"')
    expect(String(form.content)).not.toContain('economy')
    for (const view of views.slice(4)) expect(view[2]).toEqual(form)
    // the prefix before the form is the previous view's; the next result waits for the next answer
    expect(views[3].slice(0, 2)).toEqual(views[2].slice(0, 2))
    expect(views[6][6].content).toBe(record('BBB222', 'HAT002'))
    expect(isJsonProjection(views[7][6])).toBe(true)
    for (const view of views) expect(findPairingViolations(view)).toEqual([])
  })

  it('keeps the whole result in the stored history and emits no context:compaction', () => {
    const { state, hooks } = run(eager)
    const stored = state.history.filter((message) => message.role === 'tool').map((message) => message.content)
    expect(stored).toEqual([record('AAA111', 'HAT001'), record('BBB222', 'HAT002')])
    expect(state.compaction.sticky.truncated.size).toBe(2)
    expect(hooks).not.toContain('context:compaction')
  })

  it('"turns" shortens at the next assistant message, whatever it is; a larger N later', () => {
    const turns = run({ ...eager, tool_result_json_eager_unit: 'turns' }).views
    expect(turns[2][2].content).toBe(record('AAA111', 'HAT001'))
    expect(isJsonProjection(turns[3][2])).toBe(true)
    const two = run({ ...eager, tool_result_json_eager_after: 2 }).views
    expect(two[6][2].content).toBe(record('AAA111', 'HAT001'))
    expect(isJsonProjection(two[7][2])).toBe(true)
    expect(two[8][6].content).toBe(record('BBB222', 'HAT002'))
  })

  it('"handle_values" writes the values-only form', () => {
    const { views } = run({ ...eager, tool_result_json_projection: 'handle_values' })
    expect(String(views[3][2].content)).toMatch(/\] \["AAA111","HAT001","2024-05-20","HAT001B"\]$/)
  })

  it('does nothing under tool_result_json_projection "off"', () => {
    expect(run({ tool_result_json_eager_after: 1 }).views).toEqual(run({}).views)
  })
})

describe('tool_result_json_projected_groups', () => {
  const turns = (): Message[] => {
    const out: Message[] = [user('I need my reservations')]
    for (const [i, id] of ['AAA111', 'BBB222', 'CCC333', 'DDD444'].entries()) out.push(lookup(`c${i}`), result(`c${i}`, record(id, `HAT00${i}`)), assistant(`Found reservation ${i + 1}.`), user(`ok ${i}`))
    return out
  }
  const viewAt = (raw: Record<string, unknown>): ReadonlyArray<Message> => {
    const step = stepFor({ protected_tool_results: 2, target_usage: 0.1, tool_result_json_projection: 'handles', ...raw })
    let state = makeInitialState()
    for (const message of turns()) state = step(state, added(message)).state
    return step(state, request({ tokenBudget: 1_500 })).view ?? []
  }

  it('"kept" (the default) keeps the projected groups through the removal levels; "removable" removes them as any group', () => {
    const kept = viewAt({})
    expect(kept.filter(isJsonProjection).length).toBeGreaterThan(0)
    expect(viewAt({ tool_result_json_projected_groups: 'kept' })).toEqual(kept)
    const removable = viewAt({ tool_result_json_projected_groups: 'removable' })
    expect(removable.filter((message) => message.role === 'tool')).toEqual([])
    expect(findPairingViolations(removable)).toEqual([])
  })
})
