/** Tests of the context manager: queue ordering, effects, hooks isolation, errors, recording, summaries. */
import type { ContextConfig } from '../../src/core/config.js'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import type { CoreDeps } from '../../src/core/deps.js'
import type { Effect } from '../../src/core/effects.js'
import { ConfigError } from '../../src/core/errors.js'
import type { Event } from '../../src/core/events.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import type { State } from '../../src/core/state.js'
import type { Step } from '../../src/core/step.js'
import { fixedClock } from '../../src/shell/clock.js'
import { CompactionSkipLimitError, ContextManager } from '../../src/shell/context-manager.js'
import type { Clock } from '../../src/shell/clock.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import type { Provider } from '../../src/shell/provider.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { memoryLogger, silentLogger } from '../../src/shell/logger.js'
import type { Dispatch, EffectRunner } from '../../src/shell/runner.js'
import { makeMemorySpillWriter } from '../../src/shell/spill-fs.js'
import type { Summarizer } from '../../src/shell/summarizer.js'

const NOW = '2026-02-06T10:00:00.123+00:00'
const clock = fixedClock(NOW)

/** A clock that advances one second per reading. */
const tickingClock = (): Clock => {
  let ms = Date.UTC(2026, 0, 1)
  return { now: () => (ms += 1000) }
}

/**
 * A tiny fake core: records the events it reduces (and fails if called while effects of a previous
 * step are still running), and returns the effects the test scripts per event type.
 */
const fakeCore = (script: Partial<Record<Event['type'], ReadonlyArray<Effect>>> = {}) => {
  const reduced: Array<Event> = []
  const state = { busy: false }
  const makeStep = (_deps: CoreDeps) => (current: State, event: Event): Step => {
    if (state.busy) throw new Error(`reentrant step for ${event.type}`)
    reduced.push(event)
    return { state: current, view: event.type === 'request_received' ? [{ role: 'user', content: `view ${reduced.length}` }] : undefined, effects: script[event.type] ?? [] }
  }
  const ran: Array<string> = []
  const answers: Partial<Record<Effect['type'], ReadonlyArray<Event>>> = {}
  const runner: EffectRunner = {
    run: async (effect: Effect, dispatch: Dispatch) => {
      state.busy = true
      await new Promise((resolve) => setTimeout(resolve, 1))
      ran.push(effect.type === 'emit_hook' ? `emit:${effect.name}` : effect.type)
      for (const answer of answers[effect.type] ?? []) void dispatch(answer)
      state.busy = false
    },
  }
  return { makeStep, reduced, ran, runner, answers }
}

/** What a JavaScript caller may pass: rejected by the ContextConfig type, checked at run time. */
const untypedConfig = (config: Readonly<Record<string, unknown>>): ContextConfig => config as ContextConfig

