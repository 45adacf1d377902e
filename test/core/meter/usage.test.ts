// Unit tests for src/core/meter/usage.ts: every row of the SPEC 17.10 table, each with an object
// typed by the SDK that produces it (the AI SDK v5 row through the `ai-v5` dev alias), the 17.6
// rejections and what a recording stores (the property is in property-tests/usage.test.ts).
import type { Usage as AnthropicSdkUsage } from '@anthropic-ai/sdk/resources/messages'
import { isLeft } from 'fp-ts/lib/Either.js'
import type { CompletionUsage } from 'openai/resources/completions'
import { describe, expect, it } from 'vitest'
import { decodeUsage, toRecordedUsage, type ContractUsage, type ProviderUsage } from '../../../src/core/meter/usage.js'
import { aiSdkUsage, anthropicUsage, betaUsage, openaiChatUsage, openaiResponsesUsage, v3Usage, v5Usage, langchainUsage, agentsResponseUsage, agentsRunUsage } from '../../support/sdk-usage.js'

/** Measured tokens of a decoded usage: the contract's `input_tokens + cache_write_tokens`. */
const measuredOf = (usage: unknown): number | string => {
  const decoded = decodeUsage(usage)
  if (isLeft(decoded)) return decoded.left
  return decoded.right.usage.input_tokens + (decoded.right.usage.cache_write_tokens ?? 0)
}

