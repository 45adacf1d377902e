/**
 * OpenAI Responses input items: intake into contract pieces (consecutive assistant-side items, a
 * `reasoning` item, an assistant message, `function_call`/`custom_tool_call` items, merge into
 * one assistant piece whose calls they are; each call output is a tool piece), provider-ready
 * `input` arrays, the rules O1-O4, and the per-format validation of added items.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import { isModifiedPiece } from './assemble.js'
import { carrierOf, contentText, hasOtherParts, isStrippedOnly, joinTexts, pickKeys, pieceMetadata, toContractCalls, toConvertedText, withStrippedText, type Piece } from './carrier.js'
import type { TokenEstimator } from '../meter/estimate.js'

/**
 * A Responses input item as this library reads it (`type` optional on messages).
 *
 * @example
 * const item: ResponsesItem = { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"id":3}' }
 */
export interface ResponsesItem {
  readonly type?: string
  readonly role?: string
  readonly [key: string]: unknown
}

/**
 * The keys the Responses API accepts on each input item type (O4), one entry per member of the
 * pinned SDK's `ResponseInputItem` union (`openai@6`, `resources/responses/responses.d.ts`;
 * `message` is the union of `EasyInputMessage`, `ResponseInputItem.Message` and
 * `ResponseOutputMessage`). `test/types/responses-item-keys.ts` fails to compile when an SDK item
 * type gains or loses a key, or a type, that this table does not have. Bookkeeping keys
 * (`metadata`, `_truncated`, a rollout's own fields) are on no list, so a view never carries them.
 *
 * @example
 * RESPONSES_ITEM_KEYS_BY_TYPE.computer_call.includes('pending_safety_checks') // => true
 */
export const RESPONSES_ITEM_KEYS_BY_TYPE = {
  apply_patch_call: ['type', 'call_id', 'id', 'operation', 'status'],
  apply_patch_call_output: ['type', 'call_id', 'id', 'output', 'status'],
  code_interpreter_call: ['type', 'code', 'container_id', 'id', 'outputs', 'status'],
  compaction: ['type', 'encrypted_content', 'id'],
  computer_call: ['type', 'action', 'actions', 'call_id', 'id', 'pending_safety_checks', 'status'],
  computer_call_output: ['type', 'acknowledged_safety_checks', 'call_id', 'id', 'output', 'status'],
  custom_tool_call: ['type', 'call_id', 'id', 'input', 'name', 'namespace'],
  custom_tool_call_output: ['type', 'call_id', 'id', 'output'],
  file_search_call: ['type', 'id', 'queries', 'results', 'status'],
  function_call: ['type', 'arguments', 'call_id', 'id', 'name', 'namespace', 'status'],
  function_call_output: ['type', 'call_id', 'id', 'output', 'status'],
  image_generation_call: ['type', 'id', 'result', 'status'],
  item_reference: ['type', 'id'],
  local_shell_call: ['type', 'action', 'call_id', 'id', 'status'],
  local_shell_call_output: ['type', 'id', 'output', 'status'],
  mcp_approval_request: ['type', 'arguments', 'id', 'name', 'server_label'],
  mcp_approval_response: ['type', 'approval_request_id', 'approve', 'id', 'reason'],
  mcp_call: ['type', 'approval_request_id', 'arguments', 'error', 'id', 'name', 'output', 'server_label', 'status'],
  mcp_list_tools: ['type', 'error', 'id', 'server_label', 'tools'],
  message: ['type', 'content', 'id', 'phase', 'role', 'status'],
  reasoning: ['type', 'content', 'encrypted_content', 'id', 'status', 'summary'],
  shell_call: ['type', 'action', 'call_id', 'environment', 'id', 'status'],
  shell_call_output: ['type', 'call_id', 'id', 'max_output_length', 'output', 'status'],
  tool_search_call: ['type', 'arguments', 'call_id', 'execution', 'id', 'status'],
  tool_search_output: ['type', 'call_id', 'execution', 'id', 'status', 'tools'],
  web_search_call: ['type', 'action', 'id', 'status'],
} as const satisfies Readonly<Record<string, ReadonlyArray<string>>>

