/**
 * The provider object passed to a request (SPEC 17.7) and the reading of its model window
 * (SPEC 4 step 2). The core does the budget arithmetic on the window the shell reads here.
 */
import type { ProviderWindow } from '../core/events.js'
import { TimeoutError } from '../core/errors.js'
import { describeValue } from '../core/messages/json-value.js'
import { isTruthy } from '../core/messages/values.js'
import { withTimeLimit } from './time-limit.js'

/**
 * A model's limits as a provider reports them, in tokens. Either naming works
 * (`contextWindow`/`context_window`, `maxOutputTokens`/`max_output_tokens`); when both are present
 * the camelCase one is read.
 *
 * @example
 * const info: ModelInfo = { context_window: 200_000, max_output_tokens: 64_000 }
 */
export interface ModelInfo {
  readonly contextWindow?: unknown
  readonly context_window?: unknown
  readonly maxOutputTokens?: unknown
  readonly max_output_tokens?: unknown
  readonly [key: string]: unknown
}

/**
 * A provider's general info; `defaults` holds the default model's limits (a `ModelInfo`).
 *
 * @example
 * const info: ProviderInfo = { defaults: { contextWindow: 128_000, maxOutputTokens: 16_384 } }
 */
export interface ProviderInfo {
  readonly defaults?: ModelInfo | null
  readonly [key: string]: unknown
}

/**
 * One message of a completion request: the summarizer sends a system prompt and a user transcript.
 *
 * @example
 * const message: CompletionMessage = { role: 'system', content: 'Summarize.' }
 */
export interface CompletionMessage {
  readonly role: 'system' | 'user'
  readonly content: string
}

/**
 * The request the summarizer sends (SPEC 12.3): `model` null means the provider's default.
 *
 * @example
 * const request: CompletionRequest = { messages: [{ role: 'user', content: '[user]: hi' }], model: null }
 */
export interface CompletionRequest {
  readonly messages: ReadonlyArray<CompletionMessage>
  readonly model: string | null
}

/**
 * A completion response: `content` is a list of blocks, text blocks carry a string `text`.
 *
 * @example
 * const response: CompletionResponse = { content: [{ type: 'text', text: '## Current Task State' }] }
 */
export interface CompletionResponse {
  readonly content?: ReadonlyArray<{ readonly text?: unknown; readonly [key: string]: unknown }> | unknown
  readonly [key: string]: unknown
}

/**
 * The provider shape the manager reads (SPEC 17.7). Every member is optional and may be sync or
 * async: the window comes from `getModelInfo()`/`get_model_info()` (a `ModelInfo`), else from
 * `getInfo()`/`get_info()` `.defaults`; the summarizer calls `complete(request, { signal })`, whose
 * signal aborts when the call times out or the summary is cancelled (`clear`, `setMessages`).
 *
 * @example
 * const provider: Provider = {
 *   getModelInfo: () => ({ contextWindow: 200_000, maxOutputTokens: 64_000 }),
 *   complete: async () => ({ content: [{ type: 'text', text: '## Current Task State ...' }] }),
 * }
 */
export interface Provider {
  readonly getModelInfo?: () => unknown
  readonly get_model_info?: () => unknown
  readonly getInfo?: () => unknown
  readonly get_info?: () => unknown
  readonly complete?: (request: CompletionRequest, options?: { readonly signal?: AbortSignal }) => Promise<CompletionResponse> | CompletionResponse
  readonly [key: string]: unknown
}

/**
 * Truthiness of a provider result (SPEC 0): like `isTruthy`, except that an object that is not a
 * plain record or array (a class instance exposing getters) is truthy, as a Python object is.
 */
const isTruthyResult = (value: unknown): boolean => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) return true
  }
  return isTruthy(value)
}

/** Reads a field under either naming: the camelCase value when set (not null/undefined), else the snake_case one. */
const field = (source: unknown, camel: string, snake: string): unknown => {
  if (source === null || source === undefined) return undefined
  const record = source as Record<string, unknown>
  const value = record[camel]
  return value !== undefined && value !== null ? value : record[snake]
}

const isTokenLimit = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value > 0

