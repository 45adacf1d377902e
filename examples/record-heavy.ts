/**
 * Example: an agent whose tools answer with JSON records (a customer-service loop, as in
 * tau-bench) under `presets.recommended`. Once records fill half the room beyond the system prompt
 * (`compact_early_threshold` 0.5), the early pass compacts well before `compact_threshold`, and the
 * records it shortens keep their handle strings (`tool_result_json_projection`
 * `"handle_values"`: ids, codes, dates), so the ids the agent quotes next are still in the view.
 * The records are sent as JSON strings with no string over 160 characters: one longer string (a
 * description, notes) would make a result text, outside the early pass. With the same messages
 * and the three keys back to the contract's values, the first compaction comes later and removes
 * old records whole. See docs/configuration.md, "The early pass".
 *
 *   npm run example -- record-heavy
 */
import { ContextManager, makeMittHooks, memoryLogger, presets, type Message } from '../src/index.js'

/** What `run` reports for one configuration; `test/examples.test.ts` asserts on it. */
export interface RecordHeavyRun {
  /** The meter's ratio (used tokens / E) at the request of the first compaction, or null. */
  readonly firstCompactionRatio: number | null
  /** The number of requests that compacted. */
  readonly compactions: number
  /** The reservation ids of the first records that the last view still holds, in order. */
  readonly idsInLastView: ReadonlyArray<string>
  /** Whether the last view still holds the first record's flight number. */
  readonly firstFlightInLastView: boolean
  /** The last view's tool results shortened by the library (`[truncated: ...]`). */
  readonly shortenedResults: number
}

/** `run`'s result: `recommended`, and the same with the early pass's three keys at the contract's values. */
export interface RecordHeavyResult {
  readonly recommended: RecordHeavyRun
  readonly withoutEarlyPass: RecordHeavyRun
}

const SYSTEM = 'You are an airline agent. Look reservations up before answering; quote reservation ids and flight numbers exactly.'

/** One reservation record as a tool would return it: pretty-printed JSON, short strings (ids, codes, dates, names). */
const reservation = (n: number): string =>
  JSON.stringify(
    {
      reservation_id: `RES${100 + n}`,
      user_id: 'mia_li_3668',
      origin: 'JFK',
      destination: 'SEA',
      flight_type: 'round_trip',
      cabin: 'economy',
      flights: [
        { flight_number: `HAT${200 + n}`, origin: 'JFK', destination: 'SEA', date: '2024-05-20', price: 120 + n },
        { flight_number: `HAT${300 + n}`, origin: 'SEA', destination: 'JFK', date: '2024-05-27', price: 130 + n },
      ],
      passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05' }],
      payment_history: [{ payment_id: `credit_card_${4421486 + n}`, amount: 250 + 2 * n }],
      created_at: '2024-05-01T10:00:00',
      total_baggages: 1,
      nonfree_baggages: 0,
      insurance: 'no',
    },
    null,
    2,
  )

/** Twelve turns: the user asks about a trip, the agent looks it up and answers. */
const conversation = (): Message[] => {
  const messages: Message[] = [{ role: 'user', content: 'Hi, I want to review my trips.' }]
  for (let n = 1; n <= 12; n += 1) {
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'get_reservation_details', arguments: JSON.stringify({ reservation_id: `RES${100 + n}` }) } }] },
      { role: 'tool', tool_call_id: `call_${n}`, content: reservation(n) },
      { role: 'assistant', content: `Reservation RES${100 + n} is on flight HAT${200 + n}.` },
      { role: 'user', content: n < 12 ? `Thanks. And my trip number ${n + 1}?` : 'Which flight was my first reservation on?' },
    )
  }
  return messages
}

const replay = async (config: Readonly<Record<string, unknown>>): Promise<RecordHeavyRun> => {
  const hooks = makeMittHooks()
  let compactions = 0
  hooks.register('context:compaction', () => {
    compactions += 1
  })
  const manager = new ContextManager(config, { hooks, logger: memoryLogger() })
  await manager.addMessage({ role: 'system', content: SYSTEM })
  let firstCompactionRatio: number | null = null
  let view: ReadonlyArray<Message> = []
  for (const message of conversation()) {
    await manager.addMessage(message)
    const before = compactions
    view = await manager.getMessagesForRequest({ tokenBudget: 3_000 })
    if (compactions > before) firstCompactionRatio ??= manager.lastTokenMeterStats?.ratio ?? null
  }
  const text = JSON.stringify(view)
  return {
    firstCompactionRatio,
    compactions,
    idsInLastView: [1, 2, 3, 4, 5, 6].map((n) => `RES${100 + n}`).filter((id) => text.includes(id)),
    firstFlightInLastView: text.includes('HAT201'),
    shortenedResults: view.filter((message) => message.role === 'tool' && typeof message.content === 'string' && message.content.startsWith('[truncated:')).length,
  }
}

/** Replays the same conversation under `presets.recommended` and without its early pass. */
export const run = async (): Promise<RecordHeavyResult> => ({
  recommended: await replay(presets.recommended),
  withoutEarlyPass: await replay({ ...presets.recommended, tool_result_json_projection: 'off', tool_result_json_projected_groups: 'kept', compact_early_threshold: null }),
})
