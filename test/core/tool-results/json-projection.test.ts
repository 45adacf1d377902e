// Unit tests for src/core/tool-results/json-projection.ts and the ladder under
// `tool_result_json_projection` (docs/configuration.md, "JSON tool results by named fields"): which
// key names a history names, the named-fields form of a JSON result, the set frozen once a result
// leaves the protected ones, and a compaction that keeps the named fields of old JSON results
// (their groups staying through the removal levels) where the contract removes them.
import { isLeft } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../../src/core/codecs.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import type { Message } from '../../../src/core/messages/message.js'
import { holdsWord, isJsonProjection, projectJsonValue, resumeFrozenNamedKeys, toFrozenNamedKeys, toJsonProjectionText, toNamedKeys } from '../../../src/core/tool-results/json-projection.js'
import { added, assistant, call, fold, request, result, stepFor, user } from '../../support/core.js'

const reservation = (id: string, flight: string): string =>
  JSON.stringify({ reservation_id: id, status: 'active', flights: [{ flight_number: flight, origin: 'JFK', price: 120, note: 'x'.repeat(200) }], payment_history: [{ payment_id: `card_${id}`, amount: 120 }] })
const lookup = (id: string, callId: string, args: string): Message => ({ role: 'assistant', content: null, tool_calls: [{ ...call(callId, 'get_reservation_details', args) }] })

describe('toNamedKeys', () => {
  it('names a key when a value under it is a call argument or a whole word of user or assistant text', () => {
    const history: Message[] = [
      user('my reservation is ZFA04Y'),
      lookup('ZFA04Y', 'a', '{"reservation_id":"ZFA04Y"}'),
      result('a', reservation('ZFA04Y', 'HAT001')),
      assistant('You fly HAT001 from JFK.'),
    ]
    expect([...toNamedKeys(history)].sort()).toEqual(['flight_number', 'origin', 'reservation_id'])
  })

  it('ignores values shorter than 3 characters, parts of longer words, tool results and non-JSON results', () => {
    const history: Message[] = [
      result('a', '{"ok":"no","code":"HAT0012","kind":"xyz"}'),
      result('b', 'plain text xyz'),
      assistant('no, HAT00123 is not it'),
    ]
    expect([...toNamedKeys(history)]).toEqual([])
    expect(holdsWord('a HAT001, b', 'HAT001')).toBe(true)
    expect(holdsWord('HAT0012', 'HAT001')).toBe(false)
  })
})

describe('projectJsonValue and toJsonProjectionText', () => {
  it('keeps the subtrees under named keys with the objects and arrays leading to them, in order', () => {
    const value = { a: 1, list: [{ id: 'x', n: 2 }, { n: 3 }, { id: 'y' }], deep: { id: 'z', other: true } }
    expect(projectJsonValue(value, new Set(['id']))).toEqual({ list: [{ id: 'x' }, { id: 'y' }], deep: { id: 'z' } })
    expect(projectJsonValue(value, new Set(['deep']))).toEqual({ deep: { id: 'z', other: true } })
    expect(projectJsonValue(value, new Set(['missing']))).toBeUndefined()
  })

  it('null when nothing is named, the result is not JSON, or the form is not shorter', () => {
    const message = result('a', reservation('ZFA04Y', 'HAT001'))
    expect(toJsonProjectionText(message, new Set(['reservation_id']))).toBe('{"reservation_id":"ZFA04Y"}')
    expect(toJsonProjectionText(message, new Set())).toBeNull()
    expect(toJsonProjectionText(result('a', 'reservation_id: ZFA04Y'), new Set(['reservation_id']))).toBeNull()
    expect(toJsonProjectionText(result('a', '{"id":"x"}'), new Set(['id']))).toBeNull()
  })

  it('isJsonProjection tells the named-fields form from a head truncation', () => {
    expect(isJsonProjection({ role: 'tool', tool_call_id: 'a', _truncated: true, content: '[truncated: ~80 tokens - call tool again if needed] {"id":"x"}' })).toBe(true)
    expect(isJsonProjection({ role: 'tool', tool_call_id: 'a', _truncated: true, content: '[truncated: ~80 tokens - call tool again if needed] {"id":"x","n...' })).toBe(false)
    expect(isJsonProjection({ role: 'tool', tool_call_id: 'a', content: '{"id":"x"}' })).toBe(false)
  })

  it('the text form copies kept values as the tool wrote them: numbers, escapes and nested subtrees', () => {
    const content = '{\n  "amount": 1.50,\n  "big": 1E3,\n  "note": "words",\n  "name": "caf\\u00e9",\n  "fees": [ 0.10, { "x": -0.0 } ]\n}'
    expect(toJsonProjectionText({ role: 'tool', tool_call_id: 'a', content }, new Set(['amount', 'big', 'name', 'fees']))).toBe('{"amount":1.50,"big":1E3,"name":"caf\\u00e9","fees":[0.10,{"x":-0.0}]}')
  })
})

