/**
 * One entry point per operation over every format: intake (validate, expand), output (the
 * provider-ready view, the native history), the provider rules, the format-aware estimator and
 * the opt-in pairing repair.
 */
import type { Message, Messages } from '../messages/message.js'
import type { TokenEstimator } from '../meter/estimate.js'
import { isPlainObject } from '../messages/values.js'
import { endsInOpenToolGroup, selectResultRunEnd, toCallIds, isToolCallMessage } from '../compaction/tool-pairs.js'
import { aiSdkCodec, expandAiSdkMessage, findAiSdkViolations, toAiSdkView, validateAiSdkMessage } from './ai-sdk.js'
import { anthropicCodec, expandAnthropicMessage, findAnthropicViolations, toAnthropicView, validateAnthropicMessage, type AnthropicCheckWalk, type AnthropicMessage, type AnthropicTextBlock } from './anthropic.js'
import { assemblePieces, type AssemblyCodec } from './assemble.js'
import type { AiSdkModelMessage } from './ai-sdk-model-message.js'
import type { ResponsesInputItem } from './openai-responses-input.js'
import type { MessageFormat, Piece, ProviderFormat } from './carrier.js'
import { carrierOf, isProviderFormat } from './carrier.js'
import { chatCodec, expandChatMessage, findChatViolations, toChatView, validateChatMessage, type OpenAiChatMessage } from './openai-chat.js'
import { expandResponsesItem, findResponsesViolations, toResponsesView, toStoredItems, validateResponsesItem } from './openai-responses.js'
import { toPlainArray } from '../messages/appendable.js'

/**
 * The view shape of each format: what `getMessagesForRequest({ format })` resolves to.
 * `contract` is the contract's message list; `anthropic` spreads into `messages.create`;
 * `openai-chat` is the `messages` array; `openai-responses` the `input` array; `ai-sdk` a
 * `ModelMessage[]`.
 *
 * @example
 * const view: FormatViews['anthropic'] = { messages: [{ role: 'user', content: 'hi' }] }
 */
export interface FormatViews {
  readonly contract: Array<Message>
  readonly anthropic: AnthropicRequestView
  readonly 'openai-chat': Array<Readonly<OpenAiChatMessage>>
  readonly 'openai-responses': Array<Readonly<ResponsesInputItem>>
  readonly 'ai-sdk': Array<Readonly<AiSdkModelMessage>>
}

/**
 * The Anthropic view as the manager hands it out: a fresh object and `messages` array (yours to
 * push to or spread), holding the frozen messages it shares, typed `Readonly` (assigning a
 * message's `role` or `content` does not compile). Blocks inside stay typed as the SDK's
 * `MessageParam` types them (mutable arrays, so the view passes to `messages.create` without a
 * cast) but are frozen too: copy with `toMutableView` before changing one.
 *
 * @example
 * const view: AnthropicRequestView = { system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] }
 */
export interface AnthropicRequestView {
  system?: string | Array<Readonly<AnthropicTextBlock>>
  messages: Array<Readonly<AnthropicMessage>>
}

/**
 * The view shape of format `F`.
 *
 * @example
 * const view: FormatView<'ai-sdk'> = [{ role: 'user', content: 'hi' }]
 */
export type FormatView<F extends MessageFormat> = FormatViews[F]

/**
 * What a message is wrong by in its format (see `validateFormatMessage`); null when it is valid.
 */
type MessageProblem = { readonly path: string; readonly detail: string } | null

/**
 * The operations provider format `F` contributes, each its own file's function: intake
 * (`validateMessage`, `expandMessage` into contract pieces), output (`toView`, the provider-ready
 * view; `toNativeHistory`, the stored history joined back; `toPieceMessages`, the provider
 * messages one piece is estimated as) and the provider rules (`findViolations`).
 */
interface FormatAdapter<F extends ProviderFormat> {
  readonly validateMessage: (message: Readonly<Record<string, unknown>>) => MessageProblem
  readonly expandMessage: (message: Readonly<Record<string, unknown>>, history: Messages) => ReadonlyArray<Piece>
  readonly toView: (view: Messages) => FormatView<F>
  readonly toNativeHistory: (history: Messages) => Array<Readonly<Record<string, unknown>>>
  readonly toPieceMessages: (piece: Message) => ReadonlyArray<Message>
  readonly findViolations: (view: unknown, options: FormatCheckOptions) => ReadonlyArray<string>
}

/** Every key allowed: the history keeps the added objects whole. */
const ALL_KEYS = { has: (): boolean => true } as unknown as ReadonlySet<string>

/** The native history of a format whose pieces are joined back by its assembly codec. */
const assembleWhole =
  (codec: AssemblyCodec) =>
  (history: Messages): Array<Readonly<Record<string, unknown>>> =>
    assemblePieces(history, { ...codec, allowedKeys: ALL_KEYS })