/**
 * An item type the pinned SDK's `ResponseInputItem` names.
 *
 * @example
 * const type: ResponsesItemType = 'function_call_output'
 */
export type ResponsesItemType = keyof typeof RESPONSES_ITEM_KEYS_BY_TYPE

const KEYS_BY_TYPE: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(RESPONSES_ITEM_KEYS_BY_TYPE).map(([type, keys]) => [type, new Set<string>(keys)]),
)

/**
 * Every key some Responses input item type accepts (the union of `RESPONSES_ITEM_KEYS_BY_TYPE`);
 * an item of a type the table does not name keeps these.
 *
 * @example
 * RESPONSES_ITEM_KEYS.has('encrypted_content') // => true
 */
export const RESPONSES_ITEM_KEYS: ReadonlySet<string> = new Set(Object.values(RESPONSES_ITEM_KEYS_BY_TYPE).flat())

/**
 * The keys the API accepts on `item` (by its type; all known keys for a type the table lacks).
 *
 * @example
 * responsesKeysOf({ type: 'item_reference', id: 'x' }).has('call_id') // => false
 */
export const responsesKeysOf = (item: Readonly<Record<string, unknown>>): ReadonlySet<string> => KEYS_BY_TYPE.get(itemType(item)) ?? RESPONSES_ITEM_KEYS

const CALL_TYPES = new Set(['function_call', 'custom_tool_call'])
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output'])

/** The item's type (`message` for an item with a role and no type). */
const itemType = (item: Readonly<Record<string, unknown>>): string => (typeof item.type === 'string' ? item.type : 'role' in item ? 'message' : '')

/**
 * True for an item the model produced (reasoning, assistant message, calls, server tool items):
 * consecutive ones form one assistant piece.
 *
 * @example
 * isAssistantSideItem({ type: 'reasoning', summary: [] }) // => true
 */
export const isAssistantSideItem = (item: Readonly<Record<string, unknown>>): boolean => {
  const type = itemType(item)
  if (type === 'message') return item.role === 'assistant'
  return !OUTPUT_TYPES.has(type)
}

/** The part types whose texts an output's text is made of. */
const OUTPUT_TEXT_TYPES: ReadonlyArray<string> = ['input_text', 'output_text', 'text']

/** Text of an output item's `output` (a string, or its input_text parts). */
const outputText = (output: unknown): string => (typeof output === 'string' ? output : Array.isArray(output) ? joinTexts(output, OUTPUT_TEXT_TYPES) : '')

/**
 * The contract piece of a run of assistant-side items (or of one other item): calls from
 * `function_call` (arguments) and `custom_tool_call` (input) items, text from assistant message
 * items; an output item is a `tool` piece; a user/system/developer message a user/system piece.
 *
 * @example
 * toResponsesPiece([{ type: 'reasoning', summary: [] }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }]).message.tool_calls
 * // [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }]
 */
export const toResponsesPiece = (items: ReadonlyArray<Readonly<Record<string, unknown>>>, metadataSource: Readonly<Record<string, unknown>> = items[0]): Piece => {
  const first = items[0]
  const metadata = pieceMetadata(metadataSource, { format: 'openai-responses', message: pickKeys(first, responsesKeysOf(first)), blocks: null, parts: 1, items })
  const type = itemType(first)
  if (OUTPUT_TYPES.has(type)) return { message: { role: 'tool', tool_call_id: first.call_id, content: outputText(first.output), metadata }, blocks: null, items }
  if (type === 'message' && first.role !== 'assistant') {
    const role = first.role === 'user' ? 'user' : first.role === 'system' || first.role === 'developer' ? 'system' : first.role
    return { message: { role, content: contentText(first.content), metadata }, blocks: null, items }
  }
  const texts: string[] = []
  const calls: unknown[] = []
  for (const item of items) {
    const kind = itemType(item)
    if (kind === 'message') texts.push(contentText(item.content))
    else if (CALL_TYPES.has(kind)) {
      const args = kind === 'custom_tool_call' ? item.input : item.arguments
      calls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) } })
    }
  }
  const piece: Record<string, unknown> = { role: 'assistant', content: texts.join('\n') }
  if (calls.length > 0) piece.tool_calls = calls
  return { message: { ...piece, metadata }, blocks: null, items }
}

