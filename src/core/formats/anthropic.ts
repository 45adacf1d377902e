/**
 * Anthropic Messages (`MessageParam`): intake into contract pieces (an assistant turn is one
 * piece, its `tool_use` blocks its tool calls; a user turn's `tool_result` blocks are tool
 * pieces and its other blocks one human-turn piece), provider-ready output `{system, messages}`,
 * the provider rules A1-A7, and the per-format validation of added messages.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import { assembleEntries, type AssembledMessage, type AssemblyCodec } from './assemble.js'
import {
  contentText,
  hasOtherParts,
  isStrippedOnly,
  joinTexts,
  parseArguments,
  pieceMetadata,
  toBlocks,
  toContractCalls,
  placeText,
  toConvertedText,
  withStrippedText,
  type NativeCarrier,
  type Piece,
} from './carrier.js'

/**
 * A `cache_control` breakpoint (Anthropic `CacheControlEphemeral`).
 *
 * @example
 * const cache: AnthropicCacheControl = { type: 'ephemeral', ttl: '1h' }
 */
export interface AnthropicCacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

/**
 * A text block (`TextBlockParam`).
 *
 * @example
 * const block: AnthropicTextBlock = { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }
 */
export interface AnthropicTextBlock {
  type: 'text'
  text: string
  cache_control?: AnthropicCacheControl | null
}

/**
 * An image block (`ImageBlockParam`, base64 or URL source).
 *
 * @example
 * const block: AnthropicImageBlock = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }
 */
export interface AnthropicImageBlock {
  type: 'image'
  source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string } | { type: 'url'; url: string }
  cache_control?: AnthropicCacheControl | null
}

/**
 * A `tool_use` block (`ToolUseBlockParam`): a tool call of an assistant turn.
 *
 * @example
 * const block: AnthropicToolUseBlock = { type: 'tool_use', id: 'toolu_1', name: 'grep', input: { q: 'x' } }
 */
export interface AnthropicToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
  cache_control?: AnthropicCacheControl | null
}

/**
 * A `tool_result` block (`ToolResultBlockParam`): the result of the call `tool_use_id`, in the
 * user turn after it.
 *
 * @example
 * const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok', is_error: false }
 */
export interface AnthropicToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>
  is_error?: boolean
  cache_control?: AnthropicCacheControl | null
}

/**
 * A `thinking` block with its signature (`ThinkingBlockParam`), or a `redacted_thinking` block.
 *
 * @example
 * const block: AnthropicThinkingBlock = { type: 'thinking', thinking: 'Let me check.', signature: 'EqQB...' }
 */
export type AnthropicThinkingBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string }

/**
 * An Anthropic content block. The types name the blocks this library reads; other blocks (server
 * tools, documents) pass through unchanged at run time.
 *
 * @example
 * const block: AnthropicBlock = { type: 'tool_use', id: 'toolu_1', name: 'grep', input: { q: 'x' } }
 */
export type AnthropicBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock | AnthropicThinkingBlock

/**
 * An Anthropic `MessageParam`: role `user` or `assistant`, content a string or blocks. Assignable
 * to the SDK's `MessageParam`.
 *
 * @example
 * const message: AnthropicMessage = { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }
 */
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: string | Array<AnthropicBlock>
}

/**
 * The provider-ready Anthropic request part: `system` (texts joined with a blank line, or text
 * blocks when any carries `cache_control`; absent when there is no system message) and
 * `messages`. Spreads into `client.messages.create({ model, max_tokens, ...view })`.
 *
 * @example
 * const view: AnthropicView = { system: 'You are terse.', messages: [{ role: 'user', content: 'hi' }] }
 */
export interface AnthropicView {
  system?: string | Array<AnthropicTextBlock>
  messages: Array<AnthropicMessage>
}

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'content'])

/** Tool-result content as text: a string as is, text blocks joined with `\n`. */
const toolResultText = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? joinTexts(content, ['text']) : '')

/**
 * The contract pieces of one (valid) Anthropic message: an assistant turn is one piece (text
 * joined with `\n`, `tool_use` blocks as `tool_calls`); a user turn with blocks gives one `tool`
 * piece per `tool_result` block (content: its text) and, when other blocks remain, one `user`
 * piece (a human turn) holding them; string content and system messages are one piece.
 *
 * @example
 * expandAnthropicMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }, { type: 'text', text: 'go on' }] }).map((p) => p.message.role) // => ['tool', 'user']
 */