describe('toFrozenNamedKeys', () => {
  it('gives each JSON result the keys named up to its later-th later result, and none before that', () => {
    const history: Message[] = [
      lookup('A', 'a', '{"reservation_id":"AAA111"}'),
      result('a', reservation('AAA111', 'HAT001')),
      assistant('HAT001 it is'),
      lookup('B', 'b', '{"reservation_id":"BBB222"}'),
      result('b', reservation('BBB222', 'HAT002')),
      assistant('and card_BBB222 paid'),
    ]
    const one = toFrozenNamedKeys(history, 1)
    expect([...(one.get(history[1]) ?? [])].sort()).toEqual(['flight_number', 'reservation_id'])
    expect(one.has(history[4])).toBe(false)
    // frozen: more history does not change the first result's set
    const more = toFrozenNamedKeys([...history, assistant('x'), result('c', '{"q":"unsaid"}')], 1)
    expect([...(more.get(history[1]) ?? [])].sort()).toEqual(['flight_number', 'reservation_id'])
    expect([...(more.get(history[4]) ?? [])].sort()).toEqual(['flight_number', 'payment_id', 'reservation_id'])
    expect(toFrozenNamedKeys(history, 0).get(history[1])).toEqual(new Set(['reservation_id']))
  })

  it('resumeFrozenNamedKeys extends the walk of a prefix in place and starts over on another history', () => {
    const history: Message[] = [lookup('A', 'a', '{"reservation_id":"AAA111"}'), result('a', reservation('AAA111', 'HAT001')), assistant('HAT001 it is'), result('b', '{"q":1}')]
    const first = resumeFrozenNamedKeys(null, history.slice(0, 2), 1)
    expect(first.frozen.size).toBe(0)
    const next = resumeFrozenNamedKeys(first, history, 1)
    expect(next).toBe(first)
    expect(next.frozen).toEqual(toFrozenNamedKeys(history, 1))
    const other = resumeFrozenNamedKeys(next, [history[0], assistant('x'), ...history.slice(1)], 1)
    expect(other).not.toBe(next)
    expect(other.frozen).toEqual(toFrozenNamedKeys([history[0], assistant('x'), ...history.slice(1)], 1))
    expect(resumeFrozenNamedKeys(next, history, 2)).not.toBe(next)
  })
})

describe('tool_result_json_projection', () => {
  const turns = (): Message[] => {
    const out: Message[] = [user('I need my reservations')]
    for (const [i, id] of ['AAA111', 'BBB222', 'CCC333', 'DDD444'].entries()) {
      out.push(lookup(id, `c${i}`, JSON.stringify({ reservation_id: id })), result(`c${i}`, reservation(id, `HAT00${i}`)), assistant(`Reservation ${id} flies HAT00${i}.`), user(`ok ${i}`))
    }
    return out
  }
  const viewAt = (raw: Record<string, unknown>, budget: number): ReadonlyArray<Message> => {
    const step = stepFor({ protected_tool_results: 2, ...raw })
    const { state } = fold(step, turns().map((message) => added(message)))
    return step(state, request({ tokenBudget: budget })).view ?? []
  }

  it('"off" (the contract) and "named_keys" send the same view when nothing compacts', () => {
    expect(viewAt({ tool_result_json_projection: 'named_keys' }, 100_000)).toEqual(viewAt({}, 100_000))
  })

  it('"named_keys": a compaction keeps old JSON results as their named fields, groups whole, where the contract removes them', () => {
    const contract = viewAt({ target_usage: 0.1 }, 1_500)
    const projected = viewAt({ target_usage: 0.1, tool_result_json_projection: 'named_keys' }, 1_500)
    expect(contract.some((message) => message.role === 'tool')).toBe(false)
    expect(findPairingViolations(projected)).toEqual([])
    const kept = projected.filter((message) => message.role === 'tool')
    expect(kept.length).toBeGreaterThan(0)
    for (const message of kept) {
      expect(message.content).toMatch(/^\[truncated: ~\d+ tokens - call tool again if needed\] \{"reservation_id":"[A-D]{3}\d{3}","flights":\[\{"flight_number":"HAT00\d"/)
      expect(String(message.content)).not.toContain('xxxx')
      expect(String(message.content)).not.toContain('status')
    }
  })

  it('a named-fields form longer than the head the contract would keep is not used: the view is the contract\'s', () => {
    const raw = { target_usage: 0.1, truncate_chars: 20 }
    expect(viewAt({ ...raw, tool_result_json_projection: 'named_keys' }, 1_500)).toEqual(viewAt(raw, 1_500))
  })

  it('rejects an unknown value with the key named', () => {
    const decoded = decodeConfig({ tool_result_json_projection: 'all' })
    expect(isLeft(decoded) ? decoded.left.message : 'accepted').toMatch(/tool_result_json_projection.*"off", "named_keys", "handles" or "handle_values"/)
  })
})
