/**
 * Incremental requests (docs/architecture.md): the working list, its estimate, the sticky-applied list and the
 * stripped views of the previous request, extended by the messages appended since, so a request
 * that does not compact costs what is new plus the length of its view, not the history length.
 */
import type { TokenEstimator } from '../deps.js'
import type { Message, Messages } from '../messages/message.js'
import type { StickyState } from '../state.js'
import { isPlainObject } from '../messages/values.js'
import { collectSpills, stripMessage, type PassContext } from '../compaction/context.js'
import type { AppliedView, DerivationMemo, MediaCounts, StrippedView, WorkingEntry } from '../memo/derivation-memo.js'
import { applySticky } from '../compaction/sticky.js'
import { appendTo, itemAt, lastOf, lengthOf, sliceFrom, toPlainArray } from '../messages/appendable.js'
import { countMedia } from '../meter/typed-estimate.js'
import { estimateWithoutSeq } from '../meter/estimate.js'
import { extendReasoningPrefix, type ReasoningPrefix } from '../formats/openai-responses.js'

/**
 * The working list of one request: the new memo `entry`, and, when it extends the previous
 * request's entry (same prompt, the history only appended to), that entry and the working-list
 * messages `added` since. `previous` and `added` are null when everything was derived afresh.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * const working: Working = selectWorking(memo, history, null, null, estimateOne)
 * working.previous // => null
 * working.entry.working // => history
 */
export interface Working {
  readonly entry: WorkingEntry
  readonly previous: WorkingEntry | null
  readonly added: Messages | null
}

/**
 * True for a stored system message that factory mode drops from W (SPEC 2.3 step 4: the factory's
 * message replaces it; a hook-injected one, `metadata.source === "hook"`, stays).
 *
 * @example
 * isReplacedSystem({ role: 'system', content: 'old prompt' }) // => true
 */
export const isReplacedSystem = (message: Message): boolean =>
  message.role === 'system' && !(isPlainObject(message.metadata) && message.metadata.source === 'hook')

/**
 * Note that `next` is `base` with messages appended, its last message possibly replaced first (a
 * Responses item merged into the piece before it, a result cut at ingress); nothing before that
 * changed: both get the same lineage token. The reducer calls it for every `message_added`.
 * Holds no history alive. A request whose base ended with the replaced message derives afresh:
 * `appendedSince` checks that base's last message is still in place.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * selectWorking(memo, history, null, null, estimateOne)
 * const next: Messages = [...history, { role: 'assistant', content: 'hello', metadata: { _seq: 1 } }]
 * recordAppend(memo, next, history)
 * selectWorking(memo, next, null, null, estimateOne).added // => [next[1]]
 */
export const recordAppend = (memo: DerivationMemo, next: Messages, base: Messages): void => {
  if (next === base) return
  const length = lengthOf(base)
  if (lengthOf(next) < length || (length > 1 && itemAt(next, length - 2) !== itemAt(base, length - 2))) return
  let token = memo.lineage.get(base)
  if (token === undefined) {
    token = {}
    memo.lineage.set(base, token)
  }
  memo.lineage.set(next, token)
}

/**
 * The messages appended to `base` to make `history`, or null when `history` is not `base` plus
 * appends recorded by `recordAppend` (another session, a reset, a replaced message). Two
 * histories of one lineage share every message up to the last one they have in common: a stored
 * message object is created by exactly one add, at one index, and never moves, so the same object
 * at `base`'s last index means `base` is a prefix. O(1) plus the slice of what was appended.
 */
const appendedSince = (memo: DerivationMemo, history: Messages, base: Messages): Messages | null => {
  if (history === base) return []
  const token = memo.lineage.get(history)
  const length = lengthOf(base)
  if (token === undefined || token !== memo.lineage.get(base) || lengthOf(history) < length) return null
  if (length > 0 && itemAt(history, length - 1) !== lastOf(base)) return null
  return sliceFrom(history, length)
}

const sum = (messages: Messages, estimate: TokenEstimator): number => {
  let total = 0
  for (let i = 0; i < messages.length; i += 1) total += estimate(messages[i])
  return total
}