/**
 * The piece of one added item (the reducer may merge an assistant-side one into the previous
 * assistant piece with `mergeResponsesPieces`).
 *
 * @example
 * expandResponsesItem({ role: 'user', content: 'hi' })[0].message // { role: 'user', content: 'hi', metadata: {...} }
 */
export const expandResponsesItem = (item: Readonly<Record<string, unknown>>): ReadonlyArray<Piece> => [toResponsesPiece([withoutItemMetadata(item)], item)]

const withoutItemMetadata = (item: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  if (!Object.prototype.hasOwnProperty.call(item, 'metadata')) return item
  const { metadata: _dropped, ...rest } = item
  return rest
}

/**
 * The merged piece when `piece` (one new assistant-side item) continues the stored assistant
 * piece `last`, or null when it does not: `last` is not an assistant-side Responses piece, or it
 * already holds a call and the new item is not a call (a message or reasoning item after a call
 * starts the next model response).
 *
 * @example
 * const last = expandResponsesItem({ type: 'reasoning', id: 'rs_1', summary: [] })[0].message
 * const next = expandResponsesItem({ type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' })[0].message
 * const merged = mergeResponsesPieces(last, next)
 * merged === null ? null : carrierOf(merged)?.items?.map((item) => item.type) // => ['reasoning', 'function_call']
 * mergeResponsesPieces(expandResponsesItem({ type: 'message', role: 'user', content: 'hi' })[0].message, next) // => null
 */
export const mergeResponsesPieces = (last: Message, piece: Message): Message | null => {
  const previous = carrierOf(last)
  const next = carrierOf(piece)
  if (previous === null || next === null || previous.format !== 'openai-responses' || next.format !== 'openai-responses') return null
  if (last.role !== 'assistant' || piece.role !== 'assistant' || previous.items === undefined || next.items === undefined) return null
  // Once a turn has a call, only more calls continue it: a message or reasoning item after a call
  // starts the next model response (after an interrupted call, say).
  if (isTruthy(last.tool_calls) && !next.items.every((item) => CALL_TYPES.has(itemType(item)))) return null
  const merged = toResponsesPiece([...previous.items, ...next.items])
  const lastMetadata = isPlainObject(last.metadata) ? last.metadata : {}
  const mergedNative = isPlainObject(merged.message.metadata) ? merged.message.metadata.native : undefined
  return { ...merged.message, metadata: { ...lastMetadata, native: { ...(mergedNative as object), origin: previous.origin } } }
}

/** A contract message as Responses items. */
const fromContract = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  if (piece.role === 'tool') return [{ type: 'function_call_output', call_id: piece.tool_call_id, output: contentText(piece.content) }]
  if (piece.role === 'assistant') {
    const out: Array<Readonly<Record<string, unknown>>> = []
    const text = toConvertedText(piece)
    if (text !== '') out.push({ role: 'assistant', content: text })
    for (const call of toContractCalls(piece)) out.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments })
    return out
  }
  if (piece.role === 'system' || piece.role === 'developer') return [{ role: 'system', content: contentText(piece.content) }]
  const text = contentText(piece.content)
  return text === '' ? [] : [{ role: 'user', content: text }]
}

/** The stub in place of a message item's text (string content, or one input_text part). */
const withText = (item: Readonly<Record<string, unknown>>, text: string): Readonly<Record<string, unknown>> => {
  if (!Array.isArray(item.content)) return { ...item, content: text }
  const parts: unknown[] = []
  let placed = false
  for (const part of item.content) {
    if (isPlainObject(part) && (part.type === 'input_text' || part.type === 'output_text')) {
      if (!placed) parts.push({ ...part, text })
      placed = true
    } else parts.push(part)
  }
  if (!placed) parts.unshift({ type: 'input_text', text })
  return { ...item, content: parts }
}

