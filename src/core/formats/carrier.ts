/**
 * The lossless mapping between a provider message and the contract-shaped pieces the core
 * compacts: the carrier a piece keeps in `metadata.native`, and the block helpers every format
 * shares (text of blocks, modified-piece detection, key filtering).
 */
import type { Message } from '../messages/message.js'
import { isPlainObject } from '../messages/values.js'

/**
 * The message formats a manager accepts. `contract` is the contract's own shape (SPEC 1.1, the
 * default: any role accepted, nothing mapped); the others are provider formats, each mapped to
 * contract pieces on intake and back on output (docs/formats.md).
 *
 * @example
 * const format: MessageFormat = 'anthropic'
 */
export type MessageFormat = 'contract' | ProviderFormat

/**
 * The provider formats: Anthropic Messages (`MessageParam`), OpenAI Chat Completions
 * (`ChatCompletionMessageParam`), OpenAI Responses input items, AI SDK `ModelMessage` (v5/v6).
 *
 * @example
 * const format: ProviderFormat = 'openai-responses'
 */
export type ProviderFormat = 'anthropic' | 'openai-chat' | 'openai-responses' | 'ai-sdk'

/**
 * Every provider format name, in documentation order.
 *
 * @example
 * PROVIDER_FORMATS.includes('ai-sdk') // => true
 */
export const PROVIDER_FORMATS: ReadonlyArray<ProviderFormat> = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']

/**
 * True for a provider format name.
 *
 * @example
 * isProviderFormat('anthropic') // => true
 * isProviderFormat('contract') // => false
 */
export const isProviderFormat = (value: unknown): value is ProviderFormat => typeof value === 'string' && (PROVIDER_FORMATS as ReadonlyArray<string>).includes(value)

/**
 * What a piece keeps of the provider message it came from (`metadata.native`):
 * - `format`: the input format;
 * - `origin`: the `_seq` of the message's first piece (pieces of one message share it);
 * - `message`: the provider message as given, without `metadata` (shared by its pieces; for
 *   `openai-responses` the first item of the piece);
 * - `blocks`: indices into `message.content` this piece owns, or null for the whole message;
 * - `parts`: how many pieces the message became;
 * - `items`: `openai-responses` only: the items this piece holds, in order.
 *
 * @example
 * const carrier: NativeCarrier = { format: 'anthropic', origin: 4, message: { role: 'user', content: 'hi' }, blocks: null, parts: 1 }
 */
