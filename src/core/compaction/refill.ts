/**
 * Refill (`compaction_refill`, docs/configuration.md; docs/evaluation.md, "Refill to the target";
 * `"none"` by default = the contract, SPEC 6.2): the removal levels take whole units (a tool group,
 * or one message), so a pass often ends far below its target: the last unit removed was large, or
 * a later level with a smaller recent zone removed more. After the ladder, the refill puts back
 * units while they fit under the target, the most valuable first (the reverse of the order the
 * ladder visits them under `compaction_order`: the most recently referenced, or the newest). A
 * unit comes back whole when it fits, else as its skeleton (its messages with every tool result
 * the waves may shorten in its truncated form, SPEC 11.2, recorded as truncated), so tool groups
 * stay paired (SPEC 17.3). User messages are never put back (the ladder removes them only at
 * level 8).
 *
 * `"pass"` (`refillRemoved`) puts back what this pass removed; `"history"` (`refillHistory`) also
 * lifts earlier passes' decisions (SPEC 7's sticky decisions reconsidered when a pass has room): a
 * unit any pass removed comes back, and a tool group whose results an earlier pass shortened comes
 * back whole, when that fits.
 *
 * Pure: reads the lists, returns a new list; mutates only `draft` (a restored `_seq` leaves
 * `draft.removed`, a shortened one joins `draft.truncated`, a lifted truncation leaves it).
 */
import type { Message, Messages } from '../messages/message.js'
import { seqOf } from '../messages/message.js'
import { isTruthy } from '../messages/values.js'
import { isExemptToolResult, resolveToolResultBudget } from '../tool-results/tool-result-budget.js'
import { codePointLength, codePointSlice } from '../messages/text.js'
import type { PassContext } from './context.js'
import { applySticky, recordHead, recordTruncated, toStickyForm, type StickyDraft, type StickySets } from './sticky.js'
import { isToolCallMessage, selectResultRunEnd } from './tool-pairs.js'
import { toVisitOrder } from './reference-order.js'

/**
 * A unit of the list a pass started from that the pass removed: its positions (a tool call
 * message with its results, or one message) and its tokens as it was before the pass.
 *
 * @example
 * const unit: RemovedUnit = { positions: [3, 4], tokens: 812 }
 */
export interface RemovedUnit {
  readonly positions: ReadonlyArray<number>
  readonly tokens: number
}

const isRemoved = (message: Message, removed: ReadonlySet<number>): boolean => {
  const seq = seqOf(message)
  return seq !== undefined && removed.has(seq)
}

/**
 * The units of `initial` whose every message is in `removed`, keyed by their first position: a
 * tool call message with its results, or one message that is not a user message. Tokens by
 * `estimate`.
 *
 * @example
 * const initial: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }, { role: 'assistant', content: 'long', metadata: { _seq: 1 } }]
 * [...toRemovedUnits(initial, new Set([0, 1]), () => 5).keys()] // => [1]
 */
export const toRemovedUnits = (initial: Messages, removed: ReadonlySet<number>, estimate: (message: Message) => number): Map<number, RemovedUnit> => {
  const units = new Map<number, RemovedUnit>()
  for (let start = 0; start < initial.length; start += 1) {
    const end = isToolCallMessage(initial[start]) ? selectResultRunEnd(initial, start) : start + 1
    const positions: number[] = []
    let tokens = 0
    let whole = initial[start].role !== 'user'
    for (let i = start; i < end && whole; i += 1) {
      whole = isRemoved(initial[i], removed)
      positions.push(i)
      tokens += estimate(initial[i])
    }
    if (whole) units.set(start, { positions, tokens })
    start = end - 1
  }
  return units
}

/** A tool result the waves may shorten (SPEC 11.2), in its truncated form; any other message as it is. */
const toSkeletonForm = (message: Message, context: PassContext): Message =>
  message.role !== 'tool' || isTruthy(message._truncated) || isExemptToolResult(message, context.config, context.toolNames) ? message : context.truncate(message)

/**
 * What each restored position of `initial` becomes: the units of `visits` in turn, whole when
 * they fit under `room` (tokens), else as their skeleton when that fits, else not at all.
 */
const chooseRestored = (initial: Messages, visits: ReadonlyArray<RemovedUnit>, room: number, context: PassContext): Map<number, Message> => {
  const restored = new Map<number, Message>()
  let left = room
  for (const unit of visits) {
    if (unit.tokens <= left) {
      left -= unit.tokens
      for (const position of unit.positions) restored.set(position, initial[position])
      continue
    }
    const forms = unit.positions.map((position) => toSkeletonForm(initial[position], context))
    const tokens = forms.reduce((sum, form) => sum + context.estimate(form), 0)
    if (tokens > left) continue
    left -= tokens
    unit.positions.forEach((position, j) => restored.set(position, forms[j]))
  }
  return restored
}

