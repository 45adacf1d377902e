/**
 * Messages as the contract sees them: ordered JSON objects with a role, content, optional tool
 * calls and metadata. The module never validates message shape; these types only name the fields
 * it reads (SPEC 1.1, 1.2).
 */
import { isPlainObject } from './values.js'

/**
 * A JSON value as carried inside messages, configs and recordings.
 *
 * @example
 * const value: JsonValue = { role: 'user', content: ['a', 1, null, true] }
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/**
 * Message metadata (SPEC 1.2). `timestamp` is stamped by `add_message` when absent, `_seq` is the
 * permanent identity of a stored message (never present in a returned view), `source`,
 * `ephemeral` and `type` are written by the module on the notice, the replay and summaries;
 * `tool_name` optionally names the tool of a tool result (SPEC 11.4).
 *
 * @example
 * const metadata: MessageMetadata = { timestamp: '2026-02-06T10:00:00.123+00:00', _seq: 0 }
 */
export interface MessageMetadata {
  readonly timestamp?: unknown
  readonly _seq?: number
  readonly source?: unknown
  readonly ephemeral?: unknown
  readonly type?: unknown
  readonly tool_name?: unknown
  readonly [key: string]: unknown
}

/**
 * One conversation message, a plain JSON object whose key order is preserved. `role` is
 * `"system" | "user" | "assistant" | "tool"` or any other string; `content` is a string, an array
 * of blocks or anything; assistant messages may carry `tool_calls`, tool results `tool_call_id`.
 * View copies may carry `_truncated`/`_original_tokens` or `_stubbed`/`_original_length`.
 *
 * @example
 * const m: Message = { role: 'user', content: 'hello' }
 */
export interface Message {
  readonly role?: unknown
  readonly content?: unknown
  readonly tool_calls?: unknown
  readonly tool_call_id?: unknown
  readonly name?: unknown
  readonly metadata?: unknown
  readonly [key: string]: unknown
}

/**
 * What `addMessage` and `setMessages` accept: a message object in the contract shape, or an SDK's
 * message type as it is (an interface without an index signature, such as the OpenAI SDK's
 * `ChatCompletionMessage`, an Anthropic `MessageParam`, an AI SDK `ModelMessage`, or a Responses
 * input item, which has a `type` instead of a `role`). At run time any JSON object is accepted
 * (SPEC 1.1, 17.9).
 *
 * @example
 * const manager = new ContextManager({}, { format: 'openai-chat' })
 * const input: MessageInput = { role: 'assistant', content: 'hello', refusal: null } // an OpenAI ChatCompletionMessage
 * await manager.addMessage(input)
 */
export type MessageInput = Message | { readonly role: string } | { readonly type: string }

/**
 * The `_seq` of a message, or undefined when it has none (view-only messages).
 *
 * @example
 * seqOf({ role: 'user', metadata: { _seq: 3 } }) // => 3
 */
export const seqOf = (message: Message): number | undefined => {
  const metadata = message.metadata
  if (!isPlainObject(metadata)) return undefined
  const seq = metadata._seq
  return typeof seq === 'number' ? seq : undefined
}

/**
 * A list of messages (history, working list or view), in conversation order.
 *
 * @example
 * const view: Messages = [{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'hi' }]
 */
export type Messages = ReadonlyArray<Message>