describe('ContextManager with the real core', () => {
  it('stamps added messages with the clock and returns the history as frozen messages (shared, not copied)', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    const message = { role: 'user', content: [{ type: 'text', text: 'hi' }] }
    await manager.addMessage(message)
    await manager.addMessage({ role: 'assistant', content: 'hello', metadata: { timestamp: null } })
    expect(message).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
    const history = await manager.getMessages()
    expect(history).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }], metadata: { timestamp: NOW, _seq: 0 } },
      { role: 'assistant', content: 'hello', metadata: { timestamp: null, _seq: 1 } },
    ])
    expect(() => {
      ;(history[0].content as Array<{ text: string }>)[0].text = 'mutated'
    }).toThrow(TypeError)
    expect(((await manager.getMessages())[0].content as Array<{ text: string }>)[0].text).toBe('hi')
    message.content[0].text = 'mutated after the call'
    expect(((await manager.getMessages())[0].content as Array<{ text: string }>)[0].text).toBe('hi')
  })

  it('returns the stripped view, emits context:token_meter, and exposes the stats', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const meter: Array<unknown> = []
    hooks.register('context:token_meter', (_event, data) => meter.push(data))
    const manager = new ContextManager({}, { clock, hooks, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'hello' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(view).toEqual([{ role: 'user', content: 'hello', metadata: { timestamp: NOW } }])
    expect(meter).toHaveLength(1)
    expect(manager.lastTokenMeterStats).toEqual(meter[0])
    expect(manager.lastTokenMeterStats?.budget).toBe(9200)
    expect(manager.lastCompactionStats).toBeNull()
    expect(manager.state.history).toHaveLength(1)
  })

  it('reads the provider window for the budget (SPEC 4 worked example)', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    const provider: Provider = { get_model_info: () => ({ context_window: 200_000, max_output_tokens: 64_000 }) }
    await manager.getMessagesForRequest({ provider })
    expect(manager.lastTokenMeterStats?.budget).toBe(163_104)
    await manager.getMessagesForRequest({ provider: { get_info: () => ({ defaults: { context_window: 128_000, max_output_tokens: 16_384 } }) } })
    expect(manager.lastTokenMeterStats?.budget).toBe(114_912)
    await manager.getMessagesForRequest({ provider: { get_model_info: () => { throw new Error('x') } } })
    expect(manager.lastTokenMeterStats?.budget).toBe(200_000 - 800)
  })

  it('a throwing hook listener breaks neither the emit nor the request', async () => {
    const logger = memoryLogger()
    const hooks = makeMittHooks({ logger })
    hooks.register('context:token_meter', () => {
      throw new Error('listener bug')
    }, { name: 'buggy' })
    const seen: Array<unknown> = []
    hooks.register('context:token_meter', (_event, data) => seen.push(data), { priority: 10 })
    const manager = new ContextManager({}, { clock, hooks, logger })
    await manager.addMessage({ role: 'user', content: 'hello' })
    await expect(manager.getMessagesForRequest()).resolves.toHaveLength(1)
    expect(seen).toHaveLength(1)
    expect(logger.messages('warning').some((m) => m.includes('listener bug'))).toBe(true)
  })

  it('a bus whose emit throws does not affect the request', async () => {
    const logger = memoryLogger()
    const hooks = {
      register: () => () => undefined,
      emit: () => {
        throw new Error('bus down')
      },
    }
    const manager = new ContextManager({}, { clock, hooks, logger })
    await expect(manager.getMessagesForRequest()).resolves.toEqual([])
    expect(logger.messages('warning').some((m) => m.includes('bus down'))).toBe(true)
  })

  it('uses the system prompt factory (awaited) and drops stored non-hook system messages', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'system', content: 'stored system' })
    await manager.addMessage({ role: 'system', content: 'from a hook', metadata: { source: 'hook' } })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.setSystemPromptFactory(async () => 'factory prompt')
    const view = await manager.getMessagesForRequest()
    expect(view.map((m) => m.content)).toEqual(['factory prompt', 'from a hook', 'hi'])
    expect(view[0]).toEqual({ role: 'system', content: 'factory prompt' })
    await manager.setSystemPromptFactory(null)
    expect((await manager.getMessagesForRequest()).map((m) => m.content)).toEqual(['stored system', 'from a hook', 'hi'])
  })

  it('a throwing factory rejects that request only; the manager stays usable', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.setSystemPromptFactory(() => {
      throw new Error('factory failed')
    })
    await expect(manager.getMessagesForRequest()).rejects.toThrow('factory failed')
    await manager.setSystemPromptFactory(null)
    await manager.addMessage({ role: 'user', content: 'still here' })
    await expect(manager.getMessagesForRequest()).resolves.toHaveLength(1)
  })

  it('onLlmResponse records usage and always continues, even for malformed payloads', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager({ token_meter: 'actual' }, { clock, logger })
    await manager.addMessage({ role: 'user', content: 'hello' })
    await expect(manager.onLlmResponse({ usage: { input_tokens: 1200, cache_write_tokens: 300, cache_read_tokens: 1000 } })).resolves.toEqual({
      action: 'continue',
    })
    expect(manager.state.meter.measured).toBe(1500)
    // what a JavaScript caller (or an untyped hook bus) may pass: rejected by the types, ignored at run time
    await expect(manager.onLlmResponse(null as never)).resolves.toEqual({ action: 'continue' })
    await expect(manager.onLlmResponse({ usage: { input_tokens: 'lots' } } as never)).resolves.toEqual({ action: 'continue' })
    expect(manager.state.meter.measured).toBe(1500)
    await manager.getMessagesForRequest({ tokenBudget: 100_000 })
    expect(manager.lastTokenMeterStats?.used_tokens).toBe(1500)
    expect(manager.lastTokenMeterStats?.source).toBe('measured')
  })

  it('setMessages renumbers without timestamps; clear empties; host protocol methods are inert', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'old' })
    await manager.setMessages([{ role: 'user', content: 'a', metadata: { _seq: 99 } }, { role: 'assistant', content: 'b' }])
    expect(await manager.getMessages()).toEqual([
      { role: 'user', content: 'a', metadata: { _seq: 0 } },
      { role: 'assistant', content: 'b', metadata: { _seq: 1 } },
    ])
    await manager.clear()
    expect(await manager.getMessages()).toEqual([])
    expect(manager.state.nextSeq).toBe(0)
    await expect(manager.shouldCompact()).resolves.toBe(false)
    await expect(manager.compact()).resolves.toBeUndefined()
  })

  it('throws the decoder ConfigError for a wrongly typed value and logs fallback warnings', async () => {
    expect(() => new ContextManager(untypedConfig({ compact_threshold: 'high' }), { logger: silentLogger })).toThrow(ConfigError)
    expect(() => new ContextManager(untypedConfig({ compact_threshold: 'high' }), { logger: silentLogger })).toThrow('config.compact_threshold')
    const logger = memoryLogger()
    const manager = new ContextManager(untypedConfig({ token_meter: 'tokens', max_messages: 100 }), { logger })
    expect(manager.config.token_meter).toBe('estimate')
    // the unknown key is reported first, during construction; the fallback as the first queued work
    expect(logger.messages('warning')[0]).toBe('context-simple: config.max_messages: unknown key, ignored; did you mean max_tokens?')
    await manager.idle()
    expect(logger.messages('warning')).toHaveLength(2)
    expect(logger.messages('warning')[1]).toContain('unknown token_meter')
  })

  it('an unknown key logs one warning synchronously during construction; strict: true throws ConfigError with its key', () => {
    const logger = memoryLogger()
    new ContextManager(untypedConfig({ compact_treshold: 0.8 }), { logger })
    expect(logger.messages('warning')).toEqual(['context-simple: config.compact_treshold: unknown key, ignored; did you mean compact_threshold?'])
    const thrown = (() => {
      try {
        new ContextManager(untypedConfig({ tokenMeter: 'hybrid', strict: true }), { logger: silentLogger })
      } catch (error) {
        return error
      }
      return null
    })()
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as ConfigError).key).toBe('tokenMeter')
    expect((thrown as ConfigError).message).toContain('did you mean token_meter?')
  })

  it('spills truncated tool results through the spill writer and memoizes the answer', async () => {
    const spill = makeMemorySpillWriter()
    const manager = new ContextManager(
      { tool_result_budget_tokens: 3, tool_result_shape: 'head_tail', tool_result_spill_dir: '/tmp/spillx', protected_tool_results: 0 },
      { clock, logger: silentLogger, spillWriter: spill },
    )
    await manager.addMessage({ role: 'user', content: 'read them' })
    for (const id of ['c1', 'c2', 'c3', 'c4']) {
      await manager.addMessage({ role: 'assistant', content: '', tool_calls: [{ id, function: { name: 'read', arguments: '{}' } }] })
      await manager.addMessage({ role: 'tool', tool_call_id: id, content: id === 'c1' ? 'abcdefghij'.repeat(1000) + 'é' : 'short' })
    }
    await manager.addMessage({ role: 'user', content: 'next' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 2000 })
    await manager.idle()
    expect(view[2]).toMatchObject({ role: 'tool', _truncated: true })
    expect(String(view[2].content)).toContain('/tmp/spillx/tool-result-000002-')
    const paths = [...spill.files.keys()]
    expect(paths).toHaveLength(1)
    expect(paths[0]).toBe('/tmp/spillx/tool-result-000002-2f6b706c271653dd.txt') // digest of SPEC 11.5's example
    expect(spill.files.get(paths[0])).toBe('abcdefghij'.repeat(1000) + 'é')
    expect(manager.state.toolResults.spillWritten.has(paths[0])).toBe(true)
  })
})