/**
 * Puts back into `working` (the ladder's result over `initial`, the list the pass started from)
 * the units the pass removed, most valuable first, while they fit under `target`: whole, else as
 * their skeleton (module comment). `current` is `working`'s total with the system tokens, in the
 * estimator units of `target`; `before` is the draft as the pass found it (a message `initial`
 * holds shortened or stubbed by an earlier pass is restored in that form, and its decision
 * recorded again). Returns the new list (in `initial`'s order) and its total; a restored `_seq`
 * leaves `draft.removed`, a shortened result joins `draft.truncated`. When
 * `working` is not `initial` less its removed messages (it always is after `runLadder`), or
 * nothing fits, returns `working` as it is.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, () => 10, {}, makeDerivationMemo())
 * const initial: Messages = [{ role: 'user', content: 'a', metadata: { _seq: 0 } }, { role: 'assistant', content: 'b', metadata: { _seq: 1 } }, { role: 'user', content: 'c', metadata: { _seq: 2 } }]
 * const draft = toStickyDraft({ removed: new Set([1]), truncated: new Set(), stubbed: new Set() })
 * refillRemoved(initial, [initial[0], initial[2]], 20, 30, draft, EMPTY_STICKY, context).working.length // => 3
 * draft.removed.has(1) // => false
 */
export const refillRemoved = (
  initial: Messages,
  working: Messages,
  current: number,
  target: number,
  draft: StickyDraft,
  before: StickySets,
  context: PassContext,
): { readonly working: Messages; readonly current: number } => {
  if (current >= target) return { working, current }
  const units = toRemovedUnits(initial, draft.removed, context.estimate)
  let removedCount = 0
  for (const message of initial) if (isRemoved(message, draft.removed)) removedCount += 1
  if (units.size === 0 || initial.length - removedCount !== working.length) return { working, current }
  const order = toVisitOrder(initial, [...units.keys()], context.config.compaction_order, context.handles, context.estimate)
  const visits = [...order].reverse().map((start) => units.get(start) as RemovedUnit)
  const restored = chooseRestored(initial, visits, target - current, context)
  if (restored.size === 0) return { working, current }
  const next: Message[] = []
  let total = current
  let w = 0
  for (let i = 0; i < initial.length; i += 1) {
    const form = restored.get(i)
    if (!isRemoved(initial[i], draft.removed)) next.push(working[w++])
    else if (form !== undefined) {
      next.push(form)
      total += context.estimate(form)
    }
  }
  for (const [position, form] of restored) {
    const seq = seqOf(initial[position]) as number
    draft.removed.delete(seq)
    // a message shortened by an earlier pass comes back as it was, so its decision is recorded again
    if (form !== initial[position] || before.truncated.has(seq)) recordTruncated(draft, initial[position])
    if (before.stubbed.has(seq)) draft.stubbed.add(seq)
  }
  return { working: next, current: total }
}

/**
 * Every unit of `history` (a tool call message with its results, or one message that is not a
 * user message) whose messages all carry a `_seq`, keyed by its first position.
 */
const toUnits = (history: Messages): Map<number, ReadonlyArray<number>> => {
  const units = new Map<number, ReadonlyArray<number>>()
  for (let start = 0; start < history.length; start += 1) {
    const end = isToolCallMessage(history[start]) ? selectResultRunEnd(history, start) : start + 1
    const positions: number[] = []
    for (let i = start; i < end; i += 1) positions.push(i)
    if (history[start].role !== 'user' && positions.every((i) => seqOf(history[i]) !== undefined)) units.set(start, positions)
    start = end - 1
  }
  return units
}

/** A message's form under `draft` (null: removed), as `applySticky` derives it. */
const formUnder = (message: Message, draft: StickySets, context: PassContext): Message | null => toStickyForm(message, seqOf(message) as number, draft, context)

/**
 * Lifts the decisions on one unit of `history` when that fits in `room` tokens: a removed unit
 * whole, else as its skeleton; a unit with shortened results (none removed or stubbed) whole.
 * Under `compaction_refill_head: "fit"` a unit that does not come back whole then lengthens the
 * heads of its shortened results with up to `HEAD_SHARE` of the room left (`fitHeads`).
 * Returns the tokens it added, or null when it changed nothing. Mutates `draft`.
 */
