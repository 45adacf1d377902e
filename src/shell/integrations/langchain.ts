/**
 * LangChain.js v1 integration: an agent middleware for `createAgent` (package `langchain`) whose
 * `wrapModelCall` keeps a manager in the `openai-chat` format in step with the agent's messages,
 * hands the model the manager's view for that one call, and feeds each answer's `usage_metadata`
 * to the meter. The agent's state is never rewritten: the view goes into the request given to the
 * next handler only, and the answer goes back to the agent as the model gave it.
 *
 * Nothing here imports `langchain` or `@langchain/core` at load time: the types are the library's
 * own (structural), the middleware object carries the brand `createMiddleware` sets
 * (`Symbol.for('AgentMiddleware')`), a changed message is rebuilt with its own class, and only a
 * message the library adds (the compaction notice, a summary) needs `HumanMessage`: the class of a
 * human message of the agent's list, else `@langchain/core/messages` (an optional peer dependency)
 * imported the first time one is needed, by a specifier no bundler resolves.
 */
import type { Message } from '../../core/messages/message.js'
import { isChangedPiece, makeChatHistorySync, pieceText, requestPieces, requireChatFormat, type ChatFrameworkContext, type SyncEntry } from './chat-history-sync.js'

/**
 * A LangChain message as the middleware reads it (`BaseMessage` of `@langchain/core` v1:
 * `HumanMessage`, `AIMessage`, `SystemMessage`, `ToolMessage`, `ChatMessage`), structurally.
 * `type` is the message type (`human`, `ai`, `system`, `tool`, `generic`, `function`); content is
 * a string or an array of content blocks (text, images, reasoning, provider blocks).
 *
 * @example
 * const message: LangChainMessage = { type: 'human', id: 'm1', content: 'Where is the tokenizer built?' }
 */
export interface LangChainMessage {
  readonly type?: string
  readonly id?: string | undefined
  readonly content: unknown
  readonly name?: string | undefined
  readonly additional_kwargs?: unknown
  readonly response_metadata?: unknown
  readonly tool_calls?: ReadonlyArray<{ readonly id?: string | undefined; readonly name: string; readonly args: unknown }> | undefined
  readonly tool_call_id?: string
  readonly role?: string
  readonly usage_metadata?: LangChainUsageMetadata | undefined
  readonly _getType?: () => string
}

/**
 * LangChain's `UsageMetadata` (on an `AIMessage`, `usage_metadata`): `input_tokens` includes the
 * cache reads and writes detailed in `input_token_details` (`cache_read`, `cache_creation`).
 * Tokens, as the chat model's provider reported them.
 *
 * @example
 * const usage: LangChainUsageMetadata = { input_tokens: 9_304, output_tokens: 50, total_tokens: 9_354, input_token_details: { cache_read: 9_000, cache_creation: 300 } }
 */
export interface LangChainUsageMetadata {
  readonly input_tokens: number
  readonly output_tokens?: number | undefined
  readonly total_tokens?: number | undefined
  readonly input_token_details?: { readonly cache_read?: number | undefined; readonly cache_creation?: number | undefined; readonly [key: string]: unknown } | undefined
  readonly output_token_details?: unknown
}

/**
 * The part of LangChain's `ModelRequest` (the first argument of `wrapModelCall`) the middleware
 * reads: the agent's messages and the system message of this call. Every other field is passed on
 * to the handler unchanged.
 *
 * @example
 * const request: LangChainModelRequest = { messages: [{ type: 'human', id: 'm1', content: 'hi' }] }
 */
export interface LangChainModelRequest {
  readonly messages: ReadonlyArray<LangChainMessage>
  readonly systemMessage?: LangChainMessage | undefined
  readonly systemPrompt?: string | undefined
}

/**
 * What the middleware needs of a manager: a `ContextManager` created with
 * `{ format: 'openai-chat' }` (LangChain's message types are the Chat roles one to one); see
 * `ChatFrameworkContext`.
 *
 * @example
 * const context: LangChainContext = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
 */
export type LangChainContext = ChatFrameworkContext

/**
 * Options of the middleware: `tokenBudget` (tokens) for every view, null or absent: the manager's
 * budget rules (SPEC 4, `max_tokens`); `name`, the middleware's name in the agent (default
 * `ContextSimpleMiddleware`; LangChain requires names to be unique within one agent).
 *
 * @example
 * const options: LangChainContextOptions = { tokenBudget: 120_000 }
 */