/**
 * The `output` of a modified output item: the piece's text; an output of parts stored without
 * JSON whitespace (not truncated) keeps its other parts (images, files) in place, the text in
 * its first text part (a stripped output always has one: its text came from them). A truncated
 * or cut output of parts is one `input_text` part with the text before its other parts (images,
 * files), as the Anthropic and AI SDK formats rebuild a truncated result (./anthropic.ts,
 * ./ai-sdk.ts): truncation shortens the text and never drops media (docs/formats.md).
 */
const toOutputWithText = (piece: Message, output: unknown, text: string): unknown => {
  if (!Array.isArray(output)) return text
  if (isStrippedOnly(piece)) return hasOtherParts(output, OUTPUT_TEXT_TYPES) ? withStrippedText(output, text, OUTPUT_TEXT_TYPES) : text
  const media = output.filter((part) => !(isPlainObject(part) && OUTPUT_TEXT_TYPES.includes(String(part.type))))
  return media.length > 0 ? [{ type: 'input_text', text }, ...media] : text
}

/**
 * The items of one view piece (`toResponsesView`): a Responses piece's items (only the API's keys
 * kept; a truncated output with its new `output` text, a stubbed message with the stub text), a
 * contract message converted.
 */
const toPieceItems = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const carrier = carrierOf(piece)
  if (carrier === null || carrier.format !== 'openai-responses' || carrier.items === undefined) return fromContract(piece)
  const modified = isModifiedPiece(piece)
  const text = typeof piece.content === 'string' ? piece.content : ''
  const out: Array<Readonly<Record<string, unknown>>> = []
  for (const item of carrier.items) {
    const kept = pickKeys(item, responsesKeysOf(item))
    if (!modified) out.push(kept)
    else if (OUTPUT_TYPES.has(itemType(item))) out.push({ ...kept, output: toOutputWithText(piece, kept.output, text) })
    else if (itemType(item) === 'message') out.push(withText(kept, text))
    else out.push(kept)
  }
  return out
}

/**
 * The items a stored piece stands for in the native history (`getMessages`,
 * `toNativeHistory`): its carrier's items as added, every key kept, except that a tool-result
 * piece whose text the history changed (stored without JSON whitespace, cut at ingress:
 * `isModifiedPiece`) has that text as its output item's `output`. Null for a piece that carries
 * no Responses items (the caller converts it).
 *
 * @example
 * const [piece] = expandResponsesItem({ type: 'function_call_output', call_id: 'c1', output: '{ "a": 1 }' }).map((p) => p.message)
 * toStoredItems({ ...piece, content: '{"a":1}', _json_stripped: true }) // => [{ type: 'function_call_output', call_id: 'c1', output: '{"a":1}' }]
 * toStoredItems({ role: 'user', content: 'hi' }) // => null
 */
export const toStoredItems = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> | null => {
  const items = carrierOf(piece)?.items
  if (items === undefined) return null
  if (!isModifiedPiece(piece) || typeof piece.content !== 'string') return items
  const text = piece.content
  return items.map((item) => (OUTPUT_TYPES.has(itemType(item)) ? { ...item, output: toOutputWithText(piece, item.output, text) } : item))
}

/**
 * The items of each piece converted so far. Messages are immutable (docs/architecture.md), and a
 * view between compactions holds the same piece objects request after request, so their items are
 * the same objects too: the conversion is O(new pieces), and the `provider_rules` check resumes
 * on the items it walked before (`resumeResponsesHistory`, ./input-rules.ts).
 */
const pieceItems = new WeakMap<Message, ReadonlyArray<Readonly<Record<string, unknown>>>>()

/**
 * The provider-ready Responses view: the `input` array; untouched items as added (only the API's
 * keys kept), a truncated output with its new `output` text, a stubbed message with the stub
 * text, contract messages converted (system messages as `{role: 'system', content}` in place).
 * A fresh array; the items of a piece are the same objects on every call for that piece (memoised
 * per piece, as the pieces are immutable), so treat them as read-only.
 *
 * @example
 * toResponsesView([{ role: 'system', content: 'Be terse.' }]) // => [{ role: 'system', content: 'Be terse.' }]
 */
