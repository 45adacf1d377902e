/**
 * Claude Code session import: a session JSONL (one event per line) becomes one `Recording` whose
 * history is always well paired (every call answered right after its assistant message).
 */
import * as t from 'io-ts'
import { formatTimestamp } from '../clock.js'
import * as E from 'fp-ts/lib/Either.js'
import type { Message } from '../../core/messages/message.js'
import { decodeUsage, type ContractUsage } from '../../core/meter/usage.js'
import { DEFAULT_REPLAY_NOW } from '../../core/replay/recording.js'
import type { Recording, RecordingOp } from '../../core/replay/recording.js'
import { RecordingFormatError, describeValue, iterateJsonLines } from '../recording-file.js'

/**
 * The content of the synthetic tool result the importer adds for a call the session never
 * answered (an interrupted or rejected-before-running call).
 *
 * @example
 * const synthetic = { role: 'tool', tool_call_id: 'toolu_1', content: NO_RESULT_RECORDED }
 */
export const NO_RESULT_RECORDED = '[no result recorded]'

/**
 * Converts an ISO 8601 time (`2026-02-10T21:11:56.846Z`, any offset) to the module's timestamp
 * format `YYYY-MM-DDTHH:MM:SS.mmm+00:00` (UTC, milliseconds). Returns `undefined` for anything
 * that is not a parseable time string.
 *
 * @example
 * toModuleTimestamp('2026-02-10T21:11:56.846Z') // => '2026-02-10T21:11:56.846+00:00'
 * toModuleTimestamp('yesterday') // => undefined
 */
export const toModuleTimestamp = (iso: unknown): string | undefined => {
  if (typeof iso !== 'string') return undefined
  const millis = Date.parse(iso)
  return Number.isNaN(millis) ? undefined : formatTimestamp(millis)
}

// ---------------------------------------------------------------------------------------------
// Codecs for the parts of a Claude Code line this importer reads (other fields are ignored).

const BlockCodec = t.UnknownRecord

/** `message` of a `user` line: a string or an array of content blocks. */
const UserMessageCodec = t.type({ content: t.union([t.string, t.array(BlockCodec)]) })

/** `message` of an `assistant` line: content blocks (or a string), optional `id` and `usage`. */
const AssistantMessageCodec = t.intersection([
  t.type({ content: t.union([t.string, t.array(BlockCodec)]) }),
  t.partial({ id: t.string, usage: t.unknown, model: t.unknown }),
])

const ToolUseBlockCodec = t.intersection([
  t.type({ type: t.literal('tool_use'), id: t.string, name: t.string }),
  t.partial({ input: t.unknown }),
])

const ToolResultBlockCodec = t.intersection([
  t.type({ type: t.literal('tool_result'), tool_use_id: t.string }),
  t.partial({ content: t.unknown }),
])

// ---------------------------------------------------------------------------------------------

/**
 * Options of the Claude Code import. `native: true` imports Anthropic `MessageParam`s for a
 * manager in the `anthropic` format (docs/formats.md): an answer's content blocks as written
 * (thinking with its signature, text, tool_use, images; tool_use deduplicated by id), its tool
 * results as one user turn of `tool_result` blocks as written right after it (a call never
 * answered gets `{type: 'tool_result', tool_use_id, content: '[no result recorded]'}`), and the
 * other blocks of a user line as one user turn (an orphan result becomes a text block). Default:
 * the contract shape.
 *
 * @example
 * const text = JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } })
 * const options: ClaudeCodeImportOptions = { native: true }
 * importClaudeCodeSession(text, 'session.jsonl', options).ops[0] // => { op: 'add_message', message: { role: 'user', content: 'hi' } }
 */
export interface ClaudeCodeImportOptions {
  readonly native?: boolean
}

/**
 * A user or assistant line of the conversation, or a `compact_boundary` system line (Claude
 * Code's own compaction), with its 1-based line number.
 */
interface ConversationLine {
  readonly line: number
  readonly type: 'user' | 'assistant' | 'compact_boundary' | 'clear'
  readonly sidechain: boolean
  readonly uuid: string | undefined
  readonly parentUuid: string | undefined
  readonly agentId: string | undefined
  readonly sessionId: string | undefined
  /** Claude Code's `isMeta`: text injected by the harness or a hook, not typed by the human. */
  readonly meta: boolean
  readonly timestamp: string | undefined
  readonly message: unknown
}