export interface LangChainContextOptions {
  readonly tokenBudget?: number | null
  readonly name?: string
}

/**
 * The middleware object (`AgentMiddleware` of `langchain` v1, as `createMiddleware` builds it):
 * a name and a `wrapModelCall` hook. Pass it in `createAgent({ middleware: [...] })`.
 *
 * @example
 * const middleware: LangChainContextMiddleware = makeContextLangChainMiddleware(new ContextManager({}, { format: 'openai-chat' }))
 * middleware.name // => 'ContextSimpleMiddleware'
 */
export interface LangChainContextMiddleware {
  readonly name: string
  readonly wrapModelCall: <R extends LangChainModelRequest, A>(request: R, handler: (request: R) => A | Promise<A>) => Promise<A>
}

/** The key of a manager message in its metadata: which framework message it stands for. */
const KEY = 'langchain_id'
/** The key of the system message of the call (LangChain keeps it apart from the state's messages). */
const SYSTEM_KEY = 'langchain:system-prompt'

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The message type of a LangChain message (`human`, `ai`, ...): `type` in v1, `_getType()` before. */
const typeOf = (message: LangChainMessage): string => (typeof message.type === 'string' ? message.type : typeof message._getType === 'function' ? message._getType() : 'human')

/** The Chat role of a LangChain message type (`generic` messages carry their own role). */
const roleOf = (message: LangChainMessage): string => {
  switch (typeOf(message)) {
    case 'ai':
      return 'assistant'
    case 'system':
    case 'developer':
      return 'system'
    case 'tool':
      return 'tool'
    case 'function':
      return 'function'
    case 'generic':
      return ['user', 'assistant', 'system', 'tool'].includes(String(message.role)) ? String(message.role) : 'user'
    default:
      return 'user'
  }
}

/** A JSON copy of a value (content blocks are plain data; anything else becomes its JSON form). */
const jsonCopy = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)))

/**
 * An assistant message's content as Chat text parts for the estimate: text, reasoning and thinking
 * (with its signature) and any other provider block counted by its JSON; `tool_use` blocks the
 * message's `tool_calls` already carry are left out. The model never receives this form.
 */
const assistantParts = (message: LangChainMessage): string | Array<{ type: 'text'; text: string }> => {
  const content = message.content
  const extra: Array<{ type: 'text'; text: string }> = []
  const kwargs = isRecord(message.additional_kwargs) ? message.additional_kwargs : {}
  if (typeof kwargs.reasoning_content === 'string' && kwargs.reasoning_content !== '') extra.push({ type: 'text', text: kwargs.reasoning_content })
  if (kwargs.reasoning !== undefined) extra.push({ type: 'text', text: JSON.stringify(kwargs.reasoning) })
  if (typeof content === 'string') return extra.length === 0 ? content : [...extra, ...(content === '' ? [] : [{ type: 'text' as const, text: content }])]
  if (!Array.isArray(content)) return extra.length === 0 ? '' : extra
  const callIds = new Set((message.tool_calls ?? []).map((call) => call.id))
  const parts = [...extra]
  for (const block of content as ReadonlyArray<unknown>) {
    if (typeof block === 'string') parts.push({ type: 'text', text: block })
    else if (!isRecord(block)) continue
    else if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'reasoning' && typeof block.reasoning === 'string') parts.push({ type: 'text', text: block.reasoning })
    else if (block.type === 'thinking' && typeof block.thinking === 'string') parts.push({ type: 'text', text: `${block.thinking}${typeof block.signature === 'string' ? block.signature : ''}` })
    else if ((block.type === 'tool_use' || block.type === 'tool_call') && callIds.has(block.id as string | undefined)) continue
    else parts.push({ type: 'text', text: JSON.stringify(block) })
  }
  return parts
}

/**
 * The manager's form of a LangChain message: a Chat message (`role`, `content`, `tool_calls` with
 * JSON `arguments`, `tool_call_id`, `name`) keyed by `metadata.langchain_id`. User, system and tool
 * content is kept as given (text blocks are what truncation and stubs act on; images and other
 * blocks stay); assistant content is its estimate form (`assistantParts`).
 */
