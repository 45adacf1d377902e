/**
 * Codex CLI rollout import: a rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, one
 * `{timestamp, type, payload}` per line) becomes one `Recording` in the `openai-responses` message
 * format: the Responses items Codex sent and received, a request before each model turn with the
 * usage Codex recorded for it, and Codex's own compactions as `set_messages`.
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/lib/Either.js'
import type { ModelTable, ModelWindow } from '../../core/economics/prices.js'
import { isAssistantSideItem } from '../../core/formats/openai-responses.js'
import type { Message } from '../../core/messages/message.js'
import { decodeUsage, type ContractUsage } from '../../core/meter/usage.js'
import { DEFAULT_REPLAY_NOW } from '../../core/replay/recording.js'
import type { RecordedProvider, Recording, RecordingOp } from '../../core/replay/recording.js'
import { BUNDLED_WINDOW_TABLE, lookupModel } from '../model-tables.js'
import { RecordingFormatError, describeValue, iterateJsonLines } from '../recording-file.js'
import { toModuleTimestamp } from './claude-code.js'

/**
 * The line types of a Codex rollout (`RolloutItem`): the importer reads `session_meta`,
 * `turn_context`, `response_item`, `event_msg` and `compacted`; any other type is skipped.
 *
 * @example
 * CODEX_LINE_TYPES.has('response_item') // true
 */
export const CODEX_LINE_TYPES: ReadonlySet<string> = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted'])

/**
 * Options of the Codex import: `model` names the model when the rollout has no `turn_context`
 * (the CLI's `--model`); `windows` is the window table that gives the model's max output tokens
 * (default: the bundled `data/windows.json`).
 *
 * @example
 * const text = '{"timestamp":"2025-10-06T20:15:48.405Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}'
 * const options: CodexImportOptions = { model: 'gpt-5-codex' }
 * importCodexRollout(text, 'rollout.jsonl', options).format // => 'openai-responses'
 */
export interface CodexImportOptions {
  readonly model?: string | null
  readonly windows?: ModelTable<ModelWindow>
}

const LineCodec = t.type({ type: t.string, payload: t.unknown })

/**
 * Codex's per-request usage (`TokenUsage`, `info.last_token_usage` of a `token_count` event):
 * `input_tokens` includes `cached_input_tokens`; `reasoning_output_tokens` is part of
 * `output_tokens`. Tokens.
 */
const CodexUsageCodec = t.intersection([
  t.type({ input_tokens: t.number }),
  t.partial({ cached_input_tokens: t.number, output_tokens: t.number, reasoning_output_tokens: t.number, total_tokens: t.number }),
])

/**
 * Maps Codex's usage of one request (`info.last_token_usage`) to the contract usage through the
 * OpenAI Responses usage shape and the core's `decodeUsage`, the decoder `onLlmResponse` uses:
 * `input_tokens` = `input_tokens` (cache reads included), `cache_read_tokens` =
 * `cached_input_tokens`, `output_tokens` = `output_tokens` (reasoning included); OpenAI bills no
 * cache writes. Returns `undefined` for usage without a numeric `input_tokens`.
 *
 * @example
 * toCodexContractUsage({ input_tokens: 3037, cached_input_tokens: 2048, output_tokens: 73, reasoning_output_tokens: 0, total_tokens: 3110 })
 * // { input_tokens: 3037, output_tokens: 73, cache_read_tokens: 2048, cache_write_tokens: 0 }
 */
export const toCodexContractUsage = (usage: unknown): ContractUsage | undefined => {
  if (!CodexUsageCodec.is(usage)) return undefined
  const decoded = decodeUsage({
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens ?? 0,
    total_tokens: usage.total_tokens ?? usage.input_tokens + (usage.output_tokens ?? 0),
    input_tokens_details: { cached_tokens: usage.cached_input_tokens ?? 0 },
    output_tokens_details: { reasoning_tokens: usage.reasoning_output_tokens ?? 0 },
  })
  return E.isRight(decoded) ? decoded.right.usage : undefined
}

type Item = Readonly<Record<string, unknown>>

/** One entry of the imported sequence, before it is written as ops. */
type Entry =
  | { readonly kind: 'item'; item: Item; readonly model: boolean }
  | { readonly kind: 'request'; readonly usage: ContractUsage | undefined; readonly window: number | undefined; readonly model: string | null }
  | { readonly kind: 'replace'; readonly items: ReadonlyArray<Item> }

