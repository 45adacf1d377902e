/**
 * AI SDK (`ai@6`) integration: a `prepareStep` helper for `generateText` / `streamText` and a
 * language-model middleware for `wrapLanguageModel`. Both keep a manager in the `ai-sdk` format in
 * step with the conversation the SDK holds, hand the model the manager's view, and feed the
 * provider's usage back. Types are the library's own (structural), so nothing here imports `ai`.
 */
import type { AiSdkModelMessage } from '../../core/formats/ai-sdk-model-message.js'
import { toAiSdkPrompt, type AiSdkPrompt } from '../../core/formats/ai-sdk.js'
import type { LlmResponsePayload } from '../../core/meter/usage.js'
import type { MessageInput } from '../../core/messages/message.js'
import { joinTexts, withStrippedText } from '../../core/formats/carrier.js'
import { stripJsonWhitespace } from '../../core/tool-results/json-whitespace.js'

/**
 * What the helpers need of a manager: a `ContextManager` created with `{ format: 'ai-sdk' }`
 * (any object with these methods works).
 *
 * @example
 * const context: AiSdkContext = new ContextManager({ token_meter: 'hybrid' }, { format: 'ai-sdk' })
 */
export interface AiSdkContext {
  getMessages(): Promise<ReadonlyArray<unknown>>
  addMessage(message: MessageInput): Promise<void>
  setMessages(messages: ReadonlyArray<MessageInput>): Promise<void>
  getMessagesForRequest(options: { readonly tokenBudget?: number | null; readonly format: 'ai-sdk' }): Promise<unknown>
  onLlmResponse(data: LlmResponsePayload): Promise<unknown>
}

/**
 * Options of both helpers: `tokenBudget` (tokens) for every view; null or absent: the manager's
 * budget rules (SPEC 4, `max_tokens`).
 *
 * @example
 * const options: AiSdkContextOptions = { tokenBudget: 120_000 }
 */
export interface AiSdkContextOptions {
  readonly tokenBudget?: number | null
}

/** A tool-result output as the manager stores it under `tool_result_json_whitespace: "strip"` (text outputs and content text without JSON whitespace), or `output` itself. */
const toStoredOutput = (output: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  if ((output.type === 'text' || output.type === 'error-text') && typeof output.value === 'string') {
    const stripped = stripJsonWhitespace(output.value)
    return stripped === null ? output : { ...output, value: stripped }
  }
  if (output.type !== 'content' || !Array.isArray(output.value)) return output
  const stripped = stripJsonWhitespace(joinTexts(output.value, ['text']))
  return stripped === null ? output : { ...output, value: withStrippedText(output.value, stripped, ['text']) }
}

/**
 * The fingerprint the history sync compares: the message's JSON, each tool-result output in the
 * form the manager stores under `tool_result_json_whitespace: "strip"` (`toStoredOutput`), so
 * the SDK's own spelling of a result and the stored one (`getMessages()` of a manager that
 * strips, read when a new helper starts) match; under `"keep"` both sides go through the same
 * mapping, and two results that differ only in JSON whitespace are one value.
 */
const fingerprintOf = (message: unknown): string =>
  JSON.stringify(message, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'tool-result' && typeof (value as { output?: unknown }).output === 'object' && (value as { output?: unknown }).output !== null
      ? { ...value, output: toStoredOutput((value as { output: Readonly<Record<string, unknown>> }).output) }
      : value,
  )

/**
 * Keeps the manager's history equal to the SDK's message list. The SDK resends the whole
 * conversation each step and each call, so messages beyond the ones already given are appended;
 * a list that does not continue the previous one (a new conversation, an edited message) replaces
 * the history (`setMessages`). The first time, the manager's own history (a restored session, say)
 * counts as given. `extend` appends a finished step's response messages (`step.response.messages`,
 * cumulative over the call) beyond the first `known` of them, which are already given.
 */
