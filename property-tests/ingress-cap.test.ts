// The ingress cap in every message format (docs/contract.md 17.15, src/core/tool-results/ingress-cap.ts):
// for any format, any cap and any tool-result turn (one to three results of any text, with the
// format's other blocks and keys), every tool-result text of the sent view is the given text when
// it fits the cap, else the longest prefix of whole code points within the cap plus the marker
// (an independent model on Buffer.byteLength); the sent view, the native history and the meter's
// estimate are exactly those of an uncapped session given the cut texts in place (so the rest of
// each message is intact and the meter counts what is sent); and a snapshot passed through JSON
// and restored gives the same view and estimate.
import fc from 'fast-check'
import { isLeft } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Config } from '../src/core/config.js'
import type { MessageFormat } from '../src/core/formats/carrier.js'
import { toFormatView, toNativeHistory } from '../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import type { Message } from '../src/core/messages/message.js'
import { makeStep } from '../src/core/reducer.js'
import { decodeSnapshot, toSnapshot } from '../src/core/snapshot/codec.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
const NOW = '2026-01-01T00:00:00.000+00:00'
const FORMATS = ['contract', 'openai-chat', 'anthropic', 'openai-responses', 'ai-sdk'] as const
type Format = (typeof FORMATS)[number]

/** The cut the cap's rule gives (docs/configuration.md), modelled on Buffer.byteLength and code points. */
const modelCut = (text: string, cap: number): string => {
  const bytes = Buffer.byteLength(text)
  if (bytes <= cap) return text
  let kept = ''
  let keptBytes = 0
  for (const point of text) {
    const size = Buffer.byteLength(point)
    if (keptBytes + size > cap) break
    kept += point
    keptBytes += size
  }
  return `${kept}\n[tool result cut at ingress: ${keptBytes} of ${bytes} bytes kept (tool_result_ingress_cap_bytes); call the tool again with a narrower request for the rest]`
}

/** One tool result: its text and the shape variant its format gives it (Anthropic: string or one text block; AI SDK: text, error-text or json output). */
interface Result {
  readonly text: string
  readonly variant: 0 | 1 | 2
}

const unit = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', ' ', '\n', '{', '"'), weight: 6 },
  { arbitrary: fc.constantFrom('é', '中', '😀', '\u{10FFFD}', '\ud800'), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 1 },
)
const resultArb: fc.Arbitrary<Result> = fc.record({ text: fc.string({ unit, maxLength: 160 }), variant: fc.constantFrom(0 as const, 1 as const, 2 as const) })

/** The text a result's piece holds (an AI SDK json output is its JSON text). */
const pieceText = (format: Format, result: Result): string => (format === 'ai-sdk' && result.variant === 2 ? JSON.stringify({ data: result.text }) : result.text)

/**
 * The messages of one session in `format`: a user turn, an assistant turn calling one tool per
 * result, and the results (`cut`: each result's text as a manager without the cap should be given
 * it, null = as the tool answered). `note`: an Anthropic text block after the results.
 */
const sessionOf = (format: Format, results: ReadonlyArray<Result>, note: boolean, cut: ReadonlyArray<string> | null): ReadonlyArray<Message> => {
  const ids = results.map((_, index) => `c${index}`)
  const textOf = (index: number): string => cut?.[index] ?? pieceText(format, results[index])
  const changed = (index: number): boolean => cut !== null && cut[index] !== pieceText(format, results[index])
  if (format === 'contract' || format === 'openai-chat') {
    return [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read', arguments: '{}' } })) },
      ...results.map((_, index) => ({ role: 'tool', tool_call_id: ids[index], content: textOf(index) })),
    ]
  }
  if (format === 'openai-responses') {
    return [
      { role: 'user', content: 'go' },
      ...ids.map((id) => ({ type: 'function_call', call_id: id, name: 'read', arguments: '{}' })),
      ...results.map((_, index) => ({ type: 'function_call_output', call_id: ids[index], output: textOf(index) })),
    ] as unknown as ReadonlyArray<Message>
  }
  if (format === 'anthropic') {
    const blocks: unknown[] = results.map((result, index) => {
      // a rebuilt (cut) result is sent with string content (src/core/formats/anthropic.ts)
      const content = result.variant === 1 && !changed(index) ? [{ type: 'text', text: textOf(index) }] : textOf(index)
      return result.variant === 2 ? { type: 'tool_result', tool_use_id: ids[index], content, is_error: true } : { type: 'tool_result', tool_use_id: ids[index], content }
    })
    if (note) blocks.push({ type: 'text', text: 'note after the results' })
    return [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'read', input: {} })) },
      { role: 'user', content: blocks },
    ]
  }
  const outputOf = (result: Result, index: number): Record<string, unknown> => {
    if (result.variant === 1) return { type: 'error-text', value: textOf(index) }
    if (result.variant === 2 && !changed(index)) return { type: 'json', value: { data: result.text } }
    return { type: 'text', value: textOf(index) }
  }
  return [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: ids.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'read', input: {} })) },
    { role: 'tool', content: results.map((result, index) => ({ type: 'tool-result', toolCallId: ids[index], toolName: 'read', output: outputOf(result, index) })) },
  ]
}

