/**
 * Input a provider would refuse (`provider_rules`, docs/formats.md "Input a provider refuses"):
 * what one added message shows (checked at `addMessage`) and what only the history shows
 * (checked on the provider-ready view at request time), each with the path and the fix, and the
 * view repair of the history problems. Pure.
 */
import type { Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import { findApprovalCall } from './ai-sdk.js'
import type { ProviderRulesMode } from '../config.js'
import type { MessageFormat } from './carrier.js'
import { RESPONSES_ITEM_KEYS_BY_TYPE } from './openai-responses.js'
import { makeAnthropicCheckWalk, type AnthropicCheckWalk } from './anthropic.js'

/**
 * The mode in effect: the configured one, or by format when null (`"warn"` for the contract
 * shape, which keeps the contract's behaviour; `"repair"` for the provider formats).
 *
 * @example
 * resolveProviderRules(null, 'anthropic') // 'repair'
 */
export const resolveProviderRules = (configured: ProviderRulesMode | null, format: MessageFormat): ProviderRulesMode =>
  configured ?? (format === 'contract' ? 'warn' : 'repair')

/**
 * One input problem: `path` below the message (at `addMessage`) or in the view (at request
 * time), `detail` what the provider refuses, `fix` what to do.
 *
 * @example
 * const refusal: InputRefusal = { path: '.content[0].text', detail: 'Anthropic refuses an empty text block', fix: 'leave the block out or give it text' }
 */
export interface InputRefusal {
  readonly path: string
  readonly detail: string
  readonly fix: string
}

/**
 * The Anthropic content block types of the pinned SDK's `ContentBlockParam` (`@anthropic-ai/sdk`,
 * checked by test/types/provider-part-types.ts).
 *
 * @example
 * ANTHROPIC_BLOCK_TYPES.includes('server_tool_use') // true
 */
export const ANTHROPIC_BLOCK_TYPES = [
  'bash_code_execution_tool_result', 'code_execution_tool_result', 'container_upload', 'document', 'image', 'redacted_thinking', 'search_result',
  'server_tool_use', 'text', 'text_editor_code_execution_tool_result', 'thinking', 'tool_result', 'tool_search_tool_result', 'tool_use',
  'web_fetch_tool_result', 'web_search_tool_result',
] as const

/** The Anthropic blocks that answer a `server_tool_use` of the same turn (by `tool_use_id`). */
const SERVER_RESULT_TYPES: ReadonlySet<string> = new Set(ANTHROPIC_BLOCK_TYPES.filter((type) => type.endsWith('_tool_result') && type !== 'tool_result'))

/**
 * The AI SDK part types per role of the pinned `ai@6` `ModelMessage` (checked by
 * test/types/provider-part-types.ts).
 *
 * @example
 * AI_SDK_PART_TYPES.tool.includes('tool-approval-response') // true
 */
export const AI_SDK_PART_TYPES = {
  user: ['file', 'image', 'text'],
  assistant: ['file', 'reasoning', 'text', 'tool-approval-request', 'tool-call', 'tool-result'],
  tool: ['tool-approval-response', 'tool-result'],
} as const

const partsOf = (content: unknown): ReadonlyArray<unknown> => (Array.isArray(content) ? content : [])

/**
 * Chat Completions content of the wrong type: every role takes a string or an array of content
 * parts, the assistant also null (a message of tool calls); an object, a number or a boolean is
 * refused by the API (a tool's result object passed as it is, say).
 */
const findChatContentRefusal = (role: unknown, content: unknown): InputRefusal | null => {
  if (typeof content === 'string' || Array.isArray(content)) return null
  if (role === 'assistant' && (content === null || content === undefined)) return null
  const given = content === null ? 'null' : content === undefined ? 'no content' : Array.isArray(content) ? 'an array' : `a${typeof content === 'object' ? 'n object' : ` ${typeof content}`}`
  const fix = role === 'tool' ? "give the tool's result as a string (JSON.stringify an object result)" : 'give the content as a string or an array of content parts'
  return { path: '.content', detail: `the Chat Completions API refuses ${given} as the content of a ${String(role)} message (a string or an array of content parts${role === 'assistant' ? ', or null beside tool_calls' : ''})`, fix }
}

/**
 * What a message alone shows a provider would refuse (empty for a message it accepts): an empty
 * text block or part, an unknown block or part type, `tool_calls: []`, an AI SDK approval
 * response whose request is not in `history` (not checked when `history` is null), a Responses
 * item of a type the API does not name.
 *
 * @example
 * findMessageRefusals('anthropic', { role: 'user', content: [{ type: 'text', text: '' }] }, [])[0].path // '.content[0].text'
 */
export const findMessageRefusals = (format: MessageFormat, message: Readonly<Record<string, unknown>>, history: Messages | null): ReadonlyArray<InputRefusal> => {
  const out: InputRefusal[] = []
  const content = message.content
  if (format === 'contract' || format === 'openai-chat') {
    if (Array.isArray(message.tool_calls) && message.tool_calls.length === 0) {
      out.push({ path: '.tool_calls', detail: 'the API refuses an empty tool_calls array ("[] is too short")', fix: 'leave tool_calls out when the message has no calls' })
    }
  }
  if (format === 'openai-chat') {
    const refusal = findChatContentRefusal(message.role, content)
    if (refusal !== null) out.push(refusal)
  }
  if (format === 'anthropic') {
    if (content === '' && message.role !== 'system') out.push({ path: '.content', detail: 'Anthropic refuses a message with empty content', fix: 'give the message text, or leave it out' })
    partsOf(content).forEach((block, i) => {
      if (!isPlainObject(block)) return
      if (!(ANTHROPIC_BLOCK_TYPES as ReadonlyArray<unknown>).includes(block.type)) {
        out.push({ path: `.content[${i}].type`, detail: `Anthropic refuses a block of type ${JSON.stringify(block.type)}`, fix: `use one of ${ANTHROPIC_BLOCK_TYPES.join(', ')}` })
      } else if (block.type === 'text' && block.text === '') {
        out.push({ path: `.content[${i}].text`, detail: 'Anthropic refuses an empty text block', fix: 'leave the block out or give it text' })
      }
    })
  }
  if (format === 'ai-sdk') {
    const role = message.role
    const known: ReadonlyArray<string> | undefined = role === 'user' || role === 'assistant' || role === 'tool' ? AI_SDK_PART_TYPES[role] : undefined
    partsOf(content).forEach((part, i) => {
      if (!isPlainObject(part) || known === undefined) return
      if (!known.includes(String(part.type))) {
        out.push({ path: `.content[${i}].type`, detail: `a ${String(role)} message has no part of type ${JSON.stringify(part.type)}`, fix: `use one of ${known.join(', ')}` })
      } else if (part.type === 'text' && part.text === '') {
        out.push({ path: `.content[${i}].text`, detail: 'an empty text part reaches Anthropic as an empty text block, which it refuses', fix: 'leave the part out or give it text' })
      } else if (part.type === 'tool-approval-response' && history !== null && findApprovalCall(history, part.approvalId) === null) {
        out.push({
          path: `.content[${i}].approvalId`,
          detail: `no tool-approval-request with approvalId ${JSON.stringify(part.approvalId)} was added before this response`,
          fix: 'add the assistant message holding the tool-approval-request first',
        })
      }
    })
  }
  if (format === 'openai-responses') {
    const type = typeof message.type === 'string' ? message.type : 'role' in message ? 'message' : ''
    if (type !== '' && !Object.prototype.hasOwnProperty.call(RESPONSES_ITEM_KEYS_BY_TYPE, type)) {
      out.push({ path: '.type', detail: `the Responses API has no input item of type ${JSON.stringify(type)}`, fix: `use one of ${Object.keys(RESPONSES_ITEM_KEYS_BY_TYPE).join(', ')}` })
    }
    if (type === 'message' && typeof content === 'string' && content === '' && message.role !== 'system' && message.role !== 'developer') {
      out.push({ path: '.content', detail: 'a message with empty content becomes an empty text block in the other formats, which Anthropic refuses', fix: 'give the message text, or leave it out' })
    }
  }
  return out
}

/**
 * One history problem of a provider-ready view: the refusal, and where it is (`message` index,
 * `block` index inside it or null for the whole message / item).
 *
 * @example
 * const refusal: ViewRefusal = { message: 0, block: null, path: '[0]', detail: 'tool message x answers a call that never appeared', fix: 'add the call' }
 */
export interface ViewRefusal extends InputRefusal {
  readonly message: number
  readonly block: number | null
}

const REPAIR_FIX = 'add what is missing, remove the message with setMessages, or set provider_rules: "repair" to leave it out of the view'

/** Anthropic: results of calls never made, open `server_tool_use` blocks. */
const findAnthropicHistory = (view: unknown): ReadonlyArray<ViewRefusal> => {
  const messages = isPlainObject(view) && Array.isArray(view.messages) ? view.messages : []
  const out: ViewRefusal[] = []
  const calls = new Set<unknown>()
  messages.forEach((message: unknown, m) => {
    if (!isPlainObject(message)) return
    const blocks = partsOf(message.content)
    if (message.role === 'assistant') {
      const answered = new Set(blocks.filter((b) => isPlainObject(b) && SERVER_RESULT_TYPES.has(String(b.type))).map((b) => (b as Record<string, unknown>).tool_use_id))
      blocks.forEach((block, b) => {
        if (!isPlainObject(block)) return
        if (block.type === 'tool_use') calls.add(block.id)
        if (block.type === 'server_tool_use' && !answered.has(block.id)) {
          out.push({ message: m, block: b, path: `messages[${m}].content[${b}]`, detail: `server_tool_use ${String(block.id)} has no result block in its turn; Anthropic refuses it`, fix: REPAIR_FIX })
        }
      })
      return
    }
    blocks.forEach((block, b) => {
      if (isPlainObject(block) && block.type === 'tool_result' && !calls.has(block.tool_use_id)) {
        out.push({ message: m, block: b, path: `messages[${m}].content[${b}]`, detail: `tool_result ${String(block.tool_use_id)} answers a tool_use that never appeared`, fix: REPAIR_FIX })
      }
    })
  })
  return out
}

/**
 * The chat check's walk over a view (contract shape and openai-chat), kept so that the next view,
 * which shares most of its leading messages with this one (the same objects, docs/architecture.md
 * "incremental requests"), is walked from where the two part only: `messages` the messages walked,
 * `firstCall` each call id with the index of the first message that made it, `added` those ids in
 * the order they were first seen, `found` the refusals so far. The walk owns its tables: resuming
 * it (`resumeChatHistory`) updates them for the new view.
 *
 * @example
 * const walk: ChatHistoryWalk = { messages: [], firstCall: new Map(), added: [], found: [], view: null }
 */
export interface ChatHistoryWalk {
  readonly messages: unknown[]
  readonly firstCall: Map<unknown, number>
  readonly added: Array<{ readonly id: unknown; readonly index: number }>
  readonly found: ViewRefusal[]
  /** The view last walked (`messages` are its items), null before the first: that view again, or one known to extend it, resumes without comparing items. */
  view: unknown
}

/**
 * An empty array whose elements are already of the kind an array of objects has: a `[]` starts as
 * an array of small integers and changes kind at its first object, and code the engine optimized
 * for the changed kind is thrown away when a fresh walk's array reaches it (each new reducer's
 * first request), which kept the walk unoptimized for most of a benchmark's runs
 * (docs/performance.md, "The 3 MB session").
 */
const emptyObjectArray = <T>(): T[] => {
  const array: Array<T | undefined> = [undefined]
  array.pop()
  return array as T[]
}

/** A walk of no message. */
const emptyChatWalk = (): ChatHistoryWalk => ({ messages: emptyObjectArray(), firstCall: new Map(), added: emptyObjectArray(), found: emptyObjectArray(), view: null })

/** How many leading entries `items` shares with `walked` (the same objects at the same places). */
const sharedLength = (walked: ReadonlyArray<unknown>, items: ReadonlyArray<unknown>): number => {
  const end = Math.min(walked.length, items.length)
  let shared = 0
  while (shared < end && items[shared] === walked[shared]) shared += 1
  return shared
}

/** The walk cut back to its first `length` messages: what the later ones added is taken out. */
const cutChatWalk = (walk: ChatHistoryWalk, length: number): void => {
  while (walk.added.length > 0 && walk.added[walk.added.length - 1].index >= length) walk.firstCall.delete(walk.added.pop()?.id)
  while (walk.found.length > 0 && walk.found[walk.found.length - 1].message >= length) walk.found.pop()
  walk.messages.length = length
}

/**
 * Chat (and the contract shape): results of calls never made, found in `view` by resuming `walk`
 * (a fresh walk when none is given) where `view` parts from the messages it walked; the walk then
 * describes `view`. A message's verdict depends only on the messages up to it, so the refusals are
 * those of a walk from the start, in the same order. Narrower than the R1 problems of
 * `selectPairingProblems` (./tool-pairing.ts): a result whose call was made earlier but not right
 * before it is R1 and not refused here (test/core/formats/input-rules.test.ts). `base`: a view
 * whose items are `view`'s leading items (the same objects; `StrippedView.prefix`): when it is the
 * view the walk last walked, or `view` is that view, the items it shares are not compared (else
 * an O(view) comparison on every request; docs/performance.md, "The 3 MB session").
 *
 * @example
 * resumeChatHistory([{ role: 'tool', tool_call_id: 'x', content: 'ok' }]).found[0].path // => '[0]'
 */
export const resumeChatHistory = (view: unknown, walk: ChatHistoryWalk = emptyChatWalk(), base?: unknown): ChatHistoryWalk => {
  const items = partsOf(view)
  // Known to extend the view walked: nothing to cut (the walk's messages are the view's leading items).
  const known = walk.view !== null && walk.view !== undefined && (view === walk.view || base === walk.view)
  if (!known) cutChatWalk(walk, sharedLength(walk.messages, items))
  // Indexed loops: the walk runs a few times per request, mostly before the engine optimizes it, where `for…of` costs an iterator.
  for (let m = walk.messages.length; m < items.length; m += 1) {
    const message = items[m]
    walk.messages.push(message)
    if (!isPlainObject(message)) continue
    const calls = message.tool_calls
    const count = Array.isArray(calls) ? calls.length : 0
    for (let c = 0; c < count; c += 1) {
      const call: unknown = (calls as ReadonlyArray<unknown>)[c]
      if (isPlainObject(call) && !walk.firstCall.has(call.id)) {
        walk.firstCall.set(call.id, m)
        walk.added.push({ id: call.id, index: m })
      }
    }
    if (message.role === 'tool' && !walk.firstCall.has(message.tool_call_id)) {
      walk.found.push({ message: m, block: null, path: `[${m}]`, detail: `tool message ${String(message.tool_call_id)} answers a call that never appeared`, fix: REPAIR_FIX })
    }
  }
  walk.view = view
  return walk
}

const findChatHistory = (view: unknown): ReadonlyArray<ViewRefusal> => resumeChatHistory(view).found

/**
 * The Responses check's walk over a view, kept as the chat one is (`ChatHistoryWalk`): `items` the
 * items walked, `calls` / `computerCalls` each `function_call`/`custom_tool_call` and each
 * `computer_call` id with the index of the first item that made it, `added` those ids in the order
 * first seen (`computer` for the second table), `found` the refusals so far with the index of the
 * item that decided each (`decided`: a reasoning item is decided by the item after it; the last
 * item's reasoning verdict is never stored, as the next view may append to it).
 *
 * @example
 * const walk: ResponsesHistoryWalk = { items: [], calls: new Map(), computerCalls: new Map(), added: [], found: [] }
 */
export interface ResponsesHistoryWalk {
  readonly items: unknown[]
  readonly calls: Map<unknown, number>
  readonly computerCalls: Map<unknown, number>
  readonly added: Array<{ readonly id: unknown; readonly index: number; readonly computer: boolean }>
  readonly found: Array<{ readonly refusal: ViewRefusal; readonly decided: number }>
}

/**
 * Both resumable `provider_rules` walks the derivation memo keeps (src/core/memo/derivation-memo.ts):
 * the chat check's (contract shape and openai-chat) and the Responses check's; and the Anthropic
 * format check's (`findAnthropicViolations`, the `context:view-invalid` rules of a converted
 * Anthropic view).
 *
 * @example
 * const walks: HistoryWalks = makeHistoryWalks()
 * walks.anthropic.messages.length // => 0
 */
export interface HistoryWalks {
  readonly chat: ChatHistoryWalk
  readonly responses: ResponsesHistoryWalk
  readonly anthropic: AnthropicCheckWalk
}

/**
 * Fresh, empty walks (one pair per reducer's memo).
 *
 * @example
 * makeHistoryWalks().responses.items.length // => 0
 */
export const makeHistoryWalks = (): HistoryWalks => ({ chat: emptyChatWalk(), responses: emptyResponsesWalk(), anthropic: makeAnthropicCheckWalk() })

const emptyResponsesWalk = (): ResponsesHistoryWalk => ({ items: [], calls: new Map(), computerCalls: new Map(), added: [], found: [] })

/** The Responses walk cut back to its first `length` items: what the later ones added or decided is taken out. */
const cutResponsesWalk = (walk: ResponsesHistoryWalk, length: number): void => {
  while (walk.added.length > 0 && walk.added[walk.added.length - 1].index >= length) {
    const last = walk.added.pop()
    ;(last?.computer === true ? walk.computerCalls : walk.calls).delete(last?.id)
  }
  while (walk.found.length > 0 && walk.found[walk.found.length - 1].decided >= length) walk.found.pop()
  walk.items.length = length
}

/** Whether the item after a reasoning item is one the API accepts as its following item. */
const followsReasoning = (next: Readonly<Record<string, unknown>>): boolean =>
  next.type !== 'reasoning' && !(next.type === undefined && next.role !== 'assistant') && !(next.type === 'message' && next.role !== 'assistant') && !String(next.type).endsWith('_output')

const reasoningRefusal = (item: Readonly<Record<string, unknown>>, i: number): ViewRefusal => ({
  message: i,
  block: null,
  path: `[${i}]`,
  detail: `reasoning item ${String(item.id)} has no output item after it (the API refuses it "without its required following item")`,
  fix: REPAIR_FIX,
})

/** A call id first seen at `index`, recorded in `table` and in the walk's order. */
const addCall = (walk: ResponsesHistoryWalk, table: Map<unknown, number>, id: unknown, index: number): void => {
  if (table.has(id)) return
  table.set(id, index)
  walk.added.push({ id, index, computer: table === walk.computerCalls })
}

/**
 * Responses: outputs of calls never made, reasoning items with nothing after them,
 * `computer_call_output` items with no call, found in `view` by resuming `walk` (a fresh walk when
 * none is given) where `view` parts from the items it walked, as `resumeChatHistory` does; the
 * walk then describes `view`. An item's verdict depends only on the items up to it (a reasoning
 * item's on the one after it too, so it is decided when that one is walked), so the refusals are
 * those of a walk from the start, in the same order.
 *
 * @example
 * resumeResponsesHistory([{ type: 'function_call_output', call_id: 'x', output: 'ok' }])[0].path // => '[0]'
 */
export const resumeResponsesHistory = (view: unknown, walk: ResponsesHistoryWalk = emptyResponsesWalk()): ReadonlyArray<ViewRefusal> => {
  const list = partsOf(view)
  cutResponsesWalk(walk, sharedLength(walk.items, list))
  for (let i = walk.items.length; i < list.length; i += 1) {
    const item = isPlainObject(list[i]) ? (list[i] as Readonly<Record<string, unknown>>) : {}
    const before = walk.items[i - 1]
    walk.items.push(list[i])
    const previous = isPlainObject(before) ? before : {}
    if (i > 0 && previous.type === 'reasoning' && !followsReasoning(item)) walk.found.push({ refusal: reasoningRefusal(previous, i - 1), decided: i })
    if (item.type === 'computer_call') addCall(walk, walk.computerCalls, item.call_id, i)
    if (item.type === 'function_call' || item.type === 'custom_tool_call') addCall(walk, walk.calls, item.call_id, i)
    if (item.type === 'computer_call_output' && !walk.computerCalls.has(item.call_id)) {
      walk.found.push({ refusal: { message: i, block: null, path: `[${i}]`, detail: `computer_call_output ${String(item.call_id)} has no computer_call before it`, fix: REPAIR_FIX }, decided: i })
    }
    // the API's "No tool call found for function call output with call_id ..."
    if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && !walk.calls.has(item.call_id)) {
      walk.found.push({ refusal: { message: i, block: null, path: `[${i}]`, detail: `${String(item.type)} ${String(item.call_id)} answers a call that never appeared`, fix: REPAIR_FIX }, decided: i })
    }
  }
  const found = walk.found.map((entry) => entry.refusal)
  const last = list.length > 0 && isPlainObject(list[list.length - 1]) ? (list[list.length - 1] as Readonly<Record<string, unknown>>) : {}
  if (last.type === 'reasoning') found.push(reasoningRefusal(last, list.length - 1))
  return found
}

