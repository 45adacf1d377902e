/**
 * Sticky decisions (SPEC 7): recording decisions by `_seq` and re-applying them to the
 * non-system messages of every compaction-path view.
 */
import type { Message, Messages } from '../messages/message.js'
import { seqOf } from '../messages/message.js'
import type { PassContext } from './context.js'
import type { StickyState } from '../state.js'

/**
 * The three decision sets (`_seq` values) of a `StickyState` or a `StickyDraft`, and `heads`: for
 * some truncated tool results, the head they keep (code points of the content) instead of the
 * configured truncation (`compaction_refill_head: "fit"`, src/core/compaction/refill.ts); every
 * key is also in `truncated`. Absent or empty: none.
 *
 * @example
 * const sets: StickySets = { removed: new Set([1]), truncated: new Set([4]), stubbed: new Set(), heads: new Map([[4, 1800]]) }
 */
export interface StickySets {
  readonly removed: ReadonlySet<number>
  readonly truncated: ReadonlySet<number>
  readonly stubbed: ReadonlySet<number>
  readonly heads?: ReadonlyMap<number, number>
}

/**
 * Mutable copies of the sticky sets, local to one compaction pass. Recording a removal deletes
 * the same `_seq` from the truncated and stubbed sets (one terminal state per message).
 *
 * @example
 * const draft: StickyDraft = { removed: new Set([1]), truncated: new Set([4]), stubbed: new Set() }
 */
export interface StickyDraft {
  readonly removed: Set<number>
  readonly truncated: Set<number>
  readonly stubbed: Set<number>
  /** Head lengths of truncated results (`StickySets.heads`); absent: none yet (made by the first `recordHead`). */
  heads?: Map<number, number>
}

/**
 * Copies of the three sets of `sticky` (state or draft), for recording during a pass.
 *
 * @example
 * toStickyDraft(EMPTY_STICKY).removed.size // => 0
 */
export const toStickyDraft = (sticky: StickySets): StickyDraft => ({
  removed: new Set(sticky.removed),
  truncated: new Set(sticky.truncated),
  stubbed: new Set(sticky.stubbed),
  ...(sticky.heads !== undefined && sticky.heads.size > 0 ? { heads: new Map(sticky.heads) } : {}),
})

/**
 * Record `message` as removed (SPEC 7): adds its `_seq` to `draft.removed` and deletes it from the
 * truncated and stubbed sets. Mutates `draft`; a no-op without `_seq`.
 *
 * @example
 * const draft = toStickyDraft({ removed: new Set(), truncated: new Set([4]), stubbed: new Set() })
 * recordRemoved(draft, { role: 'tool', tool_call_id: 'a', content: 'ok', metadata: { _seq: 4 } })
 * draft.removed.has(4) // => true
 * draft.truncated.has(4) // => false
 */
export const recordRemoved = (draft: StickyDraft, message: Message): void => {
  const seq = seqOf(message)
  if (seq === undefined) return
  draft.removed.add(seq)
  draft.truncated.delete(seq)
  draft.stubbed.delete(seq)
  draft.heads?.delete(seq)
}

/**
 * Record `message` as truncated (SPEC 7). Mutates `draft`; a no-op without `_seq`.
 *
 * @example
 * const draft = toStickyDraft({ removed: new Set(), truncated: new Set(), stubbed: new Set() })
 * recordTruncated(draft, { role: 'tool', tool_call_id: 'a', content: 'ok', metadata: { _seq: 5 } })
 * draft.truncated.has(5) // => true
 */
export const recordTruncated = (draft: StickyDraft, message: Message): void => {
  const seq = seqOf(message)
  if (seq !== undefined) draft.truncated.add(seq)
}

/**
 * Record `message` as truncated to its first `chars` code points (`StickySets.heads`), or, with
 * `chars` null, to the configured truncation again. Mutates `draft`; a no-op without `_seq`.
 *
 * @example
 * const draft = toStickyDraft(EMPTY_STICKY)
 * recordHead(draft, { role: 'tool', tool_call_id: 'a', content: 'a\nb', metadata: { _seq: 5 } }, 2)
 * draft.heads?.get(5) // => 2
 */
export const recordHead = (draft: StickyDraft, message: Message, chars: number | null): void => {
  const seq = seqOf(message)
  if (seq === undefined) return
  draft.truncated.add(seq)
  if (chars === null) draft.heads?.delete(seq)
  else (draft.heads ??= new Map()).set(seq, chars)
}

/**
 * Record `message` as stubbed (SPEC 7). Mutates `draft`; a no-op without `_seq`.
 *
 * @example
 * const draft = toStickyDraft({ removed: new Set(), truncated: new Set(), stubbed: new Set() })
 * recordStubbed(draft, { role: 'user', content: 'a long request', metadata: { _seq: 2 } })
 * draft.stubbed.has(2) // => true
 */
