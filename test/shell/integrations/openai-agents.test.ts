// The OpenAI Agents SDK integration (src/shell/integrations/openai-agents.ts) on the SDK's own item
// shapes: the filter's mapping both ways, the notice kept out of the input (a Session would store
// an inserted item), and the model-provider wrapper feeding one response's usage to the meter. The
// whole Runner loop against the fake provider is in test/framework-loops.test.ts.
import type { AgentInputItem, Model, ModelProvider, ModelResponse } from '@openai/agents'
import { Usage } from '@openai/agents'
import { describe, expect, it } from 'vitest'
import { InvalidRequestError } from '../../../src/core/errors.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { makeContextCallModelInputFilter, makeContextModelProvider } from '../../../src/shell/integrations/openai-agents.js'

const IMAGE = { type: 'input_image', image: 'data:image/png;base64,iVBORw0KGgo=' } as const

/** A run's input: a user turn with an image, rounds of reasoning + two calls + results (the first round's long), a last question. */
const runInput = (rounds: number): Array<AgentInputItem> => [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look at this and read the parser.' }, IMAGE] },
  ...Array.from({ length: rounds }, (_, n): Array<AgentInputItem> => [
    { type: 'reasoning', id: `rs_${n}`, content: [{ type: 'input_text', text: `Round ${n}: read two files.` }], providerData: { encrypted_content: `enc-${n}` } },
    { type: 'function_call', id: `fc_${n}_0`, callId: `call_${n}_0`, name: 'read_file', status: 'completed', arguments: JSON.stringify({ path: `a${n}.ts` }) },
    { type: 'function_call', id: `fc_${n}_1`, callId: `call_${n}_1`, name: 'read_file', status: 'completed', arguments: JSON.stringify({ path: `b${n}.ts` }) },
    { type: 'function_call_result', callId: `call_${n}_0`, name: 'read_file', status: 'completed', output: { type: 'text', text: `${'A'.repeat(n === 0 ? 12_000 : 200)} ${n}` } },
    { type: 'function_call_result', callId: `call_${n}_1`, name: 'read_file', status: 'completed', output: { type: 'text', text: `${'B'.repeat(n === 0 ? 12_000 : 200)} ${n}` } },
  ]).flat(),
  { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'The parser is in a0.ts.' }] },
  { type: 'message', role: 'user', content: 'Where is the lexer?' },
]

const INSTRUCTIONS = 'You are a careful coding agent.'