describe('ContextManager queue (fake core)', () => {
  it('applies calls in call order, one at a time, even when a request awaits a slow factory and provider', async () => {
    const core = fakeCore()
    const manager = new ContextManager({}, { clock: tickingClock(), runner: core.runner, makeStep: core.makeStep, logger: silentLogger })
    let releaseFactory: (value: string) => void = () => undefined
    const slowProvider: Provider = { getModelInfo: () => new Promise((resolve) => setTimeout(() => resolve({ contextWindow: 9000, maxOutputTokens: 1000 }), 5)) }
    await manager.setSystemPromptFactory(() => new Promise<string>((resolve) => (releaseFactory = resolve)))
    const first = manager.addMessage({ role: 'user', content: 'a' })
    const request = manager.getMessagesForRequest({ provider: slowProvider })
    const second = manager.addMessage({ role: 'user', content: 'b' })
    const usage = manager.onLlmResponse({ usage: { input_tokens: 1 } })
    const cleared = manager.clear()
    await vi.waitFor(() => expect(core.reduced).toHaveLength(1))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(core.reduced.map((e) => e.type)).toEqual(['message_added']) // waiting for the factory
    releaseFactory('prompt')
    await Promise.all([first, request, second, usage, cleared])
    expect(core.reduced.map((e) => e.type)).toEqual(['message_added', 'request_received', 'message_added', 'usage_observed', 'history_cleared'])
    const requestEvent = core.reduced[1]
    expect(requestEvent).toMatchObject({
      type: 'request_received',
      tokenBudget: null,
      provider: { context_window: 9000, max_output_tokens: 1000 },
      providerGiven: true,
      systemPrompt: 'prompt',
    })
    expect(await request).toEqual([{ role: 'user', content: 'view 2' }])
    // message timestamps are taken at call time, the request's `now` when it is applied
    expect(core.reduced[0]).toMatchObject({ timestamp: '2026-01-01T00:00:01.000+00:00' })
    expect(core.reduced[2]).toMatchObject({ timestamp: '2026-01-01T00:00:02.000+00:00' })
  })

  it('runs each step’s effects in order before the next event; a spill answer is applied at the end of its call (SPEC 17.9), never reentrant', async () => {
    const core = fakeCore({
      request_received: [
        { type: 'emit_hook', name: 'context:token_meter', data: {} },
        { type: 'write_spill', directory: '/s', path: '/s/a.txt', content: 'x' },
        { type: 'emit_hook', name: 'context:compaction', data: {} },
      ],
      spills_answered: [{ type: 'log', level: 'debug', message: 'memo' }],
    })
    core.answers.write_spill = [{ type: 'spill_written', path: '/s/a.txt' }]
    const manager = new ContextManager({}, { clock, runner: core.runner, makeStep: core.makeStep, logger: silentLogger })
    const request = manager.getMessagesForRequest()
    const added = manager.addMessage({ role: 'user', content: 'after' })
    await Promise.all([request, added])
    await manager.idle()
    expect(core.ran).toEqual(['emit:context:token_meter', 'write_spill', 'emit:context:compaction', 'log'])
    // the spill answer was dispatched during the request's effects: applied after them, as one
    // spills_answered event of the request's own job, before the queued add
    expect(core.reduced.map((e) => e.type)).toEqual(['request_received', 'spills_answered', 'message_added'])
    expect(core.reduced[1]).toMatchObject({ type: 'spills_answered', answers: [{ type: 'spill_written', path: '/s/a.txt' }] })
  })

  it('turns a raise_error effect into CompactionSkipLimitError after running the other effects; stays usable', async () => {
    const core = fakeCore({
      request_received: [
        { type: 'emit_hook', name: 'context:token_meter', data: {} },
        { type: 'raise_error', name: 'CompactionSkipLimitError', message: 'context-simple: gave up after 3 skips' },
      ],
    })
    const manager = new ContextManager({}, { clock, runner: core.runner, makeStep: core.makeStep, logger: silentLogger })
    const error = await manager.getMessagesForRequest().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CompactionSkipLimitError)
    expect((error as Error).name).toBe('CompactionSkipLimitError')
    expect((error as Error).message).toBe('context-simple: gave up after 3 skips')
    expect(core.ran).toEqual(['emit:context:token_meter', 'raise_error'])
    await expect(manager.addMessage({ role: 'user', content: 'x' })).resolves.toBeUndefined()
  })

  it('a step that throws rejects that call only', async () => {
    let fail = true
    const manager = new ContextManager(
      {},
      {
        clock,
        logger: silentLogger,
        makeStep: () => (state, event) => {
          if (fail && event.type === 'message_added') throw new Error('core bug')
          return { state, view: [], effects: [] }
        },
      },
    )
    await expect(manager.addMessage({ role: 'user', content: 'x' })).rejects.toThrow('core bug')
    fail = false
    await expect(manager.addMessage({ role: 'user', content: 'x' })).resolves.toBeUndefined()
  })

  it('a rejecting runner is logged and the queue goes on', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager(
      {},
      {
        clock,
        logger,
        runner: { run: async () => Promise.reject(new Error('runner bug')) },
        makeStep: () => (state) => ({ state, view: [], effects: [{ type: 'log', level: 'info', message: 'x' }] }),
      },
    )
    await expect(manager.getMessagesForRequest()).resolves.toEqual([])
    expect(logger.messages('warning')[0]).toContain('runner bug')
  })
})

