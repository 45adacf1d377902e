/**
 * The per-request toolkit compaction code shares: configuration, the estimator, and memoized
 * derivations (truncation, stubs). It holds no mutable state of its own: a function that needs
 * the spills its truncations ask for wraps it with `collectSpills` and returns them.
 */
import type { Config } from '../config.js'
import type { TokenEstimator } from '../deps.js'
import type { Message, Messages } from '../messages/message.js'
import { isExemptToolResult, resolveToolResultBudget, toToolName, truncateToolResult, type SpillRequest, type Truncation } from '../tool-results/tool-result-budget.js'
import { isPlainObject } from '../messages/values.js'
import type { DerivationMemo } from '../memo/derivation-memo.js'
import { toMessageHandles, type MessageHandles } from './reference-order.js'
import { toStub } from './stub.js'
import { selectAnchorPredicate } from './anchors.js'
import { isJsonProjection, resumeFrozenNamedKeys, toJsonProjectionText } from '../tool-results/json-projection.js'
import { toJsonHandlesText, toJsonHandleValuesText } from '../tool-results/json-handles.js'
import { codePointLength, fmtInt } from '../messages/text.js'

/**
 * What a compaction pass works with: config, estimator, the call-id → tool-name map, memoized
 * `truncate`/`stub` and `truncation` (the truncated form with the spill it asks for, SPEC 11.5).
 * `estimate` returns tokens; `truncate` records a spill only in a context made by `collectSpills`.
 *
 * @example
 * const context: PassContext = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 */
export interface PassContext {
  readonly config: Config
  readonly estimate: TokenEstimator
  readonly toolNames: Readonly<Record<string, string>>
  readonly truncate: (message: Message) => Message
  /** The truncated form `truncate` would give, without recording its spill (for measuring). */
  readonly truncatedForm: (message: Message) => Message
  readonly stub: (message: Message) => Message
  /** The memoized truncation of a message: its truncated form and the spill it asks for (or null). */
  readonly truncation: (message: Message) => Truncation
  /**
   * A tool result truncated to its first `chars` code points (a recorded head, `StickySets.heads` in
   * src/core/compaction/sticky.ts): the truncation header, the head, `...`; records its spill
   * like `truncate`. Unchanged when the content is not a string, the tool is exempt or it fits.
   */
  readonly truncateTo: (message: Message, chars: number) => Message
  /** The truncation `truncateTo` gives, with its spill (or null), without recording it. */
  readonly headTruncation: (message: Message, chars: number) => Truncation
  /** The messages first/last-user protections anchor on (`human_anchors`, docs/configuration.md). */
  readonly isAnchor: (message: Message) => boolean
  /** Spill paths never pointed at again (SPEC 17.9; the state's `spillFailed`). */
  readonly failedSpills: ReadonlySet<string>
  /**
   * The handles of a message (`compaction_order: "least_referenced"`, src/core/compaction/reference-order.ts),
   * scanned once and kept from one ladder run to the next for the messages both rank (`DerivationMemo.rankedHandles`).
   */
  readonly handles: (message: Message) => MessageHandles
  /**
   * Under `tool_result_json_projection: "named_keys"`, for each JSON tool result of the history
   * that is no longer one of the last `protected_tool_results`, the key names named by then
   * (`toFrozenNamedKeys`, src/core/tool-results/json-projection.ts): it is truncated to its
   * fields under them. Empty otherwise.
   */
  readonly namedKeys: ReadonlyMap<Message, ReadonlySet<string>>
  /**
   * Whether a message is a JSON record for the early pass (src/core/compaction/early-pass.ts): a
   * tool result in a JSON projection's form, or whose truncated form is one. Under `"handles"` /
   * `"handle_values"` (forms that depend on the content and the tool's name, which exempts a
   * result or sets its budget) memoized per message with its tool name (`DerivationMemo.records`;
   * a call id used again renames the tool), so a request parses only the results added since the last.
   */
  readonly isRecord: (message: Message) => boolean
}

const NO_KEYS: ReadonlyMap<Message, ReadonlySet<string>> = new Map()

/**
 * A pass context over `memo` for one request.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 */