const findResponsesHistory = (view: unknown): ReadonlyArray<ViewRefusal> => resumeResponsesHistory(view)

/** AI SDK: tool-result parts of calls never made. */
const findAiSdkHistory = (view: unknown): ReadonlyArray<ViewRefusal> => {
  const out: ViewRefusal[] = []
  const calls = new Set<unknown>()
  partsOf(view).forEach((message, m) => {
    if (!isPlainObject(message)) return
    partsOf(message.content).forEach((part, b) => {
      if (!isPlainObject(part)) return
      if (part.type === 'tool-call') calls.add(part.toolCallId)
      if (part.type === 'tool-result' && message.role === 'tool' && !calls.has(part.toolCallId)) {
        out.push({ message: m, block: b, path: `[${m}].content[${b}]`, detail: `tool-result ${String(part.toolCallId)} answers a tool-call that never appeared`, fix: REPAIR_FIX })
      }
    })
  })
  return out
}

const HISTORY_CHECKS: Readonly<Record<MessageFormat, (view: unknown) => ReadonlyArray<ViewRefusal>>> = {
  contract: findChatHistory,
  anthropic: findAnthropicHistory,
  'openai-chat': findChatHistory,
  'openai-responses': findResponsesHistory,
  'ai-sdk': findAiSdkHistory,
}