/**
 * The adapter of every provider format: adding a format is adding its entry here (the compiler
 * rejects a format or an operation left out).
 */
const FORMAT_ADAPTERS: { readonly [F in ProviderFormat]: FormatAdapter<F> } = {
  anthropic: {
    validateMessage: validateAnthropicMessage,
    expandMessage: expandAnthropicMessage,
    toView: toAnthropicView,
    toNativeHistory: assembleWhole(anthropicCodec),
    // The view is `{system, messages}`: a piece is estimated as its assembled messages (a system
    // piece stays a message).
    toPieceMessages: (piece) => assemblePieces([piece], anthropicCodec),
    findViolations: findAnthropicViolations,
  },
  'openai-chat': {
    validateMessage: validateChatMessage,
    expandMessage: expandChatMessage,
    toView: toChatView,
    toNativeHistory: assembleWhole(chatCodec),
    toPieceMessages: (piece) => toChatView([piece]) as ReadonlyArray<Message>,
    findViolations: findChatViolations,
  },
  'openai-responses': {
    validateMessage: validateResponsesItem,
    expandMessage: expandResponsesItem,
    toView: (view) => toResponsesView(view) as FormatView<'openai-responses'>,
    // A piece holds the items it came from (`carrier.items`, with the stored text of a stripped or
    // cut output); a contract message is converted.
    toNativeHistory: (history) => {
      const out: Array<Readonly<Record<string, unknown>>> = []
      for (const message of history) {
        const items = toStoredItems(message)
        if (items !== null) out.push(...items)
        else out.push(...(toResponsesView([message]) as ReadonlyArray<Readonly<Record<string, unknown>>>))
      }
      return out
    },
    toPieceMessages: (piece) => toResponsesView([piece]) as ReadonlyArray<Message>,
    findViolations: findResponsesViolations,
  },
  'ai-sdk': {
    validateMessage: validateAiSdkMessage,
    expandMessage: expandAiSdkMessage,
    toView: (view) => toAiSdkView(view) as FormatView<'ai-sdk'>,
    toNativeHistory: assembleWhole(aiSdkCodec),
    toPieceMessages: (piece) => toAiSdkView([piece]) as ReadonlyArray<Message>,
    findViolations: findAiSdkViolations,
  },
}

/**
 * The adapter of `format`; undefined for `contract` and for any other name (the switches' default).
 */
const selectFormatAdapter = (format: MessageFormat): FormatAdapter<ProviderFormat> | undefined => (isProviderFormat(format) ? FORMAT_ADAPTERS[format] : undefined)

/**
 * Why an added message is invalid in its format: the path below the message (`.content[1].id`)
 * and what is wrong; null when it is valid. The contract shape accepts any object (SPEC 1.1).
 *
 * @example
 * validateFormatMessage('anthropic', { role: 'tool', content: 'x' })?.path // => '.role'
 */