/**
 * The working list W of `history` (SPEC 2.3 step 4; with `systemPrompt`, factory mode) and its
 * estimate, extending the previous request's when `history` only grew since: O(messages added)
 * in both modes (in factory mode W is an appendable list extended by the added messages).
 * Stores the new entry in `memo`. `factoryMessage` is the factory's system message.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * selectWorking(memo, history, null, null, estimateOne).entry.tokens === estimateOne(history[0]) // => true
 * selectWorking(memo, history, 'Be brief.', { role: 'system', content: 'Be brief.' }, estimateOne).entry.working.length // => 2
 */
export const selectWorking = (
  memo: DerivationMemo,
  history: Messages,
  systemPrompt: string | null,
  factoryMessage: Message | null,
  estimate: TokenEstimator,
): Working => {
  const previous = memo.working
  const appended = previous !== null && previous.systemPrompt === systemPrompt ? appendedSince(memo, history, previous.history) : null
  let working: Working
  if (previous !== null && appended !== null) {
    const added = systemPrompt === null ? appended : appended.filter((message) => !isReplacedSystem(message))
    const list = systemPrompt === null ? history : appendTo(previous.working, added)
    working = { entry: { history, systemPrompt, working: list, tokens: previous.tokens + sum(added, estimate), plain: null, applied: null }, previous, added }
  } else {
    // W as a plain array (static mode keeps the history itself as W; factory mode's W is this array).
    const plain = factoryMessage === null ? toPlainArray(history) : [factoryMessage, ...toPlainArray(history).filter((message) => !isReplacedSystem(message))]
    const list = factoryMessage === null ? history : plain
    working = { entry: { history, systemPrompt, working: list, tokens: sum(plain, estimate), plain: null, applied: null }, previous: null, added: null }
  }
  memo.working = working.entry
  return working
}

/**
 * The media counts of W (the meter stats `media_items` / `media_unmeasured`, docs/configuration.md), extending the previous
 * request's by the added messages: O(added) between compactions, O(W) when derived afresh.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * selectMedia(memo, selectWorking(memo, history, null, null, estimateOne)) // => { media: 0, unmeasured: 0 }
 */
export const selectMedia = (memo: DerivationMemo, working: Working): MediaCounts => {
  const { entry, previous, added } = working
  if (entry.media === undefined) {
    if (previous?.media !== undefined && added !== null) {
      const more = countMedia(added, memo.media)
      entry.media = { media: previous.media.media + more.media, unmeasured: previous.media.unmeasured + more.unmeasured }
    } else entry.media = countMedia(toPlainArray(entry.working), memo.media)
  }
  return entry.media
}

/**
 * The running sums of W's Responses reasoning shares for `estimate` (`ReasoningPrefix`: what the
 * calibrated meter's billed estimator reads, `toBilledEstimator`), extending the previous
 * request's by the added messages: O(added) between requests of one lineage, O(W) when derived
 * afresh. A history without Responses reasoning adds zeros.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * selectReasoningPrefix(selectWorking(memo, history, null, null, estimateOne), estimateOne).unbilled // => 0
 */
export const selectReasoningPrefix = (working: Working, estimate: TokenEstimator): ReasoningPrefix => {
  const { entry, previous, added } = working
  if (entry.reasoning === undefined || entry.reasoning.estimate !== estimate) {
    const base = previous?.reasoning
    entry.reasoning =
      base !== undefined && base.estimate === estimate && added !== null && base.length + added.length === entry.working.length
        ? extendReasoningPrefix(base, added, estimate)
        : extendReasoningPrefix(null, toPlainArray(entry.working), estimate)
  }
  return entry.reasoning
}

/** The messages stripped (`stripMessage`) and their estimate, each derived from its original's where the estimator can (`estimateWithoutSeq`). */
const toStripped = (messages: Messages, memo: DerivationMemo, estimate: TokenEstimator): StrippedView => {
  const view: Message[] = []
  let tokens = 0
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i]
    const stripped = stripMessage(message, memo)
    view.push(stripped)
    tokens += estimateWithoutSeq(estimate, stripped, message)
  }
  return { view, tokens }
}