const makeHistorySync = (context: AiSdkContext) => {
  let given: Array<string> | null = null
  // Indexes of answers the helper added before the SDK sent them back (`answer`): there the SDK's
  // next list may hold the same answer in its own spelling (provider metadata, key order).
  let answered = new Set<number>()
  const matches = (fingerprints: ReadonlyArray<string>, messages: ReadonlyArray<unknown>) => (fingerprint: string, index: number): boolean =>
    fingerprints[index] === fingerprint || (answered.has(index) && isAssistantMessage(messages[index]))
  const sync = async (messages: ReadonlyArray<unknown>): Promise<void> => {
    if (given === null) given = (await context.getMessages()).map(fingerprintOf)
    const fingerprints = messages.map(fingerprintOf)
    const continues = fingerprints.length >= given.length && given.every(matches(fingerprints, messages))
    if (!continues) {
      await context.setMessages(messages as ReadonlyArray<MessageInput>)
    } else {
      for (const message of messages.slice(given.length)) await context.addMessage(message as MessageInput)
    }
    given = fingerprints
    answered = new Set()
  }
  /** Appends the model's answer of a call now, before the SDK sends it back with the next call. */
  const answer = async (message: PromptMessage): Promise<void> => {
    if (given === null) given = (await context.getMessages()).map(fingerprintOf)
    await context.addMessage(message as MessageInput)
    answered.add(given.length)
    given = [...given, fingerprintOf(message)]
  }
  const extend = async (responses: ReadonlyArray<unknown>, known: number): Promise<void> => {
    if (given === null) return
    const fingerprints = responses.map(fingerprintOf)
    for (const message of responses.slice(known)) await context.addMessage(message as MessageInput)
    given = [...given, ...fingerprints.slice(known)]
  }
  const last = (): string | undefined => given?.[given.length - 1]
  return { sync, extend, last, answer }
}

const isAssistantMessage = (message: unknown): boolean => typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'assistant'

/**
 * The argument of `prepareStep` as the helper reads it (AI SDK v6): the step number, the finished
 * steps (their `usage`), and the messages the SDK would send.
 *
 * @example
 * const options: PrepareStepOptions = { stepNumber: 0, steps: [], messages: [{ role: 'user', content: 'hi' }] }
 */
export interface PrepareStepOptions {
  readonly stepNumber: number
  readonly steps: ReadonlyArray<{ readonly usage: LlmResponsePayload['usage'] }>
  readonly messages: ReadonlyArray<unknown>
}

/**
 * The argument of `onStepFinish` as the helper reads it (AI SDK v6 `StepResult`): the step's
 * `usage` and `response.messages` (the response messages of the call so far, this step's last).
 *
 * @example
 * const step: StepFinishOptions = { usage: { inputTokens: 900, outputTokens: 20 }, response: { messages: [{ role: 'assistant', content: 'Done.' }] } }
 */
export interface StepFinishOptions {
  readonly usage: LlmResponsePayload['usage']
  readonly response: { readonly messages: ReadonlyArray<unknown> }
}

/**
 * What `prepareStep` returns: the manager's view without its system messages as `messages`, and
 * those system messages, in order, as `system` (absent when the view has none, so the call's own
 * `system` stays). The SDK warns about system messages in `messages` ("System messages in the
 * prompt ... Use the system option instead"), and providers such as Anthropic take the system
 * prompt apart from the messages.
 *
 * @example
 * const result: ContextStep = { system: [{ role: 'system', content: 'Be terse.' }], messages: [{ role: 'user', content: 'hi' }] }
 */
export type ContextStep = AiSdkPrompt<AiSdkModelMessage>

/**
 * The two callbacks of `makeContextSettings`, to spread into `generateText` / `streamText`.
 *
 * @example
 * const context = new ContextManager({}, { format: 'ai-sdk' })
 * const settings: ContextSettings = makeContextSettings(context)
 */
export interface ContextSettings {
  prepareStep(step: PrepareStepOptions): Promise<ContextStep>
  onStepFinish(step: StepFinishOptions): Promise<void>
}