describe('decodeUsage: the rows of SPEC 17.10', () => {
  it('OpenAI Agents SDK Usage (has inputTokensDetails / requestUsageEntries): one response as is; a run total by its last request entry; a total without entries refused', () => {
    const expected = { _tag: 'Right', right: { shape: 'openai-agents', usage: { input_tokens: 9_304, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 0 } } }
    expect(decodeUsage(agentsResponseUsage)).toEqual(expected)
    expect(measuredOf(agentsResponseUsage)).toBe(9_304)
    // the running total (10,504 input tokens over two requests) is read as its last request, never summed
    expect(agentsRunUsage.inputTokens).toBe(10_504)
    expect(decodeUsage(agentsRunUsage)).toEqual(expected)
    const { requestUsageEntries: _entries, ...withoutEntries } = agentsRunUsage as typeof agentsRunUsage & { readonly requestUsageEntries?: unknown }
    expect(decodeUsage(withoutEntries)).toEqual({
      _tag: 'Left',
      left: 'usage.requests is 2: a running total over several requests without requestUsageEntries; pass the usage of one model response (ModelResponse.usage)',
    })
    // the details as a record (the stream's response_done usage) read the same
    expect(decodeUsage({ inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, inputTokensDetails: { cached_tokens: 9_000 } })).toEqual(expected)
  })

  it('LangChain UsageMetadata (has input_token_details): input_tokens already holds the cache reads and writes; cache_read / cache_creation are the cache fields', () => {
    expect(decodeUsage(langchainUsage)).toEqual({
      _tag: 'Right',
      right: { shape: 'langchain', usage: { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 } },
    })
    expect(measuredOf(langchainUsage)).toBe(9_304)
    // a cache_creation above the input is refused, naming the field of the row
    expect(decodeUsage({ input_tokens: 10, input_token_details: { cache_creation: 11 } })).toEqual({ _tag: 'Left', left: 'cache write tokens (11) exceed the input tokens (10)' })
    // without input_token_details (a model that reports no cache) it is the contract row: input_tokens as given
    expect(measuredOf({ input_tokens: 9_304, output_tokens: 50, total_tokens: 9_354 })).toBe(9_304)
    expect(decodeUsage({ input_tokens: 10, input_token_details: { cache_read: -1 } })).toEqual({ _tag: 'Left', left: 'usage.input_token_details.cache_read must be null or a non-negative finite number' })
  })

  it('contract shape (has cache_read_tokens / cache_write_tokens): kept as given', () => {
    const contract: ContractUsage = { input_tokens: 300, output_tokens: 7, cache_read_tokens: 100, cache_write_tokens: 80 }
    expect(decodeUsage(contract)).toEqual({ _tag: 'Right', right: { shape: 'contract', usage: contract } })
    expect(measuredOf(contract)).toBe(380)
  })

  it('Anthropic Usage: input_tokens + cache reads + cache writes (4 fresh + 9,000 read + 300 written = 9,304)', () => {
    expect(decodeUsage(anthropicUsage)).toEqual({
      _tag: 'Right',
      right: {
        shape: 'anthropic',
        usage: {
          input_tokens: 9_004,
          output_tokens: 50,
          cache_read_tokens: 9_000,
          cache_write_tokens: 300,
          cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 },
        },
      },
    })
    expect(measuredOf(anthropicUsage)).toBe(9_304)
  })

  it('Anthropic Usage with null cache fields: they count as 0', () => {
    const usage: AnthropicSdkUsage = { ...anthropicUsage, cache_read_input_tokens: null, cache_creation_input_tokens: null }
    expect(decodeUsage(usage)).toEqual({
      _tag: 'Right',
      right: {
        shape: 'anthropic',
        usage: { input_tokens: 4, output_tokens: 50, cache_read_tokens: 0, cache_write_tokens: 0, cache_creation: anthropicUsage.cache_creation },
      },
    })
  })

  it('Anthropic BetaUsage with iterations: the last "message" iteration, not the cumulative top level', () => {
    expect(decodeUsage(betaUsage)).toEqual({
      _tag: 'Right',
      right: { shape: 'anthropic-iteration', usage: { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 } },
    })
    expect(measuredOf({ ...betaUsage, iterations: [] })).toBe(10 + 15_000 + 700)
    expect(measuredOf({ ...betaUsage, iterations: null })).toBe(10 + 15_000 + 700)
  })

  it('OpenAI Chat: prompt_tokens; cache read from prompt_tokens_details.cached_tokens, no cache write', () => {
    expect(decodeUsage(openaiChatUsage)).toEqual({
      _tag: 'Right',
      right: { shape: 'openai-chat', usage: { input_tokens: 9_304, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 0 } },
    })
    const uncached: CompletionUsage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }
    expect(decodeUsage(uncached)).toEqual({
      _tag: 'Right',
      right: { shape: 'openai-chat', usage: { input_tokens: 12, output_tokens: 3, cache_read_tokens: 0, cache_write_tokens: 0 } },
    })
  })

  it('OpenAI Responses: input_tokens; cache read from input_tokens_details.cached_tokens', () => {
    expect(decodeUsage(openaiResponsesUsage)).toEqual({
      _tag: 'Right',
      right: { shape: 'openai-responses', usage: { input_tokens: 9_304, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 0 } },
    })
  })

  it('AI SDK v6 LanguageModelUsage: inputTokens includes reads and writes', () => {
    expect(decodeUsage(aiSdkUsage)).toEqual({
      _tag: 'Right',
      right: { shape: 'ai-sdk', usage: { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 } },
    })
    expect(measuredOf(aiSdkUsage)).toBe(9_304)
  })

  it('AI SDK provider LanguageModelV3Usage: inputTokens.total', () => {
    expect(decodeUsage(v3Usage)).toEqual({
      _tag: 'Right',
      right: { shape: 'ai-sdk-v3', usage: { input_tokens: 9_004, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 300 } },
    })
    expect(measuredOf(v3Usage)).toBe(9_304)
  })

  it('AI SDK v5 LanguageModelUsage: inputTokens; cache read from cachedInputTokens', () => {
    expect(decodeUsage(v5Usage)).toEqual({
      _tag: 'Right',
      right: { shape: 'ai-sdk-v5', usage: { input_tokens: 9_304, output_tokens: 50, cache_read_tokens: 9_000, cache_write_tokens: 0 } },
    })
  })

  it('every SDK object is a ProviderUsage without a cast (the library\'s structural types)', () => {
    const all: ReadonlyArray<ProviderUsage> = [anthropicUsage, betaUsage, openaiChatUsage, openaiResponsesUsage, aiSdkUsage, v3Usage, v5Usage]
    expect(all.map(measuredOf)).toEqual([9_304, 9_304, 9_304, 9_304, 9_304, 9_304, 9_304])
  })
})

