// Type tests (checked by `npm run typecheck`, not run): provider-format views spread into the
// SDKs' request parameters as they are, and a manager's view type follows its format.
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages'
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions'
import type { ModelMessage } from 'ai'
import { ContextManager } from '../../src/shell/context-manager.js'
import { toMutableView } from '../../src/core/formats/mutable.js'

export const formatViews = async (): Promise<void> => {
  const claude = new ContextManager({}, { format: 'anthropic' })
  await claude.addMessage({ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] })
  const view = await claude.getMessagesForRequest()
  const params: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...view }
  void params

  // the view's containers are the caller's own; its messages are shared and typed readonly
  view.messages.push({ role: 'user', content: 'one more' })
  // @ts-expect-error a view message is frozen: its fields are readonly
  view.messages[0].content = 'changed'
  const copy = toMutableView(view)
  copy.messages[0].content = [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }]
  const copied: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...copy }
  void copied

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

export const responsesViews = async (): Promise<void> => {
  const { default: OpenAI } = await import('openai')
  const client = new OpenAI({ apiKey: 'x' })
  const context = new ContextManager({}, { format: 'openai-responses' })
  const input = await context.getMessagesForRequest()
  input.push({ role: 'user', content: 'more' })
  await client.responses.create({ model: 'gpt-5', input })
}