describe('ContextManager summary strategy (real core, fake summarizer)', () => {
  const history = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ` + 'x'.repeat(200) }))

  it('summarizes in the background: pre_summarize before the call, post_summarize after, swap on a later request', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const events: Array<string> = []
    for (const name of ['context:pre_summarize', 'context:post_summarize', 'context:compaction'] as const) {
      hooks.register(name, (event) => void events.push(event))
    }
    let release: (text: string) => void = () => undefined
    const calls: Array<unknown> = []
    const summarizer: Summarizer = {
      summarize: (request, provider) => {
        events.push('summarizer called')
        calls.push({ request, provider })
        return new Promise((resolve) => (release = resolve))
      },
    }
    const provider: Provider = { name: 'fake' }
    const manager = new ContextManager({ compaction_strategy: 'summary', compaction_notice_enabled: false }, { clock, hooks, summarizer, logger: silentLogger })
    await manager.setMessages(history)
    await manager.getMessagesForRequest({ tokenBudget: 1000, provider })
    expect(manager.state.summary.inFlight).toBe('summary-1')
    await vi.waitFor(() => expect(calls).toHaveLength(1))
    expect(events).toEqual(['context:pre_summarize', 'summarizer called'])
    expect((calls[0] as { provider: Provider }).provider).toBe(provider)
    release('## Current Task State\nsummarized')
    await manager.idle()
    expect(events).toEqual(['context:pre_summarize', 'summarizer called', 'context:post_summarize'])
    expect(manager.state.summary.pending?.text).toBe('## Current Task State\nsummarized')
    const view = await manager.getMessagesForRequest({ tokenBudget: 700, provider })
    expect(view.some((m) => String(m.content).includes('## Current Task State\nsummarized'))).toBe(true)
    expect(events.at(-1)).toBe('context:compaction')
    expect(manager.lastCompactionStats?.messages_absorbed_by_summary).toBeGreaterThan(0)
  })

  it('clear cancels an in-flight summary: its late answer is ignored', async () => {
    let release: (text: string) => void = () => undefined
    const summarizer: Summarizer = { summarize: () => new Promise((resolve) => (release = resolve)) }
    const manager = new ContextManager({ compaction_strategy: 'summary' }, { clock, summarizer, logger: silentLogger })
    await manager.setMessages(history)
    await manager.getMessagesForRequest({ tokenBudget: 1000, provider: {} })
    expect(manager.state.summary.inFlight).not.toBeNull()
    await manager.clear()
    release('late')
    await manager.idle()
    expect(manager.state.summary).toMatchObject({ inFlight: null, pending: null })
  })
})

describe('ContextManager recording', () => {
  it('records every input in the order applied, and replaying the recording reproduces the views', async () => {
    const config = { compaction_notice_enabled: true, max_tokens: 500 }
    const recorder = makeRecorder(config)
    const manager = new ContextManager(config, { clock: tickingClock(), recorder, logger: silentLogger })
    const views: Array<unknown> = []
    await manager.addMessage({ role: 'user', content: 'hello ' + 'y'.repeat(600) })
    await manager.addMessage({ role: 'assistant', content: 'hi', metadata: { timestamp: 'given' } })
    views.push(await manager.getMessagesForRequest({ provider: { getModelInfo: () => ({ contextWindow: 9000, maxOutputTokens: 1000 }) } }))
    await manager.onLlmResponse({ usage: { input_tokens: 40, output_tokens: 5 } })
    await manager.setSystemPromptFactory(() => 'SYSTEM')
    for (let i = 0; i < 6; i++) await manager.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} ` + 'z'.repeat(400) })
    views.push(await manager.getMessagesForRequest({ tokenBudget: 1500 }))
    views.push(await manager.getMessagesForRequest({ tokenBudget: 1500 }))
    await manager.clear()
    views.push(await manager.getMessagesForRequest())

    const recording = recorder.toRecording()
    expect(recording.ops.map((op) => op.op)).toEqual([
      'add_message',
      'add_message',
      'get_messages_for_request',
      'llm_response',
      ...Array(6).fill('add_message'),
      'set_system_prompt',
      'get_messages_for_request',
      'get_messages_for_request',
      'clear',
      'get_messages_for_request',
    ])
    expect(recording.ops[0]).toEqual({
      op: 'add_message',
      message: { role: 'user', content: 'hello ' + 'y'.repeat(600), metadata: { timestamp: '2026-01-01T00:00:01.000+00:00' } },
    })
    expect(recording.ops[1]).toEqual({ op: 'add_message', message: { role: 'assistant', content: 'hi', metadata: { timestamp: 'given' } } })
    expect(recording.ops[2]).toEqual({ op: 'get_messages_for_request', provider: { context_window: 9000, max_output_tokens: 1000 } })
    expect(recording.ops[3]).toEqual({ op: 'llm_response', usage: { input_tokens: 40, output_tokens: 5 } })

    const replayed = replayRecording(recording, { config: { ...DEFAULT_CONFIG, ...config }, estimate: makeCachedEstimator() })
    expect(replayed.lines.map((line) => line.view)).toEqual(views)
    expect(replayed.state.history).toEqual(manager.state.history)

    const lines = recorder.toJsonLines().trimEnd().split('\n')
    // The default replay clock value is left out of the header (serializeRecording).
    expect(JSON.parse(lines[0])).toEqual({ type: 'recording', version: 1, config })
    expect(lines).toHaveLength(1 + recording.ops.length)
  })
})

