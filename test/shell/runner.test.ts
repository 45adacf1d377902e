/** Tests of the default effect runner and the loggers, with in-memory fakes for every collaborator. */
import { describe, expect, it, vi } from 'vitest'
import type { RequestSummary } from '../../src/core/effects.js'
import type { Event } from '../../src/core/events.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import type { HookBus } from '../../src/shell/hooks.js'
import { makeDefaultRunner } from '../../src/shell/runner.js'
import { memoryLogger, silentLogger } from '../../src/shell/logger.js'
import { makeMemorySpillWriter } from '../../src/shell/spill-fs.js'
import type { Summarizer, SummaryRequest } from '../../src/shell/summarizer.js'

const summaryEffect = (id = 'summary-1'): RequestSummary => ({
  type: 'request_summary',
  id,
  seqs: [0, 1],
  messageCount: 2,
  transcript: '[user]: a\n\n[assistant]: b',
  prompt: 'PROMPT',
  promptPath: null,
  model: 'm',
  timeoutSeconds: 30,
})

/** A summarizer answered by the test: each call waits until `answer(text)` or `fail(error)`. */
const controlledSummarizer = () => {
  const calls: Array<{ request: SummaryRequest; signal: AbortSignal | undefined; answer: (text: string) => void; fail: (error: Error) => void }> = []
  const summarizer: Summarizer = {
    summarize: (request, _provider, signal) =>
      new Promise<string>((resolve, reject) => calls.push({ request, signal, answer: resolve, fail: reject })),
  }
  return { summarizer, calls }
}

const recordingDispatch = () => {
  const events: Array<Event> = []
  return { events, dispatch: (event: Event) => void events.push(event) }
}

describe('loggers', () => {
  it('memoryLogger keeps lines in order; silentLogger drops them', () => {
    const logger = memoryLogger()
    logger.debug('d')
    logger.warning('w')
    logger.info('i')
    expect(logger.entries).toEqual([
      { level: 'debug', message: 'd' },
      { level: 'warning', message: 'w' },
      { level: 'info', message: 'i' },
    ])
    expect(logger.messages('warning')).toEqual(['w'])
    expect(() => silentLogger.warning('x')).not.toThrow()
  })
})