export interface NativeCarrier {
  readonly format: ProviderFormat
  readonly origin: number
  readonly message: Readonly<Record<string, unknown>>
  readonly blocks: ReadonlyArray<number> | null
  readonly parts: number
  readonly items?: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * A piece before the reducer numbers it: the contract-shaped message plus its carrier (whose
 * `origin` the reducer fills in).
 *
 * @example
 * const piece: Piece = { message: { role: 'user', content: 'hi' }, blocks: null }
 */
export interface Piece {
  readonly message: Message
  readonly blocks: ReadonlyArray<number> | null
  readonly items?: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * The carrier of a piece, or null for a message that carries none (contract messages, the
 * compaction notice, the replay, summaries).
 *
 * @example
 * carrierOf({ role: 'user', content: 'hi' }) // => null
 */
export const carrierOf = (message: Message): NativeCarrier | null => {
  const metadata = message.metadata
  if (!isPlainObject(metadata)) return null
  const native = metadata.native
  if (!isPlainObject(native) || typeof native.format !== 'string' || !isPlainObject(native.message)) return null
  return native as unknown as NativeCarrier
}

/**
 * The provider message without `metadata`, keys in their order.
 *
 * @example
 * withoutMetadata({ role: 'user', content: 'hi', metadata: { a: 1 } }) // => { role: 'user', content: 'hi' }
 */
export const withoutMetadata = (message: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  if (!Object.prototype.hasOwnProperty.call(message, 'metadata')) return message
  const { metadata: _dropped, ...rest } = message
  return rest
}

/**
 * Only the keys in `allowed`, in their order; the same object when nothing is dropped.
 *
 * @example
 * pickKeys({ role: 'user', content: 'hi', _truncated: true }, new Set(['role', 'content'])) // => { role: 'user', content: 'hi' }
 */
export const pickKeys = (object: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>): Readonly<Record<string, unknown>> => {
  const keys = Object.keys(object)
  if (keys.every((key) => allowed.has(key))) return object
  const out: Record<string, unknown> = {}
  for (const key of keys) if (allowed.has(key)) out[key] = object[key]
  return out
}

/**
 * The content as a list of blocks: a string is one text block, an array is itself, anything else
 * is no block.
 *
 * @example
 * toBlocks('hi') // => [{ type: 'text', text: 'hi' }]
 */
export const toBlocks = (content: unknown): ReadonlyArray<unknown> =>
  Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : []

/**
 * The texts of the blocks whose `type` is in `types` (field `textKey`), joined with `\n`.
 *
 * @example
 * joinTexts([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }], ['text']) // => 'a\nb'
 */
export const joinTexts = (blocks: ReadonlyArray<unknown>, types: ReadonlyArray<string>, textKey = 'text'): string => {
  const texts: string[] = []
  for (const block of blocks) {
    if (isPlainObject(block) && types.includes(String(block.type)) && typeof block[textKey] === 'string') texts.push(block[textKey] as string)
  }
  return texts.join('\n')
}

/**
 * The blocks at `indices` of `content` with a piece's new `text` (truncated or stubbed) in the
 * first text block and the other text blocks dropped; a text block is added at the first index
 * when there is none. Other blocks (images, tool calls, thinking) are kept, in order. Returns
 * `[index in content, block]` pairs.
 *
 * @example
 * placeText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }], [0, 1, 2], 'new')
 * // [[0, { type: 'text', text: 'new' }], [1, { type: 'image' }]]
 */
export const placeText = (content: ReadonlyArray<unknown>, indices: ReadonlyArray<number>, text: string): ReadonlyArray<readonly [number, unknown]> => {
  const out: Array<readonly [number, unknown]> = []
  let placed = false
  for (const index of indices) {
    const block = content[index]
    if (isPlainObject(block) && block.type === 'text') {
      if (!placed) out.push([index, { ...block, text }])
      placed = true
    } else {
      out.push([index, block])
    }
  }
  if (!placed) out.push([indices[0] ?? 0, { type: 'text', text }])
  return out
}

/**
 * The parts of a tool result stored without JSON whitespace (`JSON_STRIPPED_KEY`) with its new
 * `text`: the first part whose `type` is one of `types` gets `text` (its other keys, such as
 * `cache_control`, kept) and the other such parts go (their texts were joined into the one that
 * was stripped); every other part (image, file, media) stays where it was. A part of `types[0]`
 * is put first when there is none. A new array; `parts` is not changed.
 *
 * @example
 * withStrippedText([{ type: 'image' }, { type: 'text', text: '{ "a": 1 }', cache_control: { type: 'ephemeral' } }], '{"a":1}', ['text'])
 * // [{ type: 'image' }, { type: 'text', text: '{"a":1}', cache_control: { type: 'ephemeral' } }]
 */
export const withStrippedText = (parts: ReadonlyArray<unknown>, text: string, types: ReadonlyArray<string>): Array<unknown> => {
  const out: unknown[] = []
  let placed = false
  for (const part of parts) {
    if (isPlainObject(part) && types.includes(String(part.type))) {
      if (!placed) out.push({ ...part, text })
      placed = true
    } else out.push(part)
  }
  if (!placed) out.unshift({ type: types[0], text })
  return out
}

/**
 * True for a piece whose text is its tool result's stored without JSON whitespace and not cut
 * (`JSON_STRIPPED_KEY` without `_truncated` or `INGRESS_CUT_KEY`): its provider message keeps
 * every part but the text's (`withStrippedText`); a cut one is rebuilt as its format rebuilds a
 * truncation.
 *
 * @example
 * isStrippedOnly({ role: 'tool', content: '{"a":1}', _json_stripped: true }) // => true
 * isStrippedOnly({ role: 'tool', content: '[truncated]', _json_stripped: true, _truncated: true }) // => false
 */
export const isStrippedOnly = (piece: Readonly<Record<string, unknown>>): boolean => piece[JSON_STRIPPED_KEY] === true && piece._truncated !== true && piece[INGRESS_CUT_KEY] !== true

/**
 * True when `parts` hold something besides bare text parts (`{ type, text }` with `type` one of
 * `types`): another part (image, file, media) or a text part with more keys (`cache_control`,
 * `providerOptions`). An Anthropic or Responses stripped result with only bare text parts is
 * sent as the format sends a truncated one (the text alone); otherwise, and for an AI SDK content
 * output always, with `withStrippedText`, so nothing else is lost.
 *
 * @example
 * hasOtherParts([{ type: 'text', text: 'a' }], ['text']) // => false
 * hasOtherParts([{ type: 'text', text: 'a' }, { type: 'image' }], ['text']) // => true
 */
export const hasOtherParts = (parts: ReadonlyArray<unknown>, types: ReadonlyArray<string>): boolean =>
  parts.some((part) => !isPlainObject(part) || !types.includes(String(part.type)) || Object.keys(part).some((key) => key !== 'type' && key !== 'text'))

/**
 * The metadata of a piece: the provider message's own `metadata` (when an object) plus the
 * carrier, without `origin` (the reducer adds it when it numbers the piece).
 *
 * @example
 * const metadata = pieceMetadata({ role: 'user', content: 'hi' }, { format: 'anthropic', blocks: null, parts: 1 })
 * carrierOf({ role: 'user', content: 'hi', metadata })?.format // => 'anthropic'
 * carrierOf({ role: 'user', content: 'hi', metadata })?.message // => { role: 'user', content: 'hi' }
 */
export const pieceMetadata = (
  message: Readonly<Record<string, unknown>>,
  carrier: Omit<NativeCarrier, 'origin' | 'message'> & { readonly message?: Readonly<Record<string, unknown>> },
): Record<string, unknown> => ({
  ...(isPlainObject(message.metadata) ? message.metadata : {}),
  native: { format: carrier.format, origin: -1, message: carrier.message ?? withoutMetadata(message), blocks: carrier.blocks, parts: carrier.parts, ...(carrier.items !== undefined ? { items: carrier.items } : {}) },
})

/**
 * A piece numbered by the reducer: its carrier's `origin` set to `origin`.
 *
 * @example
 * withOrigin({ role: 'user', content: 'hi' }, 7) // => { role: 'user', content: 'hi' }
 */
export const withOrigin = (message: Message, origin: number): Message => {
  const metadata = message.metadata
  if (!isPlainObject(metadata) || !isPlainObject(metadata.native)) return message
  return { ...message, metadata: { ...metadata, native: { ...metadata.native, origin } } }
}

/**
 * The view-only bookkeeping keys the core adds (truncation and stub flags) plus `metadata`:
 * never sent to a provider.
 *
 * @example
 * BOOKKEEPING_KEYS.has('_truncated') // => true
 */
export const BOOKKEEPING_KEYS: ReadonlySet<string> = new Set(['metadata', '_truncated', '_original_tokens', '_stubbed', '_original_length', '_json_stripped', '_ingress_cut'])

/**
 * The view-only key a provider-format piece carries when its tool-result text was stored without
 * JSON whitespace (`tool_result_json_whitespace`, src/core/tool-results/json-whitespace.ts): the
 * assemblers rebuild such a piece's provider message from its text, as they do for a truncated
 * one (`isModifiedPiece`, ./assemble.ts), and never send the key (`BOOKKEEPING_KEYS`).
 *
 * @example
 * BOOKKEEPING_KEYS.has(JSON_STRIPPED_KEY) // => true
 */
export const JSON_STRIPPED_KEY = '_json_stripped'

/**
 * The view-only key a provider-format piece carries when its tool-result text was cut at ingress
 * (`tool_result_ingress_cap_bytes`, src/core/tool-results/ingress-cap.ts; docs/contract.md 17.15):
 * like `JSON_STRIPPED_KEY`, the assemblers rebuild such a piece's provider message from its (cut)
 * text (`isModifiedPiece`, ./assemble.ts), so what is sent and what the meter counts is the cut
 * form, and never send the key (`BOOKKEEPING_KEYS`).
 *
 * @example
 * BOOKKEEPING_KEYS.has(INGRESS_CUT_KEY) // => true
 */
export const INGRESS_CUT_KEY = '_ingress_cut'

/**
 * Parse a tool call's JSON `arguments`; an object when it parses to one, else `{}` (a string
 * that is not JSON becomes `{ input: text }` so nothing is lost).
 *
 * @example
 * parseArguments('{"q":1}') // => { q: 1 }
 */
export const parseArguments = (text: unknown): unknown => {
  if (typeof text !== 'string') return isPlainObject(text) ? text : {}
  if (text.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    return isPlainObject(value) ? value : { input: value }
  } catch {
    return { input: text }
  }
}

/**
 * The contract tool calls of a message as `{id, name, arguments}` (arguments a JSON string).
 *
 * @example
 * toContractCalls({ role: 'assistant', tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }] }) // => [{ id: 'a', name: 'f', arguments: '{}' }]
 */
export const toContractCalls = (message: Message): ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }> => {
  if (!Array.isArray(message.tool_calls)) return []
  const out: Array<{ id: string; name: string; arguments: string }> = []
  for (const call of message.tool_calls) {
    if (!isPlainObject(call)) continue
    const fn = isPlainObject(call.function) ? call.function : {}
    const args = fn.arguments ?? call.arguments
    out.push({
      id: String(call.id ?? call.tool_call_id ?? ''),
      name: String(fn.name ?? call.name ?? ''),
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    })
  }
  return out
}

/**
 * The content of a contract message as one string (array content: its text blocks joined with
 * `\n`; anything else: empty).
 *
 * @example
 * contentText([{ type: 'text', text: 'a' }]) // => 'a'
 */
export const contentText = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? joinTexts(content, ['text', 'input_text', 'output_text']) : '')

/**
 * The text a piece converts to in another format: its content text, or, when that is empty, the
 * model's refusal the carrier holds (a Chat `refusal`, or `refusal` parts of Chat or Responses
 * content), so a refusal is not turned into an empty turn.
 *
 * @example
 * toConvertedText({ role: 'assistant', content: null, metadata: { native: { format: 'openai-chat', origin: 0, message: { role: 'assistant', content: null, refusal: 'No.' }, blocks: null, parts: 1 } } }) // 'No.'
 */
export const toConvertedText = (piece: Message): string => {
  const text = contentText(piece.content)
  if (text !== '') return text
  const carrier = carrierOf(piece)
  if (carrier === null) return ''
  const refusals: string[] = []
  if (typeof carrier.message.refusal === 'string' && carrier.message.refusal !== '') refusals.push(carrier.message.refusal)
  for (const source of [carrier.message, ...(carrier.items ?? [])]) {
    if (!Array.isArray(source.content)) continue
    for (const part of source.content) if (isPlainObject(part) && part.type === 'refusal' && typeof part.refusal === 'string' && part.refusal !== '') refusals.push(part.refusal)
  }
  return refusals.join('\n')
}