describe('ContextManager re-entrant calls', () => {
  it('a hook listener may call the manager during a request without deadlock', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const manager = new ContextManager({}, { hooks, clock, logger: silentLogger })
    const seen: number[] = []
    hooks.register('context:token_meter', async () => {
      seen.push((await manager.getMessages()).length)
      await manager.addMessage({ role: 'user', content: 'added by a listener' })
    })
    await manager.addMessage({ role: 'user', content: 'hi' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(view).toHaveLength(1)
    expect(seen).toEqual([1])
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['hi', 'added by a listener'])
  })

  it('a system prompt factory may read the history', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.setSystemPromptFactory(async () => `history has ${(await manager.getMessages()).length} messages`)
    const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(view[0]).toEqual({ role: 'system', content: 'history has 1 messages' })
  })

  it('bad input rejects the promise instead of throwing synchronously, and history is kept', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'kept' })
    const circular: Record<string, unknown> = { role: 'user' }
    circular.self = circular
    const added = manager.addMessage(circular)
    await expect(added).rejects.toThrow()
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['kept'])
    await expect(manager.onLlmResponse(circular)).resolves.toEqual({ action: 'continue' })
  })

  it('stats getters return copies', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.getMessagesForRequest({ tokenBudget: 1000 })
    const stats = manager.lastTokenMeterStats as { used_tokens: number }
    stats.used_tokens = -1
    expect(manager.lastTokenMeterStats?.used_tokens).not.toBe(-1)
  })
})