export const expandAnthropicMessage = (message: Readonly<Record<string, unknown>>): ReadonlyArray<Piece> => {
  const content = message.content
  const single = (piece: Record<string, unknown>): ReadonlyArray<Piece> => [
    { message: { ...piece, metadata: pieceMetadata(message, { format: 'anthropic', blocks: null, parts: 1 }) }, blocks: null },
  ]
  if (message.role === 'system') return single({ role: 'system', content: contentText(content) })
  if (!Array.isArray(content)) return single({ role: message.role, content })
  if (message.role === 'assistant') {
    const calls = content
      .filter((block): block is Record<string, unknown> => isPlainObject(block) && block.type === 'tool_use')
      .map((block) => ({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }))
    const piece: Record<string, unknown> = { role: 'assistant', content: joinTexts(content, ['text']) }
    if (calls.length > 0) piece.tool_calls = calls
    const all = content.map((_, index) => index)
    return [{ message: { ...piece, metadata: pieceMetadata(message, { format: 'anthropic', blocks: all, parts: 1 }) }, blocks: all }]
  }
  const results: number[] = []
  const rest: number[] = []
  content.forEach((block, index) => (isPlainObject(block) && block.type === 'tool_result' ? results : rest).push(index))
  const parts = results.length + (rest.length > 0 ? 1 : 0)
  const pieces: Piece[] = results.map((index) => {
    const block = content[index] as Record<string, unknown>
    return {
      message: {
        role: 'tool',
        tool_call_id: block.tool_use_id,
        content: toolResultText(block.content),
        metadata: pieceMetadata(message, { format: 'anthropic', blocks: [index], parts }),
      },
      blocks: [index],
    }
  })
  if (rest.length > 0) {
    const text = joinTexts(rest.map((index) => content[index]), ['text'])
    pieces.push({ message: { role: message.role, content: text, metadata: pieceMetadata(message, { format: 'anthropic', blocks: rest, parts }) }, blocks: rest })
  }
  return pieces
}

/** A modified piece's blocks: truncated result text, or the stub in place of the text blocks. */
const rebuildBlocks = (piece: Message, carrier: NativeCarrier): ReadonlyArray<readonly [number, unknown]> => {
  const content = carrier.message.content as ReadonlyArray<unknown>
  const indices = carrier.blocks ?? []
  const text = typeof piece.content === 'string' ? piece.content : ''
  if (piece.role === 'tool' && indices.length === 1) {
    const block = content[indices[0]] as Record<string, unknown>
    if (isStrippedOnly(piece) && Array.isArray(block.content) && hasOtherParts(block.content, ['text'])) return [[indices[0], { ...block, content: withStrippedText(block.content, text, ['text']) }]]
    const others = Array.isArray(block.content) ? block.content.filter((inner) => !(isPlainObject(inner) && inner.type === 'text')) : []
    return [[indices[0], { ...block, content: others.length > 0 ? [{ type: 'text', text }, ...others] : text }]]
  }
  return placeText(content, indices, text)
}

/**
 * A contract message (or a piece of another format) as Anthropic messages. Never an empty
 * message or text block (the API refuses both): an assistant turn with no text and no calls
 * becomes its refusal text or nothing, an empty user turn nothing.
 */
const convertContract = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  if (piece.role === 'tool') {
    return [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: piece.tool_call_id, content: contentText(piece.content) }] }]
  }
  if (piece.role === 'assistant') {
    const calls = toContractCalls(piece)
    const text = toConvertedText(piece)
    if (calls.length === 0) {
      if (typeof piece.content === 'string' || text !== '') return text === '' ? [] : [{ role: 'assistant', content: text }]
      const blocks = toBlocks(piece.content).filter((block) => !(isPlainObject(block) && block.type === 'text' && block.text === ''))
      return blocks.length === 0 ? [] : [{ role: 'assistant', content: blocks }]
    }
    const blocks: unknown[] = text === '' ? [] : [{ type: 'text', text }]
    for (const call of calls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments) })
    return [{ role: 'assistant', content: blocks }]
  }
  const text = typeof piece.content === 'string' ? piece.content : contentText(piece.content)
  return text === '' ? [] : [{ role: 'user', content: text }]
}

