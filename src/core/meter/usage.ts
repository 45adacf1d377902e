/**
 * Provider usage shapes (SPEC 17.10, 10.2, 17.6): the structural types of the usage objects the
 * Anthropic, OpenAI and AI SDKs return, and one pure decoder that reads any of them as the
 * contract's usage (`input_tokens` gross of cache reads, `cache_write_tokens` billed on top).
 */
import * as E from 'fp-ts/lib/Either.js'
import { isPlainObject } from '../messages/values.js'

/**
 * The contract's usage (SPEC 10.2, docs/recording-format.md): `input_tokens` is the gross input (fresh plus
 * cache reads), `cache_write_tokens` is billed on top, so the measured tokens are
 * `input_tokens + cache_write_tokens`. Absent or null cache fields count as 0. All tokens.
 *
 * @example
 * const usage: ContractUsage = { input_tokens: 9_004, output_tokens: 120, cache_read_tokens: 9_000, cache_write_tokens: 300 }
 */
export interface ContractUsage {
  readonly input_tokens: number
  readonly output_tokens?: number | null | undefined
  readonly cache_read_tokens?: number | null | undefined
  readonly cache_write_tokens?: number | null | undefined
  /** Anthropic's split of `cache_write_tokens` by lifetime, kept when the provider gave it. */
  readonly cache_creation?: CacheCreation | undefined
}

/**
 * Anthropic's `cache_creation` breakdown: the cache-write tokens written with a 5-minute and with
 * a 1-hour lifetime. The meters ignore it; the replay's prompt-cache model prices writes by it.
 *
 * @example
 * const creation: CacheCreation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 }
 */
export interface CacheCreation {
  readonly ephemeral_5m_input_tokens: number
  readonly ephemeral_1h_input_tokens: number
}

/**
 * One entry of Anthropic's `BetaUsage.iterations` (a sampling or compaction iteration); only
 * `type: "message"` entries are read. Tokens.
 *
 * @example
 * const iteration: AnthropicIterationUsage = { type: 'message', input_tokens: 4, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300, output_tokens: 50 }
 */
export interface AnthropicIterationUsage {
  readonly type: string
  readonly input_tokens?: number | null | undefined
  readonly output_tokens?: number | null | undefined
  readonly cache_read_input_tokens?: number | null | undefined
  readonly cache_creation_input_tokens?: number | null | undefined
}

/**
 * Anthropic's `Usage` / `BetaUsage` (Messages API): `input_tokens` excludes cache reads and
 * writes, which come in `cache_read_input_tokens` and `cache_creation_input_tokens`. In
 * `BetaUsage` the top level is cumulative over `iterations`. Tokens.
 *
 * @example
 * const usage: AnthropicUsage = { input_tokens: 4, output_tokens: 50, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300 }
 */
export interface AnthropicUsage {
  readonly input_tokens: number | null
  readonly output_tokens?: number | null | undefined
  readonly cache_read_input_tokens?: number | null | undefined
  readonly cache_creation_input_tokens?: number | null | undefined
  readonly iterations?: ReadonlyArray<AnthropicIterationUsage> | null | undefined
}

/**
 * OpenAI Chat Completions `CompletionUsage`: `prompt_tokens` includes the cached tokens of
 * `prompt_tokens_details.cached_tokens`; OpenAI reports no cache writes. Tokens.
 *
 * @example
 * const usage: OpenAIChatUsage = { prompt_tokens: 9_304, completion_tokens: 50, total_tokens: 9_354, prompt_tokens_details: { cached_tokens: 9_000 } }
 */
export interface OpenAIChatUsage {
  readonly prompt_tokens: number
  readonly completion_tokens?: number | undefined
  readonly total_tokens?: number | undefined
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | null | undefined } | null | undefined
}

