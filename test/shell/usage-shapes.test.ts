// The SDK usage objects through the public API (SPEC 17.10): `onLlmResponse({ usage })` and the
// `llm:response` listener of `mount` take each SDK's object as is; the next request's meter stats
// show the table's figure; a recorder stores the normalised contract shape, whose replay measures
// the same.
import { describe, expect, it } from 'vitest'
import type { ProviderUsage } from '../../src/core/meter/usage.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { decodeConfig } from '../../src/core/codecs.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import { mount } from '../../src/shell/mount.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { memoryLogger, silentLogger } from '../../src/shell/logger.js'
import { aiSdkUsage, anthropicUsage, betaUsage, openaiChatUsage, openaiResponsesUsage, v3Usage, v5Usage, langchainUsage, agentsResponseUsage, agentsRunUsage } from '../support/sdk-usage.js'

const clock = fixedClock('2026-01-01T00:00:00.000+00:00')
const CONFIG = { token_meter: 'hybrid', max_tokens: 100_000 } as const

const ROWS: ReadonlyArray<readonly [string, ProviderUsage, number, { cache_read_tokens: number; cache_write_tokens: number }]> = [
  ['contract', { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 }, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['Anthropic Usage', anthropicUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['Anthropic BetaUsage (iterations)', betaUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['OpenAI Chat', openaiChatUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 0 }],
  ['OpenAI Responses', openaiResponsesUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 0 }],
  ['AI SDK v6', aiSdkUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['LanguageModelV3Usage', v3Usage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['AI SDK v5', v5Usage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 0 }],
  ['LangChain UsageMetadata', langchainUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 300 }],
  ['OpenAI Agents SDK Usage of one response', agentsResponseUsage as ProviderUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 0 }],
  ['OpenAI Agents SDK run total (its last request entry)', agentsRunUsage as ProviderUsage, 9_304, { cache_read_tokens: 9_000, cache_write_tokens: 0 }],
]

describe('onLlmResponse with each SDK usage object (SPEC 17.10)', () => {
  it.each(ROWS)('%s: measured_tokens is the table figure, the anchor is accepted, cache aggregates add up', async (_name, usage, measured, cache) => {
    const logger = memoryLogger()
    const recorder = makeRecorder(CONFIG)
    const manager = new ContextManager(CONFIG, { clock, logger, recorder })
    await manager.addMessage({ role: 'user', content: 'x'.repeat(400) })
    await manager.getMessagesForRequest()
    await expect(manager.onLlmResponse({ usage })).resolves.toEqual({ action: 'continue' })
    await manager.getMessagesForRequest()
    const stats = manager.lastTokenMeterStats
    expect(stats?.measured_tokens).toBe(measured)
    expect(stats?.anchor_rejected).toBe(false)
    expect(stats?.hybrid_kind).toBe('usage')
    expect(stats?.used_tokens).toBe(measured)
    expect(stats?.cache_aggregates).toEqual({ events: 1, ...cache })
    expect(logger.entries.filter((entry) => entry.level === 'warning')).toEqual([])

    // the recording holds the contract shape, and its replay measures the same
    const op = recorder.ops.find((candidate) => candidate.op === 'llm_response')
    // (Anthropic's Usage also carries the 5-minute / 1-hour split of its cache writes, which is kept)
    const split = usage === anthropicUsage ? { cache_creation: anthropicUsage.cache_creation } : {}
    expect(op).toEqual({ op: 'llm_response', usage: { input_tokens: measured - cache.cache_write_tokens, output_tokens: 50, ...cache, ...split } })
    const decoded = decodeConfig(CONFIG)
    if (decoded._tag === 'Left') throw decoded.left
    const replay = replayRecording(recorder.toRecording(), { config: decoded.right.config, estimate: makeCachedEstimator() })
    expect(replay.lines.at(-1)?.token_meter_stats).toEqual(stats)
  })

  it('Anthropic cached call: 4 fresh + 9,000 read + 300 written is 9,304, not 4 (the anchor is no longer rejected)', async () => {
    const manager = new ContextManager(CONFIG, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'y'.repeat(20_000) })
    await manager.getMessagesForRequest()
    await manager.onLlmResponse({ usage: anthropicUsage })
    await manager.getMessagesForRequest()
    expect(manager.lastTokenMeterStats?.measured_tokens).toBe(9_304)
    expect(manager.lastTokenMeterStats?.anchor_rejected).toBe(false)
  })

  it('an object of no known shape is ignored with a warning naming the fields found', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager(CONFIG, { clock, logger })
    await manager.onLlmResponse({ usage: { promptTokenCount: 10, candidatesTokenCount: 2 } } as never)
    await manager.getMessagesForRequest()
    expect(manager.lastTokenMeterStats?.measured_tokens).toBeNull()
    expect(logger.entries.map((entry) => entry.message)).toContainEqual(expect.stringContaining('found fields promptTokenCount, candidatesTokenCount'))
  })

  it('the llm:response listener of mount reads SDK usage objects too', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    let manager: ContextManager | null = null
    await mount({ hooks, mount: (_kind, instance) => void (manager = instance as ContextManager) }, CONFIG, { clock, logger: silentLogger })
    await hooks.emit('llm:response', { usage: openaiChatUsage, model: 'gpt-4o' })
    const mounted = manager as unknown as ContextManager
    await mounted.getMessagesForRequest()
    expect(mounted.lastTokenMeterStats?.measured_tokens).toBe(9_304)
  })
})