describe('ContextManager provider reads', () => {
  it('does not consult the provider when an explicit token budget is given (SPEC 4 step 1), but still passes it', async () => {
    const core = fakeCore()
    const manager = new ContextManager({}, { clock, runner: core.runner, makeStep: core.makeStep, logger: silentLogger })
    let reads = 0
    const provider: Provider = { getModelInfo: () => (reads += 1, { contextWindow: 9000, maxOutputTokens: 1000 }) }
    await manager.getMessagesForRequest({ tokenBudget: 500, provider })
    expect(reads).toBe(0)
    expect(core.reduced[0]).toMatchObject({ type: 'request_received', tokenBudget: 500, provider: null, providerGiven: true })
    await manager.getMessagesForRequest({ provider })
    expect(reads).toBe(1)
  })
})

describe('ContextManager input checks', () => {
  it('rejects a non-object message with a typed error naming the argument, and keeps the history', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'kept' })
    await expect(manager.addMessage('hello' as never)).rejects.toMatchObject({ name: 'InvalidMessageError', field: 'message' })
    await expect(manager.addMessage(null as never)).rejects.toThrow(/^message: expected a message object/)
    await expect(manager.setMessages([{ role: 'user', content: 'a' }, 42] as never)).rejects.toThrow(/^messages\[1\]: expected a message object .* got 42$/)
    await expect(manager.setMessages({} as never)).rejects.toThrow(/^messages: expected an array of message objects/)
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['kept'])
  })

  it('rejects a token budget that is not a finite number, and a provider that is not an object', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await expect(manager.getMessagesForRequest({ tokenBudget: 'lots' as never })).rejects.toThrow(/^tokenBudget: expected a finite number of tokens or null, got "lots"$/)
    await expect(manager.getMessagesForRequest({ tokenBudget: Number.NaN })).rejects.toMatchObject({ name: 'InvalidRequestError', field: 'tokenBudget' })
    await expect(manager.getMessagesForRequest({ provider: 'claude' as never })).rejects.toMatchObject({ name: 'InvalidRequestError', field: 'provider' })
    expect(manager.lastTokenMeterStats).toBeNull()
  })
})

describe('ContextManager: the calibrated meter whose overhead fills E (docs/contract.md 17.13, "Infeasible")', () => {
  it("the logger prints one warning naming the overhead, E and the fix, however many views go out over E", async () => {
    const logger = memoryLogger()
    const manager = new ContextManager({ token_meter: 'calibrated', compaction_notice_enabled: false }, { clock, logger })
    for (let turn = 0; turn < 6; turn += 1) {
      await manager.addMessage({ role: 'user', content: `${turn} ${'word '.repeat(200)}` })
      const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
      // a provider billing 12,000 tokens of tools and system prompt beside the messages
      await manager.onLlmResponse({ usage: { input_tokens: 12_000 + JSON.stringify(view).length / 4 } })
    }
    const warnings = logger.messages('warning').filter((message) => message.includes('token_meter "calibrated"'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^context-simple: token_meter "calibrated": the hidden overhead fitted from 1 usage reading \(\d+ tokens[^)]*\) fills the effective budget E = 10000 tokens on its own/)
    expect(warnings[0]).toContain('Raise the budget (token_budget, max_tokens or the provider window) above the overhead')
  })
})
