// Type tests (checked by `npm run typecheck`, not run): provider-format views spread into the
// SDKs' request parameters as they are, and a manager's view type follows its format.
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages'
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions'
import type { ModelMessage } from 'ai'
import { ContextManager } from '../../src/shell/context-manager.js'

export const formatViews = async (): Promise<void> => {
  const claude = new ContextManager({}, { format: 'anthropic' })
  await claude.addMessage({ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] })
  const view = await claude.getMessagesForRequest()
  const params: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...view }
  void params

  const chat = await claude.getMessagesForRequest({ format: 'openai-chat' })
  const completion: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: chat }
  void completion

  // @ts-expect-error an anthropic view is not a message list
  const wrong: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: view }
  void wrong

  const sdk = new ContextManager({}, { format: 'ai-sdk' })
  await sdk.addMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] })
  const messages: Array<ModelMessage> = await sdk.getMessagesForRequest()
  void messages

  const contract = new ContextManager({})
  const list = await contract.getMessagesForRequest()
  list.map((message) => message.role)
}