/**
 * What only the history shows a provider would refuse, found in the provider-ready `view` of
 * `format`: a result whose call never appeared (every format), an open `server_tool_use`
 * (Anthropic), a reasoning item with nothing after it and a `computer_call_output` with no call
 * (Responses). Paths are in the view. With `walks` (the derivation memo's), the chat check (the
 * contract shape and openai-chat) resumes `walks.chat` (`resumeChatHistory`) and the Responses
 * check `walks.responses` (`resumeResponsesHistory`), each updating its walk, instead of walking
 * the whole view; the refusals are the same. `base`: a view `view` extends, for the chat walk
 * (`resumeChatHistory`).
 *
 * @example
 * findHistoryRefusals('openai-chat', [{ role: 'tool', tool_call_id: 'x', content: 'ok' }])[0].path // '[0]'
 */
export const findHistoryRefusals = (format: MessageFormat, view: unknown, walks?: HistoryWalks, base?: unknown): ReadonlyArray<InputRefusal> => {
  const check = HISTORY_CHECKS[format]
  const found =
    walks === undefined ? check(view) : check === findChatHistory ? resumeChatHistory(view, walks.chat, base).found : check === findResponsesHistory ? resumeResponsesHistory(view, walks.responses) : check(view)
  return found.length === 0 ? NO_REFUSALS : found.map(({ path, detail, fix }) => ({ path, detail, fix }))
}