describe('makeContextCallModelInputFilter', () => {
  it('nothing to compact: the items returned are the objects the SDK passed, the instructions unchanged; the manager holds one tool group per round', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const filter = makeContextCallModelInputFilter(context)
    const input = runInput(2)
    const result = await filter({ modelData: { input, instructions: INSTRUCTIONS } })
    expect(result.instructions).toBe(INSTRUCTIONS)
    expect(result.input).toHaveLength(input.length)
    result.input.forEach((item, index) => expect(item).toBe(input[index]))
    const history = await context.getMessages()
    expect(history.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'tool', 'assistant', 'user'])
    expect(history[2].tool_calls).toEqual([
      { id: 'call_0_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a0.ts"}' } },
      { id: 'call_0_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"b0.ts"}' } },
    ])
  })

  it('compacted: old results truncated as copies keeping every field, reasoning items stay before their calls, the notice goes to the instructions and never into the input', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const filter = makeContextCallModelInputFilter(context, { tokenBudget: 6_000 })
    const input = runInput(6)
    const before = JSON.stringify(input)
    const result = await filter({ modelData: { input, instructions: INSTRUCTIONS } })
    expect(JSON.stringify(input)).toBe(before) // the SDK's items are never changed
    expect(result.instructions?.startsWith(`${INSTRUCTIONS}\n\n<system-reminder source="context-compaction">`)).toBe(true)
    expect(JSON.stringify(result.input)).not.toContain('system-reminder')
    const truncated = result.input.filter((item) => item.type === 'function_call_result' && JSON.stringify(item).includes('[truncated:'))
    expect(truncated.length).toBeGreaterThan(0)
    for (const item of truncated) {
      const original = input.find((candidate) => candidate.type === 'function_call_result' && candidate.callId === (item as { callId: string }).callId)
      expect(item).not.toBe(original)
      expect({ ...item, output: null }).toEqual({ ...original, output: null })
      expect((item as { output: { type: string } }).output.type).toBe('text')
    }
    // every item kept untouched is the SDK's object; every reasoning item is right before its round's first call
    for (const item of result.input) if (!truncated.includes(item)) expect(input).toContain(item)
    result.input.forEach((item, index) => {
      if (item.type === 'reasoning') expect(result.input[index + 1]).toMatchObject({ type: 'function_call', id: `fc_${String(item.id).slice(3)}_0` })
    })
    // every call has its result right after its assistant group (Chat rules in the manager's terms)
    const callIds = result.input.flatMap((item) => (item.type === 'function_call' ? [item.callId] : []))
    const resultIds = result.input.flatMap((item) => (item.type === 'function_call_result' ? [item.callId] : []))
    expect(resultIds).toEqual(callIds)
    expect(result.input.at(-1)).toBe(input.at(-1))
  })

  it('tool_result_json_whitespace "strip": the model is sent the stripped JSON result, as a copy of the item', async () => {
    const context = new ContextManager({ tool_result_json_whitespace: 'strip' }, { format: 'openai-chat' })
    const filter = makeContextCallModelInputFilter(context)
    const pretty = '{\n  "flight": "HAT069",\n  "seats": [1, 2]\n}'
    const input: Array<AgentInputItem> = [
      { type: 'message', role: 'user', content: 'find flights' },
      { type: 'function_call', id: 'fc_1', callId: 'call_1', name: 'search', status: 'completed', arguments: '{}' },
      { type: 'function_call_result', callId: 'call_1', name: 'search', status: 'completed', output: { type: 'text', text: pretty } },
    ]
    const result = await filter({ modelData: { input, instructions: INSTRUCTIONS } })
    expect(result.input[2]).toEqual({ type: 'function_call_result', callId: 'call_1', name: 'search', status: 'completed', output: { type: 'text', text: '{"flight":"HAT069","seats":[1,2]}' } })
    expect(input[2]).toMatchObject({ output: { type: 'text', text: pretty } }) // the SDK's item untouched
  })

  it('the next call appends what the run added; an input that does not continue (another run) replaces the history', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const filter = makeContextCallModelInputFilter(context)
    const input = runInput(1)
    await filter({ modelData: { input, instructions: INSTRUCTIONS } })
    const extended = [...input, { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'In lexer.ts.' }] } as AgentInputItem]
    await filter({ modelData: { input: structuredClone(extended), instructions: INSTRUCTIONS } })
    expect(await context.getMessages()).toHaveLength(1 + 6 + 1)
    await filter({ modelData: { input: [{ type: 'message', role: 'user', content: 'A new conversation.' }], instructions: INSTRUCTIONS } })
    expect((await context.getMessages()).map((message) => message.content)).toEqual([INSTRUCTIONS, 'A new conversation.'])
  })

  it('a manager in another format is refused with a typed error naming the field and the fix', () => {
    const context = new ContextManager({}, { format: 'openai-responses' })
    expect(() => makeContextCallModelInputFilter(context as never)).toThrow(InvalidRequestError)
    expect(() => makeContextModelProvider(context as never, { getModel: () => ({}) as never })).toThrow(/format: 'openai-chat'/)
  })
})

describe('makeContextModelProvider', () => {
  /** A model whose every response reports `inputTokens` with `cached` of them read from the cache. */
  const fakeModel = (inputTokens: number, cached: number): Model => ({
    async getResponse(): Promise<ModelResponse> {
      return { usage: new Usage({ requests: 1, inputTokens, outputTokens: 20, totalTokens: inputTokens + 20, inputTokensDetails: { cached_tokens: cached } }), output: [] }
    },
    async *getStreamedResponse() {
      yield { type: 'output_text_delta', delta: 'hi' }
      yield { type: 'response_done', response: { id: 'resp_1', usage: { requests: 1, inputTokens, outputTokens: 20, totalTokens: inputTokens + 20, inputTokensDetails: { cached_tokens: cached } }, output: [] } }
    },
  })

  it('feeds the usage of each response (getResponse, and the stream’s response_done) to the meter, never a running total', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const inner: ModelProvider = { getModel: () => fakeModel(6_000, 4_000) }
    const provider = makeContextModelProvider(context, inner)
    const model = await provider.getModel('gpt-5')
    const response = await model.getResponse({} as never)
    expect(response.usage.inputTokens).toBe(6_000) // passed through unchanged
    const events = []
    for await (const event of model.getStreamedResponse({} as never)) events.push(event)
    expect(events.map((event) => event.type)).toEqual(['output_text_delta', 'response_done'])
    await context.addMessage({ role: 'user', content: 'hi' })
    await context.getMessagesForRequest()
    // two responses of 6,000 input tokens each: the last reading is 6,000, not 12,000
    expect(context.lastTokenMeterStats?.measured_tokens).toBe(6_000)
    expect(context.lastTokenMeterStats?.cache_aggregates).toEqual({ events: 2, cache_read_tokens: 8_000, cache_write_tokens: 0 })
  })
})
