// The SDK example loops (examples/openai-agent-loop.ts, ...) with the real SDK clients against a
// fake provider on 127.0.0.1 (a free port, started here) that checks every request body against
// the provider's rules and answers with realistic usage, prompt-cache fields included. A view
// that broke a rule would make the provider answer 400 and the SDK throw.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { run as runAiSdk } from '../examples/ai-sdk-agent-loop.js'
import { run as runAnthropic } from '../examples/anthropic-agent-loop.js'
import { run as runOpenAI } from '../examples/openai-agent-loop.js'
import { run as runOpenAIResponses } from '../examples/openai-responses-agent-loop.js'
import { startFakeProvider, type FakeProviderServer } from './support/fake-provider-server.js'

let server: FakeProviderServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

describe('OpenAI SDK loop (openai@6, Chat Completions)', () => {
  it('every request passes the Chat rules while the view is compacted; the meter reads the completion usage as is', async () => {
    server = await startFakeProvider({ toolRounds: 6, parallelCalls: 2, tool: 'read_file' })
    const result = await runOpenAI({ baseURL: server.url, tokenBudget: 4_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.requests).toBe(7)
    expect(result.finalText).toBe('Done after 6 rounds of read_file.')
    // 2 + 6 × (1 assistant + 2 tool results) + the final answer
    expect(result.historyMessages).toBe(2 + 6 * 3 + 1)
    expect(result.compactions).toBeGreaterThan(0)
    expect(result.compactions).toBeLessThan(result.requests) // one per pass, not one per request after the first
    // the view sent was smaller than the history: old tool results were truncated or removed
    const last = server.requests.at(-1)?.body.messages as ReadonlyArray<unknown>
    expect(JSON.stringify(last).length).toBeLessThan(4 * 4_000 * 1.2)
    // the last reading is the provider's prompt_tokens (cached tokens are inside it)
    expect(result.lastMeasuredTokens).toBe(result.lastPromptTokens)
    expect(result.lastMeasuredTokens).toBe(server.usages.at(-1)?.promptTokens)
    const cacheRead = server.usages.reduce((sum, usage) => sum + usage.cacheRead, 0)
    expect(result.cacheAggregates).toEqual({ events: 7, cache_read_tokens: cacheRead, cache_write_tokens: 0 })
    expect(result.warnings).toEqual([])
  })
})

describe('OpenAI SDK loop (openai@6, Responses)', () => {
  it('every request passes the Responses rules while the view is compacted; reasoning items go back unaltered before their items; the meter reads response.usage', async () => {
    // a budget the conversation outgrows after a few calls: the prompt cache is read while the
    // view only grows, compaction removes the oldest rounds (reasoning, calls and outputs together)
    server = await startFakeProvider({ toolRounds: 9, parallelCalls: 2, tool: 'read_file' })
    const result = await runOpenAIResponses({ baseURL: server.url, tokenBudget: 8_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.requests).toBe(10)
    expect(result.finalText).toBe('Done after 9 rounds of read_file.')
    expect(result.reasoningItems).toBe(10)
    // the history holds items as added: 2 + 9 × (reasoning + 2 calls + 2 outputs) + the final reasoning and message
    expect(result.historyMessages).toBe(2 + 9 * 5 + 2)
    expect(result.compactions).toBeGreaterThan(0)
    expect(result.compactions).toBeLessThan(result.requests)
    const inputs = server.requests.map((request) => request.body.input as ReadonlyArray<Readonly<Record<string, unknown>>>)
    expect(JSON.stringify(inputs.at(-1)).length).toBeLessThan(4 * 8_000 * 1.2)
    // every reasoning item sent is one the server answered, byte for byte, in the order answered,
    // right before the item that followed it; compaction removed some of them with their calls
    const answered = new Map(server.reasoningItems.map((item) => [item.id, JSON.stringify(item)]))
    const order = server.reasoningItems.map((item) => item.id)
    const sentCounts = inputs.map((input) => {
      const sent = input.filter((item) => item.type === 'reasoning')
      expect(sent.map((item) => JSON.stringify(item))).toEqual(sent.map((item) => answered.get(item.id)))
      const positions = sent.map((item) => order.indexOf(item.id))
      expect(positions).toEqual([...positions].sort((a, b) => a - b))
      input.forEach((item, i) => {
        if (item.type === 'reasoning') expect(input[i + 1]).toMatchObject({ type: 'function_call', id: `fc_${String(item.id).slice(3)}_0` })
      })
      return sent.length
    })
    expect(sentCounts[0]).toBe(0)
    expect(sentCounts.at(-1)).toBeGreaterThan(0)
    expect(Math.min(...sentCounts.slice(1).map((count, i) => count - i - 1))).toBeLessThan(0) // some request left an answered one out
    // the meter's reading is the provider's input_tokens (cached tokens are inside it)
    expect(result.lastMeasuredTokens).toBe(result.lastInputTokens)
    expect(result.lastMeasuredTokens).toBe(server.usages.at(-1)?.promptTokens)
    // cached_tokens reach the meter's cache aggregates (OpenAI reports no cache writes)
    const cacheRead = server.usages.reduce((sum, usage) => sum + usage.cacheRead, 0)
    expect(cacheRead).toBeGreaterThan(0)
    expect(result.cacheAggregates).toEqual({ events: 10, cache_read_tokens: cacheRead, cache_write_tokens: 0 })
    expect(result.warnings).toEqual([])
  })
})

describe('Anthropic SDK loop (@anthropic-ai/sdk, Messages)', () => {
  it('every request passes the Anthropic rules while the view is compacted; the meter reads message.usage with its cache fields', async () => {
    // a budget the conversation outgrows after a few calls: the prompt cache is read while the
    // view only grows, then compaction starts
    server = await startFakeProvider({ toolRounds: 9, parallelCalls: 2, tool: 'read_file' })
    const result = await runAnthropic({ baseURL: server.url, tokenBudget: 12_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.requests).toBe(10)
    expect(result.finalText).toBe('Done after 9 rounds of read_file.')
    // system + user + 9 × (assistant turn + user turn of results) + the final answer
    expect(result.historyMessages).toBe(2 + 9 * 2 + 1)
    expect(result.compactions).toBeGreaterThan(0)
    expect(result.compactions).toBeLessThan(result.requests) // one per pass, not one per request after the first
    // the reading is the whole prompt: fresh + cache read + cache write, not input_tokens alone
    const last = server.usages.at(-1)
    expect(result.lastMeasuredTokens).toBe(last?.promptTokens)
    expect(result.lastMeasuredTokens).toBe(result.lastBilledTokens)
    expect(server.usages.some((usage) => usage.cacheRead > 0 && usage.cacheWrite > 0)).toBe(true)
    const sum = (key: 'cacheRead' | 'cacheWrite'): number => server!.usages.reduce((total, usage) => total + usage[key], 0)
    expect(result.cacheAggregates).toEqual({ events: 10, cache_read_tokens: sum('cacheRead'), cache_write_tokens: sum('cacheWrite') })
    expect(result.warnings).toEqual([])
  })
})

describe('AI SDK loop (ai@6 generateText with @ai-sdk/anthropic, makeContextSettings)', () => {
  it('every request the provider package sends passes the Anthropic rules while the view is compacted; the SDK keeps the whole conversation; the meter reads the step usage', async () => {
    // before this loop the ai-sdk helpers were run only on MockLanguageModelV3 (no provider package, no HTTP)
    server = await startFakeProvider({ toolRounds: 6, parallelCalls: 2, tool: 'read_file' })
    const result = await runAiSdk({ baseURL: server.url, tokenBudget: 4_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(server.requests.every((request) => request.path === '/v1/messages')).toBe(true)
    expect(result.requests).toBe(7)
    expect(result.finalText).toBe('Done after 6 rounds of read_file.')
    // user + 6 × (assistant + tool message) + the final answer: the manager follows the SDK's conversation
    expect(result.sdkMessages).toBe(1 + 6 * 2 + 1)
    expect(result.historyMessages).toBe(result.sdkMessages)
    expect(result.sdkToolResultsIntact).toBe(true)
    expect(result.compactions).toBeGreaterThan(0)
    expect(result.compactions).toBeLessThan(result.requests)
    // the view sent was smaller than the conversation: the last request holds fewer results than the SDK
    const sentResults = (server.requests.at(-1)?.body.messages as ReadonlyArray<{ readonly content: unknown }>).flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((block) => (block as { type?: string }).type === 'tool_result')
    expect(sentResults.length).toBeLessThan(12)
    // the system prompt went as Anthropic's system, not as a message
    expect(server.requests.every((request) => JSON.stringify(request.body.system).includes('careful coding agent'))).toBe(true)
    // the step's inputTokens (fresh + cache read + cache write) is the provider's whole prompt, and the meter's reading
    expect(result.lastInputTokens).toBe(server.usages.at(-1)?.promptTokens)
    expect(result.lastMeasuredTokens).toBe(result.lastInputTokens)
    const sum = (key: 'cacheRead' | 'cacheWrite'): number => server!.usages.reduce((total, usage) => total + usage[key], 0)
    expect(result.cacheAggregates).toEqual({ events: 7, cache_read_tokens: sum('cacheRead'), cache_write_tokens: sum('cacheWrite') })
    expect(result.warnings).toEqual([])
  })
})

describe('the fake provider refuses what the real one refuses', () => {
  it('an orphan tool result makes the OpenAI client throw a 400 naming the rule', async () => {
    server = await startFakeProvider({ toolRounds: 1, parallelCalls: 1, tool: 'read_file' })
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local-test', maxRetries: 0 })
    const request = client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_gone', content: 'result of a removed call' },
      ],
    })
    await expect(request).rejects.toMatchObject({ status: 400, message: expect.stringContaining('R') })
    expect(server.requests[0].violations.length).toBeGreaterThan(0)
  })

  it('more than 4 cache_control breakpoints make the Anthropic client throw a 400 with the API\'s message', async () => {
    server = await startFakeProvider({ toolRounds: 1, parallelCalls: 1, tool: 'read_file' })
    const client = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-local-test', maxRetries: 0 })
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } })
    const request = client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, system: [marked('s')], messages: [{ role: 'user', content: [marked('a'), marked('b'), marked('c'), marked('d')] }] })
    await expect(request).rejects.toMatchObject({ status: 400, message: expect.stringContaining('A maximum of 4 blocks with cache_control may be provided. Found 5.') })
  })

  it('a reasoning item sent back without its encrypted content (404, not found) or apart from its call (400) makes the Responses client throw', async () => {
    server = await startFakeProvider({ toolRounds: 1, parallelCalls: 1, tool: 'read_file' })
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local-test', maxRetries: 0 })
    const first = await client.responses.create({ model: 'gpt-5', input: 'hi', store: false, include: ['reasoning.encrypted_content'] })
    const [reasoning, call] = first.output
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: expect.any(String) })
    if (reasoning.type !== 'reasoning' || call.type !== 'function_call') throw new Error('expected a reasoning item and a call')
    const output = { type: 'function_call_output' as const, call_id: call.call_id, output: 'contents' }
    const stripped = client.responses.create({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'hi' }, { ...reasoning, encrypted_content: null }, call, output] })
    await expect(stripped).rejects.toMatchObject({ status: 404, message: expect.stringContaining('not found') })
    const apart = client.responses.create({ model: 'gpt-5', store: false, input: [{ role: 'user', content: 'hi' }, reasoning, { role: 'user', content: 'and?' }, call, output] })
    await expect(apart).rejects.toMatchObject({ status: 400, message: expect.stringContaining('without its required following item') })
    expect(server.requests.map((request) => request.violations.length)).toEqual([0, 1, 2])
  })
})
