/**
 * The summarizer behind the summary strategy (SPEC 12.3): reads the prompt file, asks the provider
 * for a completion within the timeout, and returns the text of the response.
 */
import { isTruthy } from '../core/messages/values.js'
import { loadNodeBuiltin } from './runtime.js'
import { pyStrip } from '../core/messages/text.js'
import type { CompletionRequest, Provider } from './provider.js'
import type { Logger } from './logger.js'
import { consoleLogger, describeError } from './logger.js'
import { TimeoutError } from '../core/errors.js'

/**
 * One summarization request, as the core's `request_summary` effect describes it: `prompt` is the
 * default prompt, `promptPath` a file whose text replaces it (null = none), `transcript` the text to
 * summarize, `model` the model (null = provider default), `timeoutSeconds` the time limit in seconds.
 *
 * @example
 * const request: SummaryRequest = { id: 'summary-1', prompt: 'Summarize.', promptPath: null, transcript: '[user]: hi', model: null, timeoutSeconds: 30 }
 */
export interface SummaryRequest {
  readonly id: string
  readonly prompt: string
  readonly promptPath: string | null
  readonly transcript: string
  readonly model: string | null
  readonly timeoutSeconds: number
}

/**
 * Produces the summary text of a request with a provider. Resolves to the summary text; rejects on
 * any failure (exception, timeout, empty text). `signal`, when given, is aborted when the request is
 * cancelled (the result would be ignored).
 *
 * @example
 * const fake: Summarizer = { summarize: async (request) => `summary of ${request.transcript.length} chars` }
 */
export interface Summarizer {
  readonly summarize: (request: SummaryRequest, provider: Provider, signal?: AbortSignal) => Promise<string>
}

/**
 * Waits `ms` milliseconds and resolves; rejects (or never settles) once `signal` is aborted. The
 * summarizer aborts the signal as soon as the call it guards settles.
 *
 * @example
 * const timer: Timer = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => clearTimeout(t)) })
 */
export type Timer = (ms: number, signal: AbortSignal) => Promise<void>

/** Rejection of a summarization that did not answer within `timeoutSeconds` (one `TimeoutError` class for every time limit). */
export { TimeoutError }

/**
 * Rejection of a summarization whose response text is empty after Python-style stripping.
 *
 * @example
 * new EmptySummaryError().message // => 'the summarizer returned an empty summary'
 */
export class EmptySummaryError extends Error {
  override readonly name = 'EmptySummaryError'
  constructor() {
    super('the summarizer returned an empty summary')
  }
}

/** The longest delay `setTimeout` honours (longer delays fire at once); longer timeouts are capped to it. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * The real timer: `setTimeout`, cleared when `signal` aborts (the promise then rejects with the
 * abort reason).
 *
 * @example
 * await systemTimer(10, new AbortController().signal)
 */
export const systemTimer: Timer = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clearTimeout(handle)
      reject(signal.reason)
    }
    const handle = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })

/**
 * What `makeProviderSummarizer` uses: a timer, a file reader (UTF-8 text) and a logger.
 *
 * @example
 * makeProviderSummarizer({ timer: systemTimer, readFile: async () => 'Summarize.', logger: silentLogger })
 */
export interface ProviderSummarizerOptions {
  readonly timer?: Timer
  readonly readFile?: (path: string) => Promise<string>
  readonly logger?: Logger
}

/**
 * The default prompt-file reader: the runtime's `fs/promises` (Node, Deno, Bun), looked up on
 * first use; in a runtime without a file system it rejects, so the default prompt is used with a
 * warning (pass `readFile` to read prompts from elsewhere).
 */
const readPromptFile = async (path: string): Promise<string> => {
  const fs = await loadNodeBuiltin<{ readonly readFile: (path: string, encoding: 'utf8') => Promise<string> }>('node:fs/promises')
  if (fs === null) throw new Error('this runtime has no file system: pass readFile to makeProviderSummarizer')
  return fs.readFile(path, 'utf8')
}

/**
 * The summary text of a completion response (SPEC 12.3 step 6): the concatenation, without a
 * separator, of the truthy `text` of every block of `response.content` (a list). A truthy `text`
 * that is not a string, or a response that is not an object, throws a `TypeError`; a missing or
 * non-list `content` gives `""`.
 *
 * @example
 * responseText({ content: [{ text: 'a' }, { type: 'thinking' }, { text: '' }, { text: 'b' }] }) // => 'ab'
 */