/**
 * OpenAI Responses `ResponseUsage`: `input_tokens` includes the cached tokens of
 * `input_tokens_details.cached_tokens`. Tokens.
 *
 * @example
 * const usage: OpenAIResponsesUsage = { input_tokens: 9_304, output_tokens: 50, total_tokens: 9_354, input_tokens_details: { cached_tokens: 9_000 } }
 */
export interface OpenAIResponsesUsage {
  readonly input_tokens: number
  readonly output_tokens?: number | undefined
  readonly total_tokens?: number | undefined
  readonly input_tokens_details: { readonly cached_tokens?: number | null | undefined }
}

/**
 * The AI SDK v6 `LanguageModelUsage` (`generateText` / `streamText` results, `onStepFinish`):
 * `inputTokens` includes cache reads and writes. Tokens.
 *
 * @example
 * // a generateText result's usage (ai@6), as the SDK returns it
 * const fromSdk = { inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, inputTokenDetails: { noCacheTokens: 4, cacheReadTokens: 9_000, cacheWriteTokens: 300 } }
 * const usage: AiSdkUsage = fromSdk
 */
export interface AiSdkUsage {
  readonly inputTokens: number | undefined
  readonly outputTokens?: number | undefined
  readonly inputTokenDetails: {
    readonly cacheReadTokens?: number | undefined
    readonly cacheWriteTokens?: number | undefined
  }
}

/**
 * The AI SDK provider's `LanguageModelV3Usage` (what a `LanguageModelV3` returns, seen by
 * middleware): `inputTokens.total` includes cache reads and writes. Tokens.
 *
 * @example
 * // a LanguageModelV3 provider's usage, as the provider returns it
 * const fromProvider = { inputTokens: { total: 9_304, noCache: 4, cacheRead: 9_000, cacheWrite: 300 }, outputTokens: { total: 50, text: 50, reasoning: undefined } }
 * const usage: LanguageModelV3UsageShape = fromProvider
 */
export interface LanguageModelV3UsageShape {
  readonly inputTokens: {
    readonly total: number | undefined
    readonly cacheRead?: number | undefined
    readonly cacheWrite?: number | undefined
  }
  readonly outputTokens?: { readonly total?: number | undefined } | undefined
}

/**
 * The AI SDK v5 `LanguageModelUsage`: `inputTokens` a number, cache reads in
 * `cachedInputTokens`, no cache writes. Tokens.
 *
 * @example
 * // a generateText result's usage (ai@5), as the SDK returns it
 * const fromSdk = { inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, cachedInputTokens: 9_000 }
 * const usage: AiSdkV5Usage = fromSdk
 */
export interface AiSdkV5Usage {
  readonly inputTokens: number | undefined
  readonly outputTokens?: number | undefined
  readonly cachedInputTokens?: number | undefined
}

/**
 * LangChain.js `UsageMetadata` (`AIMessage.usage_metadata` of `@langchain/core`): `input_tokens`
 * includes the cache reads and writes that `input_token_details` details as `cache_read` and
 * `cache_creation` (the chat model integrations add them in; `@langchain/anthropic` sums
 * Anthropic's three input fields). Tokens.
 *
 * @example
 * const usage: LangChainUsage = { input_tokens: 9_304, output_tokens: 50, total_tokens: 9_354, input_token_details: { cache_read: 9_000, cache_creation: 300 } }
 */
export interface LangChainUsage {
  readonly input_tokens: number
  readonly output_tokens?: number | undefined
  readonly total_tokens?: number | undefined
  readonly input_token_details: {
    readonly cache_read?: number | undefined
    readonly cache_creation?: number | undefined
  }
}

/**
 * The OpenAI Agents SDK's `Usage` (`ModelResponse.usage` of one response, `requests: 1`; or a run's
 * running total, `result.state.usage`, whose `requestUsageEntries` hold one entry per request):
 * `inputTokens` includes the cached tokens of `inputTokensDetails.cached_tokens`, a record or a
 * list of one record per request. Tokens.
 *
 * @example
 * const usage: OpenAIAgentsUsage = { requests: 1, inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, inputTokensDetails: [{ cached_tokens: 9_000 }] }
 */