const liftUnit = (history: Messages, positions: ReadonlyArray<number>, room: number, draft: StickyDraft, context: PassContext): number | null => {
  const seqs = positions.map((i) => seqOf(history[i]) as number)
  const removed = seqs.every((seq) => draft.removed.has(seq))
  const shortened = seqs.some((seq) => draft.truncated.has(seq)) && !seqs.some((seq) => draft.removed.has(seq) || draft.stubbed.has(seq))
  if (!removed && !shortened) return null
  let now = 0
  let whole = 0
  for (const i of positions) {
    const form = formUnder(history[i], draft, context)
    now += form === null ? 0 : context.estimate(form)
    whole += context.estimate(history[i])
  }
  if (whole - now <= room) {
    for (const seq of seqs) {
      draft.removed.delete(seq)
      draft.truncated.delete(seq)
      draft.heads?.delete(seq)
    }
    return whole - now
  }
  const fit = context.config.compaction_refill_head === 'fit'
  if (!removed) return fit ? fitHeads(history, positions, Math.floor(room * HEAD_SHARE), draft, context) : null
  const forms = positions.map((i) => toSkeletonForm(history[i], context))
  const tokens = forms.reduce((sum, form) => sum + context.estimate(form), 0)
  if (tokens > room) return null
  positions.forEach((i, j) => {
    draft.removed.delete(seqs[j])
    if (forms[j] !== history[i]) recordTruncated(draft, history[i])
  })
  return fit ? tokens + (fitHeads(history, positions, Math.floor((room - tokens) * HEAD_SHARE), draft, context) ?? 0) : tokens
}

/** The share of the room left that one unit's heads may take under `compaction_refill_head: "fit"` (the rest stays for the less valuable units). */
const HEAD_SHARE = 0.5

/**
 * `compaction_refill: "history"`: after the ladder, units of the whole non-system history W (not
 * only what this pass removed) come back while they fit under `target`, most valuable first
 * (module comment). `current` is the ladder's total with the system tokens, in `target`'s
 * estimator units. Returns the new non-system list, `applySticky(history, draft)` (the list the
 * next request re-applies), or null when nothing changed. Mutates `draft`.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, () => 10, {}, makeDerivationMemo())
 * const history: Messages = [{ role: 'user', content: 'a', metadata: { _seq: 0 } }, { role: 'assistant', content: 'b', metadata: { _seq: 1 } }, { role: 'user', content: 'c', metadata: { _seq: 2 } }]
 * const draft = toStickyDraft({ removed: new Set([1]), truncated: new Set(), stubbed: new Set() })
 * refillHistory(history, 20, 30, draft, context)?.length // => 3
 */
export const refillHistory = (history: Messages, current: number, target: number, draft: StickyDraft, context: PassContext): Messages | null => {
  if (current >= target) return null
  const units = toUnits(history)
  const order = toVisitOrder(history, [...units.keys()], context.config.compaction_order, context.handles, context.estimate)
  let left = target - current
  let changed = false
  for (let k = order.length - 1; k >= 0 && left > 0; k -= 1) {
    const added = liftUnit(history, units.get(order[k]) as ReadonlyArray<number>, left, draft, context)
    if (added === null) continue
    left -= added
    changed = true
  }
  return changed ? applySticky(history, draft, context) : null
}

/**
 * `compaction_refill_head: "fit"`: up to `room` tokens lengthen the heads of the shortened tool
 * results at `positions` of `history`, in turn: each takes the longest head that fits (its tokens
 * now plus the room left), cut after its last line end when the cut has one, recorded in
 * `draft.heads` (the whole result, no longer recorded as truncated, when all of it fits). Returns
 * the tokens added (a longer head may add none), or null when it changed nothing. Mutates `draft`.
 */
const fitHeads = (history: Messages, positions: ReadonlyArray<number>, room: number, draft: StickyDraft, context: PassContext): number | null => {
  let left = room
  let changed = false
  for (const i of positions) {
    if (left <= 0) break
    const message = history[i]
    const seq = seqOf(message) as number
    if (message.role !== 'tool' || typeof message.content !== 'string' || !draft.truncated.has(seq) || draft.removed.has(seq)) continue
    const now = context.estimate(formUnder(message, draft, context) as Message)
    const head = selectFittingHead(message, message.content, draft.heads?.get(seq), now + left, context)
    if (head === null) continue
    left -= context.estimate(head === 'whole' ? message : context.truncateTo(message, head)) - now
    if (head === 'whole') {
      draft.truncated.delete(seq)
      draft.heads?.delete(seq)
    } else recordHead(draft, message, head)
    changed = true
  }
  return changed ? room - left : null
}

/**
 * The longest head of `content` (code points, at least one more than `current`, the head now
 * recorded) whose truncated form is at most `tokens`, cut after its last line end when the cut
 * has one past `current`; `'whole'` when the whole result fits, null when no longer head does.
 */
const selectFittingHead = (message: Message, content: string, current: number | undefined, tokens: number, context: PassContext): number | 'whole' | null => {
  if (context.estimate(message) <= tokens) return 'whole'
  const length = codePointLength(content)
  let low = (current ?? resolveToolResultBudget(message, context.config, context.toolNames).budgetChars) + 1
  let high = length - 1
  if (low > high || context.estimate(context.headTruncation(message, low).message) > tokens) return null
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (context.estimate(context.headTruncation(message, middle).message) <= tokens) low = middle
    else high = middle - 1
  }
  const cut = codePointSlice(content, 0, low)
  const lineEnd = cut.lastIndexOf('\n')
  const lined = lineEnd < 0 ? low : codePointLength(cut.slice(0, lineEnd + 1))
  return lined > (current ?? 0) && lined > low / 2 ? lined : low
}
