/** Tests of ContextManager.snapshot() / ContextManager.restore (docs/embedding.md) with the real core. */
import type { ContextConfig } from '../../src/core/config.js'
import { describe, expect, it, vi } from 'vitest'
import { SnapshotError } from '../../src/core/errors.js'
import { SNAPSHOT_VERSION } from '../../src/core/snapshot/codec.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import type { Provider } from '../../src/shell/provider.js'
import { silentLogger } from '../../src/shell/logger.js'
import { makeMemorySpillWriter } from '../../src/shell/spill-fs.js'
import type { Summarizer, SummaryRequest } from '../../src/shell/summarizer.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const options = { clock, logger: silentLogger, spillWriter: makeMemorySpillWriter() }
const turns = Array.from({ length: 24 }, (_, i) =>
  i % 3 === 2
    ? { role: 'tool', tool_call_id: `c${i - 1}`, content: `output ${i}\n` + 'line of output\n'.repeat(40) }
    : i % 3 === 1
      ? { role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{}' } }] }
      : { role: 'user', content: `question ${i} ` + 'y'.repeat(150) },
)

const jsonRoundTrip = <T>(value: T): unknown => JSON.parse(JSON.stringify(value))

describe('ContextManager.snapshot', () => {
  it('resolves after the calls made before it and is a JSON value {version, config, state}', async () => {
    const manager = new ContextManager({ max_tokens: 50_000 }, options)
    void manager.addMessage({ role: 'user', content: 'hi' })
    void manager.addMessage({ role: 'assistant', content: 'hello' })
    const snapshot = await manager.snapshot()
    expect(snapshot.version).toBe(SNAPSHOT_VERSION)
    expect(snapshot.config).toStrictEqual(manager.config)
    expect((snapshot.state.history as ReadonlyArray<unknown>).length).toBe(2)
    expect(jsonRoundTrip(snapshot)).toStrictEqual(snapshot)
  })

  it('shares the frozen stored messages and copies the rest: mutating it changes nothing in the manager', async () => {
    const manager = new ContextManager({ max_tokens: 1000 }, options)
    await manager.addMessage({ role: 'user', content: 'hi' })
    const snapshot = await manager.snapshot()
    const history = snapshot.state.history as Array<{ content: string }>
    expect(history[0]).toBe(manager.state.history[0])
    expect(() => {
      history[0].content = 'changed'
    }).toThrow(TypeError)
    history.pop()
    ;(snapshot.config as { max_tokens: number }).max_tokens = 5
    ;(snapshot.state.meter as { usageEvents: number }).usageEvents = 9
    expect(manager.state.history).toHaveLength(1)
    expect(manager.config.max_tokens).toBe(1000)
    expect(manager.state.meter.usageEvents).toBe(0)
  })

  it('called from a hook listener of the running request resolves without waiting for that request', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const manager = new ContextManager({}, { ...options, hooks })
    let seen: number | null = null
    hooks.register('context:token_meter', async () => {
      seen = ((await manager.snapshot()).state.history as ReadonlyArray<unknown>).length
    })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(seen).toBe(1)
  })
})