export const responseText = (response: unknown): string => {
  if (typeof response !== 'object' || response === null) throw new TypeError('the provider response is not an object')
  const content = (response as { readonly content?: unknown }).content
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const block of content) {
    if (typeof block !== 'object' || block === null) continue
    const blockText = (block as { readonly text?: unknown }).text
    if (!isTruthy(blockText)) continue // only truthy texts count (SPEC 12.3 step 6)
    if (typeof blockText !== 'string') throw new TypeError('a response block has a non-string text')
    text += blockText
  }
  return text
}

/**
 * A summarizer that calls the provider (SPEC 12.3 steps 3, 5, 6):
 * 1. prompt = the UTF-8 text of `promptPath` when it is a non-empty string and readable; an
 *    unreadable file logs a warning and the request's default prompt is used;
 * 2. `provider.complete({ messages: [{ role: 'system', content: prompt }, { role: 'user', content:
 *    transcript }], model }, { signal })` (a provider without `complete` fails); that signal is
 *    the call's own, aborted when the call loses the race (timeout or cancellation) so the
 *    provider can stop;
 * 3. limited to `timeoutSeconds` through the injectable `timer` (default `systemTimer`): when the
 *    timer resolves first the call rejects with `TimeoutError` (a negative timeout counts as 0; one
 *    beyond `setTimeout`'s range, 2,147,483,647 ms, or not a number is capped to that range, never
 *    dropped); the timer's signal is aborted when the call settles;
 * 4. text = `responseText(response)`; empty after stripping → `EmptySummaryError`.
 * An aborted `signal` rejects the call at once with the abort reason.
 *
 * @example
 * const summarizer = makeProviderSummarizer({ readFile: async () => 'Summarize.' })
 * const provider = { complete: async () => ({ content: [{ type: 'text', text: '## Current Task State\n...' }] }) }
 * await summarizer.summarize({ id: 's1', prompt: 'default', promptPath: null, transcript: '[user]: hi', model: null, timeoutSeconds: 30 }, provider)
 * // '## Current Task State\n...'
 */
export const makeProviderSummarizer = (options: ProviderSummarizerOptions = {}): Summarizer => {
  const timer = options.timer ?? systemTimer
  const readFile = options.readFile ?? readPromptFile
  const logger = options.logger ?? consoleLogger

  const readPrompt = async (request: SummaryRequest): Promise<string> => {
    if (typeof request.promptPath !== 'string' || request.promptPath === '') return request.prompt
    try {
      return await readFile(request.promptPath)
    } catch (error) {
      logger.warning(
        `context-simple: could not read summarization_prompt_path ${JSON.stringify(request.promptPath)} (${describeError(error)}); using the default prompt`,
      )
      return request.prompt
    }
  }

  const summarize = async (request: SummaryRequest, provider: Provider, signal?: AbortSignal): Promise<string> => {
    signal?.throwIfAborted()
    const prompt = await readPrompt(request)
    signal?.throwIfAborted()
    const completion: CompletionRequest = {
      messages: [
        { role: 'system', content: prompt },
        { role: 'user', content: request.transcript },
      ],
      model: request.model,
    }
    const timerControl = new AbortController()
    // The provider gets its own signal, aborted when the call loses the race (timeout or
    // cancellation), so an abandoned call can stop spending tokens.
    const callControl = new AbortController()
    let answered = false
    const contenders: Array<Promise<unknown>> = [
      Promise.resolve().then(async () => {
        if (typeof provider.complete !== 'function') throw new TypeError('the provider has no complete()')
        const response = await provider.complete(completion, { signal: callControl.signal })
        answered = true
        return response
      }),
    ]
    const requested = request.timeoutSeconds * 1000
    // Beyond setTimeout's range (or not a number) the wait is capped, never dropped.
    const ms = Number.isNaN(requested) ? MAX_TIMER_MS : Math.min(MAX_TIMER_MS, Math.max(0, requested))
    {
      contenders.push(
        timer(ms, timerControl.signal).then(() => {
          throw new TimeoutError('summarization', request.timeoutSeconds * 1000, `summarization timed out after ${request.timeoutSeconds} s`)
        }),
      )
    }
    let onAbort: (() => void) | undefined
    if (signal !== undefined) {
      contenders.push(
        new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason)
          signal.addEventListener('abort', onAbort, { once: true })
        }),
      )
    }
    let response: unknown
    try {
      response = await Promise.race(contenders)
    } finally {
      timerControl.abort()
      if (!answered) callControl.abort()
      if (signal !== undefined && onAbort !== undefined) signal.removeEventListener('abort', onAbort)
    }
    const text = responseText(response)
    if (pyStrip(text) === '') throw new EmptySummaryError()
    return text
  }

  return { summarize }
}