export interface OpenAIAgentsUsage {
  readonly requests?: number | undefined
  readonly inputTokens: number
  readonly outputTokens?: number | undefined
  readonly totalTokens?: number | undefined
  readonly inputTokensDetails?: Readonly<Record<string, number>> | ReadonlyArray<Readonly<Record<string, number>>> | undefined
  readonly outputTokensDetails?: unknown
  readonly requestUsageEntries?: ReadonlyArray<{ readonly inputTokens: number; readonly outputTokens?: number; readonly inputTokensDetails?: Readonly<Record<string, number>> }> | undefined
}

/**
 * Every usage object `onLlmResponse` reads (SPEC 17.10): the contract's shape or one of the SDKs'.
 * These are the library's own structural types, so the SDKs' objects are accepted without a cast
 * and without the SDKs installed.
 *
 * @example
 * // the usage of an Anthropic Message, as the SDK returns it
 * const usage: ProviderUsage = { input_tokens: 4, output_tokens: 50, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300 }
 * await new ContextManager().onLlmResponse({ usage }) // => { action: 'continue' }
 */
export type ProviderUsage =
  | ContractUsage
  | AnthropicUsage
  | OpenAIChatUsage
  | OpenAIResponsesUsage
  | AiSdkUsage
  | LanguageModelV3UsageShape
  | AiSdkV5Usage
  | LangChainUsage
  | OpenAIAgentsUsage

/**
 * Which row of the SPEC 17.10 table a usage object matched.
 *
 * @example
 * const shape: UsageShape = 'anthropic'
 */
export type UsageShape =
  | 'contract'
  | 'anthropic'
  | 'anthropic-iteration'
  | 'openai-chat'
  | 'openai-responses'
  | 'ai-sdk'
  | 'ai-sdk-v3'
  | 'ai-sdk-v5'
  | 'langchain'
  | 'openai-agents'

/**
 * A decoded usage object: the row it matched and the contract usage it stands for. For the
 * contract shape, `usage` is the object itself (recordings keep it as given); otherwise it is
 * `{input_tokens: measured - cache_write, output_tokens?, cache_read_tokens, cache_write_tokens}`
 * (SPEC 17.10), so `input_tokens + cache_write_tokens` is the measured figure. Tokens.
 *
 * @example
 * const decoded: DecodedUsage = { shape: 'openai-chat', usage: { input_tokens: 9_304, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 0 } }
 */
export interface DecodedUsage {
  readonly shape: UsageShape
  readonly usage: ContractUsage
}

type Fields = Readonly<Record<string, unknown>>

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0
const has = (object: Fields, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key) && object[key] !== undefined
const fieldsOf = (value: unknown): Fields => (isPlainObject(value) ? value : {})

/** An optional count: absent/null/undefined is 0; anything else must be a count. */
const optionalCount = (value: unknown, path: string): E.Either<string, number> =>
  value === undefined || value === null
    ? E.right(0)
    : isCount(value)
      ? E.right(Math.trunc(value))
      : E.left(`${path} must be null or a non-negative finite number`)

const requiredCount = (value: unknown, path: string): E.Either<string, number> =>
  typeof value !== 'boolean' && isCount(value) ? E.right(Math.trunc(value)) : E.left(`${path} must be a non-negative finite number`)

/**
 * The figures one SDK usage reports: its input count, its cache counts, whether the input count
 * leaves the cache out (Anthropic) or includes it (the others), and its output count.
 */
interface Reading {
  readonly input: E.Either<string, number>
  readonly read: E.Either<string, number>
  readonly write: E.Either<string, number>
  readonly inputExcludesCache: boolean
  readonly output: unknown
  readonly creation?: CacheCreation | undefined
}

