// Random agent sessions in every provider format, for the property tests: turns (user text,
// assistant turns with parallel tool calls, thinking, interrupted results, answers), the
// positions after which a request is made, and a small configuration; `render` gives a turn's
// native messages in a format.
import fc from 'fast-check'
import type { ProviderFormat } from '../src/core/formats/carrier.js'

export interface Call {
  readonly id: string
  readonly input: Readonly<Record<string, unknown>>
  readonly result: string
  readonly error: boolean
}
export type Turn =
  | { readonly kind: 'user'; readonly text: string }
  | { readonly kind: 'tools'; readonly thinking: boolean; readonly text: string; readonly calls: ReadonlyArray<Call>; readonly answered: number; readonly after: string | null }
  | { readonly kind: 'answer'; readonly thinking: boolean; readonly text: string }

export const wordsArb = (min: number, max: number) => fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', "it's", 'q"uote', 'ü', '😀', '\n'), { minLength: min, maxLength: max }).map((w) => w.join(' '))

const callArb = fc.record({ input: fc.dictionary(fc.constantFrom('path', 'q', 'n'), fc.oneof(fc.string({ maxLength: 8 }), fc.integer())), result: wordsArb(0, 300), error: fc.boolean() })

/** A session skeleton: turns, the positions after which a request is made, and the last group's answered count. */
export const makeSessionArb = (interrupted: boolean) => fc
  .record({
    turns: fc.array(
      fc.oneof(
        { arbitrary: wordsArb(1, 60).map((text): Turn => ({ kind: 'user', text })), weight: 2 },
        { arbitrary: fc.record({ thinking: fc.boolean(), text: wordsArb(0, 10), calls: fc.array(callArb, { minLength: 1, maxLength: 4 }), after: fc.option(wordsArb(1, 40), { nil: null }) }), weight: 4 },
        { arbitrary: fc.record({ thinking: fc.boolean(), text: wordsArb(1, 20) }).map((t): Turn => ({ kind: 'answer', ...t })), weight: 1 },
      ),
      { minLength: 1, maxLength: 14 },
    ),
    openAnswered: fc.nat(3),
    cuts: fc.array(fc.nat(4), { minLength: 14, maxLength: 14 }),
    requests: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
    config: fc.record({
      max_tokens: fc.integer({ min: 300, max: 9000 }),
      truncate_chars: fc.integer({ min: 40, max: 2000 }),
      protected_recent: fc.constantFrom(0.1, 0.3, 0.5),
      protected_tool_results: fc.nat(3),
      compaction_notice_enabled: fc.boolean(),
      replay_last_user_on_compaction: fc.boolean(),
    }),
  })
  .map(({ turns, openAnswered, cuts, requests, config }) => {
    let n = 0
    const shaped: Turn[] = [{ kind: 'user', text: 'start the task please' }]
    turns.forEach((turn, index) => {
      if ('calls' in turn) {
        const calls = turn.calls.map((call) => ({ ...call, id: `call_${(n += 1)}` }))
        const last = index === turns.length - 1
        // interrupted: a turn in the middle loses some of its results (an interrupted parallel turn)
        const answered = last ? Math.min(openAnswered, calls.length) : interrupted ? Math.min(cuts[index], calls.length) : calls.length
        shaped.push({ kind: 'tools', thinking: turn.thinking, text: turn.text, calls, answered, after: last ? null : turn.after })
      } else shaped.push(turn as Turn)
    })
    return { turns: shaped, requests, config }
  })
export const sessionArb = makeSessionArb(false)

export type Session = { readonly turns: ReadonlyArray<Turn>; readonly requests: ReadonlyArray<boolean>; readonly config: Record<string, unknown> }

const thinkingBlock = (i: number) => ({ type: 'thinking', thinking: `plan ${i}`, signature: `sig-${i}-EqQBCkgIAhAB` })

/** The native messages of a turn in `format`. */
export const render = (format: ProviderFormat, turn: Turn, i: number): ReadonlyArray<Record<string, unknown>> => {
  switch (format) {
    case 'anthropic':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'text', text: turn.text, cache_control: { type: 'ephemeral' } }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: [...(turn.thinking ? [thinkingBlock(i)] : []), { type: 'text', text: turn.text }] }]
      return [
        { role: 'assistant', content: [...(turn.thinking ? [thinkingBlock(i)] : []), ...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool_use', id: c.id, name: 'tool', input: c.input }))] },
        ...(turn.answered > 0 || turn.after !== null
          ? [{ role: 'user', content: [...turn.calls.slice(0, turn.answered).map((c, k) => ({ type: 'tool_result', tool_use_id: c.id, content: k % 2 === 0 ? c.result : [{ type: 'text', text: c.result }], ...(c.error ? { is_error: true } : {}) })), ...(turn.after !== null ? [{ type: 'text', text: turn.after }] : [])] }]
          : []),
      ]
    case 'ai-sdk':
      if (turn.kind === 'user') return [{ role: 'user', content: [{ type: 'text', text: turn.text }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: [...(turn.thinking ? [{ type: 'reasoning', text: `plan ${i}`, providerOptions: { anthropic: { signature: `sig-${i}` } } }] : []), { type: 'text', text: turn.text }] }]
      return [
        { role: 'assistant', content: [...(turn.thinking ? [{ type: 'reasoning', text: `plan ${i}`, providerOptions: { anthropic: { signature: `sig-${i}` } } }] : []), ...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: 'tool', input: c.input }))] },
        ...(turn.answered > 0
          ? [{ role: 'tool', content: turn.calls.slice(0, turn.answered).map((c, k) => ({ type: 'tool-result', toolCallId: c.id, toolName: 'tool', output: c.error ? { type: 'error-text', value: c.result } : k % 2 === 0 ? { type: 'text', value: c.result } : { type: 'json', value: { text: c.result } } })) }]
          : []),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
    case 'openai-responses':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'input_text', text: turn.text }] }]
      if (turn.kind === 'answer') return [...(turn.thinking ? [{ type: 'reasoning', id: `rs_${i}`, summary: [], encrypted_content: `enc-${i}` }] : []), { type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }]
      return [
        ...(turn.thinking ? [{ type: 'reasoning', id: `rs_${i}`, summary: [], encrypted_content: `enc-${i}` }] : []),
        ...(turn.text ? [{ type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }] : []),
        ...turn.calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: 'tool', arguments: JSON.stringify(c.input) })),
        ...turn.calls.slice(0, turn.answered).map((c) => ({ type: 'function_call_output', call_id: c.id, output: c.result })),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
    case 'openai-chat':
      if (turn.kind === 'user') return [{ role: 'user', content: i % 2 === 0 ? turn.text : [{ type: 'text', text: turn.text }] }]
      if (turn.kind === 'answer') return [{ role: 'assistant', content: turn.text }]
      return [
        { role: 'assistant', content: turn.text || null, tool_calls: turn.calls.map((c) => ({ id: c.id, type: 'function', function: { name: 'tool', arguments: JSON.stringify(c.input) } })) },
        ...turn.calls.slice(0, turn.answered).map((c) => ({ role: 'tool', tool_call_id: c.id, content: c.result })),
        ...(turn.after !== null ? [{ role: 'user', content: turn.after }] : []),
      ]
  }
}