const NO_REFUSALS: ReadonlyArray<InputRefusal> = Object.freeze([])

/**
 * The view with every history problem left out (the block, or the message / item when it has no
 * block or nothing else), and how many were; the same view when there is none. A message left
 * with no content is left out too.
 *
 * @example
 * repairHistoryRefusals('openai-chat', [{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'x', content: 'ok' }]).view // [{ role: 'user', content: 'q' }]
 */
export const repairHistoryRefusals = <V>(format: MessageFormat, view: V): { readonly view: V; readonly repaired: number } => {
  const found = HISTORY_CHECKS[format](view)
  if (found.length === 0) return { view, repaired: 0 }
  const blocks = new Map<number, Set<number>>()
  const whole = new Set<number>()
  for (const problem of found) {
    if (problem.block === null) whole.add(problem.message)
    else {
      const set = blocks.get(problem.message) ?? new Set<number>()
      set.add(problem.block)
      blocks.set(problem.message, set)
    }
  }
  const repairList = (list: ReadonlyArray<unknown>): Array<unknown> => {
    const out: unknown[] = []
    list.forEach((message, m) => {
      if (whole.has(m)) return
      const drop = blocks.get(m)
      if (drop === undefined || !isPlainObject(message)) {
        out.push(message)
        return
      }
      const content = partsOf(message.content).filter((_, b) => !drop.has(b))
      if (content.length > 0 || isTruthy(message.tool_calls)) out.push({ ...message, content })
    })
    return out
  }
  if (isPlainObject(view) && Array.isArray(view.messages)) return { view: { ...view, messages: repairList(view.messages) } as V, repaired: found.length }
  return { view: repairList(view as ReadonlyArray<unknown>) as V, repaired: found.length }
}
