/**
 * OpenAI Chat Completions (`ChatCompletionMessageParam`): the contract shape plus content-part
 * arrays. A message is one piece (array content read as its text parts); output keeps only the
 * API's message keys; the rules are validate_views.py R1-R4 (C1) plus C5.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import { selectPairingProblems } from './tool-pairing.js'
import { assemblePieces, isModifiedPiece, type AssemblyCodec } from './assemble.js'
import { BOOKKEEPING_KEYS, carrierOf, contentText, joinTexts, pickKeys, pieceMetadata, placeText, toConvertedText, type NativeCarrier, type Piece } from './carrier.js'

/**
 * A text part of a Chat message (`ChatCompletionContentPartText`).
 *
 * @example
 * const part: OpenAiChatTextPart = { type: 'text', text: 'hello' }
 */
export interface OpenAiChatTextPart {
  type: 'text'
  text: string
}

/**
 * A content part of a Chat user message (`ChatCompletionContentPart`): text, image, input audio
 * or file.
 *
 * @example
 * const part: OpenAiChatContentPart = { type: 'image_url', image_url: { url: 'data:image/png;base64,...', detail: 'low' } }
 */
export type OpenAiChatContentPart =
  | OpenAiChatTextPart
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } }

/**
 * A tool call of a Chat assistant message (`ChatCompletionMessageToolCall`): a function call
 * (`arguments` is a JSON string) or a custom tool call.
 *
 * @example
 * const call: OpenAiChatToolCall = { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }
 */
export type OpenAiChatToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } }

/**
 * An OpenAI Chat message (`ChatCompletionMessageParam`), one variant per role, in the library's
 * own structural types: a view of this type is assignable to the SDK's `messages` parameter
 * without a cast, and the published types need no SDK. Arrays are mutable because the SDK's are.
 * A contract message outside these shapes (another role, say) is still passed through by
 * `toChatView`; `findFormatViolations('openai-chat', view)` reports it.
 *
 * @example
 * const message: OpenAiChatMessage = { role: 'tool', tool_call_id: 'call_1', content: '42' }
 */
export type OpenAiChatMessage =
  | { role: 'system' | 'developer'; content: string | Array<OpenAiChatTextPart>; name?: string }
  | { role: 'user'; content: string | Array<OpenAiChatContentPart>; name?: string }
  | {
      role: 'assistant'
      content?: string | Array<OpenAiChatTextPart | { type: 'refusal'; refusal: string }> | null
      refusal?: string | null
      name?: string
      tool_calls?: Array<OpenAiChatToolCall>
      audio?: { id: string } | null
      function_call?: { name: string; arguments: string } | null
    }
  | { role: 'tool'; content: string | Array<OpenAiChatTextPart>; tool_call_id: string }
  | { role: 'function'; content: string | null; name: string }

/**
 * The message keys the Chat Completions API accepts (C5).
 *
 * @example
 * CHAT_MESSAGE_KEYS.has('tool_call_id') // => true
 */
export const CHAT_MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'refusal', 'function_call', 'audio'])

/**
 * The one contract piece of a Chat message: the message itself, with array content read as its
 * text parts joined by `\n` (the parts stay in the carrier).
 *
 * @example
 * expandChatMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] })[0].message.content // => 'hi'
 */
export const expandChatMessage = (message: Readonly<Record<string, unknown>>): ReadonlyArray<Piece> => {
  const content = Array.isArray(message.content) ? joinTexts(message.content, ['text']) : message.content
  const { metadata: _dropped, ...rest } = message
  return [{ message: { ...rest, content, metadata: pieceMetadata(message, { format: 'openai-chat', blocks: null, parts: 1 }) }, blocks: null }]
}

/** A modified piece: its new text as the content (array content: one text part in place of the texts). */
const rebuildBlocks = (piece: Message, carrier: NativeCarrier): ReadonlyArray<readonly [number, unknown]> => {
  const content = carrier.message.content as ReadonlyArray<unknown>
  const text = typeof piece.content === 'string' ? piece.content : ''
  return placeText(content, content.map((_, index) => index), text)
}

/** A contract message as a Chat message: bookkeeping and foreign keys dropped, content text. */
const fromContract = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const kept = pickKeys(piece, CHAT_MESSAGE_KEYS)
  // a piece of another format with no text and no calls (a Responses turn of reasoning and server
  // tool items only) is no message at all
  if (carrierOf(piece) !== null && (piece.role === 'assistant' || piece.role === 'user') && !isTruthy(piece.tool_calls) && toConvertedText(piece) === '') return []
  if (carrierOf(piece) !== null && Array.isArray(piece.content)) return [{ ...kept, content: contentText(piece.content) }]
  return [kept]
}