/** Every tool-result text of a sent view, in order. */
const sentTexts = (format: Format, sent: unknown): ReadonlyArray<string> => {
  const out: string[] = []
  const list = format === 'anthropic' ? (sent as { messages: ReadonlyArray<Record<string, unknown>> }).messages : (sent as ReadonlyArray<Record<string, unknown>>)
  for (const message of list) {
    if ((format === 'contract' || format === 'openai-chat') && message.role === 'tool') out.push(String(message.content))
    if (format === 'openai-responses' && message.type === 'function_call_output') out.push(String(message.output))
    if (!Array.isArray(message.content)) continue
    for (const block of message.content as ReadonlyArray<Record<string, unknown>>) {
      if (block.type === 'tool_result') out.push(typeof block.content === 'string' ? block.content : (block.content as ReadonlyArray<{ text: string }>).map((inner) => inner.text).join('\n'))
      if (block.type === 'tool-result') {
        const output = block.output as { type: string; value: unknown }
        out.push(typeof output.value === 'string' ? output.value : JSON.stringify(output.value))
      }
    }
  }
  return out
}

/** The state after `messages`, and the sent view and meter estimate of one request after them. */
const run = (config: Config, format: Format, messages: ReadonlyArray<Message>, start: State = makeInitialState()) => {
  const step = makeStep({ config, estimate: makeCachedEstimator(), ...(format === 'contract' ? {} : { format }) })
  let state = start
  for (const message of messages) state = step(state, { type: 'message_added', message, timestamp: NOW }).state
  const answer = step(state, { type: 'request_received', tokenBudget: null, provider: null, providerGiven: false, systemPrompt: null, now: NOW })
  return { state, sent: toFormatView(format as MessageFormat, answer.view ?? []), estimate: answer.state.meter.stats?.estimated_tokens }
}

describe('tool_result_ingress_cap_bytes (property)', () => {
  it('in every format: the sent tool-result texts follow the cap rule, the rest is as an uncapped session of the cut texts, and a snapshot round-trips', () => {
    runProperty(
      'ingress-cap-formats',
      fc.property(fc.constantFrom(...FORMATS), fc.integer({ min: 1, max: 400 }), fc.array(resultArb, { minLength: 1, maxLength: 3 }), fc.boolean(), (format, cap, results, note) => {
        const config: Config = { ...DEFAULT_CONFIG, max_tokens: 200_000, tool_result_ingress_cap_bytes: cap }
        const capped = run(config, format, sessionOf(format, results, note, null))
        const expected = results.map((result) => modelCut(pieceText(format, result), cap))
        expect(sentTexts(format, capped.sent)).toEqual(expected)
        for (const text of sentTexts(format, capped.sent)) {
          const marker = text.lastIndexOf('\n[tool result cut at ingress: ')
          if (marker >= 0 && text.endsWith('narrower request for the rest]')) expect(Buffer.byteLength(text.slice(0, marker))).toBeLessThanOrEqual(cap)
        }
        const reference = run({ ...config, tool_result_ingress_cap_bytes: null }, format, sessionOf(format, results, note, expected))
        expect(capped.sent).toEqual(reference.sent)
        expect(capped.estimate).toBe(reference.estimate)
        if (format !== 'contract') expect(toNativeHistory(format, capped.state.history)).toEqual(toNativeHistory(format, reference.state.history))
        const decoded = decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(config, capped.state, format))))
        if (isLeft(decoded)) throw decoded.left
        const restored = run(config, format, [], decoded.right.state)
        expect(restored.sent).toEqual(capped.sent)
        expect(restored.estimate).toBe(capped.estimate)
      }),
      numRuns,
    )
  })
})
