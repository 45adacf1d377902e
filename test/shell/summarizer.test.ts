/** Tests of the provider summarizer: prompt file, request shape, response text and the timeout. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CompletionRequest, Provider } from '../../src/shell/provider.js'
import { memoryLogger } from '../../src/shell/logger.js'
import { EmptySummaryError, TimeoutError, makeProviderSummarizer, responseText, systemTimer } from '../../src/shell/summarizer.js'
import type { SummaryRequest, Timer } from '../../src/shell/summarizer.js'

const request = (overrides: Partial<SummaryRequest> = {}): SummaryRequest => ({
  id: 'summary-1',
  prompt: 'DEFAULT PROMPT',
  promptPath: null,
  transcript: '[user]: hello',
  model: null,
  timeoutSeconds: 30,
  ...overrides,
})

/** A provider whose `complete` records requests and answers with `text` blocks. */
const textProvider = (...texts: Array<unknown>) => {
  const requests: Array<CompletionRequest> = []
  const provider: Provider = {
    complete: async (completion) => {
      requests.push(completion)
      return { content: texts.map((text) => ({ type: 'text', text })) }
    },
  }
  return { provider, requests }
}

/** A timer the test fires by hand; records the delays asked for and whether it was aborted. */
const manualTimer = () => {
  const pending: Array<{ ms: number; fire: () => void; signal: AbortSignal }> = []
  const timer: Timer = (ms, signal) => new Promise<void>((resolve) => pending.push({ ms, fire: resolve, signal }))
  return { timer, pending }
}

describe('responseText', () => {
  it('concatenates the truthy text of every block without a separator', () => {
    expect(responseText({ content: [{ text: 'a' }, { type: 'thinking', thinking: 'x' }, { text: '' }, { text: null }, 'junk', { text: 'b' }] })).toBe('ab')
    expect(responseText({ content: 'not a list' })).toBe('')
    expect(responseText({})).toBe('')
    expect(() => responseText(null)).toThrow(TypeError)
    expect(() => responseText({ content: [{ text: 42 }] })).toThrow(TypeError)
    // falsy non-string texts are skipped like empty ones (SPEC 12.3 step 6)
    expect(responseText({ content: [{ text: 'a' }, { text: [] }, { text: {} }, { text: 0 }] })).toBe('a')
  })
})

