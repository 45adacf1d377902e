/**
 * The progressive ladder (SPEC 6.3–6.5 with 17.2, 17.3): tool-result waves at levels 1, 2, 4 and
 * 6, removal at 3, 5 and 7, first-user stub and old-stub removal at 8. Works on a local copy of
 * the working list and records decisions into a sticky draft.
 */
import type { Message, Messages } from '../messages/message.js'
import { codePointLength } from '../messages/text.js'
import { isTruthy } from '../messages/values.js'
import { estimateMessages } from '../meter/estimate.js'
import type { PassContext } from './context.js'
import { recordHead, recordRemoved, recordStubbed, toStickyDraft, type StickyDraft } from './sticky.js'
import { isStubbable } from './stub.js'
import { isToolCallMessage, selectOpenToolGroupStart, selectResultRunEnd } from './tool-pairs.js'
import { isExemptToolResult } from '../tool-results/tool-result-budget.js'
import { toAnchorPositions } from './anchors.js'
import { selectRecentStart, toWaveRanges } from './retention.js'
import { toVisitOrder } from './reference-order.js'
import { isJsonProjection } from '../tool-results/json-projection.js'
import { refillRemoved } from './refill.js'

/**
 * Flat charge in tokens per old stub removed at level 8 (an approximation that only decides when
 * to stop; the stats recount exactly; SPEC 6.5 step 2).
 *
 * @example
 * STUB_REMOVAL_TOKENS // => 18
 */
export const STUB_REMOVAL_TOKENS = 18

/**
 * The outcome of running the ladder: the final non-system working list and the level reached
 * (1..8, SPEC 6.2 step 10).
 *
 * @example
 * const result: LadderResult = { working: [], levelReached: 3 }
 */
export interface LadderResult {
  readonly working: Messages
  readonly levelReached: number
}

interface Cursor {
  working: Message[]
  current: number
  /** The list the pass started from (the sticky-applied non-system list). */
  readonly initial: Messages
  /**
   * Under `protected_recent_tokens`, each message's position in `initial`, parallel to `working`
   * (null otherwise): the recent zone by tokens is decided on the list the pass started from.
   */
  origins: number[] | null
}

/**
 * The first position of the recent zone of `scale` in the cursor's list (SPEC 6.4). By tokens
 * (`protected_recent_tokens`, src/core/compaction/retention.ts) the zone is the one of the list the
 * pass started from, whatever the pass has since truncated, stubbed or removed: a pass never
 * protects more because it shortened something itself, and it protects what the floor
 * (src/core/compaction/floor.ts) counts (docs/contract.md 17.14).
 */
const recentStartOf = (cursor: Cursor, scale: number, context: PassContext): number => {
  const { protected_recent, protected_recent_tokens } = context.config
  const origins = cursor.origins
  if (origins === null) return selectRecentStart(cursor.working, protected_recent, scale, protected_recent_tokens, context.estimate)
  const start = selectRecentStart(cursor.initial, protected_recent, scale, protected_recent_tokens, context.estimate)
  const position = origins.findIndex((origin) => origin >= start)
  return position < 0 ? origins.length : position
}

/** Replace the cursor's list by `next`, the list without the positions in `removed`. */
const dropRemoved = (cursor: Cursor, next: Message[], removed: ReadonlySet<number>): void => {
  cursor.working = next
  if (cursor.origins !== null) cursor.origins = cursor.origins.filter((_, i) => !removed.has(i))
}

const toolPositions = (working: Messages): number[] => {
  const positions: number[] = []
  for (let i = 0; i < working.length; i += 1) if (working[i].role === 'tool') positions.push(i)
  return positions
}

/**
 * The positions of the last `count` tool results among `positions` (those levels 1-7 never
 * truncate or remove: `protected_tool_results`); none when `count` <= 0.
 *
 * @example
 * protectedToolPositions([2, 5, 9], 2) // Set {5, 9}
 */
export const protectedToolPositions = (positions: ReadonlyArray<number>, count: number): ReadonlySet<number> => {
  if (count <= 0) return new Set()
  return new Set(positions.slice(Math.max(0, positions.length - count)))
}