export const validateFormatMessage = (format: MessageFormat, message: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | null =>
  format === 'contract' ? null : FORMAT_ADAPTERS[format].validateMessage(message)

/**
 * The contract pieces of one provider message (see each format's `expand…`); `history` is the
 * stored history (the AI SDK resolves approval responses in it).
 *
 * @example
 * expandMessage('anthropic', { role: 'user', content: 'hi' }, []).length // => 1
 */
export const expandMessage = (format: ProviderFormat, message: Readonly<Record<string, unknown>>, history: Messages): ReadonlyArray<Piece> =>
  FORMAT_ADAPTERS[format].expandMessage(message, history)

/**
 * The provider-ready view of a contract-piece view in `format` (`contract`: the list itself).
 * Pieces of another input format, and contract messages, are converted; thinking/reasoning
 * blocks exist only in their own format's pieces (docs/formats.md).
 *
 * @example
 * toFormatView('openai-chat', [{ role: 'user', content: 'hi', metadata: {} }]) // => [{ role: 'user', content: 'hi' }]
 */
export const toFormatView = <F extends MessageFormat>(format: F, view: Messages): FormatView<F> => {
  const adapter = selectFormatAdapter(format)
  return (adapter === undefined ? view : adapter.toView(selectOneResultPerCall(format, view))) as FormatView<F>
}

/**
 * The view less every converted tool piece (one not carried in `format`) whose call a later tool
 * piece answers again: an AI SDK approval response and the result of the same call become one
 * result in the other formats, never two (`tool_result` twice for one `tool_use` is refused). The
 * same array when nothing is dropped.
 *
 * @example
 * const call = expandAiSdkMessage({ role: 'assistant', content: [
 *   { type: 'tool-call', toolCallId: 'c1', toolName: 'rm', input: {} },
 *   { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
 * ] }, []).map((piece) => piece.message)
 * const approval = expandAiSdkMessage({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] }, call)[0].message
 * const result = expandAiSdkMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'rm', output: { type: 'text', value: 'done' } }] }, call)[0].message
 * selectOneResultPerCall('anthropic', [...call, approval, result]) // => [...call, result]
 * selectOneResultPerCall('ai-sdk', [...call, approval, result]).length // => call.length + 2
 */
export const selectOneResultPerCall = (format: MessageFormat, view: Messages): Messages => {
  const later = new Set<unknown>()
  let drop: Set<number> | null = null
  for (let i = view.length - 1; i >= 0; i -= 1) {
    const piece = view[i]
    if (piece.role !== 'tool') continue
    if (later.has(piece.tool_call_id) && carrierOf(piece)?.format !== format && carrierOf(piece) !== null) (drop ??= new Set()).add(i)
    later.add(piece.tool_call_id)
  }
  if (drop === null) return view
  const kept = drop
  return view.filter((_, index) => !kept.has(index))
}

/**
 * The stored history as the provider messages that were added (pieces joined back; for
 * `anthropic`, system messages stay in place). Truncation never changes history, so every
 * message is the one added, less `metadata`.
 *
 * @example
 * const stored = expandMessage('anthropic', { role: 'user', content: [{ type: 'text', text: 'hi' }] }, []).map((piece) => piece.message)
 * toNativeHistory('anthropic', stored) // => [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]
 */
export const toNativeHistory = (format: ProviderFormat, stored: Messages): Array<Readonly<Record<string, unknown>>> =>
  FORMAT_ADAPTERS[format].toNativeHistory(toPlainArray(stored))

/**
 * Options of the rule check: `thinkingSource` (Anthropic A6), the canonical JSON of every
 * thinking block the agent really sent.
 *
 * @example
 * const options: FormatCheckOptions = {}
 */
export interface FormatCheckOptions {
  readonly thinkingSource?: ReadonlySet<string>
  /** The last Anthropic check, resumed (`findAnthropicViolations`); the other formats ignore it. */
  readonly anthropicWalk?: AnthropicCheckWalk
}

/**
 * The provider-rule violations of a provider-ready view, the rules of
 * `tools/validate_formats.py`: `anthropic` A1-A7, `ai-sdk` S1-S5, `openai-responses` O1-O4,
 * `openai-chat` R1-R4 and C5 (`contract`: R1-R4). Each problem is one line starting with its rule
 * code (`A2 tool_use ...`); an empty list means the provider accepts the view's structure. A call
 * id the input itself repeats is reported (R4/O3/S4/A4); filter by code to ignore it.
 *
 * @example
 * findFormatViolations('openai-responses', [{ type: 'function_call_output', call_id: 'x', output: '' }]) // => ['O2 output x at 0 has no call before it']
 */
export const findFormatViolations = (format: MessageFormat, view: unknown, options: FormatCheckOptions = {}): ReadonlyArray<string> => {
  const adapter = selectFormatAdapter(format)
  // The contract shape (and any other name): the Chat rules R1-R4 without C5 (the Chat API's keys).
  if (adapter === undefined) return findChatViolations(view).filter((problem) => !problem.startsWith('C5'))
  return adapter.findViolations(view, options)
}

/**
 * The format-aware estimator: a piece costs what its provider-ready form costs (`base` applied
 * to each message `toFormatView` gives for the piece alone; no metadata, thinking and signatures
 * included). Contract messages are estimated by `base` as they are.
 *
 * @example
 * const estimate = makeFormatEstimator('anthropic', estimateOne)
 */
export const makeFormatEstimator = (format: MessageFormat, base: TokenEstimator): TokenEstimator => {
  const adapter = selectFormatAdapter(format)
  if (adapter === undefined) return base
  return (piece: Message): number => {
    if (carrierOf(piece) === null) return base(piece)
    const native = adapter.toPieceMessages(piece)
    let total = 0
    for (const message of native) total += base(message)
    return total
  }
}

/**
 * The synthesized result content of the opt-in repair for a call that will never be answered.
 *
 * @example
 * REPAIR_NO_RESULT // => '[no result recorded]'
 */
export const REPAIR_NO_RESULT = '[no result recorded]'

/**
 * The opt-in pairing repair of a contract-piece view: a call that is not answered in its
 * adjacent run and is not the open group at the tail gets a stable synthesized result
 * (`{role: 'tool', tool_call_id, content: '[no result recorded]'}`, after its run); a result that
 * answers no call of the assistant right before its run is dropped. Returns the same array when
 * nothing changes.
 *
 * @example
 * repairToolPairing([{ role: 'tool', tool_call_id: 'x', content: 'orphan' }, { role: 'user', content: 'hi' }]) // => [{ role: 'user', content: 'hi' }]
 */
export const repairToolPairing = (view: Messages): Messages => {
  const out: Message[] = []
  let changed = false
  const openTail = endsInOpenToolGroup(view)
  let i = 0
  while (i < view.length) {
    const message = view[i]
    if (isToolCallMessage(message)) {
      const end = selectResultRunEnd(view, i)
      out.push(...view.slice(i, end))
      const answered = new Set(view.slice(i + 1, end).map((result) => result.tool_call_id))
      const atTail = openTail && end === view.length
      if (!atTail) {
        for (const id of toCallIds(message)) {
          if (answered.has(id)) continue
          out.push({ role: 'tool', tool_call_id: id, content: REPAIR_NO_RESULT, metadata: { source: 'context-repair' } })
          changed = true
        }
      }
      i = end
      continue
    }
    if (message.role === 'tool') {
      changed = true
      i += 1
      continue
    }
    out.push(message)
    i += 1
  }
  return changed ? out : view
}

/**
 * True when `value` is a message list or an Anthropic `{messages}` view (for guards at the edges).
 *
 * @example
 * isFormatView({ messages: [] }) // => true
 */
export const isFormatView = (value: unknown): boolean => Array.isArray(value) || (isPlainObject(value) && Array.isArray(value.messages))

/** Rules about one call id used twice. */
const REPEATED_ID_RULES: ReadonlySet<string> = new Set(['A4', 'R4', 'O3', 'S4'])

/**
 * True when `problem` (a line of `findFormatViolations`) breaks a rule about one call id used
 * twice (A4, R4, O3, S4): when the input itself repeats the id, the view only repeats the input
 * (docs/recording-format.md).
 *
 * @example
 * isRepeatedIdProblem('R4 duplicate call id a') // => true
 */
export const isRepeatedIdProblem = (problem: string): boolean => REPEATED_ID_RULES.has(problem.split(' ')[0])

/**
 * The call ids that `history` itself uses more than once (docs/recording-format.md: such a repeat is the
 * input's, not a problem of the view).
 *
 * @example
 * selectRepeatedHistoryCallIds([{ role: 'assistant', tool_calls: [{ id: 'a' }] }, { role: 'assistant', tool_calls: [{ id: 'a' }] }]) // Set {'a'}
 */
export const selectRepeatedHistoryCallIds = (history: Messages): ReadonlySet<string> => {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const message of toPlainArray(history)) {
    for (const id of toCallIds(message)) {
      const key = String(id)
      if (seen.has(key)) repeated.add(key)
      seen.add(key)
    }
  }
  return repeated
}