/** The text of a message item: a string content, or its text parts joined. */
const messageText = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: unknown) => (t.UnknownRecord.is(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n')
}

const isUserMessage = (item: Item): boolean => (item.type === 'message' || item.type === undefined) && item.role === 'user'

const withTimestamp = (item: Item, timestamp: string | undefined): Item =>
  timestamp === undefined || Object.prototype.hasOwnProperty.call(item, 'metadata') ? item : { ...item, metadata: { timestamp } }

/** The user message of a `user_message` event: its text, then its images (data or http URLs). */
const eventUserMessage = (payload: Readonly<Record<string, unknown>>): Item => {
  const content: unknown[] = [{ type: 'input_text', text: typeof payload.message === 'string' ? payload.message : '' }]
  if (Array.isArray(payload.images)) for (const image of payload.images) if (typeof image === 'string') content.push({ type: 'input_image', image_url: image })
  return { type: 'message', role: 'user', content }
}

/** The system prompt of a `session_meta` payload: `base_instructions.text` (newer) or `instructions` (older, may be null). */
const sessionInstructions = (payload: Readonly<Record<string, unknown>>): string | null => {
  const base = payload.base_instructions
  if (t.UnknownRecord.is(base) && typeof base.text === 'string' && base.text !== '') return base.text
  if (typeof base === 'string' && base !== '') return base
  return typeof payload.instructions === 'string' && payload.instructions !== '' ? payload.instructions : null
}

/**
 * Turns a Codex CLI rollout into a recording in the `openai-responses` format
 * (docs/recording-and-replay.md "Codex rollouts").
 *
 * Mapping:
 * - `session_meta`: the base instructions (`base_instructions.text` in newer rollouts,
 *   `instructions` in older ones; null there) become the first item, a
 *   `{type: 'message', role: 'system', content}` message, when present.
 * - `response_item` payloads are added in file order as they are, every key kept (unknown item
 *   types included, never dropped), with `metadata.timestamp` from the line's time.
 * - `event_msg` `user_message`: the prompt becomes a user message
 *   (`{type: 'message', role: 'user', content: [input_text, input_image...]}`) unless a user
 *   `response_item` message of the same text is in the same stretch of input (since the last
 *   model item), before or after it: then the `response_item` is the one kept, once.
 * - A request (`get_messages_for_request`) before each model turn: a run of model items
 *   (reasoning, assistant message, calls, server tool items) that no input item (user or
 *   developer message, call output) and no new `token_count` interrupts.
 * - `event_msg` `token_count`: `info: null` is skipped; a `total_token_usage` already seen is a
 *   repeat and skipped; each new one is one request's usage (`info.last_token_usage`, mapped by
 *   `toCodexContractUsage`) recorded as `llm_response` right after the request of the model turn
 *   it describes. Newer rollouts write it right after the turn's model items: a total that comes
 *   while a model turn without usage is open is that turn's. Older ones (0.45) write it before
 *   the turn's items: a total that comes after an input is the next turn's. A total that finds
 *   no turn is kept as a request of its own, so the requests that carry usage are the distinct
 *   totals.
 * - The window of a request is the `model_context_window` of the token counts (the latest one
 *   seen, else the file's first) with the max output tokens of the request's model (the latest
 *   `turn_context.model`, else `options.model`) from the window table: `provider:
 *   {context_window, max_output_tokens}`. Without a `token_count` or a model row, requests carry
 *   no window and `notices` says so: they replay at the configured budget.
 * - `compacted` (Codex's own compaction): `set_messages` of the system message and the
 *   `replacement_history` items; without a replacement history, of the system message and the
 *   compaction `message` as a user message.
 * - The recording ends with one more request; `format` is `openai-responses`, `session` the
 *   rollout's `session_meta.id`; `model` the most used `turn_context.model` (absent when none).
 *
 * Throws `RecordingFormatError` (`<sourceName>:<line>: <problem>`) for a line that is not JSON,
 * not an object, or a rollout line without a string `type` and a `payload`; for a `response_item`
 * payload that is not an object, an empty file and a file without items.
 *
 * @example
 * const text = [
 *   '{"timestamp":"2025-10-06T20:15:48.405Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}',
 *   '{"timestamp":"2025-10-06T20:15:50.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}',
 * ].join('\n')
 * importCodexRollout(text, 'rollout.jsonl').ops.map((op) => op.op)
 * // ['add_message', 'get_messages_for_request', 'add_message', 'get_messages_for_request']
 */
export const importCodexRollout = (text: string, sourceName: string, options: CodexImportOptions = {}): Recording => {
  const entries: Entry[] = []
  const seenTotals = new Set<string>()
  const modelCounts = new Map<string, number>()
  let model: string | null = null
  let window: number | undefined
  let firstWindow: number | undefined
  let sawLine = false
  let sawTokenCount = false
  let system: Item | null = null
  let session: string | undefined
  /** Index in `entries` of the request of the open model turn (null: no turn open). */
  let openTurn: number | null = null
  /** Usage waiting for the next model turn (leading order). */
  let pending: { usage: ContractUsage | undefined; window: number | undefined } | null = null
  /** Indexes of the user messages in the current stretch of input, with where they came from. */
  let stretch: Array<{ index: number; readonly text: string; readonly fromEvent: boolean; matched: boolean }> = []

  const requestIndexes: number[] = []
  const pushRequest = (usage: ContractUsage | undefined, at: number | undefined): number => {
    entries.push({ kind: 'request', usage, window: at, model })
    requestIndexes.push(entries.length - 1)
    return entries.length - 1
  }
  const setUsage = (index: number, usage: ContractUsage | undefined, at: number | undefined): void => {
    const entry = entries[index]
    if (entry.kind === 'request') entries[index] = { ...entry, usage, window: at ?? entry.window }
  }
  const hasUsage = (index: number): boolean => {
    const entry = entries[index]
    return entry.kind === 'request' && entry.usage !== undefined
  }

  const addInput = (item: Item): void => {
    openTurn = null
    entries.push({ kind: 'item', item, model: false })
  }

  const addModelItem = (item: Item): void => {
    if (openTurn === null) {
      if (pending !== null) {
        openTurn = pushRequest(pending.usage, pending.window)
        pending = null
      } else openTurn = pushRequest(undefined, window)
      stretch = []
    }
    entries.push({ kind: 'item', item, model: true })
  }

  const addUsage = (usage: ContractUsage | undefined, at: number | undefined): void => {
    // Newer rollouts write a turn's count right after its model items: the open turn is its own.
    if (openTurn !== null && !hasUsage(openTurn)) {
      setUsage(openTurn, usage, at)
      openTurn = null
      return
    }
    // Older ones (0.45) write it before the turn's items: it waits for the next turn. One still
    // waiting found no turn: a request of its own.
    if (pending !== null) pushRequest(pending.usage, pending.window)
    pending = { usage, window: at }
    openTurn = null
  }

  for (const { line, value } of iterateJsonLines(text, sourceName)) {
    sawLine = true
    if (!t.UnknownRecord.is(value)) throw new RecordingFormatError(sourceName, line, `expected a JSON object (a Codex rollout line), got ${describeValue(value)}`)
    if (!LineCodec.is(value)) throw new RecordingFormatError(sourceName, line, 'a Codex rollout line needs a string "type" and a "payload" ({timestamp, type, payload})')
    const payload = value.payload
    const timestamp = toModuleTimestamp((value as { timestamp?: unknown }).timestamp)
    switch (value.type) {
      case 'session_meta': {
        if (!t.UnknownRecord.is(payload)) break
        // A resumed or forked rollout repeats the meta of its source: the first one names the session.
        if (session === undefined && typeof payload.id === 'string') session = payload.id
        const instructions = sessionInstructions(payload)
        if (instructions !== null && system === null) {
          // placed first when the ops are written
          system = withTimestamp({ type: 'message', role: 'system', content: instructions }, timestamp)
        }
        break
      }
      case 'turn_context':
        if (t.UnknownRecord.is(payload) && typeof payload.model === 'string' && payload.model !== '') {
          model = payload.model
          modelCounts.set(model, (modelCounts.get(model) ?? 0) + 1)
        }
        break
      case 'response_item': {
        if (!t.UnknownRecord.is(payload)) throw new RecordingFormatError(sourceName, line, `a "response_item" payload must be a Responses item object, got ${describeValue(payload)}`)
        const item = withTimestamp(payload, timestamp)
        if (isUserMessage(payload)) {
          const text = messageText(payload.content).trim()
          const twin = stretch.find((mark) => mark.fromEvent && !mark.matched && mark.text === text)
          if (twin !== undefined) {
            // The event came first: its message gives way to the item Codex sent.
            const entry = entries[twin.index]
            if (entry.kind === 'item') entry.item = item
            twin.matched = true
            break
          }
          addInput(item)
          stretch.push({ index: entries.length - 1, text, fromEvent: false, matched: false })
          break
        }
        if (isAssistantSideItem(payload)) addModelItem(item)
        else addInput(item)
        break
      }
      case 'event_msg': {
        if (!t.UnknownRecord.is(payload)) break
        if (payload.type === 'user_message') {
          const message = eventUserMessage(payload)
          const text = messageText(message.content).trim()
          const twin = stretch.find((mark) => !mark.fromEvent && !mark.matched && mark.text === text)
          if (twin !== undefined) {
            twin.matched = true
            break
          }
          addInput(withTimestamp(message, timestamp))
          stretch.push({ index: entries.length - 1, text, fromEvent: true, matched: false })
        } else if (payload.type === 'token_count') {
          sawTokenCount = true
          const info = payload.info
          if (!t.UnknownRecord.is(info)) break
          if (typeof info.model_context_window === 'number' && info.model_context_window > 0) {
            window = info.model_context_window
            firstWindow ??= window
          }
          const key = JSON.stringify(info.total_token_usage ?? info.last_token_usage ?? null)
          if (seenTotals.has(key)) break
          seenTotals.add(key)
          addUsage(toCodexContractUsage(info.last_token_usage), window)
        }
        break
      }
      case 'compacted': {
        if (!t.UnknownRecord.is(payload)) break
        const history = Array.isArray(payload.replacement_history)
          ? payload.replacement_history.filter((item): item is Item => t.UnknownRecord.is(item))
          : typeof payload.message === 'string'
            ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: payload.message }] }]
            : []
        openTurn = null
        stretch = []
        entries.push({ kind: 'replace', items: [...(system === null ? [] : [system]), ...history.map((item) => withTimestamp(item, timestamp))] })
        break
      }
      default:
        break
    }
  }
  if (!sawLine) throw new RecordingFormatError(sourceName, undefined, 'empty file: no Codex rollout lines')
  if (pending !== null) pushRequest((pending as { usage: ContractUsage | undefined }).usage, (pending as { window: number | undefined }).window)
  if (!entries.some((entry) => entry.kind !== 'request')) {
    throw new RecordingFormatError(sourceName, undefined, 'no "response_item", "user_message" or "compacted" lines: nothing to import from this Codex rollout')
  }

  const windows = options.windows ?? BUNDLED_WINDOW_TABLE
  const fallbackModel = options.model ?? null
  const notices: string[] = []
  const missingRows = new Set<string>()
  const provider = (at: number | undefined, requestModel: string | null): RecordedProvider | undefined => {
    const contextWindow = at ?? firstWindow
    if (contextWindow === undefined) return undefined
    const name = requestModel ?? fallbackModel
    const row = lookupModel(windows, name)
    if (row === null) {
      missingRows.add(name ?? '(none)')
      return undefined
    }
    return { context_window: contextWindow, max_output_tokens: row.max_output_tokens }
  }

  const ops: RecordingOp[] = system === null ? [] : [{ op: 'add_message', message: system as Message }]
  for (const entry of entries) {
    if (entry.kind === 'item') ops.push({ op: 'add_message', message: entry.item as Message })
    else if (entry.kind === 'replace') ops.push({ op: 'set_messages', messages: entry.items as ReadonlyArray<Message> })
    else {
      const given = provider(entry.window, entry.model)
      ops.push(given === undefined ? { op: 'get_messages_for_request' } : { op: 'get_messages_for_request', provider: given })
      if (entry.usage !== undefined) ops.push({ op: 'llm_response', usage: entry.usage })
    }
  }
  const lastWindow = provider(window, model)
  ops.push(lastWindow === undefined ? { op: 'get_messages_for_request' } : { op: 'get_messages_for_request', provider: lastWindow })

  if (!sawTokenCount) notices.push('the rollout has no token_count events: no recorded usage and no model window; its requests replay at the configured budget (--budget or --window, else max_tokens)')
  else if (firstWindow === undefined) notices.push('the rollout\'s token_count events name no model_context_window: its requests replay at the configured budget (--budget or --window, else max_tokens)')
  if (missingRows.size > 0) notices.push(`no window-table row for model ${[...missingRows].join(', ')} (${modelCounts.size === 0 ? 'the rollout has no turn_context: give --model' : 'add it with --windows'}): its requests carry no window and replay at the configured budget`)

  let sessionModel: string | null = null
  for (const [name, count] of modelCounts) if (sessionModel === null || count > (modelCounts.get(sessionModel) ?? 0)) sessionModel = name
  return {
    config: {},
    now: DEFAULT_REPLAY_NOW,
    ops,
    format: 'openai-responses',
    ...(session !== undefined ? { session } : {}),
    ...(sessionModel !== null ? { model: sessionModel } : {}),
    ...(notices.length > 0 ? { notices } : {}),
  }
}
