// Unit tests for src/core/tool-results/json-handles.ts and the ladder under
// `tool_result_json_projection: "handles"` (docs/configuration.md, "JSON tool results by named
// fields"): which fields of a JSON record the handles form keeps, that it copies them as written,
// which results are not records, and a compaction that keeps old records as their handles (groups
// staying through the removal levels) where the contract removes them.
import { describe, expect, it } from 'vitest'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'
import type { Message } from '../../../src/core/messages/message.js'
import { isJsonProjection } from '../../../src/core/tool-results/json-projection.js'
import { RECORD_STRING_MAX, toJsonHandlesText } from '../../../src/core/tool-results/json-handles.js'
import { added, assistant, call, fold, request, result, stepFor, user } from '../../support/core.js'

const reservation = (id: string, flight: string): string =>
  JSON.stringify({
    reservation_id: id,
    status: 'active',
    cabin: 'economy',
    flights: [{ flight_number: flight, origin: 'JFK', date: '2024-05-20', price: 120, note: 'window seat, please'.repeat(3) }],
    passengers: [{ first_name: 'Mia', last_name: 'Li' }],
    payment_history: [{ payment_id: `card_${id}`, amount: 120 }],
  })

describe('toJsonHandlesText', () => {
  it('keeps the string fields that hold a handle, with the keys, objects and arrays leading to them', () => {
    expect(toJsonHandlesText(reservation('ZFA04Y', 'HAT001'))).toBe(
      '{"reservation_id":"ZFA04Y","flights":[{"flight_number":"HAT001","date":"2024-05-20"}],"payment_history":[{"payment_id":"card_ZFA04Y"}]}',
    )
  })

  it('drops prose, numbers, booleans and nulls, and containers left empty', () => {
    expect(toJsonHandlesText('{"a":"plain words","b":12345,"c":true,"d":null,"e":{"f":"more words"},"g":["HAT001",7]}')).toBe('{"g":["HAT001"]}')
  })

  it('copies kept keys and values as written: escapes and whitespace inside strings stay, whitespace between tokens goes', () => {
    const content = '{\n  "path": "src\\/a.ts",\n  "caf\\u00e9": "id_\\u00e91",\n  "note": "two words"\n}'
    expect(toJsonHandlesText(content)).toBe('{"path":"src\\/a.ts","caf\\u00e9":"id_\\u00e91"}')
  })

  it('reads arrays at the top and nested arrays', () => {
    expect(toJsonHandlesText('[{"id_a":"x_1","n":"none"},[],["a/b","c"]]')).toBe('[{"id_a":"x_1"},["a/b"]]')
  })

  it('is null for results that are not records: a long string, text, invalid JSON, nothing kept, or nothing saved', () => {
    expect(toJsonHandlesText(JSON.stringify({ output: `HAT001 ${'x'.repeat(RECORD_STRING_MAX)}` }))).toBeNull()
    expect(toJsonHandlesText(JSON.stringify({ output: `HAT001 ${'x'.repeat(RECORD_STRING_MAX - 7)}`, note: 'two words' }))).not.toBeNull()
    expect(toJsonHandlesText('found HAT001')).toBeNull()
    expect(toJsonHandlesText('{"a":')).toBeNull()
    expect(toJsonHandlesText('{"status":"active","price":120}')).toBeNull()
    expect(toJsonHandlesText('{"id":"HAT001"}')).toBeNull()
    expect(toJsonHandlesText('"HAT001"')).toBeNull()
  })

  it('is null for nesting deeper than it reads', () => {
    const deep = `${'['.repeat(70)}"HAT001"${']'.repeat(70)}`
    expect(toJsonHandlesText(deep)).toBeNull()
    const shallow = `${'['.repeat(10)}"HAT001","words here"${']'.repeat(10)}`
    expect(toJsonHandlesText(shallow)).toBe(`${'['.repeat(10)}"HAT001"${']'.repeat(10)}`)
  })
})

describe('tool_result_json_projection "handles"', () => {
  const lookup = (callId: string, args: string): Message => ({ role: 'assistant', content: null, tool_calls: [{ ...call(callId, 'get_reservation_details', args) }] })
  const turns = (): Message[] => {
    const out: Message[] = [user('I need my reservations')]
    for (const [i, id] of ['AAA111', 'BBB222', 'CCC333', 'DDD444'].entries()) {
      out.push(lookup(`c${i}`, JSON.stringify({ reservation_id: id })), result(`c${i}`, reservation(id, `HAT00${i}`)), assistant(`Found reservation ${i + 1}.`), user(`ok ${i}`))
    }
    return out
  }
  const viewAt = (raw: Record<string, unknown>, budget: number): ReadonlyArray<Message> => {
    const step = stepFor({ protected_tool_results: 2, ...raw })
    const { state } = fold(step, turns().map((message) => added(message)))
    return step(state, request({ tokenBudget: budget })).view ?? []
  }

  it('"off" (the contract) and "handles" send the same view when nothing compacts', () => {
    expect(viewAt({ tool_result_json_projection: 'handles' }, 100_000)).toEqual(viewAt({}, 100_000))
  })

  it('a compaction keeps old JSON records as their handles, groups whole, where the contract removes them', () => {
    const contract = viewAt({ target_usage: 0.1 }, 1_500)
    const projected = viewAt({ target_usage: 0.1, tool_result_json_projection: 'handles' }, 1_500)
    expect(contract.some((message) => message.role === 'tool')).toBe(false)
    expect(findPairingViolations(projected)).toEqual([])
    const kept = projected.filter((message) => message.role === 'tool')
    expect(kept.length).toBeGreaterThan(0)
    for (const message of kept) {
      expect(isJsonProjection(message)).toBe(true)
      expect(message.content).toMatch(/^\[truncated: ~\d+ tokens - call tool again if needed\] \{"reservation_id":"[A-D]{3}\d{3}","flights":\[\{"flight_number":"HAT00\d","date":"2024-05-20"\}\]/)
      expect(String(message.content)).not.toContain('economy')
      expect(String(message.content)).not.toContain('window seat')
    }
  })

  it('a handles form longer than the head the contract keeps is still used (unlike "named_keys")', () => {
    const projected = viewAt({ target_usage: 0.1, truncate_chars: 20, tool_result_json_projection: 'handles' }, 1_500)
    expect(projected.filter((message) => message.role === 'tool' && isJsonProjection(message)).length).toBeGreaterThan(0)
  })

  it('a result of an exempt tool is never projected', () => {
    const view = viewAt({ target_usage: 0.1, tool_result_json_projection: 'handles', tool_result_exempt_tools: ['get_reservation_details'] }, 1_500)
    expect(view.some((message) => isJsonProjection(message))).toBe(false)
  })
})