/** One OpenAI-style tool call of the merged assistant message. */
interface ToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/** The lines of one API answer (one `message.id`), merged. */
interface AssistantGroup {
  /** The time of the group's first assistant line; set when that line is reached. */
  timestamp: string | undefined
  /** Whether the group's first assistant line was reached (its place in the history is known). */
  placed: boolean
  readonly texts: string[]
  readonly calls: ToolCall[]
  /** The timestamp of the line that declared each call (for synthetic results). */
  readonly callTimestamps: Map<string, string | undefined>
  usage: unknown
  synthetic: boolean
  /** Tool results of this group's calls, in arrival order. */
  readonly results: Message[]
  /** Native import: the group's content blocks as written (tool_use deduplicated by id). */
  readonly blocks: Array<Readonly<Record<string, unknown>>>
  /** Native import: the `tool_result` blocks of this group's calls, as written, in arrival order. */
  readonly resultBlocks: Array<Readonly<Record<string, unknown>>>
  readonly answered: Set<string>
}

type Item =
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'assistant'; readonly group: AssistantGroup }
  | { readonly kind: 'boundary' }
  | { readonly kind: 'clear' }

const withTimestamp = (message: Record<string, unknown>, timestamp: string | undefined): Message =>
  timestamp === undefined ? message : { ...message, metadata: { timestamp } }

/** A user message of an `isMeta` line is marked `metadata.source: "hook"` (not a human prompt). */
const userMessage = (content: unknown, entry: ConversationLine): Message => {
  const message = withTimestamp({ role: 'user', content }, entry.timestamp)
  if (!entry.meta) return message
  return { ...message, metadata: { ...((message.metadata as Record<string, unknown> | undefined) ?? {}), source: 'hook' } }
}

/** Text of a non-text block kept as a placeholder in user or tool content (`[image]`). */
const placeholder = (block: Readonly<Record<string, unknown>>): string | undefined =>
  block.type === 'image' || block.type === 'document' ? `[${block.type}]` : undefined

/** Tool result content as a string: a string as is, text blocks joined with `\n`. */
const toolResultText = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content)
  const parts: string[] = []
  for (const block of content) {
    if (!BlockCodec.is(block)) continue
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
    else {
      const text = placeholder(block)
      if (text !== undefined) parts.push(text)
    }
  }
  return parts.join('\n')
}

/**
 * Maps Anthropic usage to the contract's `llm_response` usage (docs/recording-format.md, SPEC 17.10) with the
 * core's `decodeUsage`, the decoder `onLlmResponse` uses, so imported and live recordings hold
 * the same figures: `input_tokens` = `input_tokens + cache_read_input_tokens`, `cache_read_tokens`
 * = `cache_read_input_tokens`, `cache_write_tokens` = `cache_creation_input_tokens` (absent = 0),
 * and `cache_creation` (the 5-minute / 1-hour split) when the source has it. All counts are
 * tokens. Returns `undefined` (never throws) for usage that `decodeUsage` refuses.
 *
 * @example
 * toContractUsage({ input_tokens: 3, output_tokens: 13, cache_read_input_tokens: 11515, cache_creation_input_tokens: 13835 })
 * // { input_tokens: 11518, output_tokens: 13, cache_read_tokens: 11515, cache_write_tokens: 13835 }
 */
export const toContractUsage = (usage: unknown): ContractUsage | undefined => {
  const decoded = decodeUsage(usage)
  return E.isRight(decoded) ? decoded.right.usage : undefined
}

/**
 * Whether a user line's content is a `/clear` command line: only command tags
 * (`<command-name>`, `<command-message>`, `<command-args>`, in any order) with the command name
 * `/clear`; a line that merely mentions "/clear" is not one.
 *
 * @example
 * isClearCommand('<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>') // true
 * isClearCommand('what does /clear do?') // false
 */