export const toResponsesView = (view: Messages): ReadonlyArray<ResponsesItem> => {
  const out: Array<Readonly<Record<string, unknown>>> = []
  for (const piece of view) {
    let items = pieceItems.get(piece)
    if (items === undefined) {
      items = toPieceItems(piece)
      pieceItems.set(piece, items)
    }
    for (const item of items) out.push(item)
  }
  return out
}

/**
 * The Responses rule violations (`validate_formats.py --format openai-responses`): O1 every
 * `function_call`/`custom_tool_call` has an output with its `call_id` after it (an open group at
 * the very end is tolerated); O2 every output has its call before it; O3 call ids unique; O4 only
 * the keys the API accepts on the item's type (`RESPONSES_ITEM_KEYS_BY_TYPE`).
 *
 * @example
 * findResponsesViolations([{ type: 'function_call_output', call_id: 'x', output: '' }]) // => ['O2 output x at 0 has no call before it']
 */
export const findResponsesViolations = (view: unknown): ReadonlyArray<string> => {
  if (!Array.isArray(view)) return ['O1 view is not a list']
  const problems: string[] = []
  const calls = new Map<unknown, number>()
  const outputs = new Map<unknown, number>()
  const items = view.map((item: unknown) => (isPlainObject(item) ? item : {}))
  items.forEach((item, i) => {
    const allowed = responsesKeysOf(item)
    const extra = Object.keys(item).filter((key) => !allowed.has(key))
    if (extra.length > 0) problems.push(`O4 item ${i} extra keys ${extra.sort().join(', ')}`)
    const type = itemType(item)
    if (CALL_TYPES.has(type)) {
      if (calls.has(item.call_id)) problems.push(`O3 duplicate call_id ${String(item.call_id)}`)
      calls.set(item.call_id, i)
    } else if (OUTPUT_TYPES.has(type)) {
      if (!calls.has(item.call_id)) problems.push(`O2 output ${String(item.call_id)} at ${i} has no call before it`)
      if (!outputs.has(item.call_id)) outputs.set(item.call_id, i)
    }
  })
  let lastOther = -1
  items.forEach((item, i) => {
    if (!CALL_TYPES.has(String(item.type)) && !OUTPUT_TYPES.has(String(item.type)) && item.type !== 'reasoning') lastOther = i
  })
  for (const [id, i] of calls) if (!outputs.has(id) && i < lastOther) problems.push(`O1 call ${String(id)} at ${i} has no output`)
  return problems
}

/**
 * A reason an added item is not a valid Responses input item (path and detail), or null:
 * messages need a known role; calls and outputs a non-empty string `call_id`.
 *
 * @example
 * validateResponsesItem({ type: 'function_call_output', output: 'x' }) // => { path: '.call_id', detail: 'a function_call_output item needs the non-empty string call_id of its call' }
 */
