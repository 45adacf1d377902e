/**
 * Sends a view through real SDK code to the fake provider (test/support/fake-provider-server.ts),
 * which checks each captured body against the provider's rules (`findFormatViolations`) and
 * answers 400 when one breaks them:
 * - `anthropic` views: the `@anthropic-ai/sdk` client (`messages.create`);
 * - `openai-chat` views: the `openai` client (`chat.completions.create`);
 * - `openai-responses` views: the `openai` client (`responses.create`, `store: false`);
 * - `ai-sdk` views: `generateText` of `ai@6` with the real provider packages `@ai-sdk/anthropic`
 *   (Messages) and `@ai-sdk/openai` (Chat and Responses) on a capturing `fetch` that forwards to
 *   the fake provider; the view goes as `toAiSdkPrompt(view)` with `allowSystemInMessages: false`
 *   (a system message left in `messages` throws), and the SDK's warnings about the prompt count.
 * An outcome's problems are the SDK's error (thrown before or after sending), the rule violations
 * found in each body it sent; the AI SDK's warnings are kept apart.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai'
import OpenAI from 'openai'
import { toAiSdkPrompt } from '../../src/core/formats/ai-sdk.js'
import type { ProviderFormat } from '../../src/core/formats/carrier.js'
import type { FakeProviderServer } from './fake-provider-server.js'

/** The SDK code a view of each format goes through. */
export const SDKS_BY_FORMAT = {
  anthropic: ['@anthropic-ai/sdk'],
  'openai-chat': ['openai chat'],
  'openai-responses': ['openai responses'],
  'ai-sdk': ['ai + @ai-sdk/anthropic', 'ai + @ai-sdk/openai chat', 'ai + @ai-sdk/openai responses'],
} as const satisfies Record<ProviderFormat, ReadonlyArray<string>>

/** One SDK's name as `SDKS_BY_FORMAT` lists it. */
export type SdkName = (typeof SDKS_BY_FORMAT)[ProviderFormat][number]

/**
 * What happened to one view in one SDK: `problems` empty when the SDK sent it and the provider
 * accepted it; `warnings`: the AI SDK's warnings (a part the provider cannot take, skipped: the
 * request still went and was accepted).
 */
export interface SendOutcome {
  readonly sdk: SdkName
  readonly problems: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  /** Bodies the SDK sent for this view (0 when it threw before sending). */
  readonly sent: number
}

/** A function that sends a view of `format` through each of its SDKs. */
export type ViewSender = (format: ProviderFormat, view: unknown) => Promise<ReadonlyArray<SendOutcome>>

const messageOf = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))

/**
 * The senders, over one fake provider. The caller starts and closes the server; sends must not
 * overlap (each outcome reads the requests the server received during its send).
 */
export const makeViewSender = (server: FakeProviderServer): ViewSender => {
  const anthropic = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-local-test', maxRetries: 0 })
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local-test', maxRetries: 0 })
  // The AI SDK providers' fetch: records each body it is handed, then forwards it to the fake provider.
  const captured: Array<string> = []
  const capturingFetch: typeof fetch = (input, init) => {
    captured.push(typeof init?.body === 'string' ? init.body : '')
    return fetch(input, init)
  }
  const aiAnthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'sk-ant-local-test', fetch: capturingFetch })
  const aiOpenAI = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local-test', fetch: capturingFetch })
  const aiModels = {
    'ai + @ai-sdk/anthropic': aiAnthropic('claude-sonnet-4-6'),
    'ai + @ai-sdk/openai chat': aiOpenAI.chat('gpt-4o'),
    'ai + @ai-sdk/openai responses': aiOpenAI.responses('gpt-5'),
  } as const

  // The tool an approval in a view approves (the SDK executes it before calling the model).
  const tools = {
    deploy: tool({
      description: 'Deploy the build',
      inputSchema: jsonSchema<{ target: string }>({ type: 'object', properties: { target: { type: 'string' } }, required: ['target'] }),
      needsApproval: true,
      execute: async ({ target }: { target: string }) => `deployed to ${target}`,
    }),
  }

  const attempt = async (sdk: SdkName, send: () => Promise<ReadonlyArray<string>>): Promise<SendOutcome> => {
    const before = server.requests.length
    const capturedBefore = captured.length
    let problems: Array<string> = []
    let warnings: ReadonlyArray<string> = []
    try {
      warnings = await send()
    } catch (error) {
      problems = [messageOf(error)]
    }
    const received = server.requests.slice(before)
    const violations = received.flatMap((request) => request.violations)
    // A 400 carries the violations in its message: count each once.
    const unique = [...new Set([...violations, ...problems.filter((problem) => !violations.some((violation) => problem.includes(violation)))])]
    // every body the AI SDK handed its fetch reached the server (nothing sent around it)
    if (captured.length - capturedBefore > received.length) unique.push(`${captured.length - capturedBefore - received.length} captured bodies never reached the fake provider`)
    return { sdk, problems: unique, warnings, sent: received.length }
  }

  const sendAiSdk = async (sdk: keyof typeof aiModels, view: ReadonlyArray<ModelMessage>): Promise<ReadonlyArray<string>> => {
    const warnings: Array<unknown> = []
    const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown }
    const previous = global.AI_SDK_LOG_WARNINGS
    global.AI_SDK_LOG_WARNINGS = (options: { readonly warnings: ReadonlyArray<unknown> }) => warnings.push(...options.warnings)
    try {
      await generateText({ model: aiModels[sdk], tools, ...toAiSdkPrompt(view), allowSystemInMessages: false, maxRetries: 0 })
    } finally {
      global.AI_SDK_LOG_WARNINGS = previous
    }
    return warnings.map((warning) => JSON.stringify(warning))
  }

  return async (format, view) => {
    switch (format) {
      case 'anthropic': {
        const { system, messages } = view as { readonly system?: Anthropic.MessageCreateParams['system']; readonly messages: Anthropic.MessageParam[] }
        return [await attempt('@anthropic-ai/sdk', async () => (await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1_024, ...(system === undefined ? {} : { system }), messages }), []))]
      }
      case 'openai-chat':
        return [await attempt('openai chat', async () => (await openai.chat.completions.create({ model: 'gpt-4o', messages: view as OpenAI.ChatCompletionMessageParam[] }), []))]
      case 'openai-responses':
        return [
          await attempt('openai responses', async () => (await openai.responses.create({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], input: view as OpenAI.Responses.ResponseInputItem[] }), [])),
        ]
      case 'ai-sdk': {
        const outcomes: Array<SendOutcome> = []
        for (const sdk of SDKS_BY_FORMAT['ai-sdk']) outcomes.push(await attempt(sdk, () => sendAiSdk(sdk, view as ReadonlyArray<ModelMessage>)))
        return outcomes
      }
    }
  }
}