const runWave = (
  cursor: Cursor,
  candidates: ReadonlyArray<number>,
  protectedPositions: ReadonlySet<number>,
  target: number,
  draft: StickyDraft,
  context: PassContext,
): void => {
  // Indexed loops in the ladder: a compacting request runs it a few dozen times a process, mostly
  // before the engine optimizes it, where `for…of` allocates an iterator result per element.
  for (let k = 0; k < candidates.length; k += 1) {
    const position = candidates[k]
    if (cursor.current <= target) return
    if (protectedPositions.has(position) || position < 0 || position >= cursor.working.length) continue
    const message = cursor.working[position]
    if (message.role !== 'tool') continue
    if (isExemptToolResult(message, context.config, context.toolNames)) continue
    if (isTruthy(message._truncated)) continue
    const replacement = context.truncate(message)
    // The configured truncation, not a recorded head: a result an earlier pass kept to a head at least its length is sent whole (no
    // `_truncated`) and met again here; its head must go, or the decisions re-apply to the whole result (compaction_refill_head "fit").
    recordHead(draft, message, null)
    cursor.current += context.estimate(replacement) - context.estimate(message)
    cursor.working[position] = replacement
  }
}

/**
 * The tool group (SPEC 17.3) a removal candidate belongs to, or null when it must be skipped.
 * `openStart` is the assistant of the open group the list ends inside (-1 for none): that group
 * stays whichever of its messages the candidate is (SPEC 17.8), since removing it now would orphan
 * the results that arrive after it in every later view.
 */
const selectRemovalGroup = (
  working: Messages,
  position: number,
  isProtected: (i: number) => boolean,
  openStart: number,
): number[] | null => {
  const message = working[position]
  if (message.role === 'tool') {
    let back = position - 1
    while (back >= 0 && working[back].role === 'tool') back -= 1
    if (back < 0 || !isToolCallMessage(working[back])) {
      // The walk stops at the first message that is neither a tool result nor a call message.
      return null
    }
    if (isProtected(back) || back === openStart) return null
    const end = selectResultRunEnd(working, back)
    if (position >= end) return null
    const group: number[] = []
    for (let i = back; i < end; i += 1) {
      if (i !== back && isProtected(i)) return null
      group.push(i)
    }
    return group
  }
  if (isToolCallMessage(message)) {
    if (position === openStart) return null
    const end = selectResultRunEnd(working, position)
    const group: number[] = [position]
    for (let i = position + 1; i < end; i += 1) {
      if (isProtected(i)) return null
      group.push(i)
    }
    return group
  }
  return [position]
}

/**
 * True when every tool result of `group` is a named-fields truncation (`tool_result_json_projection`): the removal levels keep it
 * (under `tool_result_json_projected_groups: "kept"`; `"early"` is `"kept"` in the early pass, src/core/compaction/early-pass.ts `toEarlyContext`, and removable otherwise).
 */
const isProjectedGroup = (working: Messages, group: ReadonlyArray<number>): boolean => {
  let results = 0
  for (let k = 0; k < group.length; k += 1) {
    const position = group[k]
    if (working[position].role !== 'tool') continue
    if (!isJsonProjection(working[position])) return false
    results += 1
  }
  return results > 0
}