export const validateResponsesItem = (item: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | null => {
  const type = itemType(item)
  if (type === '') return { path: '.type', detail: 'expected an item "type" (or a message "role")' }
  if (type === 'message' && !['user', 'assistant', 'system', 'developer'].includes(String(item.role))) {
    return { path: '.role', detail: `expected "user", "assistant", "system" or "developer", got ${JSON.stringify(item.role ?? null)}` }
  }
  if ((CALL_TYPES.has(type) || OUTPUT_TYPES.has(type)) && (typeof item.call_id !== 'string' || item.call_id === '')) {
    return { path: '.call_id', detail: `a ${type} item needs the non-empty string call_id of its call` }
  }
  if (CALL_TYPES.has(type) && (typeof item.name !== 'string' || item.name === '')) return { path: '.name', detail: `a ${type} item needs a non-empty string name` }
  return null
}

const reasoningShares = new WeakMap<TokenEstimator, WeakMap<Message, number>>()

/**
 * What `estimate` charges for the `reasoning` items of a Responses assistant piece (0 for any
 * other message): the part of the piece the API stops billing once a later user message follows
 * (`measureUnbilledReasoning`). Estimator tokens; memoised per estimator and piece (a truncated or
 * stubbed form keeps its reasoning items, so it has the same share).
 *
 * @example
 * toReasoningShare(expandResponsesItem({ type: 'reasoning', summary: [], encrypted_content: 'gAAAAB' })[0].message, () => 10) // => 10
 * toReasoningShare({ role: 'assistant', content: 'hi' }, () => 10) // => 0
 */
export const toReasoningShare = (piece: Message, estimate: TokenEstimator): number => {
  const carrier = carrierOf(piece)
  if (carrier === null || carrier.format !== 'openai-responses' || carrier.items === undefined || piece.role !== 'assistant') return 0
  let shares = reasoningShares.get(estimate)
  if (shares === undefined) {
    shares = new WeakMap()
    reasoningShares.set(estimate, shares)
  }
  const known = shares.get(piece)
  if (known !== undefined) return known
  let share = 0
  for (const item of carrier.items) if (itemType(item) === 'reasoning') share += estimate(pickKeys(item, responsesKeysOf(item)))
  shares.set(piece, share)
  return share
}

/**
 * The part of `estimate(view)` the Responses API does not bill with `reasoning.context`
 * `"current_turn"` (every model before the GPT-5.6 family; that family renders earlier turns'
 * reasoning by default, `calibration_reasoning_context` in docs/configuration.md): the `reasoning`
 * items of the pieces before the last user message of `view[0..end)` (a turn ends at the next
 * user message; OpenAI's reasoning guide, and openai/codex adds them back to the provider's last
 * reading, which leaves them out, in `get_non_last_reasoning_items_tokens`).
 * Pieces of other formats hold no such item, so this is 0 for them. Estimator tokens; pure.
 *
 * @example
 * const turn = mergeResponsesPieces(expandResponsesItem({ type: 'reasoning', summary: [], encrypted_content: 'gAAAAB' })[0].message, expandResponsesItem({ role: 'assistant', content: 'Done.' })[0].message)
 * const view = turn === null ? [] : [expandResponsesItem({ role: 'user', content: 'go' })[0].message, turn, expandResponsesItem({ role: 'user', content: 'next' })[0].message]
 * measureUnbilledReasoning(view, () => 10) // => 10
 * measureUnbilledReasoning(view, () => 10, 2) // => 0
 */
export const measureUnbilledReasoning = (view: Messages, estimate: TokenEstimator, end: number = view.length): number =>
  extendReasoningPrefix(null, view, estimate, end).unbilled

/**
 * The running sums `measureUnbilledReasoning` reads, over the first `length` messages of a list
 * (estimator tokens, for `estimate`): `running` the reasoning shares (`toReasoningShare`) of all of
 * them, `unbilled` those before the last user message (index `lastUser`, -1 for none), which is
 * `measureUnbilledReasoning` of those messages.
 * Kept per working list and extended by what was appended (src/core/incremental/working.ts), so a
 * request does not walk the whole history for it.
 *
 * @example
 * const prefix: ReasoningPrefix = { estimate: () => 10, length: 0, running: 0, unbilled: 0, lastUser: -1 }
 */
export interface ReasoningPrefix {
  readonly estimate: TokenEstimator
  readonly length: number
  readonly running: number
  readonly unbilled: number
  readonly lastUser: number
}

/**
 * `prefix` (null: an empty list) extended by the first `count` messages of `added` (all of them by
 * default), measured with `estimate` (which must be `prefix.estimate`): O(count). Its `unbilled`
 * is `measureUnbilledReasoning` of the whole list, which is this from an empty prefix.
 *
 * @example
 * extendReasoningPrefix(null, [{ role: 'user', content: 'go' }, { role: 'assistant', content: 'ok' }], () => 10).lastUser // => 0
 */
export const extendReasoningPrefix = (prefix: ReasoningPrefix | null, added: Messages, estimate: TokenEstimator, count: number = added.length): ReasoningPrefix => {
  let { running, unbilled, lastUser } = prefix ?? { running: 0, unbilled: 0, lastUser: -1 }
  const start = prefix?.length ?? 0
  for (let k = 0; k < count; k += 1) {
    const message = added[k]
    if (message.role === 'user') {
      unbilled = running
      lastUser = start + k
    }
    running += toReasoningShare(message, estimate)
  }
  return { estimate, length: start + count, running, unbilled, lastUser }
}