export const isClearCommand = (content: unknown): boolean => {
  const text = typeof content === 'string' ? content : Array.isArray(content) && content.length === 1 && BlockCodec.is(content[0]) && content[0].type === 'text' ? content[0].text : undefined
  if (typeof text !== 'string') return false
  if (!/^\s*(?:<command-(name|message|args)>[^<]*<\/command-\1>\s*)+$/.test(text)) return false
  return /<command-name>\s*\/clear\s*<\/command-name>/.test(text)
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** Reads the conversation lines (`user`/`assistant`) of the file; other line types are skipped. */
const readConversationLines = (text: string, sourceName: string): ConversationLine[] => {
  const lines: ConversationLine[] = []
  let seenAny = false
  for (const { line, value } of iterateJsonLines(text, sourceName)) {
    seenAny = true
    if (!t.UnknownRecord.is(value)) {
      throw new RecordingFormatError(sourceName, line, `expected a JSON object (a Claude Code event), got ${describeValue(value)}`)
    }
    const boundary = value.type === 'system' && value.subtype === 'compact_boundary'
    if (value.type !== 'user' && value.type !== 'assistant' && !boundary) continue
    const clear = value.type === 'user' && t.UnknownRecord.is(value.message) && isClearCommand(value.message.content)
    lines.push({
      line,
      type: boundary ? 'compact_boundary' : clear ? 'clear' : (value.type as 'user' | 'assistant'),
      sidechain: value.isSidechain === true,
      uuid: optionalString(value.uuid),
      parentUuid: optionalString(value.parentUuid),
      agentId: optionalString(value.agentId),
      sessionId: optionalString(value.sessionId),
      meta: value.isMeta === true,
      timestamp: toModuleTimestamp(value.timestamp),
      message: value.message,
    })
  }
  if (!seenAny) throw new RecordingFormatError(sourceName, undefined, 'empty file: no Claude Code event lines')
  if (!lines.some((entry) => entry.type === 'user' || entry.type === 'assistant')) {
    throw new RecordingFormatError(sourceName, undefined, 'no "user" or "assistant" lines: nothing to import from this Claude Code session')
  }
  return lines
}

/** One conversation of a session file: the main chain or one side chain, with its id. */
interface Chain {
  /** Null for the main chain; the side chain's `agentId`, else the `uuid` of its first line. */
  readonly id: string | null
  readonly lines: ConversationLine[]
}

/**
 * Splits the lines into the main chain (`isSidechain` not true) and the side chains (a
 * sub-agent's lines). A side-chain line belongs to the chain of its `agentId` when it has one,
 * else to the chain of its `parentUuid`'s line, else it starts a chain named by its `uuid` (its
 * line number when it has none). Chains are in the order of their first line.
 */
const splitChains = (lines: ReadonlyArray<ConversationLine>): { readonly main: ConversationLine[]; readonly sides: Chain[] } => {
  const main: ConversationLine[] = []
  const sides = new Map<string, ConversationLine[]>()
  const chainOfUuid = new Map<string, string>()
  for (const entry of lines) {
    if (!entry.sidechain) {
      main.push(entry)
      continue
    }
    const id = entry.agentId ?? (entry.parentUuid !== undefined ? chainOfUuid.get(entry.parentUuid) : undefined) ?? entry.uuid ?? `line-${entry.line}`
    if (entry.uuid !== undefined) chainOfUuid.set(entry.uuid, id)
    const chain = sides.get(id)
    if (chain === undefined) sides.set(id, [entry])
    else chain.push(entry)
  }
  return { main, sides: [...sides].map(([id, chainLines]) => ({ id, lines: chainLines })) }
}

/** Whether a chain has a user or assistant line (something to import). */
const hasConversation = (lines: ReadonlyArray<ConversationLine>): boolean => lines.some((entry) => entry.type === 'user' || entry.type === 'assistant')

const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, value: unknown, sourceName: string, line: number, problem: string): A => {
  const decoded = codec.decode(value)
  if (E.isLeft(decoded)) throw new RecordingFormatError(sourceName, line, problem)
  return decoded.right
}

const groupKey = (message: { readonly id?: string }, line: number): string =>
  message.id !== undefined ? `id:${message.id}` : `line:${line}`

/** The most used `message.model` of the assistant lines (`<synthetic>` aside), null when none. */
const selectSessionModel = (lines: ReadonlyArray<ConversationLine>): string | null => {
  const counts = new Map<string, number>()
  for (const entry of lines) {
    if (entry.type !== 'assistant' || !t.UnknownRecord.is(entry.message)) continue
    const model = entry.message.model
    if (typeof model === 'string' && model !== '<synthetic>') counts.set(model, (counts.get(model) ?? 0) + 1)
  }
  let best: string | null = null
  for (const [model, count] of counts) if (best === null || count > (counts.get(best) ?? 0)) best = model
  return best
}

