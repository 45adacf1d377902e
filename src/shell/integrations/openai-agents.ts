/**
 * OpenAI Agents SDK for JavaScript (`@openai/agents`) integration: a `callModelInputFilter` that
 * keeps a manager in the `openai-chat` format in step with the run's input items and hands the
 * model the manager's view, and a model-provider wrapper that feeds the usage of each model
 * response (not the run's running total) to the meter. Types are the library's own (structural),
 * so nothing here imports the SDK.
 */
import type { OpenAIAgentsUsage } from '../../core/meter/usage.js'
import type { Message } from '../../core/messages/message.js'
import { isChangedPiece, makeChatHistorySync, pieceText, requestPieces, requireChatFormat, type ChatFrameworkContext, type SyncEntry } from './chat-history-sync.js'

/**
 * One input item of the Agents SDK (`AgentInputItem`): a message (`role` user, system,
 * assistant), a `reasoning` item, a `function_call` (`callId`, `name`, `arguments`), a
 * `function_call_result` (`callId`, `output`), a hosted or computer call and its result, ...
 * Only `type`, `role`, `callId`, `name`, `content` and `output` are read; every other field is
 * carried through untouched.
 *
 * @example
 * const item: AgentsInputItem = { type: 'function_call_result', callId: 'call_1', name: 'read_file', status: 'completed', output: { type: 'text', text: '...' } }
 */
export interface AgentsInputItem {
  readonly type?: unknown
  readonly role?: unknown
  readonly callId?: unknown
  readonly name?: unknown
  readonly content?: unknown
  readonly output?: unknown
  readonly [key: string]: unknown
}

/**
 * What a `callModelInputFilter` receives and returns (`ModelInputData` of the SDK): the items of
 * the next model call and the agent's instructions (the system prompt).
 *
 * @example
 * const data: AgentsModelInputData = { input: [{ role: 'user', content: 'hi' }], instructions: 'Be brief.' }
 */
export interface AgentsModelInputData {
  readonly input: ReadonlyArray<AgentsInputItem>
  readonly instructions?: string | undefined
}

/**
 * What the filter and the provider wrapper need of a manager: a `ContextManager` created with
 * `{ format: 'openai-chat' }`; see `ChatFrameworkContext`.
 *
 * @example
 * const context: AgentsContext = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
 */
export type AgentsContext = ChatFrameworkContext

/**
 * Options of the filter: `tokenBudget` (tokens) for every view; null or absent: the manager's
 * budget rules (SPEC 4, `max_tokens`).
 *
 * @example
 * const options: AgentsContextOptions = { tokenBudget: 120_000 }
 */
export interface AgentsContextOptions {
  readonly tokenBudget?: number | null
}

/**
 * The filter: pass it as `callModelInputFilter` to `run()` or `new Runner({ ... })`. Generic over
 * the item type, so it is the SDK's `CallModelInputFilter` without a cast: the items it returns
 * are the ones it was given, or copies of them with new text.
 *
 * @example
 * const filter: AgentsCallModelInputFilter = makeContextCallModelInputFilter(new ContextManager({}, { format: 'openai-chat' }))
 */
export type AgentsCallModelInputFilter = <I extends object>(args: {
  readonly modelData: { readonly input: ReadonlyArray<I>; readonly instructions?: string | undefined }
}) => Promise<{ input: Array<I>; instructions?: string }>

/** The key of a manager message: which input items (their places in the filter's input) it stands for. */
const KEY = 'agents_items'
/** The key of the instructions (kept apart from the input by the SDK). */
const INSTRUCTIONS = -1

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A call the model made whose result comes back as an item with the same `callId`. */
const isCall = (item: AgentsInputItem): boolean => typeof item.callId === 'string' && typeof item.type === 'string' && item.type.endsWith('_call') && item.type !== 'hosted_tool_call'
/** A tool's answer to a call (`function_call_result`, `computer_call_result`, `shell_call_output`, ...). */
const isResult = (item: AgentsInputItem): boolean => typeof item.callId === 'string' && typeof item.type === 'string' && (item.type.endsWith('_result') || item.type.endsWith('_output'))
/** A message of the user, the system or the developer. */
const isPrompt = (item: AgentsInputItem): boolean => (item.type === undefined || item.type === 'message') && item.role !== 'assistant' && typeof item.role === 'string'

