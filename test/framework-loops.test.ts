// The agent-framework loops (examples/langchain-agent-loop.ts, ...): the framework runs its own
// loop with the library's drop-in, the real chat model client talks to the fake provider on
// 127.0.0.1 (test/support/fake-provider-server.ts), which checks every request against the
// provider's rules and answers with usage computed from the request, prompt-cache fields included.
import { afterEach, describe, expect, it } from 'vitest'
import { run as runLangChain } from '../examples/langchain-agent-loop.js'
import { run as runAgents } from '../examples/openai-agents-loop.js'
import { startFakeProvider, type FakeProviderServer } from './support/fake-provider-server.js'

let server: FakeProviderServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const sum = (key: 'cacheRead' | 'cacheWrite'): number => server!.usages.reduce((total, usage) => total + usage[key], 0)

describe('LangChain.js v1 agent (createAgent + ChatAnthropic) with makeContextLangChainMiddleware', () => {
  it('12 tool rounds at 6,000 tokens: every request passes the Anthropic rules, several compactions, the agent state only grows and keeps every full result, the meter reads usage_metadata', async () => {
    server = await startFakeProvider({ toolRounds: 12, parallelCalls: 2, tool: 'read_file' })
    const result = await runLangChain({ baseURL: server.url, tokenBudget: 6_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.finalText).toBe('Done after 12 rounds of read_file.')
    expect(result.requests).toBe(13)
    expect(server.requests).toHaveLength(13)
    expect(result.compactions).toBeGreaterThanOrEqual(3)
    expect(result.compactions).toBeLessThan(result.requests)
    // the agent's state: the task, 12 × (answer + 2 results), the final answer; never edited or shortened
    expect(result.stateMessages).toBe(1 + 12 * 3 + 1)
    expect(result.stateOnlyGrew).toBe(true)
    expect(result.stateToolResultsIntact).toBe(true)
    // the manager's history is the agent's (system first) up to the last call
    expect(result.historyMessages).toBe(1 + 1 + 12 * 3)
    // what was sent stayed near the budget while the state grew past it (~4 characters a token)
    const sent = server.requests.map((request) => JSON.stringify(request.body.messages).length)
    expect(Math.max(...sent)).toBeLessThan(4 * 6_000 * 1.2)
    expect(server.usages.at(-1)!.promptTokens).toBeLessThan(6_000)
    // the meter: the last usage_metadata.input_tokens is the provider's whole prompt (fresh + cache read + cache write)
    expect(result.lastInputTokens).toBe(server.usages.at(-1)?.promptTokens)
    expect(result.lastMeasuredTokens).toBe(result.lastInputTokens)
    expect(sum('cacheRead')).toBeGreaterThan(0)
    expect(result.cacheAggregates).toEqual({ events: 13, cache_read_tokens: sum('cacheRead'), cache_write_tokens: sum('cacheWrite') })
    expect([result.cacheReadTokens, result.cacheCreationTokens]).toEqual([sum('cacheRead'), sum('cacheWrite')])
    expect(result.warnings).toEqual([])
  })

  it('for comparison: with no middleware the prompt grows past the budget; with trimMessages the conversation is trimmed to nothing and the provider refuses the request; summarizationMiddleware rewrites the agent’s state', async () => {
    server = await startFakeProvider({ toolRounds: 12, parallelCalls: 2, tool: 'read_file' })
    const none = await runLangChain({ baseURL: server.url, tokenBudget: 6_000, middleware: 'none' })
    expect(none.requests).toBe(13)
    expect(server.requests.flatMap((request) => request.violations)).toEqual([])
    expect(server.usages.at(-1)!.promptTokens).toBeGreaterThan(3 * 6_000)
    await server.close()
    server = await startFakeProvider({ toolRounds: 12, parallelCalls: 2, tool: 'read_file' })
    const trim = await runLangChain({ baseURL: server.url, tokenBudget: 6_000, middleware: 'trim' })
    // trimMessages (strategy last, startOn human) cannot keep the only human message once the
    // conversation outgrows the budget: the request carries no message and the API answers 400
    expect(trim.finalText).toMatch(/^failed: 400 .*at least one message/)
    expect(server.requests.at(-1)?.body.messages).toEqual([])
    expect(server.requests.filter((request) => request.violations.length > 0)).toHaveLength(1)
    expect(trim.requests).toBe(server.requests.length - 1)
    await server.close()
    // summarizationMiddleware (LangChain's other answer): valid requests, but it rewrites the
    // agent's state (the summary replaces the messages it covers) and makes model calls of its own
    server = await startFakeProvider({ toolRounds: 12, parallelCalls: 2, tool: 'read_file' })
    const summarizer = await startFakeProvider({ toolRounds: 0, parallelCalls: 1, tool: 'read_file' })
    try {
      const summarized = await runLangChain({ baseURL: server.url, summarizerBaseURL: summarizer.url, tokenBudget: 6_000, middleware: 'summarization' })
      expect(server.requests.flatMap((request) => request.violations)).toEqual([])
      expect(summarized.finalText).toBe('Done after 12 rounds of read_file.')
      expect(summarized.stateOnlyGrew).toBe(false)
      expect(summarized.stateMessages).toBeLessThan(1 + 12 * 3 + 1)
      expect(summarizer.requests.length).toBeGreaterThan(0)
    } finally {
      await summarizer.close()
    }
  })
})

describe('OpenAI Agents SDK (@openai/agents 0.14.3, Runner + MemorySession) with makeContextCallModelInputFilter and makeContextModelProvider', () => {
  it('two runs of 10 tool rounds in one session at 8,000 tokens (Chat Completions): no rule violation, several compactions, the session holds exactly what a run without the filter stores, the meter reads each response’s usage', async () => {
    server = await startFakeProvider({ toolRounds: 10, parallelCalls: 2, tool: 'read_file' })
    const result = await runAgents({ baseURL: server.url, tokenBudget: 8_000 })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.outputs).toEqual(['Done after 10 rounds of read_file.', 'Done after 10 rounds of read_file.'])
    expect(result.requests).toBe(22)
    expect(server.requests).toHaveLength(22)
    expect(result.compactions).toBeGreaterThanOrEqual(3)
    // what the model saw stayed near the budget (the input shrank when a pass compacted)
    expect(Math.max(...server.usages.map((usage) => usage.promptTokens))).toBeLessThan(8_000)
    expect(Math.min(...result.sentInputLengths.slice(5))).toBeLessThan(Math.max(...result.sentInputLengths))
    const cacheRead = server.usages.reduce((total, usage) => total + usage.cacheRead, 0)
    expect(cacheRead).toBeGreaterThan(0)
    // the meter: each response's usage (not the run's running total), cache reads included
    expect(result.lastMeasuredTokens).toBe(server.usages.at(-1)?.promptTokens)
    expect(result.lastMeasuredTokens).toBe(result.lastInputTokens)
    expect(result.runInputTokens[1]).toBeGreaterThan(result.lastMeasuredTokens! * 5)
    expect(result.cacheAggregates).toEqual({ events: 22, cache_read_tokens: cacheRead, cache_write_tokens: 0 })
    expect(result.warnings).toEqual([])
    // the session: every item as the model and tools produced it, no notice, no truncated result
    expect(result.sessionToolResultsIntact).toBe(true)
    expect(result.sessionHasNotice).toBe(false)
    expect(result.sessionHasTruncation).toBe(false)
    expect(result.sessionItemCount).toBe(2 * (1 + 10 * 4 + 1))
    await server.close()
    server = await startFakeProvider({ toolRounds: 10, parallelCalls: 2, tool: 'read_file' })
    const unfiltered = await runAgents({ baseURL: server.url, tokenBudget: 8_000, filter: 'none' })
    expect(unfiltered.outputs).toEqual(result.outputs)
    expect(result.sessionDigest).toBe(unfiltered.sessionDigest)
    // without the filter the prompt grows past four times the budget
    expect(server.usages.at(-1)!.promptTokens).toBeGreaterThan(4 * 8_000)
  })

  it('one run on the Responses API: reasoning items go back before their calls, compaction removes them together, no rule violation', async () => {
    server = await startFakeProvider({ toolRounds: 10, parallelCalls: 2, tool: 'read_file' })
    const result = await runAgents({ baseURL: server.url, tokenBudget: 8_000, api: 'responses', followUp: false })
    expect(server.requests.map((request) => request.violations)).toEqual(server.requests.map(() => []))
    expect(result.outputs).toEqual(['Done after 10 rounds of read_file.'])
    expect(result.compactions).toBeGreaterThanOrEqual(2)
    const inputs = server.requests.map((request) => request.body.input as ReadonlyArray<Readonly<Record<string, unknown>>>)
    for (const input of inputs) input.forEach((item, i) => item.type === 'reasoning' && expect(input[i + 1]).toMatchObject({ type: 'function_call' }))
    expect(inputs.at(-1)!.filter((item) => item.type === 'reasoning').length).toBeLessThan(server.reasoningItems.length - 1)
    expect(result.lastMeasuredTokens).toBe(server.usages.at(-1)?.promptTokens)
  })
})