/**
 * The assembly codec of the Chat format. A modified array-content message is rebuilt by the
 * assembler's whole-message path, so `rebuildBlocks` is used for the estimate only.
 *
 * @example
 * chatCodec.allowedKeys === CHAT_MESSAGE_KEYS // => true
 */
export const chatCodec: AssemblyCodec = { format: 'openai-chat', allowedKeys: CHAT_MESSAGE_KEYS, rebuildBlocks, fromContract }

/**
 * The provider-ready Chat view: the `messages` array, untouched messages as added (only the
 * API's keys kept), modified ones with their new content.
 *
 * @example
 * toChatView([{ role: 'user', content: 'hi', metadata: { timestamp: 't' } }]) // => [{ role: 'user', content: 'hi' }]
 */
export const toChatView = (view: Messages): Array<OpenAiChatMessage> => {
  const out: Array<Readonly<Record<string, unknown>>> = []
  for (const piece of view) {
    const carrier = carrierOf(piece)
    if (carrier === null || carrier.format !== 'openai-chat') {
      out.push(...fromContract(piece))
      continue
    }
    const modified = isModifiedPiece(piece)
    if (!modified) {
      out.push(pickKeys(carrier.message, CHAT_MESSAGE_KEYS))
    } else if (Array.isArray(carrier.message.content)) {
      out.push(pickKeys({ ...carrier.message, content: rebuildBlocks(piece, carrier).map(([, part]) => part) }, CHAT_MESSAGE_KEYS))
    } else {
      out.push(pickKeys({ ...carrier.message, content: piece.content }, CHAT_MESSAGE_KEYS))
    }
  }
  // the API's keys only (C5); the shapes are the added messages' (checked on intake) or fromContract's
  return out as unknown as Array<OpenAiChatMessage>
}

/**
 * The pairing rules of validate_views.py on a Chat view, R4 (no call id twice) included: the
 * core's `selectPairingProblems` with duplicates. Each problem starts with its rule code.
 *
 * @example
 * findChatPairingViolations([{ role: 'tool', tool_call_id: 'a' }]) // => ['R3 view starts with a tool result', 'R1 result a at 0 has no call right before it']
 */
export const findChatPairingViolations = (view: Messages): ReadonlyArray<string> =>
  selectPairingProblems(view, { duplicates: true }).map((problem) => problem.text)

/**
 * The Chat rule violations (`validate_formats.py --format openai-chat`): C1 = R1-R4 and C5 no
 * keys outside the API's on messages.
 *
 * @example
 * findChatViolations([{ role: 'user', content: 'hi', _truncated: true }]) // => ['C5 message 0 extra keys _truncated']
 */
export const findChatViolations = (view: unknown): ReadonlyArray<string> => {
  if (!Array.isArray(view)) return ['R1 view is not a list']
  const messages = view.map((m: unknown) => (isPlainObject(m) ? m : {})) as Messages
  const problems = [...findChatPairingViolations(messages)]
  messages.forEach((m, i) => {
    const extra = Object.keys(m).filter((key) => !CHAT_MESSAGE_KEYS.has(key))
    if (extra.length > 0) problems.push(`C5 message ${i} extra keys ${extra.sort().join(', ')}`)
  })
  return problems
}

/**
 * A reason an added message is not a valid Chat message (path and detail), or null: a known
 * role; tool messages with a `tool_call_id`; assistant `tool_calls` an array of calls with ids.
 *
 * @example
 * validateChatMessage({ role: 'tool', content: 'x' }) // => { path: '.tool_call_id', detail: 'a tool message needs the non-empty string tool_call_id of its call' }
 */
export const validateChatMessage = (message: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | null => {
  const role = message.role
  if (!['system', 'developer', 'user', 'assistant', 'tool', 'function'].includes(String(role)) || typeof role !== 'string') {
    return { path: '.role', detail: `expected "system", "developer", "user", "assistant" or "tool", got ${JSON.stringify(role ?? null)}` }
  }
  if (role === 'tool' && (typeof message.tool_call_id !== 'string' || message.tool_call_id === '')) return { path: '.tool_call_id', detail: 'a tool message needs the non-empty string tool_call_id of its call' }
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (role !== 'assistant') return { path: '.tool_calls', detail: `tool_calls belong on an assistant message, not on a ${role} message` }
    if (!Array.isArray(message.tool_calls)) return { path: '.tool_calls', detail: 'expected an array of tool calls' }
    for (let i = 0; i < message.tool_calls.length; i += 1) {
      const call: unknown = message.tool_calls[i]
      if (!isPlainObject(call) || typeof call.id !== 'string' || call.id === '') return { path: `.tool_calls[${i}].id`, detail: 'a tool call needs a non-empty string id' }
    }
  }
  for (const key of BOOKKEEPING_KEYS) if (key !== 'metadata' && Object.prototype.hasOwnProperty.call(message, key)) return { path: `.${key}`, detail: `${key} is a view-only key the library adds; remove it from the message` }
  return null
}