const toManagerMessage = (message: LangChainMessage, key: string): Record<string, unknown> => {
  const role = roleOf(message)
  const base: Record<string, unknown> = { role }
  if (role === 'assistant') {
    base.content = assistantParts(message)
    const calls = message.tool_calls ?? []
    if (calls.length > 0) base.tool_calls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } }))
  } else {
    base.content = typeof message.content === 'string' ? message.content : jsonCopy(message.content)
  }
  if (role === 'tool') base.tool_call_id = message.tool_call_id
  if ((role === 'tool' || role === 'function') && typeof message.name === 'string' && message.name !== '') base.name = message.name
  base.metadata = { [KEY]: key }
  return base
}

/**
 * A changed message (a truncated tool result, a stubbed user turn) rebuilt with its own class:
 * every field kept (`id`, `name`, `tool_call_id`, `status`, `artifact`, `additional_kwargs`,
 * `response_metadata`, `metadata`), string content replaced by the new text, array content with
 * its text blocks replaced by one text block holding it (where the first one was; images and
 * other blocks kept).
 */
const rebuild = (original: LangChainMessage, text: string): LangChainMessage => {
  let content: unknown = text
  if (Array.isArray(original.content)) {
    const blocks = original.content as ReadonlyArray<unknown>
    const isText = (block: unknown): boolean => typeof block === 'string' || (isRecord(block) && block.type === 'text')
    const first = blocks.findIndex(isText)
    const kept = blocks.filter((block) => !isText(block))
    content = first < 0 ? [{ type: 'text', text }, ...kept] : [...blocks.slice(0, first).filter((block) => !isText(block)), { type: 'text', text }, ...blocks.slice(first + 1).filter((block) => !isText(block))]
  }
  const fields: Record<string, unknown> = {}
  for (const key of ['id', 'name', 'tool_call_id', 'status', 'artifact', 'additional_kwargs', 'response_metadata', 'metadata', 'tool_calls', 'invalid_tool_calls', 'usage_metadata'] as const) {
    const value = (original as unknown as Record<string, unknown>)[key]
    if (value !== undefined) fields[key] = value
  }
  const Constructor = (original as unknown as { readonly constructor: new (fields: Record<string, unknown>) => LangChainMessage }).constructor
  if ((Constructor as unknown) === Object) return { ...original, content } as LangChainMessage
  return new Constructor({ ...fields, content })
}

type HumanMessageClass = new (fields: { content: string }) => LangChainMessage
let humanMessageClass: Promise<HumanMessageClass> | null = null

/**
 * The optional peer's module, named through a variable so that bundlers of the main entry leave
 * it alone: a browser bundle of `context-simple` without `@langchain/core` installed still builds
 * (docs/runtimes.md; test/runtime/main-entry.test.ts).
 */
const LANGCHAIN_MESSAGES: string = '@langchain/core/messages'

/**
 * The class of a message the library adds: the class of a human message of the agent's own list
 * (the `HumanMessage` of the caller's `@langchain/core`, so no second copy is loaded), else
 * `HumanMessage` of `@langchain/core/messages` (an optional peer) imported once.
 */
const loadHumanMessage = (messages: ReadonlyArray<LangChainMessage>): Promise<HumanMessageClass> => {
  const human = messages.find((message) => typeOf(message) === 'human' && (message as unknown as { readonly constructor: unknown }).constructor !== Object)
  if (human !== undefined) return Promise.resolve((human as unknown as { readonly constructor: HumanMessageClass }).constructor)
  humanMessageClass ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ LANGCHAIN_MESSAGES) as Promise<{ readonly HumanMessage: unknown }>).then((module) => module.HumanMessage as HumanMessageClass)
  return humanMessageClass
}