/**
 * `prepareStep` and `onStepFinish` for `generateText` / `streamText` (AI SDK v6), sharing one
 * state: `generateText({ model, messages, tools, ...makeContextSettings(context) })`.
 * - `prepareStep`, before each step: brings the manager's history up to the messages the SDK
 *   would send (a new user turn, or a new conversation, which replaces the history) and returns
 *   the view as `{ system, messages }` (`ContextStep`). In ai@6 these apply to that step only, so
 *   the SDK keeps the full conversation and the model sees the manager's view every step.
 * - `onStepFinish`, after each step: feeds the step's usage to the manager (`onLlmResponse`) and
 *   appends the step's response messages (the model's message and the tool results), so the
 *   model's final answer of a turn is in the manager's history when `generateText` returns (a
 *   `snapshot()` then holds the whole turn).
 * With your own `onStepFinish`, call the helper's from it. `options.tokenBudget` (tokens) applies
 * to every view; absent: the manager's budget rules.
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai'
 * import { MockLanguageModelV3 } from 'ai/test'
 * // any ai@6 model; this one answers 'Done.' with the provider's usage
 * const model = new MockLanguageModelV3({
 *   doGenerate: async () => ({
 *     content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, warnings: [],
 *     usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: undefined } },
 *   }),
 * })
 * const context = new ContextManager({ token_meter: 'hybrid' }, { format: 'ai-sdk' })
 * const result = await generateText({ model, messages: [{ role: 'user', content: 'hi' }], stopWhen: stepCountIs(10), ...makeContextSettings(context) })
 * result.text // => 'Done.'
 * const history = await context.getMessages()
 * history.length // => 2
 */
export const makeContextSettings = (context: AiSdkContext, options: AiSdkContextOptions = {}): ContextSettings => {
  const history = makeHistorySync(context)
  const fed = new WeakSet<object>()
  // How many of the call's response messages the history holds (null at step 0 until known).
  let responsesGiven: number | null = null
  const feed = async (step: { readonly usage: LlmResponsePayload['usage'] }): Promise<void> => {
    if (fed.has(step)) return
    fed.add(step)
    await context.onLlmResponse({ usage: step.usage })
  }
  return {
    async prepareStep(step) {
      if (step.stepNumber === 0) responsesGiven = null
      for (const finished of step.steps) await feed(finished)
      await history.sync(step.messages)
      const view = (await context.getMessagesForRequest({ tokenBudget: options.tokenBudget ?? null, format: 'ai-sdk' })) as ReadonlyArray<AiSdkModelMessage>
      return toAiSdkPrompt(view)
    },
    async onStepFinish(step) {
      await feed(step)
      const responses = step.response.messages
      // At step 0 the SDK may have put one tool message (results of approved calls) before the
      // step: it is the last message prepareStep gave, and the first response message.
      const known = responsesGiven ?? (responses.length > 0 && history.last() === fingerprintOf(responses[0]) && isToolMessage(responses[0]) ? 1 : 0)
      await history.extend(responses, Math.min(known, responses.length))
      responsesGiven = responses.length
    },
  }
}

const isToolMessage = (message: unknown): boolean => typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'tool'

/**
 * A `prepareStep` function for `generateText` / `streamText` (AI SDK v6): the `prepareStep` of
 * `makeContextSettings` alone. It feeds the previous steps' usage when the next step starts and
 * appends the messages the SDK added since, so without `onStepFinish` the model's final answer
 * of a turn reaches the history only with the next call; prefer `...makeContextSettings(context)`.
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai'
 * import { MockLanguageModelV3 } from 'ai/test'
 * // any ai@6 model; this one answers 'Done.' with the provider's usage
 * const model = new MockLanguageModelV3({
 *   doGenerate: async () => ({
 *     content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, warnings: [],
 *     usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: undefined } },
 *   }),
 * })
 * const context = new ContextManager({ token_meter: 'hybrid' }, { format: 'ai-sdk' })
 * const result = await generateText({ model, messages: [{ role: 'user', content: 'hi' }], stopWhen: stepCountIs(10), prepareStep: makeContextPrepareStep(context) })
 * result.text // => 'Done.'
 */
export const makeContextPrepareStep = (context: AiSdkContext, options: AiSdkContextOptions = {}): ((step: PrepareStepOptions) => Promise<ContextStep>) =>
  makeContextSettings(context, options).prepareStep

/**
 * One message of a language-model prompt (`LanguageModelV3Prompt`): the `ModelMessage` shapes
 * with content always an array (system content a string).
 *
 * @example
 * const message: PromptMessage = { role: 'user', content: [{ type: 'text', text: 'hi' }] }
 */
export interface PromptMessage {
  readonly role: string
  readonly content: unknown
  readonly providerOptions?: unknown
}