describe('decodeUsage: what is ignored (SPEC 17.6, 17.10)', () => {
  it.each([
    ['not an object', 'tokens', 'usage is not an object'],
    ['no known field', { tokens: 5, model: 'x' }, 'usage matches no known shape (found fields tokens, model'],
    ['empty', {}, 'found no fields'],
    ['contract without input_tokens', { cache_read_tokens: 5 }, 'usage.input_tokens must be a non-negative finite number'],
    ['contract with negative input', { input_tokens: -1 }, 'usage.input_tokens must be'],
    ['contract with a string cache field', { input_tokens: 5, cache_write_tokens: 'abc' }, 'usage.cache_write_tokens must be null or'],
    ['Anthropic without input_tokens', { cache_read_input_tokens: 5 }, 'usage.input_tokens must be'],
    ['Anthropic with a bad cache field', { input_tokens: 5, cache_creation_input_tokens: -3 }, 'usage.cache_creation_input_tokens must be null or'],
    ['Anthropic iteration with a bad input', { input_tokens: 5, iterations: [{ type: 'message', input_tokens: 'x' }] }, 'usage.iterations[0].input_tokens must be'],
    ['OpenAI Chat with an infinite prompt', { prompt_tokens: Number.POSITIVE_INFINITY }, 'usage.prompt_tokens must be'],
    ['OpenAI Chat with a bad cached count', { prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 'x' } }, 'usage.prompt_tokens_details.cached_tokens must be'],
    ['AI SDK v6 without inputTokens', { inputTokens: undefined, inputTokenDetails: {} }, 'usage.inputTokens must be'],
    ['LanguageModelV3Usage without a total', { inputTokens: { total: undefined } }, 'usage.inputTokens.total must be'],
    ['AI SDK v6 writes above the input', { inputTokens: 10, inputTokenDetails: { cacheWriteTokens: 11 } }, 'cache write tokens (11) exceed the input tokens (10)'],
    ['a boolean input', { input_tokens: true }, 'usage.input_tokens must be'],
  ])('%s', (_name, usage, reason) => {
    const decoded = decodeUsage(usage)
    expect(isLeft(decoded) && decoded.left).toContain(reason)
  })
})

describe('toRecordedUsage: what a recording stores (SPEC 17.10)', () => {
  it('the normalised contract shape for an SDK object, the usage itself for the contract shape', () => {
    expect(toRecordedUsage({ usage: anthropicUsage })).toEqual({
      input_tokens: 9_004,
      output_tokens: 50,
      cache_read_tokens: 9_000,
      cache_write_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 },
    })
    const contract = { input_tokens: 10, output_tokens: 2 }
    expect(toRecordedUsage({ usage: contract })).toBe(contract)
  })

  it('keeps the 1-hour share of the cache writes, which the replay prices at its own rate', () => {
    const oneHour = { input_tokens: 4, output_tokens: 5, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 } }
    expect(toRecordedUsage({ usage: oneHour })).toMatchObject({ cache_write_tokens: 300, cache_creation: { ephemeral_1h_input_tokens: 300 } })
  })

  it('the raw usage when it does not decode (a replay ignores it too), null without usage', () => {
    expect(toRecordedUsage({ usage: { tokens: 5 } })).toEqual({ tokens: 5 })
    expect(toRecordedUsage({ model: 'x' })).toBeNull()
    expect(toRecordedUsage(null)).toBeNull()
  })
})