/**
 * The window of a model-info-like value when both limits are truthy, else null. Limits that are
 * truthy but not finite positive numbers (NaN, Infinity, a negative number, a string) are ignored
 * with a warning (SPEC 17.9), so the next source applies.
 */
const windowOf = (source: unknown, where: string, warn: (message: string) => void): ProviderWindow | null => {
  const contextWindow = field(source, 'contextWindow', 'context_window')
  const maxOutputTokens = field(source, 'maxOutputTokens', 'max_output_tokens')
  if (!isTruthy(contextWindow) || !isTruthy(maxOutputTokens)) return null
  if (isTokenLimit(contextWindow) && isTokenLimit(maxOutputTokens)) return { context_window: contextWindow, max_output_tokens: maxOutputTokens }
  warn(
    `context-simple: provider ${where} gave context window ${describeValue(contextWindow)} and max output ${describeValue(maxOutputTokens)} tokens; ` +
      'a limit must be a finite positive number, so this window is ignored and the next budget source applies',
  )
  return null
}

/**
 * How `readProviderWindow` reports and bounds its calls: `warn` receives warnings (a window
 * ignored, a read that timed out or threw); `timeoutMs` bounds each call into the provider
 * (`callTimeoutMs`, SPEC 17.9; a call that takes longer counts as one that threw).
 *
 * @example
 * const options: ProviderReadOptions = { warn: (message) => console.warn(message), timeoutMs: 30_000 }
 */
export interface ProviderReadOptions {
  readonly warn?: (message: string) => void
  readonly timeoutMs?: number
}

/**
 * Reads the model window from a provider, following SPEC 4 step 2 exactly:
 * a. if the provider has a `getModelInfo` (else `get_model_info`) member, call it (awaiting a
 *    promise); if the result is truthy and both its `contextWindow`/`context_window` and
 *    `maxOutputTokens`/`max_output_tokens` are truthy, return them (a plain object result is
 *    accepted, SPEC 17.7);
 * b. else call `getInfo()` (else `get_info()`), take `.defaults` (falsy → `{}`) and return the two
 *    limits when both are truthy;
 * otherwise resolve `null` (the core then uses `max_tokens`). An exception or rejection anywhere —
 * including a missing `getInfo`/`get_info`, a member that is not a function, or a nullish info —
 * abandons the whole step and resolves `null`; in particular a throwing `getModelInfo` skips
 * `getInfo`. Values are returned raw (the core's arithmetic decides what they give). Never rejects.
 *
 * @example
 * await readProviderWindow({ get_info: () => ({ defaults: { context_window: 128000, max_output_tokens: 16384 } }) })
 * // { context_window: 128000, max_output_tokens: 16384 }
 * await readProviderWindow({ getModelInfo: () => { throw new Error('x') }, getInfo: () => ({ defaults: { contextWindow: 1, maxOutputTokens: 1 } }) })
 * // null
 */
export const readProviderWindow = async (provider: Provider, options: ProviderReadOptions = {}): Promise<ProviderWindow | null> => {
  const warn = options.warn ?? ((): void => undefined)
  const call = (member: string): Promise<unknown> =>
    withTimeLimit(() => (provider[member] as () => unknown)(), options.timeoutMs, `provider.${member}()`)
  try {
    const modelInfoMember = provider.getModelInfo !== undefined ? 'getModelInfo' : provider.get_model_info !== undefined ? 'get_model_info' : null
    if (modelInfoMember !== null) {
      const info = await call(modelInfoMember)
      if (isTruthyResult(info)) {
        const window = windowOf(info, `${modelInfoMember}()`, warn)
        if (window !== null) return window
      }
    }
    const infoMember = provider.getInfo !== undefined ? 'getInfo' : 'get_info'
    const info = (await call(infoMember)) as ProviderInfo
    const defaults = info.defaults
    return windowOf(isTruthyResult(defaults) ? defaults : {}, `${infoMember}().defaults`, warn)
  } catch (error) {
    if (error instanceof TimeoutError) warn(`context-simple: ${error.message}; reading the budget from max_tokens`)
    return null
  }
}