const concat = (base: StrippedView, more: StrippedView): StrippedView =>
  more.view.length === 0 ? base : { view: base.view.concat(more.view), tokens: base.tokens + more.tokens, prefix: base.view }

/**
 * The stripped view of W itself (no sticky decision exists, SPEC 2.3 step 7), extending the
 * previous request's: O(view) for the array of references, O(added) for stripping and estimating.
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * const working = selectWorking(memo, history, null, null, estimateOne)
 * selectPlainView(memo, working, estimateOne).view // => [{ role: 'user', content: 'hi', metadata: {} }]
 */
export const selectPlainView = (memo: DerivationMemo, working: Working, estimate: TokenEstimator): StrippedView => {
  const { entry, previous, added } = working
  if (entry.plain === null) {
    entry.plain =
      previous?.plain != null && added !== null ? concat(previous.plain, toStripped(added, memo, estimate)) : toStripped(toPlainArray(entry.working), memo, estimate)
  }
  return entry.plain
}

/**
 * The sticky-applied list `S ++ applySticky(N)` of W for `sticky` (SPEC 17.1) and its stripped
 * view, extending the previous request's when the decisions and tool names are the same objects
 * and no system message was added (it would move to the front): O(view) for the arrays, O(added)
 * for the derivations. Its `spills` are those of every truncation in the list, in list order,
 * exactly as a full re-application asks for them (the caller returns them as effects).
 *
 * @example
 * const memo = makeDerivationMemo()
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }]
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, memo)
 * const working = selectWorking(memo, history, null, null, estimateOne)
 * selectAppliedView(memo, working, EMPTY_STICKY, context).list // => history
 */
export const selectAppliedView = (memo: DerivationMemo, working: Working, sticky: StickyState, context: PassContext): AppliedView => {
  const { entry, previous, added } = working
  const reusable = previous?.applied
  if (entry.applied !== null && entry.applied.sticky === sticky && entry.applied.toolNames === context.toolNames && entry.applied.failedSpills === context.failedSpills) return entry.applied
  let applied: AppliedView
  if (reusable != null && added !== null && reusable.sticky === sticky && reusable.toolNames === context.toolNames && reusable.failedSpills === context.failedSpills && !added.some((message) => message.role === 'system')) {
    const collector = collectSpills(context, reusable.spills)
    const more = applySticky(added, sticky, collector.context)
    applied =
      more.length === 0
        ? { ...reusable, spills: collector.spills() }
        : {
            ...concat(reusable, toStripped(more, memo, context.estimate)),
            sticky,
            toolNames: context.toolNames,
            failedSpills: context.failedSpills,
            system: reusable.system,
            systemTokens: reusable.systemTokens,
            stickyApplied: reusable.stickyApplied.concat(more),
            stickyTokens: reusable.stickyTokens + sum(more, context.estimate),
            list: reusable.list.concat(more),
            spills: collector.spills(),
          }
  } else {
    const system: Message[] = []
    const nonSystem: Message[] = []
    // Indexed loops and `concat`, not `for…of` and a spread: both iterate, which allocates per message until the engine optimizes this (docs/performance.md).
    const working = toPlainArray(entry.working)
    for (let i = 0; i < working.length; i += 1) (working[i].role === 'system' ? system : nonSystem).push(working[i])
    const collector = collectSpills(context)
    const stickyApplied = applySticky(nonSystem, sticky, collector.context)
    const list = system.concat(stickyApplied)
    applied = {
      ...toStripped(list, memo, context.estimate),
      sticky,
      toolNames: context.toolNames,
      failedSpills: context.failedSpills,
      system,
      systemTokens: sum(system, context.estimate),
      stickyApplied,
      stickyTokens: sum(stickyApplied, context.estimate),
      list,
      spills: collector.spills(),
    }
  }
  entry.applied = applied
  return applied
}