/** A view message as a prompt message: string content becomes one text part (system stays a string). */
const toPromptMessage = (message: AiSdkModelMessage): PromptMessage =>
  message.role !== 'system' && typeof message.content === 'string' ? { ...message, content: [{ type: 'text', text: message.content }] } : message

/**
 * The language-model middleware the helper returns (`LanguageModelV3Middleware` in the SDK's
 * terms): `transformParams` swaps the prompt for the manager's view, `wrapGenerate` and
 * `wrapStream` feed the provider's usage (`LanguageModelV3Usage`) to the manager.
 *
 * @example
 * const context = new ContextManager({}, { format: 'ai-sdk' })
 * const middleware: ContextMiddleware = makeContextMiddleware(context)
 */
export interface ContextMiddleware {
  readonly specificationVersion: 'v3'
  transformParams<P extends { readonly prompt: ReadonlyArray<unknown> }>(options: { readonly params: P }): Promise<P>
  wrapGenerate<R extends { readonly usage: unknown }>(options: { readonly doGenerate: () => PromiseLike<R> }): Promise<R>
  wrapStream<R extends { readonly stream: ReadableStream<unknown> }>(options: { readonly doStream: () => PromiseLike<R> }): Promise<R>
}

/**
 * A middleware for `wrapLanguageModel({ model, middleware })` (AI SDK v6). Before each model
 * call it brings the manager's history up to the prompt the SDK built (the SDK always sends the
 * whole conversation), asks for the view and sends that instead, as a `LanguageModelV3Prompt`;
 * after the call it feeds `result.usage` (or, when streaming, the `finish` part's usage) to
 * `onLlmResponse` and appends the model's answer as the SDK's next prompt holds it (text,
 * reasoning and tool-call parts; streamed deltas joined), so a turn's final answer is in the
 * history when `generateText` returns. Use it when you cannot pass `prepareStep` (a framework
 * calls the model).
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai'
 * import { MockLanguageModelV3 } from 'ai/test'
 * // any ai@6 model; this one answers 'Done.' with the provider's usage
 * const model = new MockLanguageModelV3({
 *   doGenerate: async () => ({
 *     content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, warnings: [],
 *     usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: undefined } },
 *   }),
 * })
 * const context = new ContextManager({}, { format: 'ai-sdk' })
 * const wrapped = wrapLanguageModel({ model, middleware: makeContextMiddleware(context) })
 * const result = await generateText({ model: wrapped, messages: [{ role: 'user', content: 'hi' }] })
 * result.text // => 'Done.'
 * const history = await context.getMessages()
 * history.length // => 2
 */
export const makeContextMiddleware = (context: AiSdkContext, options: AiSdkContextOptions = {}): ContextMiddleware => {
  const sync = makeHistorySync(context)
  const answerWith = async (content: ReadonlyArray<unknown>): Promise<void> => {
    const message = toAnswerMessage(content)
    if (message !== null) await sync.answer(message)
  }
  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      await sync.sync(params.prompt)
      const view = (await context.getMessagesForRequest({ tokenBudget: options.tokenBudget ?? null, format: 'ai-sdk' })) as Array<AiSdkModelMessage>
      return { ...params, prompt: view.map(toPromptMessage) }
    },
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate()
      await context.onLlmResponse({ usage: result.usage as LlmResponsePayload['usage'] })
      const content = (result as { readonly content?: unknown }).content
      if (Array.isArray(content)) await answerWith(content)
      return result
    },
    async wrapStream({ doStream }) {
      const result = await doStream()
      const collected = collectStreamContent()
      const watch = new TransformStream<unknown, unknown>({
        async transform(part, controller) {
          const chunk = part as { readonly type?: unknown; readonly usage?: unknown }
          collected.add(part)
          if (chunk.type === 'finish') {
            await context.onLlmResponse({ usage: chunk.usage as LlmResponsePayload['usage'] })
            const content = collected.content()
            if (content !== null) await answerWith(content)
          }
          controller.enqueue(part)
        },
      })
      return { ...result, stream: result.stream.pipeThrough(watch) }
    },
  }
}