/**
 * Turns a Claude Code session JSONL into a recording (docs/recording-format.md "Importing other formats").
 *
 * Mapping:
 * - Lines other than `user`/`assistant` (progress, system, summary, file-history-snapshot,
 *   queue-operation...) are skipped, and so are side-chain lines (`isSidechain: true`) unless the
 *   whole file is one side chain (a sub-agent or `agent-acompact-*` compaction transcript), which
 *   is then imported as the conversation. (`importClaudeCodeSessions` imports the side chains of
 *   a session file as sessions of their own; this function returns its first recording.)
 * - A `/clear` command line (a user line whose content is only command tags naming `/clear`, see
 *   `isClearCommand`; not a line that mentions it) becomes a `clear` op: Claude Code starts the
 *   conversation afresh there.
 * - Assistant lines sharing `message.id` are merged into ONE assistant message placed where its
 *   first line is: `content` = its text blocks concatenated as written (no separator; the blocks
 *   are consecutive pieces of one answer), `tool_calls` = its `tool_use` blocks as
 *   `{id, type: "function", function: {name, arguments: JSON.stringify(input)}}` (omitted when
 *   none). Thinking and redacted-thinking blocks are dropped (they are not resent to the model);
 *   other block types (server tools) are dropped too.
 * - Before each assistant message: `get_messages_for_request` (no budget: the caller decides),
 *   then `llm_response` with the usage of the message's LAST line mapped by `toContractUsage`
 *   (omitted when that usage has no numeric `input_tokens` or the model is `<synthetic>`, i.e.
 *   Claude Code's own error / placeholder answers), then `add_message`.
 * - User string content -> `{role: "user", content}`; for block content, each `tool_result`
 *   block -> `{role: "tool", tool_call_id, content}` (array content: text blocks joined with
 *   `\n`, images as `[image]`), and the line's text blocks (joined with `\n`, images as
 *   `[image]`) -> one user message.
 * - Pairing: the tool results of an assistant message are placed right after it, in arrival
 *   order, even when they arrived later (after other lines); the text part of a user line
 *   carrying results comes after the results. A call that never gets a result gets a synthetic
 *   result `{role: "tool", tool_call_id, content: "[no result recorded]"}` stamped with the time
 *   of the line declaring the call, after the real results. A second result for an answered call
 *   is dropped; a result whose call the file never declares becomes a user message holding its
 *   text, so that no view can start with or hold an orphan result.
 * - `metadata.timestamp` = the line's ISO `timestamp` in the module format (the first line for a
 *   merged assistant message); omitted when the line has no parseable time. The user message of
 *   an `isMeta` line (text the harness or a hook injected) also gets `metadata.source: "hook"`.
 * - A `compact_boundary` system line (Claude Code's own compaction) ends what the agent sends:
 *   the first message after it (the compact summary) becomes a `set_messages` op holding only
 *   that message, and what follows is added as usual; an assistant answer right after a
 *   boundary is preceded by an empty `set_messages`. Each later request's history is therefore
 *   what the agent actually sent since its last compaction.
 * - The recording ends with one more `get_messages_for_request`; `config` is `{}`, `now` is
 *   `DEFAULT_REPLAY_NOW`; `model` is the most used `message.model` of the kept assistant lines
 *   (`<synthetic>` aside), omitted when there is none.
 *
 * Throws `RecordingFormatError` (`<sourceName>:<line>: <problem>`) for a line that is not JSON or
 * not an object, a user/assistant line without a usable `message`, a malformed `tool_use` or
 * `tool_result` block, an empty file and a file without user/assistant lines.
 *
 * @example
 * const text = [
 *   '{"type":"user","sessionId":"s","timestamp":"2026-02-10T21:11:56.846Z","message":{"role":"user","content":"hi"}}',
 *   '{"type":"assistant","sessionId":"s","timestamp":"2026-02-10T21:11:59.186Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Hello"}],"usage":{"input_tokens":3,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}}}',
 * ].join('\n')
 * importClaudeCodeSession(text, 'session.jsonl').ops.map((op) => op.op)
 * // ['add_message', 'get_messages_for_request', 'llm_response', 'add_message', 'get_messages_for_request']
 */
export const importClaudeCodeSession = (text: string, sourceName: string, options: ClaudeCodeImportOptions = {}): Recording =>
  importClaudeCodeSessions(text, sourceName, options)[0]