/**
 * The Anthropic messages of each piece converted so far. Messages are immutable
 * (docs/architecture.md), and a view between compactions holds the same piece objects request
 * after request, so their messages are the same objects too: converting a view makes messages for
 * the new pieces only, and what the library does per view message afterwards (the cache
 * breakpoints' prefix fingerprints, ./anthropic-cache.ts; the manager's freezing) finds the
 * objects of the last view.
 */
const contractMessages = new WeakMap<Message, ReadonlyArray<Readonly<Record<string, unknown>>>>()

/** `convertContract`, memoised per piece (`contractMessages`). */
const fromContract = (piece: Message): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  let messages = contractMessages.get(piece)
  if (messages === undefined) {
    messages = convertContract(piece)
    contractMessages.set(piece, messages)
  }
  return messages
}

/**
 * The assembly codec of the Anthropic format (used by `toAnthropicView` and the estimator).
 *
 * @example
 * anthropicCodec.allowedKeys.has('cache_control') // false: only role and content on messages
 */
export const anthropicCodec: AssemblyCodec = { format: 'anthropic', allowedKeys: MESSAGE_KEYS, rebuildBlocks, fromContract }

/**
 * The turn two result-only turns merge into, per pair of turns merged so far: the turns of
 * converted pieces are the same objects from view to view (`contractMessages`), so a merge of them
 * is too (a turn of three results is the merge of a merge and a turn).
 */
const mergedTurns = new WeakMap<object, WeakMap<object, Readonly<Record<string, unknown>>>>()

const mergeTurns = (first: Readonly<Record<string, unknown>>, second: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  let merges = mergedTurns.get(first)
  if (merges === undefined) {
    merges = new WeakMap()
    mergedTurns.set(first, merges)
  }
  let merged = merges.get(second)
  if (merged === undefined) {
    merged = { ...first, content: [...(first.content as unknown[]), ...(second.content as unknown[])] }
    merges.set(second, merged)
  }
  return merged
}

/** Consecutive generated `user` messages made only of tool results are merged (one turn of results). */
const mergeResultTurns = (entries: ReadonlyArray<AssembledMessage>): Array<Readonly<Record<string, unknown>>> => {
  const out: AssembledMessage[] = []
  const onlyResults = (m: Readonly<Record<string, unknown>>): boolean =>
    m.role === 'user' && Array.isArray(m.content) && m.content.length > 0 && m.content.every((b) => isPlainObject(b) && b.type === 'tool_result')
  for (const entry of entries) {
    const last = out[out.length - 1]
    if (last !== undefined && last.generated && entry.generated && onlyResults(last.message) && onlyResults(entry.message)) {
      out[out.length - 1] = { message: mergeTurns(last.message, entry.message), generated: true }
    } else {
      out.push(entry)
    }
  }
  return out.map((entry) => entry.message)
}

/**
 * The provider-ready Anthropic view of a (contract-piece) view: every system message hoisted in
 * order into `system`, the rest as `MessageParam`s; untouched messages are the objects that were
 * added (only `role` and `content` kept); consecutive result-only user turns are merged. The
 * messages converted from contract pieces, and their merges, are the same objects on every call
 * for the same pieces (memoised per piece, as the pieces are immutable), so treat them as
 * read-only.
 *
 * @example
 * toAnthropicView([{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'hi' }])
 * // { system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] }
 */
export const toAnthropicView = (view: Messages): AnthropicView => {
  const systemBlocks: Array<Record<string, unknown>> = []
  const rest: Message[] = []
  for (const message of view) {
    if (message.role !== 'system') {
      rest.push(message)
      continue
    }
    const native = isPlainObject(message.metadata) && isPlainObject(message.metadata.native) ? message.metadata.native : null
    const source = native !== null && native.format === 'anthropic' && isPlainObject(native.message) ? native.message.content : message.content
    if (Array.isArray(source)) for (const block of source) systemBlocks.push(isPlainObject(block) ? { ...block } : { type: 'text', text: String(block) })
    else systemBlocks.push({ type: 'text', text: contentText(source) })
  }
  const messages = mergeResultTurns(assembleEntries(rest, anthropicCodec)) as unknown as Array<AnthropicMessage>
  if (systemBlocks.length === 0) return { messages }
  const cached = systemBlocks.some((block) => isTruthy(block.cache_control))
  return { system: cached ? (systemBlocks as unknown as AnthropicTextBlock[]) : systemBlocks.map((block) => contentText([block])).join('\n\n'), messages }
}