describe('makeDefaultRunner', () => {
  it('emit_hook emits on the bus with the contract name and payload', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const seen: Array<unknown> = []
    hooks.register('context:token_meter', (event, data) => seen.push([event, data]))
    await makeDefaultRunner({ hooks, logger: silentLogger }).run({ type: 'emit_hook', name: 'context:token_meter', data: { used_tokens: 5 } }, () => undefined)
    expect(seen).toEqual([['context:token_meter', { used_tokens: 5 }]])
  })

  it('emit_hook swallows and logs a throwing emit, a rejecting emit and a bus without emit', async () => {
    const logger = memoryLogger()
    const buses: Array<HookBus> = [
      {
        register: () => () => undefined,
        emit: () => {
          throw new Error('sync')
        },
      },
      { register: () => () => undefined, emit: async () => Promise.reject(new Error('async')) },
      { register: () => () => undefined } as unknown as HookBus,
    ]
    for (const hooks of buses) {
      await expect(makeDefaultRunner({ hooks, logger }).run({ type: 'emit_hook', name: 'context:compaction', data: {} }, () => undefined)).resolves.toBeUndefined()
    }
    expect(logger.messages('warning')).toHaveLength(3)
    expect(logger.messages('warning').every((m) => m.includes('context:compaction'))).toBe(true)
  })

  it('emit_hook without a bus does nothing', async () => {
    const logger = memoryLogger()
    await makeDefaultRunner({ logger }).run({ type: 'emit_hook', name: 'x', data: {} }, () => undefined)
    expect(logger.entries).toEqual([])
  })

  it('log goes to the logger at its level', async () => {
    const logger = memoryLogger()
    const runner = makeDefaultRunner({ logger })
    await runner.run({ type: 'log', level: 'warning', message: 'careful' }, () => undefined)
    await runner.run({ type: 'log', level: 'debug', message: 'detail' }, () => undefined)
    expect(logger.entries).toEqual([
      { level: 'warning', message: 'careful' },
      { level: 'debug', message: 'detail' },
    ])
  })

  it('write_spill writes then answers spill_written (also when the file already exists)', async () => {
    const spill = makeMemorySpillWriter()
    const runner = makeDefaultRunner({ spill, logger: silentLogger })
    const { events, dispatch } = recordingDispatch()
    const effect = { type: 'write_spill', directory: '/spill', path: '/spill/tool-result-000001-abc.txt', content: 'full' } as const
    await runner.run(effect, dispatch)
    await runner.run(effect, dispatch)
    expect(spill.files.get('/spill/tool-result-000001-abc.txt')).toBe('full')
    expect(events).toEqual([
      { type: 'spill_written', path: '/spill/tool-result-000001-abc.txt' },
      { type: 'spill_written', path: '/spill/tool-result-000001-abc.txt' },
    ])
  })

  it('write_spill answers spill_failed on a refusal, an error or a missing writer', async () => {
    const { events, dispatch } = recordingDispatch()
    const first = makeDefaultRunner({ spill: makeMemorySpillWriter() })
    await first.run({ type: 'write_spill', directory: '/s', path: '/s/../x.txt', content: 'x' }, dispatch)
    await first.idle()
    const second = makeDefaultRunner({ spill: { write: async () => Promise.reject(new Error('disk full')) } })
    await second.run({ type: 'write_spill', directory: '/s', path: '/s/x.txt', content: 'x' }, dispatch)
    await second.idle()
    const third = makeDefaultRunner({})
    await third.run({ type: 'write_spill', directory: '/s', path: '/s/y.txt', content: 'x' }, dispatch)
    await third.idle()
    expect(events.map((e) => e.type)).toEqual(['spill_failed', 'spill_failed', 'spill_failed'])
    expect(events[1]).toEqual({ type: 'spill_failed', path: '/s/x.txt', error: 'disk full' })
  })

  it('write_spill waits for the write (SPEC 17.9), and a write that hangs past callTimeoutMs is a failed spill', async () => {
    const { events, dispatch } = recordingDispatch()
    let release: () => void = () => undefined
    const slow = new Promise<void>((resolve) => (release = resolve))
    const runner = makeDefaultRunner({ spill: { write: async () => (await slow, 'written' as const) } })
    const running = runner.run({ type: 'write_spill', directory: '/s', path: '/s/z.txt', content: 'z' }, dispatch)
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(events).toEqual([])
    release()
    await running
    expect(events).toEqual([{ type: 'spill_written', path: '/s/z.txt' }])
    const hung = recordingDispatch()
    const stuck = makeDefaultRunner({ spill: { write: () => new Promise(() => undefined) }, callTimeoutMs: 20 })
    await stuck.run({ type: 'write_spill', directory: '/s', path: '/s/y.txt', content: 'y' }, hung.dispatch)
    expect(hung.events).toEqual([{ type: 'spill_failed', path: '/s/y.txt', error: 'the spill write of /s/y.txt did not settle within 20 ms (callTimeoutMs)' }])
  })

  it('request_summary returns at once, then dispatches started, calls the summarizer, dispatches completed', async () => {
    const { summarizer, calls } = controlledSummarizer()
    const runner = makeDefaultRunner({ summarizer, logger: silentLogger })
    runner.setProvider({ complete: async () => ({ content: [] }) })
    const { events, dispatch } = recordingDispatch()
    await runner.run(summaryEffect(), dispatch) // does not wait for the summary
    expect(events).toEqual([{ type: 'summary_call_started', id: 'summary-1' }])
    await vi.waitFor(() => expect(calls).toHaveLength(1))
    expect(calls[0].request).toEqual({
      id: 'summary-1',
      prompt: 'PROMPT',
      promptPath: null,
      transcript: '[user]: a\n\n[assistant]: b',
      model: 'm',
      timeoutSeconds: 30,
    })
    calls[0].answer('the summary')
    await runner.idle()
    expect(events).toEqual([
      { type: 'summary_call_started', id: 'summary-1' },
      { type: 'summary_completed', id: 'summary-1', text: 'the summary' },
    ])
  })

  it('waits for the dispatched start to be applied before calling the summarizer', async () => {
    const { summarizer, calls } = controlledSummarizer()
    const runner = makeDefaultRunner({ summarizer, logger: silentLogger })
    runner.setProvider({})
    let release: () => void = () => undefined
    const applied = new Promise<void>((resolve) => (release = resolve))
    await runner.run(summaryEffect(), (event) => (event.type === 'summary_call_started' ? applied : undefined))
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(calls).toHaveLength(0)
    release()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toHaveLength(1)
    calls[0].answer('x')
    await runner.idle()
  })

  it('request_summary answers summary_failed on a summarizer error, without a provider or a summarizer', async () => {
    const { summarizer, calls } = controlledSummarizer()
    const { events, dispatch } = recordingDispatch()
    const runner = makeDefaultRunner({ summarizer, logger: silentLogger })
    await runner.run(summaryEffect('no-provider'), dispatch)
    runner.setProvider({})
    await runner.run(summaryEffect('erroring'), dispatch)
    await vi.waitFor(() => expect(calls).toHaveLength(1))
    calls[0].fail(new Error('timed out'))
    await runner.idle()
    const bare = makeDefaultRunner({ logger: silentLogger })
    bare.setProvider({})
    await bare.run(summaryEffect('no-summarizer'), dispatch)
    await bare.idle()
    expect(events).toEqual([
      { type: 'summary_failed', id: 'no-provider', error: 'no provider is cached for summarization' },
      { type: 'summary_call_started', id: 'erroring' },
      { type: 'summary_failed', id: 'erroring', error: 'timed out' },
      { type: 'summary_call_started', id: 'no-summarizer' },
      { type: 'summary_failed', id: 'no-summarizer', error: 'no summarizer is configured' },
    ])
  })

  it('cancel_summary aborts the signal and nothing more is dispatched for that id', async () => {
    const { summarizer, calls } = controlledSummarizer()
    const runner = makeDefaultRunner({ summarizer, logger: silentLogger })
    runner.setProvider({})
    const { events, dispatch } = recordingDispatch()
    await runner.run(summaryEffect(), dispatch)
    await vi.waitFor(() => expect(calls).toHaveLength(1))
    await runner.run({ type: 'cancel_summary', id: 'summary-1' }, dispatch)
    expect(calls[0].signal?.aborted).toBe(true)
    calls[0].answer('too late')
    await runner.idle()
    expect(events).toEqual([{ type: 'summary_call_started', id: 'summary-1' }])
  })

  it('setProvider(null) forgets the provider', async () => {
    const { summarizer } = controlledSummarizer()
    const runner = makeDefaultRunner({ summarizer, logger: silentLogger })
    runner.setProvider({})
    runner.setProvider(null)
    const { events, dispatch } = recordingDispatch()
    await runner.run(summaryEffect(), dispatch)
    await runner.idle()
    expect(events.map((e) => e.type)).toEqual(['summary_failed'])
  })

  it('raise_error does nothing', async () => {
    const logger = memoryLogger()
    const { events, dispatch } = recordingDispatch()
    await makeDefaultRunner({ logger }).run({ type: 'raise_error', name: 'CompactionSkipLimitError', message: 'm' }, dispatch)
    expect(events).toEqual([])
    expect(logger.entries).toEqual([])
  })
})
