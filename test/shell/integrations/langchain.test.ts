// The LangChain.js v1 middleware (src/shell/integrations/langchain.ts) on the real message classes
// of @langchain/core, with a handler that records what it is given: the mapping both ways, the
// history sync (RemoveMessage through the agent's reducer), usage_metadata to the meter. The whole
// agent loop against the fake provider is in test/framework-loops.test.ts.
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { messagesStateReducer } from '@langchain/langgraph'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { makeContextLangChainMiddleware, type LangChainModelRequest } from '../../../src/shell/integrations/langchain.js'
import { InvalidRequestError } from '../../../src/core/errors.js'

const IMAGE = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }

/** A conversation with everything the mapping must keep: ids, kwargs, metadata, blocks, images, reasoning, tool calls. */
const conversation = (): Array<BaseMessage> => [
  new HumanMessage({ id: 'h1', content: [{ type: 'text', text: 'Look at this screenshot and read the parser.' }, IMAGE], additional_kwargs: { origin: 'web' } }),
  new AIMessage({
    id: 'a1',
    content: [
      { type: 'thinking', thinking: 'I should read the files.', signature: 'sig-1' },
      { type: 'text', text: 'Reading two files.' },
      { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'b.ts' } },
    ],
    tool_calls: [
      { id: 'call_1', name: 'read_file', args: { path: 'a.ts' }, type: 'tool_call' },
      { id: 'call_2', name: 'read_file', args: { path: 'b.ts' }, type: 'tool_call' },
    ],
    response_metadata: { model_provider: 'anthropic', stop_reason: 'tool_use' },
    additional_kwargs: { id: 'msg_1' },
    usage_metadata: { input_tokens: 100, output_tokens: 20, total_tokens: 120 },
  }),
  new ToolMessage({ id: 't1', tool_call_id: 'call_1', name: 'read_file', content: 'A'.repeat(24_000), status: 'success', artifact: { bytes: 24_000 }, metadata: { source: 'disk' } }),
  new ToolMessage({ id: 't2', tool_call_id: 'call_2', name: 'read_file', content: [{ type: 'text', text: 'B'.repeat(24_000) }, IMAGE], status: 'error' }),
  new AIMessage({ id: 'a2', content: [{ type: 'reasoning', reasoning: 'Both read.' }, { type: 'text', text: 'The tokenizer is in a.ts.' }] }),
  new HumanMessage({ id: 'h2', content: 'Thanks. Now where is the parser built?' }),
  // five more short rounds: the last five tool results are protected from truncation (SPEC 17)
  ...Array.from({ length: 5 }, (_, n) => [
    new AIMessage({ id: `r${n}`, content: '', tool_calls: [{ id: `call_r${n}`, name: 'read_file', args: { path: `r${n}.ts` }, type: 'tool_call' as const }] }),
    new ToolMessage({ id: `tr${n}`, tool_call_id: `call_r${n}`, name: 'read_file', content: `contents of r${n}.ts` }),
  ]).flat(),
  new AIMessage({ id: 'a3', content: 'The parser is built in r4.ts.' }),
]

/** Runs one model call through the middleware; returns what the handler was given. */
const call = async (
  middleware: ReturnType<typeof makeContextLangChainMiddleware>,
  messages: ReadonlyArray<BaseMessage>,
  answer: AIMessage = new AIMessage({ id: 'answer', content: 'ok', usage_metadata: { input_tokens: 5_000, output_tokens: 10, total_tokens: 5_010, input_token_details: { cache_read: 3_000, cache_creation: 1_200 } } }),
): Promise<{ readonly request: LangChainModelRequest & { readonly systemMessage: SystemMessage; readonly messages: ReadonlyArray<BaseMessage> }; readonly result: unknown }> => {
  let seen: unknown = null
  const systemMessage = new SystemMessage({ content: [{ type: 'text', text: 'You are a careful coding agent.', cache_control: { type: 'ephemeral' } }] })
  const request = { messages: [...messages], systemMessage, systemPrompt: 'You are a careful coding agent.', tools: [], state: { messages: [...messages] } }
  const result = await middleware.wrapModelCall(request, (given) => {
    seen = given
    return answer
  })
  return { request: seen as never, result }
}