const blocksOf = (content: unknown): ReadonlyArray<Readonly<Record<string, unknown>>> =>
  toBlocks(content).filter((block): block is Readonly<Record<string, unknown>> => isPlainObject(block))

interface Turn {
  readonly role: unknown
  readonly blocks: Array<Readonly<Record<string, unknown>>>
  /** The index of its first message. */
  readonly start: number
}

/**
 * An Anthropic rule check kept for the next one (`findAnthropicViolations`): the messages
 * checked, the problems of each message (A1, A7, A8; `messageEnds[i]` is how many problems the
 * messages up to `i` have), the turns (consecutive same-role messages), the problems of each turn
 * (A2, A3, A4, A9; `turnEnds` likewise) and how many times each `tool_use` id appeared in them
 * (A4). A check of a view that starts with the same message objects (messages are immutable,
 * docs/architecture.md) keeps what they decided and checks the rest; the same problems in the same
 * order as a check from nothing.
 *
 * @example
 * const walk: AnthropicCheckWalk = makeAnthropicCheckWalk()
 */
export interface AnthropicCheckWalk {
  readonly messages: unknown[]
  readonly messageEnds: number[]
  readonly messageProblems: string[]
  readonly turns: Turn[]
  readonly turnEnds: number[]
  readonly turnProblems: string[]
  readonly seen: Map<unknown, number>
}

/**
 * A check with nothing checked yet.
 *
 * @example
 * makeAnthropicCheckWalk().messages.length // => 0
 */
export const makeAnthropicCheckWalk = (): AnthropicCheckWalk => ({ messages: [], messageEnds: [], messageProblems: [], turns: [], turnEnds: [], turnProblems: [], seen: new Map() })

/**
 * Options of the Anthropic rule check: `thinkingSource`, the canonical JSON (keys sorted) of
 * every thinking block the agent really sent; when given, A6 requires each thinking block of the
 * view to be one of them. `anthropicWalk`: the last check, resumed and updated (not used with
 * `thinkingSource`).
 *
 * @example
 * const options: AnthropicCheckOptions = { thinkingSource: new Set([canonicalJson({ type: 'thinking', thinking: 'x', signature: 's' })]) }
 */
export interface AnthropicCheckOptions {
  readonly thinkingSource?: ReadonlySet<string>
  readonly anthropicWalk?: AnthropicCheckWalk
}

/**
 * JSON with object keys sorted at every level (Python's `json.dumps(sort_keys=True)` key order;
 * separators differ, so compare only canonicalJson with canonicalJson).
 *
 * @example
 * canonicalJson({ b: 1, a: [2] }) // => '{"a":[2],"b":1}'
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isPlainObject(value)) return `{${Object.keys(value).sort().filter((key) => value[key] !== undefined).map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

/**
 * The Anthropic rule violations of a view (`validate_formats.py --format anthropic`): A1 roles
 * user/assistant only; A2 every `tool_use` of an assistant turn answered by a `tool_result` in
 * the user turn right after it, results before other blocks there; A3 every `tool_result`
 * answers a `tool_use` of the turn before; A4 `tool_use` ids unique; A5 the first turn is a user
 * turn; A6 thinking blocks verbatim from `options.thinkingSource` (when given); A8 no empty content
 * (`''`, `[]`, an empty text block); A9 one `tool_result` per `tool_use`; A7 only `role`
 * and `content` on messages. Consecutive same-role messages are one turn (as the API merges
 * them); an open group at the very end (results still arriving) is tolerated. Accepts the
 * `{system, messages}` view or a bare message list. Each problem starts with its rule code.
 *
 * @example
 * findAnthropicViolations({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] }] })
 * // ['A3 tool_result x in turn 0 answers no tool_use of the turn before']
 */