const toContract = (shape: UsageShape, reading: Reading): E.Either<string, DecodedUsage> => {
  const { input, read, write } = reading
  if (E.isLeft(input)) return input
  if (E.isLeft(read)) return read
  if (E.isLeft(write)) return write
  const measured = reading.inputExcludesCache ? input.right + read.right + write.right : input.right
  if (write.right > measured) return E.left(`cache write tokens (${write.right}) exceed the input tokens (${measured})`)
  const output = isCount(reading.output) ? { output_tokens: Math.trunc(reading.output) } : {}
  return E.right({
    shape,
    usage: {
      input_tokens: measured - write.right,
      ...output,
      cache_read_tokens: read.right,
      cache_write_tokens: write.right,
      ...(reading.creation === undefined ? {} : { cache_creation: reading.creation }),
    },
  })
}

/** The `cache_creation` breakdown of an Anthropic usage object, when it holds a count of either lifetime. */
const readCacheCreation = (value: unknown): CacheCreation | undefined => {
  if (!isPlainObject(value)) return undefined
  const fiveMinutes = isCount(value.ephemeral_5m_input_tokens) ? value.ephemeral_5m_input_tokens : undefined
  const oneHour = isCount(value.ephemeral_1h_input_tokens) ? value.ephemeral_1h_input_tokens : undefined
  if (fiveMinutes === undefined && oneHour === undefined) return undefined
  return { ephemeral_5m_input_tokens: fiveMinutes ?? 0, ephemeral_1h_input_tokens: oneHour ?? 0 }
}

const readAnthropic = (usage: Fields, path: string): Reading => ({
  input: requiredCount(usage.input_tokens, `${path}.input_tokens`),
  read: optionalCount(usage.cache_read_input_tokens, `${path}.cache_read_input_tokens`),
  write: optionalCount(usage.cache_creation_input_tokens, `${path}.cache_creation_input_tokens`),
  inputExcludesCache: true,
  output: usage.output_tokens,
  creation: readCacheCreation(usage.cache_creation),
})

const lastMessageIteration = (usage: Fields): { readonly index: number; readonly iteration: Fields } | null => {
  const iterations = usage.iterations
  if (!Array.isArray(iterations)) return null
  for (let index = iterations.length - 1; index >= 0; index -= 1) {
    const iteration: unknown = iterations[index]
    if (isPlainObject(iteration) && iteration.type === 'message') return { index, iteration }
  }
  return null
}

/**
 * Reads a usage object as the contract's usage (SPEC 17.10, with the validation of 17.6). The
 * rows are tried in the table's order: `cache_read_tokens` / `cache_write_tokens` → contract;
 * `cache_read_input_tokens` / `cache_creation_input_tokens` / `iterations` → Anthropic (the last
 * `type: "message"` iteration when there is one); `prompt_tokens` → OpenAI Chat;
 * `input_tokens_details` → OpenAI Responses; `input_token_details` → LangChain `UsageMetadata`;
 * `requestUsageEntries` / `inputTokensDetails` → OpenAI Agents SDK `Usage` (its last request entry);
 * `inputTokenDetails` → AI SDK v6; `inputTokens` an
 * object → `LanguageModelV3Usage`; `inputTokens` a number → AI SDK v5; plain `input_tokens` →
 * contract. Absent, null or undefined cache fields count as 0.
 *
 * Left (a reason naming the field, for a warning) when the value is not an object, when the figure
 * the row measures is missing, negative or not a finite number, when a cache field is present and
 * not a non-negative finite number, when cache writes exceed the measured input, or when the
 * object matches no row (the reason lists the fields found).
 *
 * @example
 * decodeUsage({ input_tokens: 4, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300, output_tokens: 50 })
 * // Right({ shape: 'anthropic', usage: { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 } })
 */
