// The ingress cap in the provider formats (docs/contract.md 17.15, docs/configuration.md
// "The ingress cap"): every tool-result piece of an added message over
// `tool_result_ingress_cap_bytes` is cut, and its provider message is sent (and counted by the
// meter) with the cut text; the rest of the message is sent as added. Reference for "sent as if
// cut": a manager without the cap given the message with the cut text already in place.
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import type { ProviderFormat } from '../../../src/core/formats/carrier.js'
import { toFormatView } from '../../../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../../../src/core/meter/estimate.js'
import { makeStep } from '../../../src/core/reducer.js'
import { makeInitialState } from '../../../src/core/state.js'
import { fixedClock } from '../../../src/shell/clock.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { silentLogger } from '../../../src/shell/logger.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const big = 'x'.repeat(1000)
const other = 'y'.repeat(1000)
/** The cut form of a 1,000-byte result at a 100-byte cap (the marker of docs/configuration.md). */
const cutOf = (text: string): string =>
  `${text.slice(0, 100)}\n[tool result cut at ingress: 100 of ${Buffer.byteLength(text)} bytes kept (tool_result_ingress_cap_bytes); call the tool again with a narrower request for the rest]`

const chat = (result: string): ChatCompletionMessageParam[] => [
  { role: 'user', content: 'read it' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: result },
]
/** `secondAsBlocks`: the second result as one text block (as added) or as a string (as a rebuilt result is sent, src/core/formats/anthropic.ts). */
const anthropic = (first: string, second: string, secondAsBlocks = true): MessageParam[] => [
  { role: 'user', content: 'read both' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }, { type: 'tool_use', id: 't2', name: 'read', input: {} }] },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 't1', content: first, is_error: false },
      { type: 'tool_result', tool_use_id: 't2', content: secondAsBlocks ? [{ type: 'text', text: second }] : second, cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'and now summarise' },
    ],
  },
]
const responses = (result: string): ResponseInputItem[] => [
  { role: 'user', content: 'read it' },
  { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
  { type: 'function_call_output', call_id: 'c1', output: result },
]
const aiSdk = (first: string, second: string): ModelMessage[] => [
  { role: 'user', content: 'read both' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }, { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: {} }] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: first } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'error-text', value: second } },
    ],
  },
]

/** The session of each format: the messages as the tool answered, and as if it had answered the cut text. */
const SESSIONS: ReadonlyArray<{ readonly format: ProviderFormat; readonly given: ReadonlyArray<object>; readonly asCut: ReadonlyArray<object> }> = [
  { format: 'openai-chat', given: chat(big), asCut: chat(cutOf(big)) },
  { format: 'anthropic', given: anthropic(big, other), asCut: anthropic(cutOf(big), cutOf(other), false) },
  { format: 'openai-responses', given: responses(big), asCut: responses(cutOf(big)) },
  { format: 'ai-sdk', given: aiSdk(big, other), asCut: aiSdk(cutOf(big), cutOf(other)) },
]

const managerWith = async <F extends ProviderFormat>(format: F, cap: number | null, messages: ReadonlyArray<object>): Promise<ContextManager<F>> => {
  const manager = new ContextManager<F>({ max_tokens: 200_000, tool_result_ingress_cap_bytes: cap }, { format, clock, logger: silentLogger })
  for (const message of messages) await manager.addMessage(message as never)
  return manager
}

/** Every tool-result text of a provider view (Chat tool content, Anthropic tool_result content, Responses output, AI SDK output value). */
const toolTexts = (format: ProviderFormat, view: unknown): string[] => {
  const json = JSON.stringify(view)
  const texts: string[] = []
  JSON.parse(json, (key, value: unknown) => {
    if (typeof value === 'string' && /^[xy]{20}/.test(value)) texts.push(value)
    return value
  })
  return format === 'anthropic' || format === 'ai-sdk' ? texts : texts.slice(0, 1)
}

