// The SDK example loops (examples/openai-agent-loop.ts, ...) with the real SDK clients against a
// fake provider on 127.0.0.1 (a free port, started here) that checks every request body against
// the provider's rules and answers with realistic usage, prompt-cache fields included. A view
// that broke a rule would make the provider answer 400 and the SDK throw.
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { run as runAnthropic } from '../examples/anthropic-agent-loop.js'
import { run as runOpenAI } from '../examples/openai-agent-loop.js'
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
})
