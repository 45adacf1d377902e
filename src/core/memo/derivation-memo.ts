/**
 * The derivation memo: per-reducer tables of pure per-message derivations and what the last
 * request derived from its history, shared by compaction/, incremental/ and the request stages.
 * It sits below them: it holds their results and imports none of their code.
 */
import type { NamedKeysWalk } from '../tool-results/json-projection.js'
import type { Message, Messages } from '../messages/message.js'
import type { StickyState } from '../state.js'
import type { SpillRequest, Truncation } from '../tool-results/tool-result-budget.js'
import { makeHistoryWalks, type HistoryWalks } from '../formats/input-rules.js'
import type { MessageHandles } from '../compaction/reference-order.js'
import type { ReasoningPrefix } from '../formats/openai-responses.js'
import { makePrefixHashes, type PrefixHashes } from '../formats/anthropic-cache.js'

/**
 * A stripped view and its estimate (tokens), as sent.
 *
 * @example
 * const plain: StrippedView = { view: [{ role: 'user', content: 'hi', metadata: {} }], tokens: 3 }
 */
export interface StrippedView {
  readonly view: Messages
  readonly tokens: number
  /** When this view was made by appending to another (src/core/incremental/working.ts): that view, whose items are this one's leading items (the same objects). */
  readonly prefix?: Messages
}

/**
 * The sticky-applied list `S ++ applySticky(N)` (SPEC 17.1) for one set of sticky decisions and
 * tool names: the system messages S of W and their estimate, the re-applied non-system messages
 * N' and their estimate (tokens, as stored, with `_seq`), the list, the spills its truncations
 * asked for (in order), and its stripped view with that view's estimate.
 *
 * @example
 * const applied: AppliedView = {
 *   sticky: EMPTY_STICKY, toolNames: {}, failedSpills: new Set(), system: [], systemTokens: 0, stickyApplied: [], stickyTokens: 0, list: [], spills: [], view: [], tokens: 0,
 * }
 */
export interface AppliedView extends StrippedView {
  readonly sticky: StickyState
  readonly toolNames: Readonly<Record<string, string>>
  readonly failedSpills: ReadonlySet<string>
  readonly system: Messages
  readonly systemTokens: number
  readonly stickyApplied: Messages
  readonly stickyTokens: number
  readonly list: Messages
  readonly spills: ReadonlyArray<SpillRequest>
}

/**
 * What one request derived from `history` (and the system prompt): the working list W (SPEC 2.3
 * step 4) and its estimate (tokens), plus the views derived from it, filled in as the request
 * needs them. One entry per reducer, replaced by every request; never visible outside the memo.
 *
 * @example
 * const entry: WorkingEntry = { history: [], systemPrompt: null, working: [], tokens: 0, plain: null, applied: null }
 */
export interface WorkingEntry {
  readonly history: Messages
  readonly systemPrompt: string | null
  readonly working: Messages
  readonly tokens: number
  plain: StrippedView | null
  applied: AppliedView | null
  media?: MediaCounts
  /** The Responses reasoning W's last user message ends the billing of (`selectReasoningPrefix`, docs/contract.md 17.13). */
  reasoning?: ReasoningPrefix
}

/**
 * Media items in W and how many of them no estimator could measure (docs/configuration.md,
 * `token_estimator`).
 *
 * @example
 * const counts: MediaCounts = { media: 2, unmeasured: 1 }
 */
export interface MediaCounts {
  readonly media: number
  readonly unmeasured: number
}

/**
 * A memoized truncation (SPEC 11.2): the tool name and the failed spill paths it was derived
 * under, its result, and whether its spill path was one of the failed ones (so it carries no
 * pointer).
 *
 * @example
 * const message: Message = { role: 'tool', tool_call_id: 'a', content: '[truncated: ~1,250 tokens - call tool again if needed] match 1 ...' }
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
  /** The named-fields truncation of a JSON tool result under one set of named keys (`tool_result_json_projection`), null when none. */
  readonly projection: WeakMap<Message, { readonly signature: string; readonly result: Truncation | null }>
  readonly stub: WeakMap<Message, Message>
  /** The last head cut of a tool result (`PassContext.truncateTo`): its length in code points, the failed spill paths it was derived under, and the truncation. */
  readonly headCut: WeakMap<Message, { readonly chars: number; readonly failedSpills: ReadonlySet<string>; readonly result: Truncation }>
  readonly stripped: WeakMap<Message, Message>
  /** The notice of a stats object: built once per accepted pass, shared by every later view. */
  readonly notice: WeakMap<object, Message | null>
  /** The factory's system message for the last prompt text seen. */
  factoryMessage: Message | null
  /** Lineage tokens: histories made from one another by appends share one (`recordAppend`, docs/architecture.md). */
  readonly lineage: WeakMap<Messages, object>
  /** What the last request derived from its history (`selectWorking`), extended by the next one. */
  working: WorkingEntry | null
  /** Media counts per message for the meter stats of `token_estimator` typed/tokenizer (docs/configuration.md). */
  readonly media: WeakMap<Message, { readonly media: number; readonly unmeasured: number }>
  /** The `provider_rules` chat and Responses checks' walks over the last view checked, resumed by the next (src/core/request/provider-view.ts). */
  readonly historyWalks: HistoryWalks
  /**
   * The handles (src/core/compaction/reference-order.ts) of the messages the
   * last ladder run under `compaction_order: "least_referenced"` ranked, by message; replaced by
   * the next run with the entries it reads, so it holds about one view's worth, never the whole
   * history's.
   */
  rankedHandles: ReadonlyMap<Message, MessageHandles>
  /**
   * The running prefix hashes of the last Anthropic view placed under
   * `anthropic_cache_breakpoints` (src/core/formats/anthropic-cache.ts), resumed by the next
   * view where the two part: one small hasher per message of that view.
   */
  readonly cachePrefixes: PrefixHashes
  /**
   * The last walk of `tool_result_json_projection: "named_keys"` over a history
   * (src/core/tool-results/json-projection.ts, `resumeFrozenNamedKeys`), resumed by the next
   * request whose history extends it.
   */
  namedKeys: NamedKeysWalk | null
  /** Whether a tool result is a JSON record for the early pass (`PassContext.isRecord`) under `"handles"` / `"handle_values"`, with the tool name it was judged under. */
  readonly records: WeakMap<Message, { readonly toolName: string | null; readonly record: boolean }>
}

/**
 * Fresh, empty memo tables (one per reducer, see `makeStep`).
 *
 * @example
 * makeDerivationMemo().stub.has({ role: 'user' }) // => false
 */
export const makeDerivationMemo = (): DerivationMemo => ({
  media: new WeakMap(),
  truncation: new WeakMap(),
  projection: new WeakMap(),
  stub: new WeakMap(),
  headCut: new WeakMap(),
  stripped: new WeakMap(),
  notice: new WeakMap(),
  factoryMessage: null,
  lineage: new WeakMap(),
  working: null,
  historyWalks: makeHistoryWalks(),
  rankedHandles: new Map(),
  cachePrefixes: makePrefixHashes(),
  namedKeys: null,
  records: new WeakMap(),
})