/** One part of a model result (`LanguageModelV3Content`) as the helper reads it. */
interface ResultPart {
  readonly type?: unknown
  readonly text?: unknown
  readonly toolCallId?: unknown
  readonly toolName?: unknown
  readonly input?: unknown
  readonly providerExecuted?: unknown
  readonly providerMetadata?: unknown
}

/** A tool call's input as the SDK sends it back: the parsed JSON of the model's string, `{}` when it does not parse. */
const parsedInput = (input: unknown): unknown => {
  if (typeof input !== 'string') return input
  try {
    return JSON.parse(input)
  } catch {
    return {}
  }
}

/**
 * The assistant message a model result becomes in the prompt of the SDK's next call (ai@6's
 * response messages, then its prompt conversion): text (non-empty), reasoning and tool-call parts
 * in order, `providerMetadata` as `providerOptions`, sources left out; null when the result has
 * none of them or a part the helper does not rebuild (a file, a provider-executed result), which
 * then reaches the history with the next call, as the SDK sends it.
 */
const toAnswerMessage = (content: ReadonlyArray<unknown>): PromptMessage | null => {
  const parts: Array<Record<string, unknown>> = []
  for (const raw of content) {
    const part = (typeof raw === 'object' && raw !== null ? raw : {}) as ResultPart
    if (part.type === 'source' || (part.type === 'text' && part.text === '')) continue
    if (part.type === 'text' || part.type === 'reasoning') parts.push({ type: part.type, text: part.text, providerOptions: part.providerMetadata })
    else if (part.type === 'tool-call') {
      parts.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: parsedInput(part.input), providerExecuted: part.providerExecuted, providerOptions: part.providerMetadata })
    } else return null
  }
  // JSON drops the absent fields (`providerOptions: undefined`), as the SDK's list does when fingerprinted
  return parts.length === 0 ? null : (JSON.parse(JSON.stringify({ role: 'assistant', content: parts })) as PromptMessage)
}

/** Stream parts that carry nothing of the answer message (`LanguageModelV3StreamPart`; sources are left out of it, as in `toAnswerMessage`). */
const STREAM_FRAME_PARTS = new Set(['stream-start', 'response-metadata', 'finish', 'raw', 'error', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'source'])

/**
 * The content of a streamed result, gathered from its parts (`LanguageModelV3StreamPart`): text
 * and reasoning deltas joined per id in the order they started (the provider metadata of the
 * start, the last delta or the end), tool calls as they arrive. Any other content part (a
 * tool-result, a file, a tool-approval-request, ...) makes `content()` null, as `toAnswerMessage` gives up on
 * them in the generate path: the answer then reaches the history with the next call, as the SDK sends it.
 */
const collectStreamContent = () => {
  const order: Array<{ type: 'text' | 'reasoning' | 'tool-call'; id: string; text: string; part?: ResultPart; providerMetadata?: unknown }> = []
  const open = new Map<string, (typeof order)[number]>()
  let unrebuilt = false
  const add = (raw: unknown): void => {
    const part = (typeof raw === 'object' && raw !== null ? raw : {}) as ResultPart & { readonly id?: unknown; readonly delta?: unknown }
    const kind = String(part.type)
    const [base, phase] = kind.split('-') as [string, string | undefined]
    if (kind === 'tool-call') order.push({ type: 'tool-call', id: String(part.toolCallId), text: '', part })
    else if (!STREAM_FRAME_PARTS.has(kind) && !((base === 'text' || base === 'reasoning') && phase !== undefined)) unrebuilt = true
    if ((base !== 'text' && base !== 'reasoning') || phase === undefined) return
    const key = `${base}:${String(part.id)}`
    if (phase === 'start') {
      const entry = { type: base as 'text' | 'reasoning', id: String(part.id), text: '', providerMetadata: part.providerMetadata }
      order.push(entry)
      open.set(key, entry)
      return
    }
    const entry = open.get(key)
    if (entry === undefined) return
    if (phase === 'delta' && typeof part.delta === 'string') entry.text += part.delta
    if (part.providerMetadata !== undefined) entry.providerMetadata = part.providerMetadata
  }
  const content = (): ReadonlyArray<unknown> | null =>
    unrebuilt ? null : order.map((entry) => (entry.type === 'tool-call' ? entry.part : { type: entry.type, text: entry.text, providerMetadata: entry.providerMetadata }))
  return { add, content }
}