export const makePassContext = (
  config: Config,
  estimate: TokenEstimator,
  toolNames: Readonly<Record<string, string>>,
  memo: DerivationMemo,
  failedSpills: ReadonlySet<string> = new Set(),
  history: Messages = [],
): PassContext => {
  const namedKeys = config.tool_result_json_projection === 'named_keys' ? resumeNamedKeys(memo, history, config.protected_tool_results) : NO_KEYS
  const projection = config.tool_result_json_projection
  const handlesForm = projection === 'handles' || projection === 'handle_values'
  const derive = (message: Message): Truncation => {
    if (handlesForm && message.role === 'tool' && !isExemptToolResult(message, config, toolNames)) {
      const projected = toHandlesProjection(message, memo, projection === 'handle_values')
      if (projected !== null) return projected
    }
    const keys = namedKeys.get(message)
    if (keys !== undefined && !isExemptToolResult(message, config, toolNames)) {
      const projected = toProjection(message, keys, memo, resolveToolResultBudget(message, config, toolNames).budgetChars)
      if (projected !== null) return projected
    }
    const toolName = toToolName(message, toolNames)
    const cached = memo.truncation.get(message)
    // A cached pointer to a path whose write failed since is stale (SPEC 17.9); so is a truncation
    // left without a pointer because its path had failed, under another set of failed paths (a
    // state from before the failure, or after a reset).
    const stale =
      cached !== undefined &&
      (cached.result.spill !== null ? failedSpills.has(cached.result.spill.path) : cached.pathFailed && cached.failedSpills !== failedSpills)
    if (cached !== undefined && cached.toolName === toolName && !stale) return cached.result
    const result = truncateToolResult(message, config, toolNames, failedSpills)
    const pathFailed = config.tool_result_spill_dir !== null && result.spill === null && result.message !== message
    memo.truncation.set(message, { toolName, result, pathFailed, failedSpills })
    return result
  }
  const truncatedForm = (message: Message): Message => derive(message).message
  const stub = memoizeBy(memo.stub, toStub)
  const handles = rankHandles(memo)
  const headTruncation = (message: Message, chars: number): Truncation => {
    const cached = memo.headCut.get(message)
    if (cached !== undefined && cached.chars === chars && cached.failedSpills === failedSpills) return cached.result
    const result = truncateToolResult(message, { ...config, ...toHeadKeys(chars) }, toolNames, failedSpills)
    memo.headCut.set(message, { chars, failedSpills, result })
    return result
  }
  const truncateTo = (message: Message, chars: number): Message => headTruncation(message, chars).message
  const isRecord = (message: Message): boolean => {
    if (message.role !== 'tool' || projection === 'off') return false
    // The form depends on the content and on the tool's name (exempt tools, per-tool budgets): a reused call id renames a result's tool.
    const memoized = projection !== 'named_keys'
    const toolName = toToolName(message, toolNames)
    const cached = memoized ? memo.records.get(message) : undefined
    if (cached !== undefined && cached.toolName === toolName) return cached.record
    const record = isJsonProjection(message) || isJsonProjection(truncatedForm(message))
    if (memoized) memo.records.set(message, { toolName, record })
    return record
  }
  return { config, estimate, toolNames, truncate: truncatedForm, truncatedForm, stub, truncation: derive, truncateTo, headTruncation, isAnchor: selectAnchorPredicate(config), failedSpills, handles, namedKeys, isRecord }
}

/** The keys that make `truncateToolResult` cut a head of `chars` code points (SPEC 11.2's head shape, no per-tool budget). */
const toHeadKeys = (chars: number): Pick<Config, 'truncate_chars' | 'tool_result_budget_tokens' | 'tool_result_budget_by_tool' | 'tool_result_truncation'> => ({
  truncate_chars: chars,
  tool_result_budget_tokens: null,
  tool_result_budget_by_tool: {},
  tool_result_truncation: 'head',
})

/**
 * The frozen named-key sets of `history` (`toFrozenNamedKeys`), resuming the memo's last walk
 * when `history` extends the history it walked (a request reads only the messages added since,
 * and its second pass context, in the finish stage, none), else walking from the start.
 */
const resumeNamedKeys = (memo: DerivationMemo, history: Messages, later: number): ReadonlyMap<Message, ReadonlySet<string>> => {
  const walk = resumeFrozenNamedKeys(memo.namedKeys, history, later)
  memo.namedKeys = walk
  return walk.frozen
}

/**
 * The named-fields truncation of a JSON tool result (`tool_result_json_projection`,
 * src/core/tool-results/json-projection.ts): the truncation header, then the compact JSON of its
 * fields under `keys`; memoized per message and key set. Null when the message is not a JSON
 * tool result or nothing shorter is kept (the contract's truncation then applies).
 */
const toProjection = (message: Message, keys: ReadonlySet<string>, memo: DerivationMemo, budgetChars: number): Truncation | null => {
  const signature = [...keys].join('\u0000')
  const cached = memo.projection.get(message)
  if (cached !== undefined && cached.signature === signature) return cached.result
  const found = toJsonProjectionText(message, keys)
  const text = found !== null && codePointLength(found) <= budgetChars ? found : null
  const result = text === null ? null : toProjectedTruncation(message, text)
  memo.projection.set(message, { signature, result })
  return result
}

/**
 * The handles form (`tool_result_json_projection: "handles"`, or without key names under
 * `"handle_values"`; src/core/tool-results/json-handles.ts) as a truncation, memoized per message;
 * null when the result is not a record.
 */
const toHandlesProjection = (message: Message, memo: DerivationMemo, valuesOnly: boolean): Truncation | null => {
  const signature = valuesOnly ? HANDLE_VALUES_SIGNATURE : HANDLES_SIGNATURE
  const cached = memo.projection.get(message)
  if (cached !== undefined && cached.signature === signature) return cached.result
  const form = valuesOnly ? toJsonHandleValuesText : toJsonHandlesText
  const text = typeof message.content === 'string' ? form(message.content) : null
  const result = text === null ? null : toProjectedTruncation(message, text)
  memo.projection.set(message, { signature, result })
  return result
}