/**
 * A `wrapModelCall` middleware for LangChain.js v1 agents (`createAgent` of `langchain`). Before
 * each model call it brings the manager's history up to the agent's messages (the system message
 * of the call first, when it has text): messages beyond the ones already given are appended; a
 * list that does not continue the previous one (a `RemoveMessage` took one out, a message was
 * replaced under its id) replaces the history (`setMessages`, SPEC 2.4, which resets the meter and
 * compaction state), so messages the agent removed leave the manager too. It then asks for the
 * view and calls the next handler with `messages` (and the system message) taken from it: a
 * message the view keeps as it is is the agent's own object (`id`, `additional_kwargs`,
 * `response_metadata`, content blocks, images, reasoning, `tool_calls` untouched); a truncated
 * `ToolMessage` or a stubbed `HumanMessage` is a new object of the same class with every field
 * but the text kept; the compaction notice (and a summary) is a new `HumanMessage`. After the call
 * the answer's `usage_metadata` (cache reads and writes in `input_token_details`) goes to the
 * meter (`onLlmResponse`, marked `foreground`), and the answer is returned as the model gave it:
 * the agent's state is never rewritten.
 *
 * Throws `InvalidRequestError` (field `format`) when the manager's format is not `openai-chat`;
 * rejects with `InvalidMessageError` (from the manager, naming the field) for a message the Chat
 * shape cannot hold (a tool call without an id).
 *
 * @example
 * import { FakeToolCallingModel, createAgent } from 'langchain'
 * const context = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
 * const agent = createAgent({ model: new FakeToolCallingModel(), systemPrompt: 'You are a careful coding agent.', middleware: [makeContextLangChainMiddleware(context)] })
 * const result = await agent.invoke({ messages: [{ role: 'user', content: 'Where is the tokenizer built?' }] })
 * result.messages.length // => 2
 * (await context.getMessages()).length // => 2
 */
export const makeContextLangChainMiddleware = (context: LangChainContext, options: LangChainContextOptions = {}): LangChainContextMiddleware => {
  requireChatFormat(context, 'the LangChain middleware')
  const sync = makeChatHistorySync(context)
  // The agent resends its whole list before every call: each message object is converted once
  // (per key), not once per call.
  const described = new WeakMap<object, { readonly key: string; readonly entry: SyncEntry }>()

  /** The message's manager form under `key` (its id, or its place when it has none) and its fingerprint. */
  const describe = (message: LangChainMessage, key: string): SyncEntry => {
    const cached = described.get(message)
    if (cached !== undefined && cached.key === key) return cached.entry
    const managed = toManagerMessage(message, key)
    const entry = { managed, fingerprint: `${key}\u0000${JSON.stringify(managed)}` }
    described.set(message, { key, entry })
    return entry
  }

  return {
    name: options.name ?? 'ContextSimpleMiddleware',
    [Symbol.for('AgentMiddleware')]: true,
    async wrapModelCall(request, handler) {
      const system = request.systemMessage
      const systemText = system === undefined ? (request.systemPrompt ?? '') : system.content
      const hasSystem = systemText !== '' && !(Array.isArray(systemText) && systemText.length === 0)
      const byKey = new Map<string, LangChainMessage>()
      const entries: Array<SyncEntry> = []
      if (hasSystem) {
        const systemMessage: LangChainMessage = system ?? { type: 'system', content: systemText }
        entries.push(describe(systemMessage, SYSTEM_KEY))
        byKey.set(SYSTEM_KEY, systemMessage)
      }
      request.messages.forEach((message, index) => {
        const key = typeof message.id === 'string' && message.id !== '' ? `id:${message.id}` : `at:${index}`
        entries.push(describe(message, key))
        byKey.set(key, message)
      })
      await sync(entries)
      const view = await requestPieces(context, options.tokenBudget)
      const messages: Array<LangChainMessage> = []
      for (const piece of view) {
        const metadata = isRecord(piece.metadata) ? piece.metadata : {}
        const key = typeof metadata[KEY] === 'string' ? metadata[KEY] : undefined
        const original = key === undefined ? undefined : byKey.get(key)
        if (key === SYSTEM_KEY) continue // the call's system message stays where LangChain keeps it
        if (original !== undefined) messages.push(isChangedPiece(piece) ? rebuild(original, pieceText(piece)) : original)
        else {
          const HumanMessage = await loadHumanMessage(request.messages)
          messages.push(new HumanMessage({ content: pieceText(piece) }))
        }
      }
      const answer = await handler({ ...request, messages })
      const usage = isRecord(answer) ? (answer as { readonly usage_metadata?: unknown }).usage_metadata : undefined
      if (isRecord(usage)) await context.onLlmResponse({ usage: usage as unknown as LangChainUsageMetadata, foreground: true })
      return answer
    },
  } as LangChainContextMiddleware
}