const runRemoval = (
  cursor: Cursor,
  scale: number,
  systemTokens: number,
  target: number,
  draft: StickyDraft,
  context: PassContext,
  keepsProjections = context.config.tool_result_json_projection !== 'off' && context.config.tool_result_json_projected_groups === 'kept',
): void => {
  const working = cursor.working
  const n = working.length
  const { first, last } = toAnchorPositions(working, context.isAnchor)
  // protected_recent_tokens (src/core/compaction/retention.ts): the zone by tokens, else the share.
  const recentStart = recentStartOf(cursor, scale, context)
  const isProtected = (i: number): boolean => i === last || i >= recentStart
  const openStart = selectOpenToolGroupStart(working)
  const removed = new Set<number>()
  let current = estimateMessages(working, context.estimate) + systemTokens
  // compaction_order (src/core/compaction/reference-order.ts): oldest first (every position in turn), or least recently referenced first.
  const order = context.config.compaction_order === 'oldest' ? null : toVisitOrder(working, working.map((_, i) => i), context.config.compaction_order, context.handles, context.estimate)
  for (let k = 0; k < n; k += 1) {
    const i = order === null ? k : order[k]
    if (current <= target) break
    if (isProtected(i) || working[i].role === 'user' || removed.has(i)) continue
    const group = selectRemovalGroup(working, i, isProtected, openStart)
    if (group === null || (keepsProjections && isProjectedGroup(working, group))) continue
    for (let g = 0; g < group.length; g += 1) {
      const position = group[g]
      if (!removed.has(position)) {
        removed.add(position)
        current -= context.estimate(working[position])
      }
    }
  }
  const stubbed = new Set<number>()
  for (let i = 0; i < n; i += 1) {
    if (current <= target) break
    const message = working[i]
    if (message.role !== 'user' || isProtected(i) || i === first || i === last || isTruthy(message._stubbed)) continue
    if (!isStubbable(message)) continue
    stubbed.add(i)
    current -= Math.floor((codePointLength(message.content as string) - 70) / 4)
  }
  const next: Message[] = []
  for (let i = 0; i < n; i += 1) {
    const message = working[i]
    if (removed.has(i)) {
      recordRemoved(draft, message)
    } else if (stubbed.has(i)) {
      recordStubbed(draft, message)
      next.push(context.stub(message))
    } else {
      next.push(message)
    }
  }
  dropRemoved(cursor, next, removed)
  cursor.current = estimateMessages(next, context.estimate) + systemTokens
}

const runLevelEight = (cursor: Cursor, target: number, draft: StickyDraft, context: PassContext): void => {
  const working = cursor.working
  const { first, last } = toAnchorPositions(working, context.isAnchor)
  if (first >= 0 && first !== last) {
    const message = working[first]
    if (!isTruthy(message._stubbed) && isStubbable(message)) {
      working[first] = context.stub(message)
      recordStubbed(draft, message)
      cursor.current -= Math.floor((codePointLength(message.content as string) - 70) / 4)
    }
  }
  if (cursor.current <= target) return
  const boundary = recentStartOf(cursor, 0.3, context)
  const removed = new Set<number>()
  for (let i = 0; i < boundary && i < working.length; i += 1) {
    if (cursor.current <= target) break
    if (!isTruthy(working[i]._stubbed) || i === last || i === first) continue
    removed.add(i)
    cursor.current -= STUB_REMOVAL_TOKENS
  }
  if (context.config.remove_short_user_messages) {
    // `remove_short_user_messages` (docs/configuration.md; off by default): short user messages are never stubbed, so without this they
    // are never removed; oldest first, same zone, never the first or the last user message.
    for (let i = 0; i < boundary && i < working.length; i += 1) {
      if (cursor.current <= target) break
      const message = working[i]
      if (removed.has(i) || i === last || i === first || message.role !== 'user' || typeof message.content !== 'string') continue
      if (isTruthy(message._stubbed) || isStubbable(message)) continue
      removed.add(i)
      cursor.current -= context.estimate(message)
    }
  }
  if (removed.size === 0) return
  const next: Message[] = []
  for (let i = 0; i < working.length; i += 1) {
    if (removed.has(i)) recordRemoved(draft, working[i])
    else next.push(working[i])
  }
  dropRemoved(cursor, next, removed)
}

/**
 * Run levels 1..8 over the sticky-applied non-system list until the total (system tokens
 * included) is at most `target` (SPEC 6.2 step 10 onward). `current` is the starting total.
 * `systemTokens`, `current` and `target` are estimator tokens. Records every decision into `draft`
 * (mutated); never mutates `nonSystem`. Never throws. Under `compaction_refill: "pass"` a pass that
 * reached a removal level (3 or later) then puts back what it removed while that fits under
 * `target` (src/core/compaction/refill.ts; `"history"` runs in the pass, src/core/compaction/pass.ts).
 *
 * @example
 * const context = makePassContext({ ...DEFAULT_CONFIG, protected_tool_results: 0 }, estimateOne, {}, makeDerivationMemo())
 * const nonSystem: Messages = [
 *   { role: 'user', content: 'read it', metadata: { _seq: 0 } },
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read', arguments: '{}' } }], metadata: { _seq: 1 } },
 *   { role: 'tool', tool_call_id: 'a', content: 'x'.repeat(20000), metadata: { _seq: 2 } },
 *   ...['done', 'next?', 'ok', 'and then?', 'fine', 'thanks', 'welcome'].map((content, i): Message => ({ role: i % 2 === 0 ? 'assistant' : 'user', content, metadata: { _seq: 3 + i } })),
 * ]
 * const draft = toStickyDraft(EMPTY_STICKY)
 * const current = estimateMessages(nonSystem, estimateOne)
 * const ladder = runLadder(nonSystem, 0, current, 1000, draft, context)
 * ladder.levelReached // => 3
 * [...draft.removed] // => [1, 2]
 * ladder.working.length // => 8
 */
