// The agent-framework loops (examples/langchain-agent-loop.ts, ...): the framework runs its own
// loop with the library's drop-in, the real chat model client talks to the fake provider on
// 127.0.0.1 (test/support/fake-provider-server.ts), which checks every request against the
// provider's rules and answers with usage computed from the request, prompt-cache fields included.
import { afterEach, describe, expect, it } from 'vitest'
import { run as runLangChain } from '../examples/langchain-agent-loop.js'
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

  it('for comparison: with no middleware the prompt grows past the budget; with trimMessages (LangChain’s answer) the conversation is trimmed to nothing and the provider refuses the request', async () => {
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
  })
})
