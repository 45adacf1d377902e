// Eager tail projection (`tool_result_json_eager_after`, src/core/compaction/eager-projection.ts,
// src/core/request/eager-projection.ts) on generated sessions whose tool results are JSON records
// sharing handles from a small pool: every view is valid (no pairing problem, tool groups whole),
// the stored history keeps every message as added (never loses history), a result once sent in
// its form is sent in the same form by every later view that holds it (the decision is sticky),
// a result sent whole is followed by fewer than N counted assistant messages or is not a record,
// and two runs send the same views.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isToolCallMessage } from '../src/core/compaction/tool-pairs.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import type { Message } from '../src/core/messages/message.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { isJsonProjection } from '../src/core/tool-results/json-projection.js'
import { toJsonHandlesText } from '../src/core/tool-results/json-handles.js'
import { added, request, stepFor } from '../test/support/core.js'
import { runProperty } from './arbitraries.js'
import { HANDLES, handleTurnArb, toHandleMessages, type HandleTurn } from './handle-turns.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** The turns' tool results as JSON records: the result's handles under keys, its padding as prose (some results left as text). */
const toRecordMessages = (turns: ReadonlyArray<HandleTurn>): Message[] =>
  toHandleMessages(turns, true).map((message, i) => {
    if (message.role !== 'tool' || typeof message.content !== 'string' || i % 5 === 4) return message
    const ids = HANDLES.filter((handle) => String(message.content).includes(handle))
    return { ...message, content: JSON.stringify({ ids, note: String(message.content).replace(/[^.]/g, '') || 'none', count: i }) }
  })

const settingsArb = fc.record({
  after: fc.integer({ min: 1, max: 3 }),
  unit: fc.constantFrom('answers', 'turns'),
  projection: fc.constantFrom('handles', 'handle_values', 'named_keys'),
  budget: fc.constantFrom(300, 1200, 100_000),
  order: fc.constantFrom('oldest', 'least_referenced'),
  groups: fc.constantFrom('kept', 'removable'),
})

const contentOf = (message: Message): string => JSON.stringify(message.content)

describe('eager tail projection', () => {
  it('views are valid, history is kept whole, forms are sticky, whole results are young or not records; deterministic', () => {
    runProperty(
      'eager projection: replayed views',
      fc.property(fc.array(handleTurnArb(300), { maxLength: 14 }), settingsArb, (turns, settings) => {
        const config = {
          tool_result_json_projection: settings.projection,
          tool_result_json_eager_after: settings.after,
          tool_result_json_eager_unit: settings.unit,
          compaction_order: settings.order,
          tool_result_json_projected_groups: settings.groups,
          protected_tool_results: 1,
        }
        const messages = toRecordMessages(turns)
        const where = JSON.stringify({ turns: turns.length, settings })
        const run = (): Array<Message[] | undefined> => {
          const step = stepFor(config)
          let state: State = makeInitialState()
          const views: Array<Message[] | undefined> = []
          const forms = new Map<string, string>()
          messages.forEach((message, at) => {
            state = step(state, added(message)).state
            const out = step(state, request({ tokenBudget: settings.budget }))
            state = out.state
            views.push(out.view === undefined ? undefined : [...out.view])
            // never loses history: the stored messages are the added ones, whole
            expect(state.history.map(contentOf), where).toEqual(messages.slice(0, at + 1).map(contentOf))
            if (out.view === undefined) return
            expect(findPairingViolations(out.view), where).toEqual([])
            const later = (id: unknown): number => {
              const start = messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === id)
              return messages.slice(start + 1, at + 1).filter((m) => m.role === 'assistant' && (settings.unit === 'turns' || !isToolCallMessage(m))).length
            }
            for (const sent of out.view) {
              if (sent.role !== 'tool') continue
              const id = String(sent.tool_call_id)
              const seen = forms.get(id)
              if (seen !== undefined && isJsonProjection({ ...sent, _truncated: true })) expect(contentOf(sent), where).toBe(seen)
              if (isJsonProjection({ ...sent, _truncated: true })) forms.set(id, contentOf(sent))
              const original = messages.find((m) => m.role === 'tool' && m.tool_call_id === sent.tool_call_id)
              // sent whole at N or more counted answers: only a result with no handles form (text, nothing kept)
              if (contentOf(sent) === contentOf(original as Message) && later(sent.tool_call_id) >= settings.after && settings.projection !== 'named_keys') {
                expect(toJsonHandlesText(String(original?.content)), where).toBeNull()
              }
            }
          })
          return views
        }
        const views = run()
        expect(run()).toEqual(views)
      }),
      numRuns,
    )
  })
})