export const decodeUsage = (value: unknown): E.Either<string, DecodedUsage> => {
  if (!isPlainObject(value)) return E.left('usage is not an object')
  const usage = value
  const hasInput = Object.prototype.hasOwnProperty.call(usage, 'input_tokens')
  if (has(usage, 'cache_read_tokens') || has(usage, 'cache_write_tokens') || (hasInput && isContractOnly(usage))) return decodeContract(usage)
  if (has(usage, 'cache_read_input_tokens') || has(usage, 'cache_creation_input_tokens') || has(usage, 'iterations')) {
    const last = lastMessageIteration(usage)
    if (last !== null) return toContract('anthropic-iteration', readAnthropic(last.iteration, `usage.iterations[${last.index}]`))
    return toContract('anthropic', readAnthropic(usage, 'usage'))
  }
  if (has(usage, 'prompt_tokens')) {
    const details = fieldsOf(usage.prompt_tokens_details)
    return toContract('openai-chat', {
      input: requiredCount(usage.prompt_tokens, 'usage.prompt_tokens'),
      read: optionalCount(details.cached_tokens, 'usage.prompt_tokens_details.cached_tokens'),
      write: E.right(0),
      inputExcludesCache: false,
      output: usage.completion_tokens,
    })
  }
  if (has(usage, 'input_tokens_details')) {
    const details = fieldsOf(usage.input_tokens_details)
    return toContract('openai-responses', {
      input: requiredCount(usage.input_tokens, 'usage.input_tokens'),
      read: optionalCount(details.cached_tokens, 'usage.input_tokens_details.cached_tokens'),
      write: E.right(0),
      inputExcludesCache: false,
      output: usage.output_tokens,
    })
  }
  if (has(usage, 'input_token_details')) {
    const details = fieldsOf(usage.input_token_details)
    return toContract('langchain', {
      input: requiredCount(usage.input_tokens, 'usage.input_tokens'),
      read: optionalCount(details.cache_read, 'usage.input_token_details.cache_read'),
      write: optionalCount(details.cache_creation, 'usage.input_token_details.cache_creation'),
      inputExcludesCache: false,
      output: usage.output_tokens,
    })
  }
  if (has(usage, 'requestUsageEntries') || has(usage, 'inputTokensDetails')) return decodeAgentsUsage(usage)
  if (has(usage, 'inputTokenDetails')) {
    const details = fieldsOf(usage.inputTokenDetails)
    return toContract('ai-sdk', {
      input: requiredCount(usage.inputTokens, 'usage.inputTokens'),
      read: optionalCount(details.cacheReadTokens, 'usage.inputTokenDetails.cacheReadTokens'),
      write: optionalCount(details.cacheWriteTokens, 'usage.inputTokenDetails.cacheWriteTokens'),
      inputExcludesCache: false,
      output: usage.outputTokens,
    })
  }
  if (isPlainObject(usage.inputTokens)) {
    const input = usage.inputTokens
    return toContract('ai-sdk-v3', {
      input: requiredCount(input.total, 'usage.inputTokens.total'),
      read: optionalCount(input.cacheRead, 'usage.inputTokens.cacheRead'),
      write: optionalCount(input.cacheWrite, 'usage.inputTokens.cacheWrite'),
      inputExcludesCache: false,
      output: fieldsOf(usage.outputTokens).total,
    })
  }
  if (has(usage, 'inputTokens')) {
    return toContract('ai-sdk-v5', {
      input: requiredCount(usage.inputTokens, 'usage.inputTokens'),
      read: optionalCount(usage.cachedInputTokens, 'usage.cachedInputTokens'),
      write: E.right(0),
      inputExcludesCache: false,
      output: usage.outputTokens,
    })
  }
  const found = Object.keys(usage)
  return E.left(
    `usage matches no known shape (found ${found.length === 0 ? 'no fields' : `fields ${found.join(', ')}`}; expected input_tokens, ` +
      'Anthropic cache_read_input_tokens, OpenAI prompt_tokens or input_tokens_details, or AI SDK inputTokens)',
  )
}