/**
 * Every conversation of a Claude Code session file as its own recording (see
 * `importClaudeCodeSession` for the mapping of one): the main chain, and each side chain inside
 * the file (a sub-agent's `isSidechain: true` lines, grouped by `agentId`, else by their
 * `parentUuid` links; named by the `agentId`, else the `uuid` of the chain's first line). When
 * the file holds side chains, each recording is named: `<sessionId>` for the main chain,
 * `<sessionId>/<agentId or first uuid>` for a side chain (`Recording.session`, in file order of
 * their first lines, main first); a file without them gives one unnamed recording, as before. A
 * file that is only one side chain (an `agent-*.jsonl` transcript) is that conversation.
 *
 * Throws what `importClaudeCodeSession` throws.
 *
 * @example
 * const text = [
 *   '{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"review the parser"}}',
 *   '{"type":"user","sessionId":"s1","uuid":"u2","isSidechain":true,"agentId":"a7","message":{"role":"user","content":"read parser.ts"}}',
 * ].join('\n')
 * importClaudeCodeSessions(text, 'session.jsonl').map((recording) => recording.session) // ['s1', 's1/a7']
 */
export const importClaudeCodeSessions = (text: string, sourceName: string, options: ClaudeCodeImportOptions = {}): Recording[] => {
  const native = options.native === true
  const all = readConversationLines(text, sourceName)
  const { main, sides } = splitChains(all)
  const kept = sides.filter((chain) => hasConversation(chain.lines))
  const withMain = hasConversation(main)
  if (kept.length === 0) return [toChainRecording(withMain ? main : all, sourceName, native)]
  if (!withMain && kept.length === 1) return [toChainRecording(all, sourceName, native)]
  const sessionId = all.find((entry) => entry.sessionId !== undefined)?.sessionId ?? 'session'
  return [
    ...(withMain ? [{ ...toChainRecording(main, sourceName, native), session: sessionId }] : []),
    ...kept.map((chain) => ({ ...toChainRecording(chain.lines, sourceName, native), session: `${sessionId}/${chain.id}` })),
  ]
}