export const findAnthropicViolations = (view: unknown, options: AnthropicCheckOptions = {}): ReadonlyArray<string> => {
  const messages: unknown = isPlainObject(view) ? view.messages : view
  if (!Array.isArray(messages)) return ['A1 view has no messages list']
  const walk = options.thinkingSource === undefined && options.anthropicWalk !== undefined ? options.anthropicWalk : makeAnthropicCheckWalk()
  const changed = resumeMessageChecks(walk, messages)
  // The turn holding message `changed - 1` may grow by the messages after it: it is rebuilt.
  let rebuilt = walk.turns.length
  while (rebuilt > 0 && walk.turns[rebuilt - 1].start >= changed) rebuilt -= 1
  if (rebuilt > 0) rebuilt -= 1
  const from = rebuilt > 0 || (walk.turns.length > 0 && walk.turns[0].start < changed) ? walk.turns[rebuilt].start : 0
  // A turn's problems read the turns before and after it and whether two more follow.
  const kept = Math.max(0, rebuilt - 2)
  forgetTurnChecks(walk, kept)
  rebuildTurns(walk, messages, rebuilt, from)
  for (let t = kept; t < walk.turns.length; t += 1) {
    checkTurn(walk, t, options.thinkingSource)
    walk.turnEnds.push(walk.turnProblems.length)
  }
  const first = walk.turns.length > 0 && walk.turns[0].role !== 'user' ? ['A5 first turn is not user'] : []
  return [...walk.messageProblems, ...first, ...walk.turnProblems]
}

/** What a walk holds for a hole of a sparse message list: equal to no message. */
const HOLE = Symbol('hole')

/** Keeps the message checks of the messages `messages` starts with, checks the rest (A1, A7, A8); the index of the first message checked. */
const resumeMessageChecks = (walk: AnthropicCheckWalk, messages: ReadonlyArray<unknown>): number => {
  let same = 0
  const shared = Math.min(walk.messages.length, messages.length)
  while (same < shared && walk.messages[same] === messages[same] && same in messages) same += 1
  walk.messages.length = same
  walk.messageEnds.length = same
  walk.messageProblems.length = same > 0 ? walk.messageEnds[same - 1] : 0
  for (let index = same; index < messages.length; index += 1) {
    const problems = walk.messageProblems
    if (!(index in messages)) {
      // a hole of a sparse list: not a message (as forEach skips it); never the same as the next view's
      walk.messages.push(HOLE)
      walk.messageEnds.push(problems.length)
      continue
    }
    const m = isPlainObject(messages[index]) ? (messages[index] as Readonly<Record<string, unknown>>) : {}
    if (m.role !== 'user' && m.role !== 'assistant') problems.push(`A1 message ${index} role ${JSON.stringify(m.role ?? null)}`)
    const extra = Object.keys(m).filter((key) => !MESSAGE_KEYS.has(key))
    if (extra.length > 0) problems.push(`A7 message ${index} extra keys ${extra.sort().join(', ')}`)
    if (m.content === '' || (Array.isArray(m.content) && m.content.length === 0)) problems.push(`A8 message ${index} has empty content`)
    blocksOf(m.content).forEach((block, b) => {
      if (Array.isArray(m.content) && block.type === 'text' && block.text === '') problems.push(`A8 message ${index} block ${b} is an empty text block`)
    })
    walk.messages.push(messages[index])
    walk.messageEnds.push(problems.length)
  }
  return same
}

/** Drops the problems of the turns from `kept` on and their `tool_use` ids from `seen`. */
const forgetTurnChecks = (walk: AnthropicCheckWalk, kept: number): void => {
  for (let t = kept; t < walk.turnEnds.length; t += 1) {
    if (walk.turns[t].role !== 'assistant') continue
    for (const id of toolUseIds(walk.turns[t])) {
      const count = (walk.seen.get(id) ?? 0) - 1
      if (count > 0) walk.seen.set(id, count)
      else walk.seen.delete(id)
    }
  }
  if (walk.turnEnds.length > kept) {
    walk.turnEnds.length = kept
    walk.turnProblems.length = kept > 0 ? walk.turnEnds[kept - 1] : 0
  }
}

/** The turns from `rebuilt` on made again from the messages from `from` on (consecutive same-role messages are one turn). */
const rebuildTurns = (walk: AnthropicCheckWalk, messages: ReadonlyArray<unknown>, rebuilt: number, from: number): void => {
  walk.turns.length = rebuilt
  for (let index = from; index < messages.length; index += 1) {
    if (!(index in messages)) continue
    const m = isPlainObject(messages[index]) ? (messages[index] as Readonly<Record<string, unknown>>) : {}
    const last = walk.turns[walk.turns.length - 1]
    if (last !== undefined && last.role === m.role) last.blocks.push(...blocksOf(m.content))
    else walk.turns.push({ role: m.role, blocks: [...blocksOf(m.content)], start: index })
  }
}

const toolUseIds = (turn: Turn): ReadonlyArray<unknown> => turn.blocks.filter((block) => block.type === 'tool_use').map((block) => block.id)

