// The AI SDK integration (src/shell/integrations/ai-sdk.ts) with the SDK itself: `generateText`
// of ai@6 driving the SDK's own MockLanguageModelV3 through a multi-step tool loop, once with the
// prepareStep helper and once with the middleware under wrapLanguageModel (generate and stream).
// Every prompt the model receives must pass the AI SDK rules (findFormatViolations 'ai-sdk', the
// S1-S5 rules of tools/validate_formats.py); the meter must read the provider usage.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider'
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { findFormatViolations } from '../../../src/core/formats/dispatch.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { makeContextMiddleware, makeContextPrepareStep } from '../../../src/shell/integrations/ai-sdk.js'
import { memoryLogger } from '../../../src/shell/logger.js'

const TOOL_ROUNDS = 6

/** The provider usage of one call: the prompt's size (~4 characters a token), 1,000 tokens of it read from the cache. */
const usageOf = (params: LanguageModelV3CallOptions): LanguageModelV3Usage => {
  const total = Math.ceil(JSON.stringify(params.prompt).length / 4)
  const cacheRead = total > 2_000 ? 1_000 : 0
  return { inputTokens: { total, noCache: total - cacheRead, cacheRead, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: undefined } }
}

/** A scripted model: two parallel `read_file` calls for TOOL_ROUNDS calls, then a final text. */
const scriptedGenerate = (calls: { n: number }) => async (params: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
  const n = calls.n++
  const usage = usageOf(params)
  if (n >= TOOL_ROUNDS) return { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
  return {
    content: [0, 1].map((i) => ({ type: 'tool-call' as const, toolCallId: `call_${n}_${i}`, toolName: 'read_file', input: JSON.stringify({ path: `src/f${n}${i}.ts` }) })),
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage,
    warnings: [],
  }
}

const tools = {
  read_file: tool({
    description: 'Read a source file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }: { path: string }) =>
      Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${i} = compute(${i})`).join('\n'),
  }),
}

// the system prompt goes in the `system` option (the SDK warns about system messages in `messages`)
const system = 'You are a careful coding agent.'
const messages: Array<ModelMessage> = [{ role: 'user', content: 'Read the parser sources and tell me where the tokenizer is built.' }]

/** What every test checks: each prompt passes the AI SDK rules, the later ones are compacted, the meter read the usage. */
const expectValidCompactedPrompts = async (calls: ReadonlyArray<LanguageModelV3CallOptions>, context: ContextManager<'ai-sdk'>, answers = 0): Promise<void> => {
  expect(calls).toHaveLength(TOOL_ROUNDS + 1)
  for (const call of calls) expect(findFormatViolations('ai-sdk', call.prompt)).toEqual([])
  // the history holds the conversation (the user turn, then an assistant and a tool message per
  // round, plus the system message when the middleware saw it in the prompt, plus the final
  // answer when the helper adds it in the same turn); the last prompt is smaller
  const history = await context.getMessages()
  expect(history.filter((message) => message.role !== 'system')).toHaveLength(1 + TOOL_ROUNDS * 2 + answers)
  expect(JSON.stringify(calls.at(-1)?.prompt).length).toBeLessThan(JSON.stringify(history).length * 0.6)
  expect(calls.at(-1)?.prompt[0]).toEqual({ role: 'system', content: 'You are a careful coding agent.' })
}

describe('AI SDK prepareStep helper (generateText, ai@6, MockLanguageModelV3)', () => {
  it('every step gets the manager view; each step feeds its usage and response messages to the manager', async () => {
    const counter = { n: 0 }
    const model = new MockLanguageModelV3({ doGenerate: scriptedGenerate(counter) })
    const logger = memoryLogger()
    const context = new ContextManager({ token_meter: 'actual' }, { format: 'ai-sdk', logger })
    const result = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(20), prepareStep: makeContextPrepareStep(context, { tokenBudget: 4_000 }) })
    expect(result.text).toBe('Done.')
    await expectValidCompactedPrompts(model.doGenerateCalls, context)
    // the usage of step k is fed before step k+1: the last view's meter read step 6's usage
    const readings = model.doGenerateCalls.map((call) => usageOf(call).inputTokens.total)
    expect(context.lastTokenMeterStats?.measured_tokens).toBe(readings.at(-2))
    expect(context.lastCompactionStats).not.toBeNull()
    expect(logger.messages('warning').filter((message) => message.includes('ignored llm:response'))).toEqual([])
  })
})

describe('AI SDK helpers across calls', () => {
  it('tool_result_json_whitespace "strip": a next call (a new helper, as after a restore) continues the history whose tool results are stored stripped, never replaces it', async () => {
    const pretty = '{\n  "flight": "HAT069",\n  "seats": [1, 2]\n}'
    const context = new ContextManager({ tool_result_json_whitespace: 'strip' }, { format: 'ai-sdk', logger: memoryLogger() })
    let replaced = 0
    const setMessages = context.setMessages.bind(context)
    context.setMessages = async (given) => {
      replaced += 1
      return setMessages(given)
    }
    const turn: Array<ModelMessage> = [
      { role: 'user', content: 'find flights' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }, { type: 'tool-call', toolCallId: 'c2', toolName: 'seats', input: {} }] },
      { role: 'tool', content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: pretty } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'seats', output: { type: 'content', value: [{ type: 'text', text: pretty }] } },
      ] },
    ]
    await makeContextPrepareStep(context)({ stepNumber: 0, steps: [], messages: turn } as never)
    const next: Array<ModelMessage> = [...turn, { role: 'assistant', content: 'HAT069.' }, { role: 'user', content: 'And seats?' }]
    await makeContextPrepareStep(context)({ stepNumber: 0, steps: [], messages: next } as never)
    expect(replaced).toBe(0)
    expect(await context.getMessages()).toHaveLength(next.length)
  })

  it('a next user turn appends to the history, also through a restored session; a new conversation replaces it', async () => {
    const counter = { n: TOOL_ROUNDS - 1 } // one tool round, then the text
    const model = new MockLanguageModelV3({ doGenerate: scriptedGenerate(counter) })
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const first = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(5), prepareStep: makeContextPrepareStep(context) })
    const conversation: Array<ModelMessage> = [...messages, ...first.response.messages, { role: 'user', content: 'And the lexer?' }]
    expect(await context.getMessages()).toHaveLength(3) // user, assistant (calls), tool (results)

    const restored = await ContextManager.restore(JSON.parse(JSON.stringify(await context.snapshot())), { logger: memoryLogger() })
    counter.n = TOOL_ROUNDS
    await generateText({ model, system, messages: conversation, tools, prepareStep: makeContextPrepareStep(restored) })
    const history = await restored.getMessages()
    expect(history).toHaveLength(conversation.length)
    expect(JSON.parse(JSON.stringify(history))).toEqual(JSON.parse(JSON.stringify(conversation)))

    counter.n = TOOL_ROUNDS
    const helper = makeContextPrepareStep(restored)
    await generateText({ model, system, messages: [{ role: 'user', content: 'Start over.' }], prepareStep: helper })
    expect(await restored.getMessages()).toEqual([{ role: 'user', content: 'Start over.' }])
  })
})

describe('AI SDK language-model middleware (wrapLanguageModel)', () => {
  it('generate: the prompt is the manager view as a LanguageModelV3Prompt; LanguageModelV3Usage anchors the meter', async () => {
    const counter = { n: 0 }
    const inner = new MockLanguageModelV3({ doGenerate: scriptedGenerate(counter) })
    const context = new ContextManager({ token_meter: 'actual' }, { format: 'ai-sdk', logger: memoryLogger() })
    const model = wrapLanguageModel({ model: inner, middleware: makeContextMiddleware(context, { tokenBudget: 4_000 }) })
    const result = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(20) })
    expect(result.text).toBe('Done.')
    await expectValidCompactedPrompts(inner.doGenerateCalls, context, 1)
    // user and assistant content are part arrays, as LanguageModelV3Prompt requires
    for (const message of inner.doGenerateCalls.at(-1)?.prompt ?? []) if (message.role !== 'system') expect(Array.isArray(message.content)).toBe(true)
    await context.getMessagesForRequest({ tokenBudget: 4_000 })
    expect(context.lastTokenMeterStats?.measured_tokens).toBe(usageOf(inner.doGenerateCalls.at(-1) as LanguageModelV3CallOptions).inputTokens.total)
    expect(context.lastTokenMeterStats?.cache_aggregates?.events).toBe(TOOL_ROUNDS + 1)
  })

  it('stream: the finish part usage is fed to the manager; the stream reaches the caller unchanged', async () => {
    const streamed: Array<LanguageModelV3CallOptions> = []
    const inner = new MockLanguageModelV3({
      doStream: async (params) => {
        streamed.push(params)
        const parts: Array<LanguageModelV3StreamPart> = [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hello' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usageOf(params) },
        ]
        return { stream: new ReadableStream({ start: (controller) => { for (const part of parts) controller.enqueue(part); controller.close() } }) }
      },
    })
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const model = wrapLanguageModel({ model: inner, middleware: makeContextMiddleware(context) })
    const result = streamText({ model, system, messages })
    expect(await result.text).toBe('Hello')
    await context.getMessagesForRequest()
    expect(context.lastTokenMeterStats?.measured_tokens).toBe(usageOf(streamed[0]).inputTokens.total)
    // system, user and the streamed answer, added when the stream finished
    const history = await context.getMessages()
    expect(history).toHaveLength(3)
    expect(history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] })
  })

  /** A manager that counts the history replacements (setMessages) the helper makes. */
  const counting = () => {
    const context = new ContextManager({ token_meter: 'hybrid' }, { format: 'ai-sdk', logger: memoryLogger() })
    const replaced = { n: 0 }
    const setMessages = context.setMessages.bind(context)
    context.setMessages = (list) => {
      replaced.n += 1
      return setMessages(list)
    }
    return { context, replaced }
  }

  it('generate: the answer of a turn is in the history when generateText returns (a snapshot then has it); the next turn appends, nothing is replaced', async () => {
    const counter = { n: TOOL_ROUNDS - 1 } // one tool round, then the text
    const inner = new MockLanguageModelV3({ doGenerate: scriptedGenerate(counter) })
    const { context, replaced } = counting()
    const model = wrapLanguageModel({ model: inner, middleware: makeContextMiddleware(context) })
    let conversation: Array<ModelMessage> = []
    const sizes: Array<[number, number]> = []
    for (const question of ['Where is the lexer?', 'And the parser?', 'And the printer?']) {
      counter.n = TOOL_ROUNDS - 1
      conversation = [...conversation, { role: 'user', content: question }]
      const result = await generateText({ model, system, messages: conversation, tools, stopWhen: stepCountIs(5) })
      conversation = [...conversation, ...result.response.messages]
      const history = await context.getMessages()
      sizes.push([conversation.length, history.filter((message) => message.role !== 'system').length])
      const snapshot = JSON.parse(JSON.stringify(await context.snapshot())) as { state: { history: Array<unknown> } }
      expect(JSON.stringify(snapshot.state.history.at(-1))).toContain(result.text)
    }
    // each turn: user, assistant (calls), tool (results), assistant (answer)
    expect(sizes).toEqual([[4, 4], [8, 8], [12, 12]])
    expect(replaced.n).toBe(0)
  })

  it('stream: the streamed answer (text and reasoning deltas, provider metadata) is in the history when the stream ends; the next turn appends', async () => {
    const inner = new MockLanguageModelV3({
      doStream: async (params) => {
        const parts: Array<LanguageModelV3StreamPart> = [
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'Think' },
          { type: 'reasoning-delta', id: 'r', delta: ' first.' },
          { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig-1' } } },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hel' },
          { type: 'text-delta', id: 't', delta: 'lo' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usageOf(params) },
        ]
        return { stream: new ReadableStream({ start: (controller) => { for (const part of parts) controller.enqueue(part); controller.close() } }) }
      },
    })
    const { context, replaced } = counting()
    const model = wrapLanguageModel({ model: inner, middleware: makeContextMiddleware(context) })
    const first = streamText({ model, system, messages })
    expect(await first.text).toBe('Hello')
    const history = await context.getMessages()
    expect(history.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'reasoning', text: 'Think first.', providerOptions: { anthropic: { signature: 'sig-1' } } }, { type: 'text', text: 'Hello' }],
    })
    const conversation: Array<ModelMessage> = [...messages, ...(await first.response).messages, { role: 'user', content: 'Thanks. And the lexer?' }]
    const second = streamText({ model, system, messages: conversation })
    expect(await second.text).toBe('Hello')
    expect((await context.getMessages()).filter((message) => message.role !== 'system')).toHaveLength(conversation.length + 1)
    expect(replaced.n).toBe(0)
  })

  it('stream: a provider-executed call and its result are kept; the history and the next prompt hold the result the SDK holds', async () => {
    const prompts: Array<LanguageModelV3CallOptions> = []
    const inner = new MockLanguageModelV3({
      doStream: async (params) => {
        prompts.push(params)
        const parts: Array<LanguageModelV3StreamPart> = [
          { type: 'tool-call', toolCallId: 'srv_1', toolName: 'web_search', input: JSON.stringify({ query: 'lexer' }), providerExecuted: true },
          { type: 'tool-result', toolCallId: 'srv_1', toolName: 'web_search', result: [{ url: 'https://example.com/lexer', title: 'Lexer' }] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Found it.' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usageOf(params) },
        ]
        return { stream: new ReadableStream({ start: (controller) => { for (const part of parts) controller.enqueue(part); controller.close() } }) }
      },
    })
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const model = wrapLanguageModel({ model: inner, middleware: makeContextMiddleware(context) })
    const first = streamText({ model, system, messages })
    expect(await first.text).toBe('Found it.')
    const answer = (await first.response).messages
    expect(JSON.stringify(answer)).toContain('example.com/lexer')
    const conversation: Array<ModelMessage> = [...messages, ...answer, { role: 'user', content: 'And the parser?' }]
    const second = streamText({ model, system, messages: conversation })
    await second.text
    // the SDK's answer (call, result, text) is what the history holds, not a copy without the result
    const stored = (await context.getMessages()).filter((message) => message.role !== 'system')
    expect(JSON.parse(JSON.stringify(stored.slice(1, 1 + answer.length)))).toEqual(JSON.parse(JSON.stringify(answer)))
    expect(JSON.stringify(prompts[1]?.prompt)).toContain('example.com/lexer')
  })
})