describe('makeProviderSummarizer', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sends the system prompt and the transcript with the model and returns the text', async () => {
    const { provider, requests } = textProvider('## Current Task State', '\nworking')
    const { timer, pending } = manualTimer()
    const summarizer = makeProviderSummarizer({ timer, logger: memoryLogger() })
    await expect(summarizer.summarize(request({ model: 'small-model' }), provider)).resolves.toBe('## Current Task State\nworking')
    expect(requests).toEqual([
      {
        messages: [
          { role: 'system', content: 'DEFAULT PROMPT' },
          { role: 'user', content: '[user]: hello' },
        ],
        model: 'small-model',
      },
    ])
    expect(pending).toHaveLength(1)
    expect(pending[0].ms).toBe(30_000)
    expect(pending[0].signal.aborted).toBe(true) // the timer is released once the call settled
  })

  it('reads the prompt file when set; an unreadable one logs a warning and uses the default', async () => {
    const files = new Map([['/prompts/summary.md', 'FILE PROMPT']])
    const readFile = async (path: string) => {
      const text = files.get(path)
      if (text === undefined) throw new Error(`ENOENT: ${path}`)
      return text
    }
    const logger = memoryLogger()
    const { provider, requests } = textProvider('summary')
    const summarizer = makeProviderSummarizer({ timer: manualTimer().timer, readFile, logger })
    await summarizer.summarize(request({ promptPath: '/prompts/summary.md' }), provider)
    await summarizer.summarize(request({ promptPath: '/prompts/missing.md' }), provider)
    await summarizer.summarize(request({ promptPath: '' }), provider)
    expect(requests.map((r) => r.messages[0].content)).toEqual(['FILE PROMPT', 'DEFAULT PROMPT', 'DEFAULT PROMPT'])
    expect(logger.messages('warning')).toHaveLength(1)
    expect(logger.messages('warning')[0]).toContain('/prompts/missing.md')
  })

  it('fails on empty text (after Python stripping), on a provider error and without complete()', async () => {
    const summarizer = makeProviderSummarizer({ timer: manualTimer().timer, logger: memoryLogger() })
    await expect(summarizer.summarize(request(), textProvider(' \n\x1c').provider)).rejects.toBeInstanceOf(EmptySummaryError)
    await expect(summarizer.summarize(request(), textProvider().provider)).rejects.toBeInstanceOf(EmptySummaryError)
    await expect(summarizer.summarize(request(), { complete: async () => Promise.reject(new Error('rate limited')) })).rejects.toThrow('rate limited')
    await expect(
      summarizer.summarize(request(), {
        complete: () => {
          throw new Error('sync failure')
        },
      }),
    ).rejects.toThrow('sync failure')
    await expect(summarizer.summarize(request(), {})).rejects.toThrow(TypeError)
  })

  it('rejects with TimeoutError when the injectable timer fires first', async () => {
    const { timer, pending } = manualTimer()
    const provider: Provider = { complete: () => new Promise(() => undefined) } // never answers
    const summarizer = makeProviderSummarizer({ timer, logger: memoryLogger() })
    const result = summarizer.summarize(request({ timeoutSeconds: 2.5 }), provider)
    await vi.waitFor(() => expect(pending).toHaveLength(1))
    expect(pending[0].ms).toBe(2500)
    pending[0].fire()
    await expect(result).rejects.toBeInstanceOf(TimeoutError)
    await expect(result).rejects.toThrow('timed out after 2.5 s')
  })

  it('aborts the provider call signal on a timeout, never after an answer; caps huge timeouts', async () => {
    const { timer, pending } = manualTimer()
    const signals: AbortSignal[] = []
    const slow: Provider = { complete: (_request, options) => (signals.push(options!.signal!), new Promise(() => undefined)) }
    const summarizer = makeProviderSummarizer({ timer, logger: memoryLogger() })
    const result = summarizer.summarize(request({ timeoutSeconds: 1e12 }), slow)
    await vi.waitFor(() => expect(pending).toHaveLength(1))
    expect(pending[0].ms).toBe(2_147_483_647)
    expect(signals[0].aborted).toBe(false)
    pending[0].fire()
    await expect(result).rejects.toBeInstanceOf(TimeoutError)
    expect(signals[0].aborted).toBe(true)

    const answeredSignals: AbortSignal[] = []
    const quick: Provider = { complete: async (_request, options) => (answeredSignals.push(options!.signal!), { content: [{ type: 'text', text: 'ok' }] }) }
    await expect(summarizer.summarize(request(), quick)).resolves.toBe('ok')
    expect(answeredSignals[0].aborted).toBe(false)
  })

  it('times out with the system timer under fake timers', async () => {
    vi.useFakeTimers()
    const provider: Provider = { complete: () => new Promise(() => undefined) }
    const summarizer = makeProviderSummarizer({ timer: systemTimer, logger: memoryLogger() })
    const result = summarizer.summarize(request({ timeoutSeconds: 30 }), provider)
    const settled = vi.fn()
    result.catch(settled)
    await vi.advanceTimersByTimeAsync(29_999)
    expect(settled).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    await expect(result).rejects.toBeInstanceOf(TimeoutError)
  })

  it('a call that answers in time clears the system timer', async () => {
    vi.useFakeTimers()
    const summarizer = makeProviderSummarizer({ timer: systemTimer, logger: memoryLogger() })
    await expect(summarizer.summarize(request(), textProvider('done').provider)).resolves.toBe('done')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('rejects at once when the cancellation signal is aborted', async () => {
    const controller = new AbortController()
    const summarizer = makeProviderSummarizer({ timer: manualTimer().timer, logger: memoryLogger() })
    const result = summarizer.summarize(request(), { complete: () => new Promise(() => undefined) }, controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(result).rejects.toThrow('cancelled')
  })
})