describe('makeContextLangChainMiddleware', () => {
  it('the view is the agent’s own objects when nothing is compacted; the system message stays apart; the answer is returned as given', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context)
    const messages = conversation()
    const answer = new AIMessage({ id: 'x', content: 'done' })
    const { request, result } = await call(middleware, messages, answer)
    expect(result).toBe(answer)
    expect(request.messages).toHaveLength(messages.length)
    request.messages.forEach((message, index) => expect(message).toBe(messages[index]))
    // the manager holds the system message and the conversation in the Chat shape
    const history = await context.getMessages()
    expect(history.map((message) => message.role).slice(0, 7)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user'])
    expect(history).toHaveLength(1 + messages.length)
    expect(history[2].tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } },
    ])
    // the agent's messages were not touched
    expect(messages[2].content).toBe('A'.repeat(24_000))
  })

  it('a result cut at ingress (tool_result_ingress_cap_bytes) reaches the model cut: the ToolMessage is rebuilt with the stored text, images and fields kept', async () => {
    const context = new ContextManager({ tool_result_ingress_cap_bytes: 1_000 }, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context)
    const messages = conversation()
    const { request } = await call(middleware, messages)
    const byId = new Map(request.messages.map((message) => [message.id, message]))
    const t1 = byId.get('t1') as ToolMessage
    expect(t1).toBeInstanceOf(ToolMessage)
    expect(String(t1.content)).toMatch(/^A{1000}\n\[tool result cut at ingress: 1000 of 24000 bytes kept/)
    expect({ status: t1.status, artifact: t1.artifact, metadata: t1.metadata }).toEqual({ status: 'success', artifact: { bytes: 24_000 }, metadata: { source: 'disk' } })
    const blocks = (byId.get('t2') as ToolMessage).content as ReadonlyArray<Record<string, unknown>>
    expect(blocks.map((block) => block.type)).toEqual(['text', 'image'])
    expect(String(blocks[0].text)).toMatch(/^B{1000}\n\[tool result cut at ingress/)
    expect(byId.get('tr0')).toBe(messages[7]) // a result under the cap is the agent's own object
    expect(messages[2].content).toBe('A'.repeat(24_000))
  })

  it('a compacted view: a truncated ToolMessage keeps its class and every field but the text, images stay, the notice is a HumanMessage', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context, { tokenBudget: 9_000 })
    const messages = conversation()
    const { request } = await call(middleware, messages)
    const byId = new Map(request.messages.map((message) => [message.id, message]))
    const t1 = byId.get('t1') as ToolMessage
    expect(t1).toBeInstanceOf(ToolMessage)
    expect(t1).not.toBe(messages[2])
    expect(t1.content).toMatch(/^\[truncated: ~[\d,]+ tokens - call tool again if needed\] A+/)
    expect(String(t1.content).length).toBeLessThan(24_000)
    expect({ id: t1.id, tool_call_id: t1.tool_call_id, name: t1.name, status: t1.status, artifact: t1.artifact, metadata: t1.metadata }).toEqual({
      id: 't1',
      tool_call_id: 'call_1',
      name: 'read_file',
      status: 'success',
      artifact: { bytes: 24_000 },
      metadata: { source: 'disk' },
    })
    const t2 = byId.get('t2') as ToolMessage
    expect(t2).toBeInstanceOf(ToolMessage)
    expect(t2.status).toBe('error')
    const blocks = t2.content as ReadonlyArray<Record<string, unknown>>
    expect(blocks.map((block) => block.type)).toEqual(['text', 'image'])
    expect(String(blocks[0].text)).toMatch(/^\[truncated: /)
    expect(blocks[1]).toEqual(IMAGE)
    // the assistant turns (thinking with its signature, reasoning, tool_use blocks) are the agent's objects
    expect(byId.get('a1')).toBe(messages[1])
    expect(byId.get('a2')).toBe(messages[4])
    expect(byId.get('h1')).toBe(messages[0])
    const notice = request.messages.at(-1)
    expect(notice).toBeInstanceOf(HumanMessage)
    expect(notice?.content).toMatch(/^<system-reminder source="context-compaction">/)
    // the agent's messages are unchanged
    expect(messages[2].content).toBe('A'.repeat(24_000))
    expect((messages[3].content as ReadonlyArray<{ text?: string }>)[0].text).toBe('B'.repeat(24_000))
  })

  it('tool_result_json_whitespace "strip": the model is sent the stripped JSON result, as a copy of the agent’s ToolMessage', async () => {
    const context = new ContextManager({ tool_result_json_whitespace: 'strip' }, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context)
    const result = new ToolMessage({ id: 't1', tool_call_id: 'call_1', name: 'search', content: '{\n  "flight": "HAT069",\n  "seats": [1, 2]\n}' })
    const messages = [new HumanMessage({ id: 'u1', content: 'find flights' }), new AIMessage({ id: 'a1', content: '', tool_calls: [{ id: 'call_1', name: 'search', args: {}, type: 'tool_call' as const }] }), result]
    const { request } = await call(middleware, messages)
    const sent = request.messages[2] as ToolMessage
    expect(sent).toBeInstanceOf(ToolMessage)
    expect(sent.content).toBe('{"flight":"HAT069","seats":[1,2]}')
    expect(sent.tool_call_id).toBe('call_1')
    expect(result.content).toBe('{\n  "flight": "HAT069",\n  "seats": [1, 2]\n}') // the agent's message untouched
  })

  it('usage_metadata of the answer reaches the meter with its cache fields', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context)
    await call(middleware, conversation())
    await context.getMessagesForRequest()
    expect(context.lastTokenMeterStats?.measured_tokens).toBe(5_000)
    expect(context.lastTokenMeterStats?.cache_aggregates).toEqual({ events: 1, cache_read_tokens: 3_000, cache_write_tokens: 1_200 })
  })

  it('new messages are appended; a RemoveMessage applied by the agent’s reducer takes the message out of the manager’s history too', async () => {
    const context = new ContextManager({}, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context)
    let state = messagesStateReducer([], conversation())
    await call(middleware, state)
    expect(await context.getMessages()).toHaveLength(18)
    state = messagesStateReducer(state, [new HumanMessage({ id: 'h3', content: 'And the lexer?' })])
    await call(middleware, state)
    expect((await context.getMessages()).map((message) => message.content)).toContain('And the lexer?')
    expect(await context.getMessages()).toHaveLength(19)
    // the agent removes the first exchange's reasoning turn (a2) and the question h2
    state = messagesStateReducer(state, [new RemoveMessage({ id: 'a2' }), new RemoveMessage({ id: 'h2' })])
    const { request } = await call(middleware, state)
    const history = await context.getMessages()
    expect(history).toHaveLength(17)
    expect(JSON.stringify(history)).not.toContain('Thanks. Now where is the parser built?')
    expect(JSON.stringify(history)).not.toContain('Both read.')
    expect(request.messages.map((message) => message.id)).toEqual(state.map((message) => message.id))
    expect(request.messages.map((message) => message.id)).not.toContain('h2')
  })

  it('the notice is built with the class of the agent’s own human messages; the source never names the optional peer in a literal import a bundler would resolve', async () => {
    class AppHumanMessage extends HumanMessage {}
    const context = new ContextManager({}, { format: 'openai-chat' })
    const middleware = makeContextLangChainMiddleware(context, { tokenBudget: 9_000 })
    const messages = conversation().map((message) => (message instanceof HumanMessage ? new AppHumanMessage({ id: message.id, content: message.content as never }) : message))
    const { request } = await call(middleware, messages)
    const notice = request.messages.at(-1)
    expect(notice?.content).toMatch(/^<system-reminder source="context-compaction">/)
    expect(notice).toBeInstanceOf(AppHumanMessage)
    expect(notice?.id).toBeUndefined()
    const source = readFileSync(new URL('../../../src/shell/integrations/langchain.ts', import.meta.url), 'utf8')
    expect(source).not.toMatch(/import\(\s*['"`]@langchain/)
    expect(source).not.toMatch(/^import (?!type )[^\n]*from '(?:langchain|@langchain\/)/m)
  })

  it('a manager in another format is refused with a typed error naming the field and the fix', () => {
    const context = new ContextManager({}, { format: 'anthropic' })
    expect(() => makeContextLangChainMiddleware(context as never)).toThrow(InvalidRequestError)
    expect(() => makeContextLangChainMiddleware(context as never)).toThrow(/format: 'openai-chat'/)
  })
})