/** Content as Chat parts: `input_text` / `output_text` / `text` parts become text parts; other parts stay. */
const toChatContent = (content: unknown): unknown => {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : JSON.stringify(content ?? '')
  return content.map((part: unknown) => {
    if (isRecord(part) && (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') return { type: 'text', text: part.text }
    if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string') return { type: 'text', text: part.refusal }
    return JSON.parse(JSON.stringify(part)) as unknown
  })
}

/** The text of a tool result's `output` (a string, a `{type: 'text'}` output, or a list of content parts). */
const outputText = (output: unknown): unknown => {
  if (typeof output === 'string') return output
  if (isRecord(output) && output.type === 'text' && typeof output.text === 'string') return output.text
  if (Array.isArray(output)) return toChatContent(output)
  return JSON.stringify(output ?? '')
}

/** A model item's text for the estimate: message text, reasoning text and its provider data (encrypted content), a hosted call by its JSON. */
const modelItemText = (item: AgentsInputItem): string => {
  if (item.type === undefined || item.type === 'message') {
    const content = toChatContent(item.content)
    return typeof content === 'string' ? content : (content as ReadonlyArray<Record<string, unknown>>).map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('\n')
  }
  if (item.type === 'reasoning') {
    const { type: _type, id: _id, ...rest } = item
    return JSON.stringify(rest)
  }
  if (isCall(item)) return ''
  return JSON.stringify(item)
}

/**
 * An item without the keys a session does not keep as they were (the SDK strips the ids of calls
 * and results when it saves them, and rewrites `providerData`): the same item read back from a
 * session continues the history instead of replacing it.
 */
const withoutTransientKeys = (item: AgentsInputItem): Readonly<Record<string, unknown>> => {
  const { id: _id, providerData: _providerData, ...rest } = item
  return rest
}

/** One manager message and the places of the input items it stands for. */
interface Entry extends SyncEntry {
  readonly places: ReadonlyArray<number>
}

/**
 * The input as manager messages: a user/system message is one message, each tool result one
 * `tool` message (`tool_call_id` = `callId`), and each run of consecutive model items (reasoning,
 * assistant messages, calls) one assistant message whose `tool_calls` are its calls, so a
 * reasoning item, the calls after it and their results form one tool group (SPEC 17.3).
 */
const toEntries = (input: ReadonlyArray<AgentsInputItem>, instructions: string | undefined): Array<Entry> => {
  const entries: Array<Entry> = []
  const push = (managed: Record<string, unknown>, places: ReadonlyArray<number>): void => {
    managed.metadata = { [KEY]: places }
    entries.push({ managed, places, fingerprint: `${places.join(',')}\u0000${JSON.stringify(places.map((place) => (place === INSTRUCTIONS ? instructions : withoutTransientKeys(input[place]))))}` })
  }
  if (instructions !== undefined && instructions !== '') push({ role: 'system', content: instructions }, [INSTRUCTIONS])
  let index = 0
  while (index < input.length) {
    const item = input[index]
    if (isPrompt(item)) {
      push({ role: item.role === 'user' ? 'user' : 'system', content: toChatContent(item.content) }, [index])
      index += 1
    } else if (isResult(item)) {
      push({ role: 'tool', tool_call_id: item.callId, content: outputText(item.output), ...(typeof item.name === 'string' && item.name !== '' ? { name: item.name } : {}) }, [index])
      index += 1
    } else {
      const places: Array<number> = []
      const texts: Array<string> = []
      const calls: Array<Record<string, unknown>> = []
      while (index < input.length && !isPrompt(input[index]) && !isResult(input[index])) {
        const model = input[index]
        places.push(index)
        const text = modelItemText(model)
        if (text !== '') texts.push(text)
        if (isCall(model)) {
          const name = typeof model.name === 'string' ? model.name : String(model.type)
          const args = typeof model.arguments === 'string' ? model.arguments : JSON.stringify(model.arguments ?? model.action ?? {})
          calls.push({ id: model.callId, type: 'function', function: { name, arguments: args } })
        }
        index += 1
      }
      push({ role: 'assistant', content: texts.join('\n'), ...(calls.length > 0 ? { tool_calls: calls } : {}) }, places)
    }
  }
  return entries
}

/** The new text placed in an item's content: string content replaced, text parts replaced by one (where the first was), other parts kept. */
const replaceText = (content: unknown, text: string, textType: string): unknown => {
  if (!Array.isArray(content)) return isRecord(content) && content.type === 'text' ? { ...content, text } : text
  const isText = (part: unknown): boolean => isRecord(part) && (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text')
  const first = content.findIndex(isText)
  const others = (parts: ReadonlyArray<unknown>): Array<unknown> => parts.filter((part) => !isText(part))
  if (first < 0) return [{ type: textType, text }, ...content]
  return [...others(content.slice(0, first)), { type: textType, text }, ...others(content.slice(first + 1))]
}

/** A changed item (a truncated result, a stubbed user message): every field kept but the text. */
const rebuild = (item: AgentsInputItem, piece: Message): AgentsInputItem => {
  const text = pieceText(piece)
  if (isResult(item)) return { ...item, output: replaceText(item.output, text, 'input_text') }
  return { ...item, content: replaceText(item.content, text, 'input_text') }
}

/**
 * A `callModelInputFilter` for the OpenAI Agents SDK (`@openai/agents`, tested with 0.14.3, the
 * newest on `openai@6`). On every model call it brings the manager's history up to the run's
 * input (the instructions first, when there are any): the items beyond the ones already given are
 * appended; an input that does not continue the previous one (a new run, a session whose
 * history changed) replaces the history (`setMessages`, SPEC 2.4). It returns the view as input
 * items: an item the view keeps as it is is the item the SDK passed in (the same object), a
 * truncated tool result or stubbed user message is a copy with every field but the text kept,
 * and what the library adds (the compaction notice, a summary) is appended to the instructions,
 * not inserted as an item. That matters with a `Session`: this SDK version stores the filter's
 * items for the turn's own input and any item the filter inserts, so a notice inserted as an item
 * would be saved into the session history; in the instructions it never is (and the session's
 * generated items are stored as the model and tools produced them). The filter never receives
 * usage; pass the model provider through `makeContextModelProvider` to feed the meter.
 *
 * Throws `InvalidRequestError` (field `format`) when the manager's format is not `openai-chat`.
 *
 * @example
 * import { OpenAIProvider, Runner } from '@openai/agents'
 * const context = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
 * const runner = new Runner({ callModelInputFilter: makeContextCallModelInputFilter(context), modelProvider: makeContextModelProvider(context, new OpenAIProvider({ apiKey: 'sk-...' })) })
 * // what the filter does on each call: the view as the SDK's items, the instructions apart
 * const { input, instructions } = await makeContextCallModelInputFilter(context)({ modelData: { input: [{ role: 'user', content: 'hi' }], instructions: 'Be brief.' } })
 * input // => [{ role: 'user', content: 'hi' }]
 * instructions // => 'Be brief.'
 */
export const makeContextCallModelInputFilter = (context: AgentsContext, options: AgentsContextOptions = {}): AgentsCallModelInputFilter => {
  requireChatFormat(context, 'the Agents SDK filter')
  const sync = makeChatHistorySync(context)
  return async <I extends object>({ modelData }: { readonly modelData: { readonly input: ReadonlyArray<I>; readonly instructions?: string | undefined } }) => {
    const items = modelData.input
    const input = items as unknown as ReadonlyArray<AgentsInputItem>
    await sync(toEntries(input, modelData.instructions))
    const view = await requestPieces(context, options.tokenBudget)
    const out: Array<I> = []
    const added: Array<string> = []
    for (const piece of view) {
      const metadata = isRecord(piece.metadata) ? piece.metadata : {}
      const places = Array.isArray(metadata[KEY]) ? (metadata[KEY] as ReadonlyArray<number>) : null
      if (places === null) {
        added.push(pieceText(piece))
        continue
      }
      for (const place of places) {
        if (place === INSTRUCTIONS) continue
        out.push(isChangedPiece(piece) ? (rebuild(input[place], piece) as I) : items[place])
      }
    }
    const instructions = [modelData.instructions ?? '', ...added].filter((text) => text !== '').join('\n\n')
    return { input: out, ...(instructions === '' && modelData.instructions === undefined ? {} : { instructions }) }
  }
}

/**
 * A model of the Agents SDK (`Model`) as the wrapper uses it: `getResponse` resolves a response
 * with its `usage`; `getStreamedResponse` yields stream events, the last `response_done` carrying
 * the response's `usage`.
 *
 * @example
 * import { OpenAIProvider } from '@openai/agents'
 * const model: AgentsModel = await new OpenAIProvider({ apiKey: 'sk-...' }).getModel('gpt-5')
 */
export interface AgentsModel {
  getResponse(request: never): Promise<{ readonly usage?: unknown }>
  getStreamedResponse(request: never): AsyncIterable<unknown>
}

/**
 * A model provider of the Agents SDK (`ModelProvider`): `getModel(name?)`.
 *
 * @example
 * import { OpenAIProvider } from '@openai/agents'
 * const provider: AgentsModelProvider = new OpenAIProvider({ apiKey: 'sk-...' })
 */
export interface AgentsModelProvider {
  getModel(modelName?: string): Promise<AgentsModel> | AgentsModel
}

/** A plain copy of the SDK's `Usage` (a class instance): the fields the meter reads. */
const plainUsage = (usage: unknown): OpenAIAgentsUsage | null => {
  if (!isRecord(usage) || typeof usage.inputTokens !== 'number') return null
  return JSON.parse(JSON.stringify(usage)) as OpenAIAgentsUsage
}

/**
 * Wraps a model provider of the Agents SDK so that the usage of every model response goes to the
 * manager (`onLlmResponse`, marked `foreground`) as it arrives: `ModelResponse.usage` of
 * `getResponse`, or the `usage` of the `response_done` event of a stream. That is the usage of
 * one response (`requests: 1`), never the run's running total (`result.state.usage`, which
 * `onLlmResponse` would also read per request: SPEC 17.10 takes its last `requestUsageEntries`
 * entry). Every other call goes through unchanged.
 *
 * @example
 * import { OpenAIProvider } from '@openai/agents'
 * const context = new ContextManager({}, { format: 'openai-chat' })
 * const provider = makeContextModelProvider(context, new OpenAIProvider({ apiKey: 'sk-...' }))
 * typeof (await provider.getModel('gpt-5')).getResponse // => 'function'
 */
export const makeContextModelProvider = <P extends AgentsModelProvider>(context: Pick<ChatFrameworkContext, 'onLlmResponse' | 'format'>, provider: P): P => {
  requireChatFormat(context, 'the Agents SDK model provider')
  const feed = async (usage: unknown): Promise<void> => {
    const plain = plainUsage(usage)
    if (plain !== null) await context.onLlmResponse({ usage: plain, foreground: true })
  }
  const wrap = (model: AgentsModel): AgentsModel =>
    new Proxy(model, {
      get(target, property, receiver) {
        if (property === 'getResponse') {
          return async (request: never) => {
            const response = await target.getResponse(request)
            await feed(response.usage)
            return response
          }
        }
        if (property === 'getStreamedResponse') {
          return async function* (request: never) {
            for await (const event of target.getStreamedResponse(request)) {
              if (isRecord(event) && event.type === 'response_done' && isRecord(event.response)) await feed(event.response.usage)
              yield event
            }
          }
        }
        const value: unknown = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? (value as (...args: Array<unknown>) => unknown).bind(target) : value
      },
    })
  return new Proxy(provider, {
    get(target, property, receiver) {
      if (property === 'getModel') {
        return async (modelName?: string) => wrap(await target.getModel(modelName))
      }
      const value: unknown = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? (value as (...args: Array<unknown>) => unknown).bind(target) : value
    },
  })
}
