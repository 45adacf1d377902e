/**
 * Usage objects typed by the SDKs that produce them (SPEC 17.10's rows), shared by the usage tests.
 * Each stands for one model call with 4 fresh input tokens, 9,000 read from the prompt cache and
 * (where the provider reports cache writes) 300 written: 9,304 measured tokens.
 */
import type { Usage as AnthropicSdkUsage } from '@anthropic-ai/sdk/resources/messages'
import type { BetaUsage } from '@anthropic-ai/sdk/resources/beta/messages'
import type { LanguageModelV3Usage } from '@ai-sdk/provider'
import type { LanguageModelUsage } from 'ai'
import type { LanguageModelUsage as LanguageModelUsageV5 } from 'ai-v5'
import type { CompletionUsage } from 'openai/resources/completions'
import type { ResponseUsage } from 'openai/resources/responses/responses'
import type { UsageMetadata } from '@langchain/core/messages'
import { Usage as AgentsUsageClass } from '@openai/agents'

export const anthropicUsage: AnthropicSdkUsage = {
  input_tokens: 4,
  output_tokens: 50,
  cache_read_input_tokens: 9_000,
  cache_creation_input_tokens: 300,
  cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 },
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: 'standard',
  speed: null,
}

export const betaUsage: BetaUsage = {
  // cumulative over both sampling iterations and the compaction
  input_tokens: 10,
  output_tokens: 120,
  cache_read_input_tokens: 15_000,
  cache_creation_input_tokens: 700,
  cache_creation: null,
  fallback_credit: null,
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: 'standard',
  speed: null,
  iterations: [
    { type: 'message', input_tokens: 6, output_tokens: 70, cache_read_input_tokens: 6_000, cache_creation_input_tokens: 400, cache_creation: null, model: 'claude-sonnet-4-5' },
    { type: 'message', input_tokens: 4, output_tokens: 50, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300, cache_creation: null, model: 'claude-sonnet-4-5' },
    { type: 'compaction', input_tokens: 2_000, output_tokens: 400, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cache_creation: null },
  ],
}

export const openaiChatUsage: CompletionUsage = {
  prompt_tokens: 9_304,
  completion_tokens: 50,
  total_tokens: 9_354,
  prompt_tokens_details: { cached_tokens: 9_000, audio_tokens: 0 },
}

export const openaiResponsesUsage: ResponseUsage = {
  input_tokens: 9_304,
  input_tokens_details: { cached_tokens: 9_000 },
  output_tokens: 50,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 9_354,
}

export const aiSdkUsage: LanguageModelUsage = {
  inputTokens: 9_304,
  inputTokenDetails: { noCacheTokens: 4, cacheReadTokens: 9_000, cacheWriteTokens: 300 },
  outputTokens: 50,
  outputTokenDetails: { textTokens: 50, reasoningTokens: undefined },
  totalTokens: 9_354,
}

export const v3Usage: LanguageModelV3Usage = {
  inputTokens: { total: 9_304, noCache: 4, cacheRead: 9_000, cacheWrite: 300 },
  outputTokens: { total: 50, text: 50, reasoning: undefined },
}

export const v5Usage: LanguageModelUsageV5 = { inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, cachedInputTokens: 9_000 }

/** LangChain's `AIMessage.usage_metadata` (as `@langchain/anthropic` builds it): `input_tokens` includes the cache fields. */
export const langchainUsage: UsageMetadata = {
  input_tokens: 9_304,
  output_tokens: 50,
  total_tokens: 9_354,
  input_token_details: { cache_read: 9_000, cache_creation: 300 },
}

/**
 * The OpenAI Agents SDK's `Usage` of one model response (`ModelResponse.usage`, as
 * `@openai/agents-openai` builds it from the Responses usage), as a plain object: the SDK's class
 * serialised, as the model-provider wrapper passes it.
 */
export const agentsResponseUsage = JSON.parse(
  JSON.stringify(new AgentsUsageClass({ requests: 1, inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, inputTokensDetails: { cached_tokens: 9_000 }, outputTokensDetails: { reasoning_tokens: 0 } })),
) as { readonly inputTokens: number }

/** A run's running total (`result.state.usage`) after two requests, the second being the one above. */
export const agentsRunUsage = (() => {
  const total = new AgentsUsageClass({ requests: 1, inputTokens: 1_200, outputTokens: 40, totalTokens: 1_240, inputTokensDetails: { cached_tokens: 0 } })
  total.add(new AgentsUsageClass({ requests: 1, inputTokens: 9_304, outputTokens: 50, totalTokens: 9_354, inputTokensDetails: { cached_tokens: 9_000 } }))
  return JSON.parse(JSON.stringify(total)) as { readonly inputTokens: number }
})()