export const recordStubbed = (draft: StickyDraft, message: Message): void => {
  const seq = seqOf(message)
  if (seq !== undefined) draft.stubbed.add(seq)
}

/**
 * True when the draft's sets differ from `sticky`'s (a pass decided something new, SPEC 17.5).
 *
 * @example
 * hasNewDecision(toStickyDraft(EMPTY_STICKY), EMPTY_STICKY) // => false
 */
export const hasNewDecision = (draft: StickySets, sticky: StickySets): boolean => {
  const differs = (a: ReadonlySet<number>, b: ReadonlySet<number>): boolean => {
    if (a.size !== b.size) return true
    for (const value of a) if (!b.has(value)) return true
    return false
  }
  return differs(draft.removed, sticky.removed) || differs(draft.truncated, sticky.truncated) || differs(draft.stubbed, sticky.stubbed) || differsHeads(draft.heads, sticky.heads)
}

const differsHeads = (a: ReadonlyMap<number, number> | undefined, b: ReadonlyMap<number, number> | undefined): boolean => {
  const left = a ?? NO_HEADS
  const right = b ?? NO_HEADS
  if (left.size !== right.size) return true
  for (const [seq, chars] of left) if (right.get(seq) !== chars) return true
  return false
}

const NO_HEADS: ReadonlyMap<number, number> = new Map()

/**
 * Re-apply sticky decisions to non-system messages (SPEC 7): removed → dropped, truncated →
 * truncation re-derived with the current config (or to its recorded head, `StickySets.heads`), stubbed → stub re-derived, others unchanged.
 * Order is preserved; unchanged messages are shared, not copied.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * const messages: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }, { role: 'assistant', content: 'hello', metadata: { _seq: 1 } }]
 * applySticky(messages, EMPTY_STICKY, context) // => messages
 * applySticky(messages, { ...EMPTY_STICKY, removed: new Set([1]) }, context).length // => 1
 */
export const applySticky = (
  messages: Messages,
  sticky: StickySets,
  context: PassContext,
): Messages => {
  if (sticky.removed.size === 0 && sticky.truncated.size === 0 && sticky.stubbed.size === 0) return messages
  const result: Message[] = []
  // By index: `for…of` allocates an iterator result per message until the engine optimizes this.
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i]
    const seq = seqOf(message)
    if (seq === undefined) {
      result.push(message)
    } else {
      const form = toStickyForm(message, seq, sticky, context)
      if (form !== null) result.push(form)
    }
  }
  return result
}

/**
 * The form of `message` (its `_seq` is `seq`) under the decisions `sticky` (SPEC 7), as
 * `applySticky` sends it: null when removed, its truncation when truncated (to its recorded head
 * when `sticky.heads` has one), its stub when stubbed, else `message` itself.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * const message: Message = { role: 'assistant', content: 'hello', metadata: { _seq: 1 } }
 * toStickyForm(message, 1, EMPTY_STICKY, context) === message // => true
 * toStickyForm(message, 1, { ...EMPTY_STICKY, removed: new Set([1]) }, context) // => null
 */
export const toStickyForm = (message: Message, seq: number, sticky: StickySets, context: PassContext): Message | null => {
  if (sticky.removed.has(seq)) return null
  if (sticky.truncated.has(seq)) {
    const head = sticky.heads?.get(seq)
    return head === undefined ? context.truncate(message) : context.truncateTo(message, head)
  }
  return sticky.stubbed.has(seq) ? context.stub(message) : message
}

/**
 * The sticky state of the decision sets `sets` at `cumulativeLevel` (SPEC 7), sharing the sets;
 * `heads` only when some head is recorded (absent otherwise, so a snapshot without heads stays as
 * it was). Every place that turns a draft or edited sets back into a `StickyState` goes through
 * here, so no decision is dropped on the way.
 *
 * @example
 * const draft = toStickyDraft(EMPTY_STICKY)
 * recordHead(draft, { role: 'tool', tool_call_id: 'a', content: 'a\nb', metadata: { _seq: 5 } }, 2)
 * toStickyState(draft, 3).heads?.get(5) // => 2
 * 'heads' in toStickyState(toStickyDraft(EMPTY_STICKY), 0) // => false
 */
export const toStickyState = (sets: StickySets, cumulativeLevel: number): StickyState => ({
  removed: sets.removed,
  truncated: sets.truncated,
  stubbed: sets.stubbed,
  ...(sets.heads !== undefined && sets.heads.size > 0 ? { heads: sets.heads } : {}),
  cumulativeLevel,
})