/**
 * A request view in `viewFormat` and its rule problems: the contract-piece `view` optionally
 * repaired (`repairToolPairing`), converted (`toFormatView`) and checked
 * (`findFormatViolations`), leaving out duplicate-id problems for ids the `history` itself
 * repeats. `problems` is empty for the `contract` format (nothing new is checked there).
 * `repaired` is true when the repair changed the view (a call answered or an orphan result
 * dropped); always false without `repair: true` and for the `contract` format. `anthropicWalk`:
 * the last Anthropic check, resumed (`findAnthropicViolations`); the same problems.
 *
 * @example
 * const view: Messages = [{ role: 'user', content: 'hi' }]
 * toRequestView('anthropic', view, { repair: false, history: view }).problems // => []
 * const interrupted: Messages = [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'next' }]
 * toRequestView('openai-chat', interrupted, { repair: true }).repaired // => true
 */
export const toRequestView = <V extends MessageFormat>(
  viewFormat: V,
  view: Messages,
  options: { readonly repair?: boolean; readonly history?: Messages; readonly anthropicWalk?: AnthropicCheckWalk } = {},
): { readonly view: FormatView<V>; readonly problems: ReadonlyArray<string>; readonly repaired: boolean } => {
  if (viewFormat === 'contract') return { view: view as FormatView<V>, problems: [], repaired: false }
  const ready = options.repair === true ? repairToolPairing(view) : view
  // repairToolPairing returns the same array when it changes nothing.
  const repaired = ready !== view
  const converted = toFormatView(viewFormat, ready)
  const found = findFormatViolations(viewFormat, converted, { anthropicWalk: options.anthropicWalk })
  // The history is walked only when a duplicate-id problem needs it: a request stays O(view).
  const history = options.history
  if (history === undefined || !found.some(isRepeatedIdProblem)) return { view: converted, problems: found, repaired }
  const repeated = selectRepeatedHistoryCallIds(history)
  const problems = found.filter((problem) => !(isRepeatedIdProblem(problem) && repeated.has(problem.split(' ').at(-1) ?? '')))
  return { view: converted, problems, repaired }
}