/** The recording of one chain's lines (the mapping of `importClaudeCodeSession`). */
const toChainRecording = (lines: ReadonlyArray<ConversationLine>, sourceName: string, native: boolean): Recording => {

  // Which group declares each call id (a first pass, so a result may precede its call's line).
  const callOwner = new Map<string, string>()
  for (const entry of lines) {
    if (entry.type !== 'assistant' || !t.UnknownRecord.is(entry.message)) continue
    const message = entry.message
    if (!Array.isArray(message.content)) continue
    const key = groupKey({ id: typeof message.id === 'string' ? message.id : undefined }, entry.line)
    for (const block of message.content) {
      if (ToolUseBlockCodec.is(block) && !callOwner.has(block.id)) callOwner.set(block.id, key)
    }
  }

  const items: Item[] = []
  const groups = new Map<string, AssistantGroup>()
  const groupFor = (key: string): AssistantGroup => {
    const existing = groups.get(key)
    if (existing !== undefined) return existing
    const group: AssistantGroup = {
      timestamp: undefined,
      placed: false,
      texts: [],
      calls: [],
      callTimestamps: new Map(),
      usage: undefined,
      synthetic: false,
      results: [],
      answered: new Set(),
      blocks: [],
      resultBlocks: [],
    }
    groups.set(key, group)
    return group
  }

  for (const entry of lines) {
    if (entry.type === 'compact_boundary') {
      items.push({ kind: 'boundary' })
      continue
    }
    if (entry.type === 'clear') {
      items.push({ kind: 'clear' })
      continue
    }
    if (entry.type === 'assistant') {
      const message = decodeOrThrow(
        AssistantMessageCodec,
        entry.message,
        sourceName,
        entry.line,
        'assistant line needs an object "message" with "content" (a string or an array of blocks)',
      )
      const group = groupFor(groupKey(message, entry.line))
      if (!group.placed) {
        group.placed = true
        group.timestamp = entry.timestamp
        items.push({ kind: 'assistant', group })
      }
      if (message.usage !== undefined) group.usage = message.usage
      if (message.model === '<synthetic>') group.synthetic = true
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
      for (const block of blocks) {
        if (native && block.type !== 'tool_use') group.blocks.push(block)
        if (block.type === 'text') {
          if (typeof block.text === 'string') group.texts.push(block.text)
        } else if (block.type === 'tool_use') {
          const call = decodeOrThrow(
            ToolUseBlockCodec,
            block,
            sourceName,
            entry.line,
            `a "tool_use" block needs a string "id" and a string "name", got ${describeValue(block)}`,
          )
          if (group.calls.some((known) => known.id === call.id)) continue
          if (native) group.blocks.push(block)
          group.calls.push({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
          })
          group.callTimestamps.set(call.id, entry.timestamp)
        }
        // thinking, redacted_thinking and any other block: dropped (see the doc comment)
      }
      continue
    }

    const message = decodeOrThrow(
      UserMessageCodec,
      entry.message,
      sourceName,
      entry.line,
      'user line needs an object "message" with "content" (a string or an array of blocks)',
    )
    if (typeof message.content === 'string') {
      items.push({ kind: 'message', message: userMessage(message.content, entry) })
      continue
    }
    const texts: string[] = []
    const kept: Array<Readonly<Record<string, unknown>>> = []
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        const result = decodeOrThrow(
          ToolResultBlockCodec,
          block,
          sourceName,
          entry.line,
          `a "tool_result" block needs a string "tool_use_id", got ${describeValue(block)}`,
        )
        const content = toolResultText(result.content)
        const owner = callOwner.get(result.tool_use_id)
        const group = owner === undefined ? undefined : groupFor(owner)
        if (group === undefined) {
          texts.push(content)
          kept.push({ type: 'text', text: content })
        } else if (!group.answered.has(result.tool_use_id)) {
          group.answered.add(result.tool_use_id)
          group.resultBlocks.push(block)
          group.results.push(
            withTimestamp({ role: 'tool', tool_call_id: result.tool_use_id, content }, entry.timestamp),
          )
        }
      } else if (block.type === 'text') {
        kept.push(block)
        if (typeof block.text === 'string') texts.push(block.text)
      } else {
        kept.push(block)
        const text = placeholder(block)
        if (text !== undefined) texts.push(text)
      }
    }
    if (native) {
      if (kept.length > 0) items.push({ kind: 'message', message: userMessage(kept, entry) })
    } else if (texts.length > 0) {
      items.push({ kind: 'message', message: userMessage(texts.join('\n'), entry) })
    }
  }

  const ops: RecordingOp[] = []
  // After a compact boundary the agent kept only what follows it: the first message after it
  // (the compact summary) replaces the history; an assistant answer right after it starts from
  // an empty history.
  let boundary = false
  for (const item of items) {
    if (item.kind === 'boundary') {
      boundary = true
      continue
    }
    if (item.kind === 'clear') {
      // `/clear`: the conversation starts afresh (a pending compact summary goes with it)
      ops.push({ op: 'clear' })
      boundary = false
      continue
    }
    if (item.kind === 'message') {
      ops.push(boundary ? { op: 'set_messages', messages: [item.message] } : { op: 'add_message', message: item.message })
      boundary = false
      continue
    }
    if (boundary) ops.push({ op: 'set_messages', messages: [] })
    boundary = false
    const group = item.group
    ops.push({ op: 'get_messages_for_request' })
    const usage = group.synthetic ? undefined : toContractUsage(group.usage)
    if (usage !== undefined) ops.push({ op: 'llm_response', usage })
    if (native) {
      ops.push({ op: 'add_message', message: withTimestamp({ role: 'assistant', content: group.blocks }, group.timestamp) })
      const results: Array<Readonly<Record<string, unknown>>> = [...group.resultBlocks]
      for (const call of group.calls) if (!group.answered.has(call.id)) results.push({ type: 'tool_result', tool_use_id: call.id, content: NO_RESULT_RECORDED })
      if (results.length > 0) {
        const first = group.results[0] as { metadata?: { timestamp?: string } } | undefined
        ops.push({ op: 'add_message', message: withTimestamp({ role: 'user', content: results }, first?.metadata?.timestamp ?? group.timestamp) })
      }
      continue
    }
    const assistant: Record<string, unknown> = { role: 'assistant', content: group.texts.join('') }
    if (group.calls.length > 0) assistant.tool_calls = group.calls
    ops.push({ op: 'add_message', message: withTimestamp(assistant, group.timestamp) })
    for (const result of group.results) ops.push({ op: 'add_message', message: result })
    for (const call of group.calls) {
      if (group.answered.has(call.id)) continue
      ops.push({
        op: 'add_message',
        message: withTimestamp(
          { role: 'tool', tool_call_id: call.id, content: NO_RESULT_RECORDED },
          group.callTimestamps.get(call.id),
        ),
      })
    }
  }
  ops.push({ op: 'get_messages_for_request' })
  const model = selectSessionModel(lines)
  return { config: {}, now: DEFAULT_REPLAY_NOW, ops, ...(model !== null ? { model } : {}) }
}