/**
 * The Agents SDK row: the last `requestUsageEntries` entry when there is one (a running total's
 * latest request), else the object itself, which must then be one request's (`requests` absent
 * or 1: a total without entries cannot be split per request).
 */
const decodeAgentsUsage = (usage: Fields): E.Either<string, DecodedUsage> => {
  const entries = Array.isArray(usage.requestUsageEntries) ? usage.requestUsageEntries : []
  const last: unknown = entries.length > 0 ? entries[entries.length - 1] : undefined
  const path = entries.length > 0 ? `usage.requestUsageEntries[${entries.length - 1}]` : 'usage'
  if (last === undefined && usage.requests !== undefined && usage.requests !== null && usage.requests !== 1) {
    return E.left(`usage.requests is ${JSON.stringify(usage.requests)}: a running total over several requests without requestUsageEntries; pass the usage of one model response (ModelResponse.usage)`)
  }
  const entry = fieldsOf(last ?? usage)
  const details: unknown = entry.inputTokensDetails
  // a list holds one record per request: the last is this request's
  const record = fieldsOf(Array.isArray(details) ? details[details.length - 1] : details)
  return toContract('openai-agents', {
    input: requiredCount(entry.inputTokens, `${path}.inputTokens`),
    read: optionalCount(record.cached_tokens, `${path}.inputTokensDetails.cached_tokens`),
    write: E.right(0),
    inputExcludesCache: false,
    output: entry.outputTokens,
  })
}

/** A plain `{input_tokens, ...}` with none of the other rows' markers: the contract shape. */
const isContractOnly = (usage: Fields): boolean =>
  !['cache_read_input_tokens', 'cache_creation_input_tokens', 'iterations', 'prompt_tokens', 'input_tokens_details', 'input_token_details', 'inputTokenDetails', 'inputTokens'].some(
    (key) => has(usage, key),
  )

/** The contract shape (SPEC 10.2 with 17.6): returned as given once its counts are valid. */
const decodeContract = (usage: Fields): E.Either<string, DecodedUsage> => {
  const input = requiredCount(usage.input_tokens, 'usage.input_tokens')
  if (E.isLeft(input)) return input
  for (const key of ['cache_read_tokens', 'cache_write_tokens'] as const) {
    const checked = optionalCount(usage[key], `usage.${key}`)
    if (E.isLeft(checked)) return checked
  }
  return E.right({ shape: 'contract', usage: usage as unknown as ContractUsage })
}

/**
 * The usage a recording stores for one `llm:response` payload (SPEC 17.10): the normalised
 * contract shape when `data.usage` decodes, else the raw `usage` (so a replay ignores it the same
 * way), or null when the payload has none.
 *
 * @example
 * toRecordedUsage({ usage: { prompt_tokens: 9_304, prompt_tokens_details: { cached_tokens: 9_000 } } })
 * // { input_tokens: 9_304, cache_read_tokens: 9_000, cache_write_tokens: 0 }
 */
export const toRecordedUsage = (data: unknown): unknown => {
  if (!isPlainObject(data) || data.usage === undefined) return null
  const decoded = decodeUsage(data.usage)
  return E.isRight(decoded) ? decoded.right.usage : data.usage
}

/**
 * The payload of an `llm:response` hook event as the manager reads it (SPEC 9, 10.2, 17.10): its
 * `usage` in any `ProviderUsage` shape; other fields (the response itself, model name, ...) are
 * ignored. A payload without an object `usage` is ignored with a warning.
 *
 * @example
 * // the usage of an OpenAI ChatCompletion
 * const payload: LlmResponsePayload = { usage: { prompt_tokens: 9_304, completion_tokens: 50, total_tokens: 9_354, prompt_tokens_details: { cached_tokens: 9_000 } } }
 */
export interface LlmResponsePayload {
  readonly usage?: ProviderUsage | null | undefined
  readonly [key: string]: unknown
}
