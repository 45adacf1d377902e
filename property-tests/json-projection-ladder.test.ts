// The ladder under `tool_result_json_projection: "named_keys"` and `"handles"` (src/core/compaction/ladder.ts,
// src/core/tool-results/json-projection.ts, json-handles.ts) keeps the view's promises on sessions whose tool
// results are JSON records named by the user and the agent (the shared property generators make
// text results only, where the key changes nothing): every view passes the pairing rules (SPEC
// 17.3) and holds the last user message verbatim (SPEC 6.4); a named-fields form is a
// sub-document of its result, no longer than the result's character budget under "named_keys"
// (whose strings all hold a handle under "handles"), and once sent it is sent the same at every
// later request (its key set is frozen; the handles form depends on the result alone); a request
// never changes the stored history; and a fresh reducer (empty memo) makes the same view and state
// from the same state as the warm one (the projection memo never changes a result).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { Config } from '../src/core/config.js'
import type { Event } from '../src/core/events.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import { codePointLength } from '../src/core/messages/text.js'
import type { Message } from '../src/core/messages/message.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import { makeStep } from '../src/core/reducer.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { toPlainArray } from '../src/core/messages/appendable.js'
import { isJsonProjection } from '../src/core/tool-results/json-projection.js'
import { holdsHandle } from '../src/core/compaction/reference-order.js'
import { isEphemeral, runProperty, stripSeq } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 40)
const NOW = '2026-01-01T00:00:00.000+00:00'
// Each key name has its own values, so the session names key names one at a time, as it goes.
const POOLS = { reservation_id: ['AAA111', 'BBB222'], flight_number: ['HAT001', 'HAT002'], payment_id: ['card_77', 'card_88'], status: ['active', 'cancelled'] }
const IDS = Object.values(POOLS).flat()

const recordArb = fc.record(
  {
    reservation_id: fc.constantFrom(...POOLS.reservation_id),
    status: fc.constantFrom(...POOLS.status),
    flights: fc.array(fc.record({ flight_number: fc.constantFrom(...POOLS.flight_number), price: fc.integer({ min: 1, max: 999 }), note: fc.string({ maxLength: 120 }) }), { maxLength: 3 }),
    payment: fc.record({ payment_id: fc.constantFrom(...POOLS.payment_id), amount: fc.integer({ min: 1, max: 9999 }) }),
  },
  { requiredKeys: [] },
)

interface Turn {
  readonly ask: string
  readonly say: string
  readonly results: ReadonlyArray<{ readonly value: unknown; readonly pretty: boolean; readonly text: boolean }>
  readonly budget: number | null
}

const turnArb: fc.Arbitrary<Turn> = fc.record({
  ask: fc.constantFrom(...IDS, 'my trip', 'my trip'),
  say: fc.constantFrom(...IDS, 'nothing new', 'nothing new', 'nothing new'),
  results: fc.array(fc.record({ value: fc.oneof(recordArb, fc.array(recordArb, { maxLength: 2 })), pretty: fc.boolean(), text: fc.boolean() }), { minLength: 1, maxLength: 2 }),
  budget: fc.option(fc.integer({ min: 200, max: 4000 }), { freq: 4 }),
})

const configArb = fc.record({
  tool_result_json_projection: fc.constantFrom('named_keys', 'handles'),
  protected_tool_results: fc.integer({ min: 0, max: 3 }),
  protected_recent: fc.constantFrom(0, 0.1, 0.3),
  target_usage: fc.constantFrom(0.1, 0.3, 0.5),
  truncate_chars: fc.constantFrom(40, 250, 1000),
  compaction_order: fc.constantFrom('oldest', 'least_referenced', 'least_referenced_per_token'),
  tool_result_truncation: fc.constantFrom('head', 'stub', 'mask'),
  tool_result_json_whitespace: fc.constantFrom('keep', 'strip'),
})

/** The events of a session: per turn a user message, the calls, their JSON (or text) results, the agent's answer, then a request. */
const toEvents = (turns: ReadonlyArray<Turn>): Event[] => {
  const events: Event[] = []
  const add = (message: Message): void => void events.push({ type: 'message_added', message, timestamp: NOW })
  turns.forEach((turn, t) => {
    add({ role: 'user', content: `what about ${turn.ask}?` })
    const ids = turn.results.map((_, k) => `c${t}_${k}`)
    add({ role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'get_reservation_details', arguments: JSON.stringify({ id: turn.ask }) } })) })
    turn.results.forEach((item, k) => {
      const json = JSON.stringify(item.value, null, item.pretty ? 2 : undefined)
      add({ role: 'tool', tool_call_id: ids[k], content: item.text ? `found: ${json}` : json })
    })
    add({ role: 'assistant', content: `${turn.say} it is.` })
    events.push({ type: 'request_received', tokenBudget: turn.budget, provider: null, providerGiven: false, systemPrompt: null, now: NOW })
  })
  return events
}