describe('ContextManager.restore', () => {
  it('continues exactly like the original: same history, stats and next views', async () => {
    const original = new ContextManager({ max_tokens: 2000 }, options)
    for (const turn of turns.slice(0, 15)) await original.addMessage(turn)
    await original.getMessagesForRequest({ tokenBudget: 2000 })
    await original.onLlmResponse({ usage: { input_tokens: 1900, output_tokens: 10 } })
    expect(original.lastCompactionStats).not.toBeNull()

    const restored = await ContextManager.restore(jsonRoundTrip(await original.snapshot()), options)
    expect(restored.config).toStrictEqual(original.config)
    expect(await restored.getMessages()).toStrictEqual(await original.getMessages())
    expect(restored.lastCompactionStats).toStrictEqual(original.lastCompactionStats)
    for (const turn of turns.slice(15)) {
      await original.addMessage(turn)
      await restored.addMessage(turn)
      expect(await restored.getMessagesForRequest({ tokenBudget: 2000 })).toStrictEqual(await original.getMessagesForRequest({ tokenBudget: 2000 }))
      expect(restored.lastTokenMeterStats).toStrictEqual(original.lastTokenMeterStats)
    }
    expect(JSON.stringify(await restored.snapshot())).toBe(JSON.stringify(await original.snapshot()))
  })

  it('requests a summary that was in flight again, with the same id and span, on the first request with a provider', async () => {
    const history = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ` + 'x'.repeat(200) }))
    const config: ContextConfig = { compaction_strategy: 'summary', compaction_notice_enabled: false }
    const never: Summarizer = { summarize: () => new Promise(() => undefined) }
    const original = new ContextManager(config, { ...options, summarizer: never })
    await original.setMessages(history)
    const provider: Provider = { name: 'fake' }
    await original.getMessagesForRequest({ tokenBudget: 1000, provider })
    const inFlight = original.state.summary
    expect(inFlight.inFlight).toBe('summary-1')

    const requests: Array<SummaryRequest> = []
    const answering: Summarizer = {
      summarize: async (request) => {
        requests.push(request)
        return '## Current Task State\nresumed'
      },
    }
    const restored = await ContextManager.restore(jsonRoundTrip(await original.snapshot()), { ...options, summarizer: answering })
    await restored.addMessage({ role: 'user', content: 'still there?' })
    await restored.idle()
    expect(requests).toHaveLength(0)
    await restored.getMessagesForRequest({ tokenBudget: 1000, provider })
    await vi.waitFor(() => expect(requests).toHaveLength(1))
    await restored.idle()
    expect(requests[0].id).toBe('summary-1')
    expect(restored.state.summary.pending).toStrictEqual({ seqs: inFlight.inFlightSeqs, text: '## Current Task State\nresumed' })
    expect(restored.state.summary.nextRequestNumber).toBe(2)
  })

  it('restores a session kept in a provider format (restored with the same format option)', async () => {
    const formatted = { ...options, format: 'anthropic' as const }
    const original = new ContextManager({}, formatted)
    await original.addMessage({ role: 'user', content: 'list the files' } as never)
    await original.addMessage({ role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type: 'tool_use', id: 't1', name: 'bash', input: { cmd: 'ls' } }] } as never)
    await original.addMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts b.ts' }, { type: 'text', text: 'and now?' }] } as never)
    const restored = await ContextManager.restore(jsonRoundTrip(await original.snapshot()), formatted)
    expect(JSON.stringify(await restored.getMessages())).toBe(JSON.stringify(await original.getMessages()))
    expect(JSON.stringify(await restored.getMessagesForRequest({ tokenBudget: 5000 }))).toBe(JSON.stringify(await original.getMessagesForRequest({ tokenBudget: 5000 })))
  })

  it('rejects a malformed, other-version or inconsistent snapshot with a SnapshotError naming the problem', async () => {
    const manager = new ContextManager({}, options)
    for (const turn of turns.slice(0, 6)) await manager.addMessage(turn)
    const good = jsonRoundTrip(await manager.snapshot()) as { version: number; config: Record<string, unknown>; state: Record<string, unknown> }
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      ['{}', 'snapshot: expected an object'],
      [{ ...good, version: 99 }, `snapshot.version: expected ${SNAPSHOT_VERSION}, got 99`],
      [{ ...good, config: { ...good.config, compact_threshold: 'high' } }, 'snapshot.config.compact_threshold: expected a number'],
      [{ ...good, state: { ...good.state, nextSeq: -1 } }, 'snapshot.state.nextSeq: expected a whole number >= 0, got -1'],
      [{ ...good, state: { ...good.state, compaction: { ...(good.state.compaction as object), sticky: { removed: [0], truncated: [], stubbed: [], cumulativeLevel: 3 } }, nextSeq: 3 } }, 'snapshot.state.history.3.metadata._seq: expected a _seq below nextSeq 3, got 3'],
      [{ ...good, state: { ...good.state, compaction: { ...(good.state.compaction as object), sticky: { removed: [40], truncated: [], stubbed: [], cumulativeLevel: 3 } } } }, 'snapshot.state.compaction.sticky.removed: _seq 40 is not a stored message'],
      [{ ...good, state: { ...good.state, history: 'lost' } }, 'snapshot.state.history: expected'],
    ]
    for (const [value, message] of cases) {
      const error = await ContextManager.restore(value, options).then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(SnapshotError)
      expect((error as SnapshotError).message).toContain(message)
    }
  })
})
