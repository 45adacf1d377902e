/**
 * The per-request toolkit compaction code shares: configuration, the estimator, and memoized
 * derivations (truncation, stubs) that also collect the spills a request needs.
 */
import type { Config } from '../config.js'
import type { TokenEstimator } from '../deps.js'
import type { Message, Messages } from '../messages/message.js'
import { toToolName, truncateToolResult, type SpillRequest, type Truncation } from '../tool-results/tool-result-budget.js'
import { isPlainObject } from '../messages/values.js'
import type { WorkingEntry } from '../incremental/working.js'
import { toStub } from './stub.js'
import { selectAnchorPredicate } from './anchors.js'

/**
 * A memoized truncation (SPEC 11.2): the tool name and the failed spill paths it was derived
 * under, its result, and whether its spill path was one of the failed ones (so it carries no
 * pointer).
 *
 * @example
 * const entry: TruncationEntry = { toolName: 'grep', result: { message, spill: null }, pathFailed: false, failedSpills: new Set() }
 */
export interface TruncationEntry {
  readonly toolName: string | null
  readonly result: Truncation
  readonly pathFailed: boolean
  readonly failedSpills: ReadonlySet<string>
}

/**
 * Memo tables for pure per-message derivations. Messages are immutable, so a derivation computed
 * once for a message object is reused by every later request (no re-copy, no re-estimate).
 * Tables are WeakMaps keyed by message (or stats) objects; one memo per `makeStep` reducer.
 *
 * @example
 * const memo: DerivationMemo = makeDerivationMemo()
 */
export interface DerivationMemo {
  readonly truncation: WeakMap<Message, TruncationEntry>
  readonly stub: WeakMap<Message, Message>
  readonly stripped: WeakMap<Message, Message>
  /** The notice of a stats object: built once per accepted pass, shared by every later view. */
  readonly notice: WeakMap<object, Message | null>
  /** The factory's system message for the last prompt text seen. */
  factoryMessage: Message | null
  /** Lineage tokens: histories made from one another by appends share one (`recordAppend`, issue 14). */
  readonly lineage: WeakMap<Messages, object>
  /** What the last request derived from its history (`selectWorking`), extended by the next one. */
  working: WorkingEntry | null
  /** Media counts per message for the meter stats of `token_estimator` typed/tokenizer (issue 12). */
  readonly media: WeakMap<Message, { readonly media: number; readonly unmeasured: number }>
}

/**
 * Fresh, empty memo tables (one per reducer, see `makeStep`).
 *
 * @example
 * makeDerivationMemo().stub.has({ role: 'user' }) // false
 */
export const makeDerivationMemo = (): DerivationMemo => ({
  media: new WeakMap(),
  truncation: new WeakMap(),
  stub: new WeakMap(),
  stripped: new WeakMap(),
  notice: new WeakMap(),
  factoryMessage: null,
  lineage: new WeakMap(),
  working: null,
})

/**
 * What a compaction pass works with: config, estimator, the call-id → tool-name map, memoized
 * `truncate`/`stub`, and the spills requested so far in this request (by path).
 * `estimate` returns tokens; `truncate` records a spill in `spills` when it spills (SPEC 11.5).
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
  /** The messages first/last-user protections anchor on (`human_anchors`, issue 12). */
  readonly isAnchor: (message: Message) => boolean
  readonly spills: Map<string, SpillRequest>
  /** Spill paths never pointed at again (SPEC 17.9; the state's `spillFailed`). */
  readonly failedSpills: ReadonlySet<string>
}

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
): PassContext => {
  const spills = new Map<string, SpillRequest>()
  const derive = (message: Message): Truncation => {
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
  const truncate = (message: Message): Message => {
    const result = derive(message)
    if (result.spill !== null) spills.set(result.spill.path, result.spill)
    return result.message
  }
  const truncatedForm = (message: Message): Message => derive(message).message
  const stub = (message: Message): Message => {
    const cached = memo.stub.get(message)
    if (cached !== undefined) return cached
    const result = toStub(message)
    memo.stub.set(message, result)
    return result
  }
  return { config, estimate, toolNames, truncate, truncatedForm, stub, isAnchor: selectAnchorPredicate(config), spills, failedSpills }
}



/**
 * The message as a view carries it (SPEC 1.6): `metadata` without `_seq`, memoized per message.
 *
 * @example
 * stripMessage({ role: 'user', metadata: { _seq: 0 } }, makeDerivationMemo()) // { role: 'user', metadata: {} }
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