/** True when every leaf of `part` sits at the same place in `whole` (array items matched in order). */
const isSubDocument = (part: unknown, whole: unknown): boolean => {
  if (Array.isArray(part)) {
    if (!Array.isArray(whole)) return false
    let at = 0
    for (const item of part) {
      while (at < whole.length && !isSubDocument(item, whole[at])) at += 1
      if (at === whole.length) return false
      at += 1
    }
    return true
  }
  if (part !== null && typeof part === 'object') {
    if (whole === null || typeof whole !== 'object' || Array.isArray(whole)) return false
    return Object.entries(part).every(([key, value]) => Object.prototype.hasOwnProperty.call(whole, key) && isSubDocument(value, (whole as Record<string, unknown>)[key]))
  }
  return JSON.stringify(part) === JSON.stringify(whole)
}

const lastUser = (history: ReadonlyArray<Message>): Message | undefined => [...history].reverse().find((message) => message.role === 'user')

/** The string leaves of a parsed JSON value. */
const stringLeaves = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(stringLeaves) : value !== null && typeof value === 'object' ? Object.values(value).flatMap(stringLeaves) : []

describe('the ladder under tool_result_json_projection "named_keys" and "handles"', () => {
  it('keeps pairs, the last user message, sub-documents within budget, frozen forms, the history, and memo equivalence', () => {
    runProperty(
      'json projection: ladder',
      fc.property(configArb, fc.array(turnArb, { minLength: 1, maxLength: 12 }), (raw, turns) => {
        const decoded = decodeConfig(raw)
        if (decoded._tag === 'Left') throw new Error(decoded.left.message)
        const config: Config = decoded.right.config
        const step = makeStep({ config, estimate: makeCachedEstimator() })
        const sent = new Map<string, string>()
        let state: State = makeInitialState()
        for (const event of toEvents(turns)) {
          const result = step(state, event)
          if (event.type === 'request_received') {
            const where = `${JSON.stringify(raw)} at seq ${state.nextSeq}`
            const fresh = makeStep({ config, estimate: makeCachedEstimator() })(state, event)
            expect(JSON.stringify(fresh.view), `fresh memo, ${where}`).toBe(JSON.stringify(result.view))
            expect(JSON.stringify({ ...fresh.state, history: toPlainArray(fresh.state.history) }), `fresh memo state, ${where}`).toBe(JSON.stringify({ ...result.state, history: toPlainArray(result.state.history) }))
            expect(JSON.stringify(toPlainArray(result.state.history)), `history, ${where}`).toBe(JSON.stringify(toPlainArray(state.history)))
            const view = result.view ?? []
            expect(findPairingViolations(view), where).toEqual([])
            const last = lastUser(toPlainArray(state.history))
            if (last !== undefined) expect(view.filter((message) => !isEphemeral(message)).some((message) => JSON.stringify(message) === JSON.stringify(stripSeq(last))), `last user, ${where}`).toBe(true)
            for (const message of view) {
              if (message.role !== 'tool' || typeof message.content !== 'string') continue
              const id = String(message.tool_call_id)
              const before = sent.get(id)
              // a result once sent as its named fields is sent the same at every later request
              if (before !== undefined) expect(message.content, `frozen form of ${id}, ${where}`).toBe(before)
              if (!isJsonProjection(message)) continue
              sent.set(id, message.content)
              const original = toPlainArray(state.history).find((stored) => stored.role === 'tool' && stored.tool_call_id === id)
              const form = message.content.slice(message.content.indexOf('] ') + 2)
              expect(isSubDocument(JSON.parse(form), JSON.parse(String(original?.content))), `sub-document ${id}, ${where}`).toBe(true)
              if (config.tool_result_json_projection === 'named_keys') expect(codePointLength(form), `within truncate_chars, ${where}`).toBeLessThanOrEqual(config.truncate_chars)
              else for (const leaf of stringLeaves(JSON.parse(form))) expect(holdsHandle(leaf), `handle ${leaf}, ${where}`).toBe(true)
            }
          }
          state = result.state
        }
      }),
      numRuns,
    )
  })
})
