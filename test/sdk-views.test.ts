// Views of real and synthetic sessions in every provider format through the real SDK code, each
// body the SDK sends checked against the provider's rules by the fake provider on 127.0.0.1
// (test/support/fake-provider-server.ts, the same server as the example loops of
// test/sdk-loops.test.ts): the Anthropic and OpenAI clients (Messages, Chat Completions,
// Responses) and the AI SDK's generateText with @ai-sdk/anthropic and @ai-sdk/openai (Chat and
// Responses) on a capturing fetch. Views come from a ContextManager in the session's own format
// at a budget that compacts (test/support/session-views.ts), sampled over each session's
// requests. scripts/measure-sdk-views.ts prints the same counts with more samples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProvider, type FakeProviderServer } from './support/fake-provider-server.js'
import { makeViewSender, SDKS_BY_FORMAT, type ViewSender } from './support/sdk-senders.js'
import { runSdkViews, type SdkViewRun } from './support/sdk-views-run.js'
import { contentKindSources, fixtureSources, refusableSources, sharedOnlySources, syntheticSources } from './support/session-views.js'

let server: FakeProviderServer
let send: ViewSender
beforeAll(async () => {
  server = await startFakeProvider({ toolRounds: 0, parallelCalls: 1, tool: 'read_file', idTag: 'fake' })
  send = makeViewSender(server)
})
afterAll(async () => {
  await server.close()
})

/** Every format and SDK was tried at least `min` times for `kind`, and none failed (failures listed with examples). */
const expectAllPassed = (run: SdkViewRun, kind: string, min: number): void => {
  const counts = [...run.counts.values()].filter((count) => count.kind === kind)
  expect(counts.map((count) => `${count.format} ${count.sdk}`).sort()).toEqual(Object.entries(SDKS_BY_FORMAT).flatMap(([format, sdks]) => sdks.map((sdk) => `${format} ${sdk}`)).sort())
  for (const count of counts) expect(count.tried, `${kind} ${count.format} ${count.sdk} tried`).toBeGreaterThanOrEqual(min)
  expect(counts.filter((count) => count.failed > 0).map((count) => `${count.format} ${count.sdk}: ${count.failed} of ${count.tried} failed, e.g. ${count.examples.join(' | ')}`)).toEqual([])
  expect([...run.errors.refusedMessages, ...run.errors.failedRequests]).toEqual([])
}

describe('views of the real sessions (fixtures/sessions) through the real SDKs', () => {
  it('every sampled view of every session passes each SDK and the provider rules', async () => {
    const sources = fixtureSources(2)
    expect(sources.map((source) => source.format).sort()).toEqual(expect.arrayContaining(['anthropic', 'contract', 'openai-responses']))
    const run = await runSdkViews(sources, send, { samples: 6 })
    expectAllPassed(run, 'real', sources.length)
  }, 60_000)

  it('with anthropic_cache_breakpoints the Anthropic views carry their marks (never more than 4) and pass', async () => {
    const sources = fixtureSources(1)
    const run = await runSdkViews(sources, send, { samples: 4, config: { anthropic_cache_breakpoints: true } })
    expectAllPassed(run, 'real', sources.length)
    const anthropicBodies = server.requests.filter((request) => request.path === '/v1/messages' && JSON.stringify(request.body).includes('cache_control'))
    expect(anthropicBodies.length).toBeGreaterThan(0)
  }, 60_000)

  const shared = sharedOnlySources(2)
  it.skipIf(shared.length === 0)('the shared sessions fixtures/ does not hold (../shared/sessions, when present) pass as well', async () => {
    const run = await runSdkViews(shared, send, { samples: 4 })
    expectAllPassed(run, 'real', shared.length)
  }, 60_000)
})

describe('views of synthetic sessions through the real SDKs', () => {
  it('sessions in each format (parallel calls, thinking, interrupted turns with the opt-in repair) at budgets that compact', async () => {
    const sources = syntheticSources(6, 20261201)
    const run = await runSdkViews(sources, send, { samples: 5 })
    expectAllPassed(run, 'synthetic', sources.length)
  }, 60_000)

  it('content kinds real sessions rarely hold (images, documents, refusals, reasoning-only turns, computer and MCP items, server tools, an AI SDK approval), compacted', async () => {
    const sources = contentKindSources()
    const run = await runSdkViews(sources, send, { samples: 1 })
    expectAllPassed(run, 'synthetic', 9)
    // the approval's view went to the AI SDK, which executed the approved call before the model call
    expect(server.requests.some((request) => JSON.stringify(request.body).includes('deployed to prod'))).toBe(true)
  }, 60_000)
})

describe('the suite fails where a provider would', () => {
  it('results of calls a history never held: left out by default (provider_rules "repair" in the provider formats), refused by every SDK and provider under "warn"', async () => {
    const sources = refusableSources()
    const repaired = await runSdkViews(sources, send, { samples: 1 })
    expectAllPassed(repaired, 'refusable', sources.length)
    const sent = await runSdkViews(sources, send, { samples: 1, config: { provider_rules: 'warn' } })
    const counts = [...sent.counts.values()].filter((count) => count.kind === 'refusable')
    expect(counts.map((count) => [count.sdk, count.failed])).toEqual(counts.map((count) => [count.sdk, count.tried]))
    expect(counts.every((count) => count.tried > 0)).toBe(true)
  }, 60_000)
})