/** The problems of turn `t` (A2, A3, A4 with `seen`, A6, A9), appended to `walk.turnProblems`. */
const checkTurn = (walk: AnthropicCheckWalk, t: number, thinkingSource: ReadonlySet<string> | undefined): void => {
  const { turns, turnProblems: problems, seen } = walk
  const turn = turns[t]
  if (turn.role === 'assistant') {
    const ids = toolUseIds(turn)
    for (const id of ids) {
      const count = seen.get(id) ?? 0
      if (count > 0) problems.push(`A4 duplicate tool_use id ${String(id)}`)
      seen.set(id, count + 1)
    }
    if (thinkingSource !== undefined) {
      for (const block of turn.blocks) {
        if ((block.type === 'thinking' || block.type === 'redacted_thinking') && !thinkingSource.has(canonicalJson(block))) {
          problems.push(`A6 turn ${t} has a thinking block not found verbatim in the source`)
        }
      }
    }
    if (ids.length === 0 || t + 1 >= turns.length) return
    const next = turns[t + 1]
    const answered = new Set(next.blocks.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id))
    const missing = ids.filter((id) => !answered.has(id))
    if (missing.length > 0 && t + 2 < turns.length) problems.push(`A2 tool_use ${missing.slice(0, 3).map(String).join(', ')} of turn ${t} unanswered in the next turn`)
    const kinds = next.blocks.map((block) => block.type === 'tool_result')
    const lastResult = kinds.lastIndexOf(true)
    const firstOther = kinds.indexOf(false)
    if (lastResult >= 0 && firstOther >= 0 && firstOther < lastResult) problems.push(`A2 turn ${t + 1} has other blocks before its tool_result blocks`)
    return
  }
  const previous = t > 0 && turns[t - 1].role === 'assistant' ? new Set(toolUseIds(turns[t - 1])) : new Set<unknown>()
  const results = new Set<unknown>()
  for (const block of turn.blocks) {
    if (block.type !== 'tool_result') continue
    if (!previous.has(block.tool_use_id)) problems.push(`A3 tool_result ${String(block.tool_use_id)} in turn ${t} answers no tool_use of the turn before`)
    if (results.has(block.tool_use_id)) problems.push(`A9 tool_use ${String(block.tool_use_id)} answered twice in turn ${t}`)
    results.add(block.tool_use_id)
  }
}

/**
 * A reason an added message is not a valid Anthropic message: the path below the message
 * (`.content[1].tool_use_id`) and what is wrong. Null when valid. Roles `user`, `assistant` and
 * (for convenience; hoisted into `system`) `system`.
 *
 * @example
 * validateAnthropicMessage({ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'a' }] })
 * // { path: '.content[0]', detail: 'a tool_result block belongs in a user turn, not in an assistant turn' }
 */
export const validateAnthropicMessage = (message: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | null => {
  const role = message.role
  if (role !== 'user' && role !== 'assistant' && role !== 'system') return { path: '.role', detail: `expected "user" or "assistant" (or "system", hoisted into the request's system), got ${JSON.stringify(role ?? null)}` }
  const content = message.content
  if (typeof content === 'string') return null
  if (!Array.isArray(content)) return { path: '.content', detail: 'expected a string or an array of content blocks' }
  for (let i = 0; i < content.length; i += 1) {
    const block: unknown = content[i]
    const at = `.content[${i}]`
    if (!isPlainObject(block) || typeof block.type !== 'string') return { path: at, detail: 'expected a content block object with a string "type"' }
    if (block.type === 'tool_use') {
      if (role !== 'assistant') return { path: at, detail: `a tool_use block belongs in an assistant turn, not in a ${String(role)} turn` }
      if (typeof block.id !== 'string' || block.id === '') return { path: `${at}.id`, detail: 'a tool_use block needs a non-empty string id' }
      if (typeof block.name !== 'string' || block.name === '') return { path: `${at}.name`, detail: 'a tool_use block needs a non-empty string name' }
    } else if (block.type === 'tool_result') {
      if (role !== 'user') return { path: at, detail: `a tool_result block belongs in a user turn, not in an ${String(role)} turn` }
      if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') return { path: `${at}.tool_use_id`, detail: 'a tool_result block needs the non-empty string tool_use_id of its call' }
    } else if (block.type === 'text' && typeof block.text !== 'string') {
      return { path: `${at}.text`, detail: 'a text block needs a string text' }
    }
  }
  return null
}
