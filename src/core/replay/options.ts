/**
 * The options of a replay (src/core/replay/replay.ts): the stand-in summarizer, the provider
 * model, a peer policy, the hand-over to a new "process" and the shape of the views.
 */
import type { RequestSummary } from '../effects.js'
import type { Message } from '../messages/message.js'
import type { State } from '../state.js'
import type { CacheProvider } from '../economics/cache.js'
import type { UsageMode } from '../economics/simulation.js'
import type { TokenEstimator } from '../meter/estimate.js'
import type { ViewShape } from '../events.js'

/**
 * A local summarizer for replay: answers a summary request immediately with text or an error, or
 * null to leave it unanswered (the recording's `summary_result` lines may answer it). `history` is
 * the stored history (with `_seq`) when the request is made. A throw propagates out of the replay.
 *
 * @example
 * const summarizer: ReplaySummarizer = (request) => ({ text: `summary of ${request.seqs.length} messages` })
 */
export type ReplaySummarizer = (request: RequestSummary, history: ReadonlyArray<Message>) => { readonly text: string } | { readonly error: string } | null

/**
 * The provider model of a replay: which usage the meters see (`recorded` as the input holds it,
 * or `simulated` from the views this replay sends), whose prompt-cache rules apply, and the
 * provider model's own counter (tokens per message; default: the deps estimator). The CLI passes
 * the `gpt-tokenizer` split (`makeTokenizerEstimator`), so the evaluation never grades the meter
 * against its own estimate; the session's fit (`fitProviderModel`) scales it to billed tokens.
 *
 * @example
 * const usage: ReplayUsage = { mode: 'simulated', provider: 'anthropic' }
 */
export interface ReplayUsage {
  readonly mode: UsageMode
  readonly provider: CacheProvider
  readonly count?: TokenEstimator
  /**
   * Under `recorded`: whether a reading bills the stored history the agent sent (default true: an
   * imported session, docs/recording-format.md "Importing other formats"), so it bills a view that is
   * that history on the wire (`RequestEconomics.bills_view`). False when the readings bill views of
   * the recording's own manager that this replay does not reproduce (a recording replayed under
   * another configuration or budget): no reading then bills a view, as the view that manager sent
   * at a request may be a compacted one even where this replay sends the whole history.
   */
  readonly readingsBillHistory?: boolean
}

/**
 * Options of a replay: a stand-in summarizer (default: none; answers come from the recording),
 * and the provider model (default: none; recorded usage goes to the meters and no economics are
 * computed, exactly the contract's replay).
 *
 * @example
 * const options: ReplayOptions = { summarizer: () => ({ error: 'offline' }), usage: { mode: 'simulated', provider: 'openai' } }
 */
export interface ReplayOptions {
  readonly summarizer?: ReplaySummarizer
  readonly handOver?: ReplayHandOver
  readonly usage?: ReplayUsage
  readonly peer?: ReplayPeer
  /**
   * The shape every request asks its view in (as `getMessagesForRequest`'s `format` and the
   * manager's `repair`): the core makes that view (the finish stage, or the `spills_answered`
   * event of a request that spilled; src/core/request/provider-view.ts), `ReplayResult.shaped`
   * holds it per line. Default: none (the lines' contract views only).
   */
  readonly shape?: ViewShape
}

/**
 * A request's view in the shape the replay asked for (`ReplayOptions.shape`): `view` as the
 * manager's `getMessagesForRequest` would return it, `repaired` whether `shape.repair` changed it.
 *
 * @example
 * const shaped: ShapedView = { view: { messages: [{ role: 'user', content: 'hi' }] }, repaired: false }
 */
export interface ShapedView {
  readonly view: unknown
  readonly repaired: boolean
}

/**
 * Another context policy measured in place of the library's view (the evaluation's peers, e.g.
 * LangChain.js `trimMessages`): given the stored history as a view carries it (no `_seq`), the
 * request's effective budget E (tokens, null before the meter knows it) and the request's index
 * (0-based), it returns the view to send, or null when it failed. The library's reducer still runs
 * (its state and meter are unchanged by the peer), but the line, the provider model and the
 * economics see the peer's view; a null answer is a failed request ("the peer returned no
 * message list").
 *
 * @example
 * const noCompaction: ReplayPeer = (history) => history
 */
export type ReplayPeer = (history: ReadonlyArray<Message>, effectiveBudget: number | null, request: number) => ReadonlyArray<Message> | null

/**
 * Moves the fold to a new "process" after operation `at` (0-based; a predicate: after every
 * operation it accepts): the state is passed through
 * `through` (e.g. a snapshot, `JSON.stringify`/`JSON.parse` and a restore) and the reducer is
 * built again (empty memo). For testing that a restored session continues exactly as the
 * uninterrupted one; the replay's own bookkeeping (system prompt, hook events not yet shown) is kept.
 *
 * @example
 * import { isLeft } from 'fp-ts/lib/Either.js'
 * const deps: CoreDeps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const through = (state: State): State => {
 *   const restored = decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(deps.config, state))))
 *   if (isLeft(restored)) throw restored.left
 *   return restored.right.state
 * }
 * const handOver: ReplayHandOver = { at: 1, through }
 * const handed = replayRecording(recording, deps, { handOver }).lines
 * handed // => replayRecording(recording, deps).lines
 */
export interface ReplayHandOver {
  readonly at: number | ((index: number) => boolean)
  readonly through: (state: State) => State
}