export const runLadder = (
  nonSystem: Messages,
  systemTokens: number,
  current: number,
  target: number,
  draft: StickyDraft,
  context: PassContext,
  ceiling = Number.POSITIVE_INFINITY,
): LadderResult => {
  const before = context.config.compaction_refill === 'pass' ? toStickyDraft(draft) : null
  const ladder = runLevels(nonSystem, systemTokens, current, target, draft, context, ceiling)
  if (before === null || ladder.levelReached < 3) return ladder
  // compaction_refill "pass" (src/core/compaction/refill.ts): the removed units that still fit under the target come back.
  const after = estimateMessages(ladder.working, context.estimate) + systemTokens
  return { working: refillRemoved(nonSystem, ladder.working, after, target, draft, before, context).working, levelReached: ladder.levelReached }
}

/** Levels 1..8 of `runLadder`, stopping at the first that reaches `target`. */
const runLevels = (
  nonSystem: Messages,
  systemTokens: number,
  current: number,
  target: number,
  draft: StickyDraft,
  context: PassContext,
  ceiling: number,
): LadderResult => {
  const config = context.config
  const origins = config.protected_recent_tokens === null ? null : nonSystem.map((_, i) => i)
  const cursor: Cursor = { working: [...nonSystem], current, initial: nonSystem, origins }
  const done = (): boolean => cursor.current <= target

  // Protections by position (SPEC 6.3); the waves visit in `compaction_order` (src/core/compaction/reference-order.ts).
  let positions = toolPositions(cursor.working)
  let protectedPositions = protectedToolPositions(positions, config.protected_tool_results)
  let visits = toVisitOrder(cursor.working, positions, config.compaction_order, context.handles, context.estimate)
  // tool_result_truncation "mask": level 2 clears every unprotected result (src/core/compaction/retention.ts).
  const waves = toWaveRanges(positions.length, config.tool_result_truncation)

  runWave(cursor, visits.slice(...waves.level1), protectedPositions, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 1 }
  runWave(cursor, visits.slice(...waves.level2), protectedPositions, target, draft, context)
  // tool_result_json_projection: level 2 also shortens every unprotected JSON result to its named fields or handles (src/core/tool-results/json-projection.ts, json-handles.ts).
  if (config.tool_result_json_projection !== 'off') runWave(cursor, visits.filter((p) => isJsonProjection(context.truncatedForm(cursor.working[p]))), protectedPositions, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 2 }

  runRemoval(cursor, 1, systemTokens, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 3 }

  positions = toolPositions(cursor.working)
  protectedPositions = protectedToolPositions(positions, config.protected_tool_results)
  visits = toVisitOrder(cursor.working, positions, config.compaction_order, context.handles, context.estimate)
  runWave(cursor, visits.slice(...toWaveRanges(positions.length, config.tool_result_truncation).level4), protectedPositions, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 4 }

  runRemoval(cursor, 0.6, systemTokens, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 5 }

  positions = toolPositions(cursor.working)
  protectedPositions = protectedToolPositions(positions, config.protected_tool_results)
  runWave(cursor, toVisitOrder(cursor.working, positions, config.compaction_order, context.handles, context.estimate), protectedPositions, target, draft, context)
  if (done()) return { working: cursor.working, levelReached: 6 }

  runRemoval(cursor, 0.3, systemTokens, target, draft, context)
  // tool_result_json_projection: the named-fields groups give way only to keep the list under `ceiling`.
  if (config.tool_result_json_projection !== 'off' && cursor.current > ceiling) runRemoval(cursor, 0.3, systemTokens, ceiling, draft, context, false)
  if (done()) return { working: cursor.working, levelReached: 7 }

  runLevelEight(cursor, target, draft, context)
  return { working: cursor.working, levelReached: 8 }
}