describe('tool_result_ingress_cap_bytes in the provider formats', () => {
  for (const { format, given, asCut } of SESSIONS) {
    it(`${format}: the sent view holds the cut text, as if the tool had answered it, and the meter counts that view`, async () => {
      const capped = await managerWith(format, 100, given)
      const reference = await managerWith(format, null, asCut)
      const view = await capped.getMessagesForRequest()
      expect(view).toEqual(await reference.getMessagesForRequest())
      for (const text of toolTexts(format, view)) expect(text).toBe(cutOf(text.startsWith('x') ? big : other))
      expect(toolTexts(format, view).length).toBe(format === 'anthropic' || format === 'ai-sdk' ? 2 : 1)
      expect(capped.lastTokenMeterStats?.estimated_tokens).toBe(reference.lastTokenMeterStats?.estimated_tokens)
      // and the uncapped session costs more: the cap changed what is counted, not only what is stored
      const whole = await managerWith(format, null, given)
      await whole.getMessagesForRequest()
      expect(whole.lastTokenMeterStats?.estimated_tokens ?? 0).toBeGreaterThan((capped.lastTokenMeterStats?.estimated_tokens ?? 0) + 150)
    })

    it(`${format}: the stored history is the cut form, never the view-only key, and snapshot/restore and setMessages keep the view`, async () => {
      const capped = await managerWith(format, 100, given)
      const view = await capped.getMessagesForRequest()
      const history = await capped.getMessages()
      expect(JSON.stringify(history)).not.toContain('_ingress_cut')
      expect(history).toEqual(await (await managerWith(format, null, asCut)).getMessages())
      const restored = await ContextManager.restore(await capped.snapshot(), { clock, logger: silentLogger })
      expect(await restored.getMessagesForRequest()).toEqual(view)
      const again = new ContextManager<ProviderFormat>({ max_tokens: 200_000, tool_result_ingress_cap_bytes: 100 }, { format, clock, logger: silentLogger })
      await again.setMessages(history as never)
      expect(await again.getMessagesForRequest()).toEqual(view)
    })
  }

  it('anthropic: a result under the cap, the text block and the other keys of the turn are sent as added', async () => {
    const capped = await managerWith('anthropic', 100, anthropic('short result', other))
    const view = await capped.getMessagesForRequest()
    expect(view.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'short result', is_error: false },
        { type: 'tool_result', tool_use_id: 't2', content: cutOf(other), cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'and now summarise' },
      ],
    })
  })

  it('off (the default) in every format: the result is stored and sent whole', async () => {
    for (const { format, given } of SESSIONS) {
      const manager = await managerWith(format, null, given)
      expect(toolTexts(format, await manager.getMessagesForRequest()).every((text) => text === big || text === other)).toBe(true)
    }
  })

  it('with a spill directory: each result of the turn is spilled, then cut and sent cut, naming its file', () => {
    const config: Config = { ...DEFAULT_CONFIG, tool_result_ingress_cap_bytes: 100, tool_result_spill_dir: '/tmp/spill' }
    const step = makeStep({ config, estimate: makeCachedEstimator(), format: 'anthropic' })
    let state = makeInitialState()
    const effects = []
    for (const message of anthropic(big, other)) {
      const result = step(state, { type: 'message_added', message: message as never, timestamp: '2026-01-01T00:00:00.000+00:00' })
      state = result.state
      effects.push(...result.effects)
    }
    const writes = effects.filter((effect) => effect.type === 'write_spill')
    expect(writes.map((write) => (write.type === 'write_spill' ? write.content : null))).toEqual([big, other])
    expect(JSON.stringify(toFormatView('anthropic', state.history))).toContain(big) // whole until written
    for (const write of writes) if (write.type === 'write_spill') state = step(state, { type: 'spill_written', path: write.path }).state
    const sent = toFormatView('anthropic', state.history).messages[2].content as ReadonlyArray<{ readonly content?: unknown }>
    for (const [index, write] of writes.entries()) {
      expect(sent[index].content).toContain(`the full output is in ${write.type === 'write_spill' ? write.path : ''}`)
      expect(String(sent[index].content).length).toBeLessThan(300)
    }
    expect(state.toolResults.ingressPending).toEqual({})
  })
})
