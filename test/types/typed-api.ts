// Type tests (checked by `npm run typecheck`, not run): the typed configuration, the typed hook
// event map and the SDK usage objects. Each `@ts-expect-error` line must fail to compile; if it
// compiled, tsc would report the directive as unused and the test suite would fail.
import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages'
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages'
import type { GenerateTextResult, ModelMessage, PrepareStepFunction, StepResult, ToolSet } from 'ai'
import { makeContextPrepareStep } from '../../src/shell/integrations/ai-sdk.js'
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInput, Response as OpenAIResponse } from 'openai/resources/responses/responses'
import type { ContextConfig } from '../../src/core/config.js'
import { presets } from '../../src/core/presets.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks, type HookBus } from '../../src/shell/hooks.js'
import { mount } from '../../src/shell/mount.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { toFormatView } from '../../src/core/formats/dispatch.js'

export const typedApi = async (
  anthropic: AnthropicMessage,
  completion: ChatCompletion,
  response: OpenAIResponse,
  generated: GenerateTextResult<ToolSet, never>,
  step: StepResult<ToolSet>,
): Promise<void> => {
  // configuration: contract keys and strict compile; misspellings and wrong values do not
  const config: ContextConfig = { token_meter: 'hybrid', compact_threshold: 0.85, tool_result_budget_by_tool: { grep: 500 }, strict: true }
  const manager = new ContextManager(config)
  // the same typed configuration records a session (docs/recording-and-replay.md)
  makeRecorder(config)
  new ContextManager({ ...presets.recommended, max_tokens: 100_000 })
  // @ts-expect-error a misspelled key fails tsc
  new ContextManager({ compact_treshold: 0.85 })
  // @ts-expect-error a camelCase key fails tsc
  new ContextManager({ tokenMeter: 'hybrid' })
  // @ts-expect-error an unknown meter mode fails tsc
  new ContextManager({ token_meter: 'tokens' })
  // @ts-expect-error strict is a boolean
  new ContextManager({ strict: 'yes' })
  // @ts-expect-error mount takes the same typed configuration
  await mount({ mount: () => undefined }, { compact_treshold: 0.8 })

  // hook events: the contract's names with their payload types
  const hooks = makeMittHooks()
  hooks.register('context:token_meter', (_event, stats) => stats.used_tokens)
  hooks.register('context:compaction', (_event, stats) => stats.strategy_level)
  hooks.register('context:compaction-skipped', (_event, payload) => payload.freed_tokens)
  hooks.register('context:post_summarize', (_event, payload) => payload.summary_length)
  // @ts-expect-error a misspelled event name fails tsc
  hooks.register('context:tokenmeter', () => undefined)
  // @ts-expect-error a payload field that the event does not have fails tsc
  hooks.register('context:compaction', (_event, stats) => stats.used_tokens)
  // @ts-expect-error emit checks the payload
  await hooks.emit('context:pre_summarize', { summary_length: 3 })
  // a host's own events extend the map; the typed bus is still a HookBus for the manager
  const extended = makeMittHooks<import('../../src/core/hook-events.js').HookEventMap & { 'tool:pre': { readonly tool: string } }>()
  extended.register('tool:pre', (_event, data) => data.tool.length)
  const bus: HookBus = extended
  new ContextManager({}, { hooks: bus })

  // usage: each SDK's object without a cast
  await manager.onLlmResponse({ usage: anthropic.usage })
  await manager.onLlmResponse({ usage: completion.usage })
  await manager.onLlmResponse({ usage: response.usage })
  await manager.onLlmResponse({ usage: generated.usage })
  await manager.onLlmResponse({ usage: generated.totalUsage })
  await manager.onLlmResponse({ usage: step.usage })
  // @ts-expect-error a usage object of no known shape fails tsc
  await manager.onLlmResponse({ usage: { promptTokenCount: 3 } })

  // messages: an SDK's message objects are accepted as they are
  await manager.addMessage(completion.choices[0].message)
  await manager.setMessages([completion.choices[0].message, { role: 'user', content: 'next' }])

  // views: each provider view is that SDK's request parameter, without a cast
  const chatMessages: Array<ChatCompletionMessageParam> = toFormatView('openai-chat', await manager.getMessagesForRequest())
  const chat = new ContextManager({}, { format: 'openai-chat' })
  const chatView: Array<ChatCompletionMessageParam> = await chat.getMessagesForRequest()
  const anthropicManager = new ContextManager({}, { format: 'anthropic' })
  await anthropicManager.addMessage({ role: 'assistant', content: anthropic.content })
  const anthropicParams: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...(await anthropicManager.getMessagesForRequest()) }
  const aiSdk = new ContextManager({}, { format: 'ai-sdk' })
  await aiSdk.addMessage(step.response.messages[0])
  const modelMessages: Array<ModelMessage> = await aiSdk.getMessagesForRequest()
  const asAnthropic: MessageCreateParamsNonStreaming['messages'] = (await aiSdk.getMessagesForRequest({ format: 'anthropic' })).messages
  const prepareStep: PrepareStepFunction<ToolSet> = makeContextPrepareStep(aiSdk)
  const responses = new ContextManager({}, { format: 'openai-responses' })
  await responses.addMessage(response.output[0])
  const input: ResponseInput = await responses.getMessagesForRequest()
  const asInput: ResponseInput = await aiSdk.getMessagesForRequest({ format: 'openai-responses' })
  // restore: the view's type follows options.format (checked against the snapshot's at run time);
  // without it the manager is typed 'contract' whatever the snapshot holds (README.md, docs/embedding.md)
  const saved: unknown = JSON.parse(JSON.stringify(await anthropicManager.snapshot()))
  const restored = await ContextManager.restore(saved, { format: 'anthropic' })
  const restoredParams: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...(await restored.getMessagesForRequest()) }
  const untyped = await ContextManager.restore(saved)
  // @ts-expect-error typed as a contract view (an array), which holds no `messages`
  const untypedParams: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...(await untyped.getMessagesForRequest()) }
  void [chatMessages, chatView, anthropicParams, modelMessages, asAnthropic, prepareStep, input, asInput, restoredParams, untypedParams]
}