/** The signatures of the handles forms in `memo.projection` (a named-keys signature joins key names with NUL, so it never equals these). */
const HANDLES_SIGNATURE = '\u0001handles'
const HANDLE_VALUES_SIGNATURE = '\u0001handle_values'

/** A projected form as a truncation: the truncation header (the original size), then `text`. */
const toProjectedTruncation = (message: Message, text: string): Truncation => {
  const originalTokens = typeof message.content === 'string' ? Math.floor(codePointLength(message.content) / 4) : 0
  return { message: { ...message, content: `[truncated: ~${fmtInt(originalTokens)} tokens - call tool again if needed] ${text}`, _truncated: true, _original_tokens: originalTokens }, spill: null }
}

/**
 * Handles through `memo.rankedHandles`: the first call of a context starts a new generation, into
 * which each read moves (or computes) its entry, so the memo keeps only the last run's messages.
 */
const rankHandles = (memo: DerivationMemo): ((message: Message) => MessageHandles) => {
  let current: Map<Message, MessageHandles> | null = null
  let previous: ReadonlyMap<Message, MessageHandles> = memo.rankedHandles
  return (message) => {
    if (current === null) {
      previous = memo.rankedHandles
      current = new Map()
      memo.rankedHandles = current
    }
    const result = current.get(message) ?? previous.get(message) ?? toMessageHandles(message)
    current.set(message, result)
    return result
  }
}

/** `derive` read through `table`: computed once per message object (messages are immutable). */
const memoizeBy =
  <T>(table: WeakMap<Message, T>, derive: (message: Message) => T) =>
  (message: Message): T => {
    const cached = table.get(message)
    if (cached !== undefined) return cached
    const result = derive(message)
    table.set(message, result)
    return result
  }

/**
 * A context whose `truncate` records the spill of each truncation it makes, and `spills()`: the
 * spills recorded so far, one per path, in the order first asked for (SPEC 11.5). The record is
 * the caller's own (one per derivation), returned by it; `seed` spills come first.
 *
 * @example
 * const collector = collectSpills(makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo()))
 * collector.spills() // => []
 */
export const collectSpills = (context: PassContext, seed: ReadonlyArray<SpillRequest> = []): { readonly context: PassContext; readonly spills: () => ReadonlyArray<SpillRequest> } => {
  // The record is made at the first spill: a derivation without seed that spills nothing (the usual request) allocates none.
  let spills: Map<string, SpillRequest> | null = null
  const record = (result: Truncation): Message => {
    if (result.spill !== null) {
      spills ??= toSpillMap(seed)
      spills.set(result.spill.path, result.spill)
    }
    return result.message
  }
  const truncate = (message: Message): Message => record(context.truncation(message))
  const truncateTo = (message: Message, chars: number): Message => record(context.headTruncation(message, chars))
  return { context: { ...context, truncate, truncateTo }, spills: () => (spills !== null ? [...spills.values()] : seed.length === 0 ? NO_SPILLS : [...toSpillMap(seed).values()]) }
}

const NO_SPILLS: ReadonlyArray<SpillRequest> = Object.freeze([])

/** `seed` by path, the last of a path winning, in the order first asked for. */
const toSpillMap = (seed: ReadonlyArray<SpillRequest>): Map<string, SpillRequest> => {
  const spills = new Map<string, SpillRequest>()
  for (const spill of seed) spills.set(spill.path, spill)
  return spills
}

/**
 * The spills of `lists`, one per path, in the order first asked for (the last request of a path
 * wins, SPEC 11.5): the union of what several derivations of one request asked for.
 *
 * @example
 * mergeSpills([[{ directory: '/s', path: '/s/a', content: 'x' }], [{ directory: '/s', path: '/s/a', content: 'x' }]]).length // => 1
 */
export const mergeSpills = (lists: ReadonlyArray<ReadonlyArray<SpillRequest>>): ReadonlyArray<SpillRequest> => {
  if (lists.every((list) => list.length === 0)) return NO_SPILLS
  const spills = new Map<string, SpillRequest>()
  for (const list of lists) for (const spill of list) spills.set(spill.path, spill)
  return [...spills.values()]
}

/**
 * The message as a view carries it (SPEC 1.6): `metadata` without `_seq`, memoized per message.
 *
 * @example
 * stripMessage({ role: 'user', metadata: { _seq: 0 } }, makeDerivationMemo()) // => { role: 'user', metadata: {} }
 */
export const stripMessage = (message: Message, memo: DerivationMemo): Message => {
  const metadata = message.metadata
  if (!isPlainObject(metadata) || !Object.prototype.hasOwnProperty.call(metadata, '_seq')) return message
  const cached = memo.stripped.get(message)
  if (cached !== undefined) return cached
  const { _seq: _dropped, ...rest } = metadata
  const stripped = { ...message, metadata: rest }
  memo.stripped.set(message, stripped)
  return stripped
}
