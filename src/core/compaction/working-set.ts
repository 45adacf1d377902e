/**
 * The working set (`working_set_window`, docs/configuration.md; docs/evaluation.md, "A working
 * set of handles"): an online guess of which kept messages the next answer needs, after
 * Denning's working-set model of paging. The working set of window τ is what was referenced in
 * the last τ messages: every message among them, and, for every *handle* they use (an id, path,
 * file name or number, read as `compaction_order: "least_referenced"` reads them,
 * src/core/compaction/reference-order.ts), the latest older message that holds it when no
 * message of the set holds it already (one source per handle, the latest). Everything else
 * outside the protections, beyond the units used most recently that fit in `working_set_capacity`
 * of E (least recently used goes first, as `compaction_order: "least_referenced"` ranks), is
 * removable; a request removes it from the cut on that pays (`working_set_payback`: a rewrite
 * re-bills every kept token after its first removal, so a removal far back waits until it frees
 * enough), at every request, not only when the trigger fires.
 *
 * Units are the ladder's: a tool group (SPEC 17.3: an assistant with tool calls and its adjacent
 * results) is kept or removed whole, any other message alone. Always kept: the last two
 * messages, the last anchor user message (the task at hand, `human_anchors`), the open tool
 * group the list ends in (SPEC 17.8), results without their call (their pairing is not ours to
 * judge), and messages without `_seq` (a decision could not be recorded for them, SPEC 7).
 *
 * Independence from the retention measure: what decides is the uses in the messages *before*
 * the request (the window), never the answer that follows it, and the handles are
 * reference-order.ts's character scan, not src/core/economics/recall.ts's classes.
 *
 * Pure functions over message lists; no state, no clock.
 */
import type { Message, Messages } from '../messages/message.js'
import { seqOf } from '../messages/message.js'
import { toLastUse, type MessageHandles } from './reference-order.js'
import { toAnchorPositions } from './anchors.js'
import { isToolCallMessage, selectOpenToolGroupStart, selectResultRunEnd } from './tool-pairs.js'

/**
 * What `selectWorkingSet` needs of a pass context: a message's handles and a message's tokens,
 * and the predicate of the messages the first/last-user protections anchor on.
 *
 * @example
 * const tools: WorkingSetTools = { handles: toMessageHandles, estimate: estimateOne, isAnchor: (message) => message.role === 'user' }
 */
export interface WorkingSetTools {
  readonly handles: (message: Message) => MessageHandles
  readonly estimate: (message: Message) => number
  readonly isAnchor: (message: Message) => boolean
}

/**
 * The working set's three settings (docs/configuration.md): `window` τ in messages (at least 1),
 * `capacity` in estimator tokens (what the least recently used fill may keep beyond the window
 * and its references; 0 for none), `payback` (a removal is made only where the tokens it frees
 * times `payback` exceed the kept tokens after its first removed message, which the rewrite
 * re-bills; greater than 0).
 *
 * @example
 * const settings: WorkingSetSettings = { window: 2, capacity: 410, payback: 1 }
 */
export interface WorkingSetSettings {
  readonly window: number
  readonly capacity: number
  readonly payback: number
}

/**
 * The working set of a non-system list: `kept[i]` for each position, the positions to remove now
 * (`removable`, in order, whole tool groups, from the cut on), and their tokens (`tokens`, by the
 * tools' estimator).
 *
 * @example
 * const set: WorkingSet = { kept: [false, true, true], removable: [0], tokens: 12 }
 */
export interface WorkingSet {
  readonly kept: ReadonlyArray<boolean>
  readonly removable: ReadonlyArray<number>
  readonly tokens: number
}

/** The first position of the unit (tool group or message) of each position. */
const toUnitStarts = (list: Messages): number[] => {
  const starts = list.map((_, i) => i)
  for (let a = 0; a < list.length; a += 1) {
    if (!isToolCallMessage(list[a])) continue
    const end = selectResultRunEnd(list, a)
    for (let i = a; i < end; i += 1) starts[i] = a
    a = end - 1
  }
  return starts
}


/** Keep the unit of position `i` (all positions sharing its start). */
const keepUnit = (starts: ReadonlyArray<number>, kept: boolean[], i: number): void => {
  const start = starts[i]
  for (let j = start; j < kept.length && starts[j] === start; j += 1) kept[j] = true
}

/** Positions always kept: the last two, the last anchor, the open group, results without a call, messages without `_seq`. */
const isAlwaysKept = (list: Messages, starts: ReadonlyArray<number>, i: number, lastAnchor: number, openStart: number): boolean => {
  const message = list[i]
  if (i >= list.length - 2 || i === lastAnchor || seqOf(message) === undefined) return true
  if (openStart >= 0 && starts[i] === openStart) return true
  return message.role === 'tool' && !isToolCallMessage(list[starts[i]])
}

/** Denning's part: every unit older than the window that provides a handle a message of the window uses. */
const keepReferenced = (list: Messages, starts: ReadonlyArray<number>, kept: boolean[], from: number, tools: WorkingSetTools): void => {
  const wanted = new Set<string>()
  for (let i = from; i < list.length; i += 1) for (const handle of tools.handles(list[i]).used) wanted.add(handle)
  if (wanted.size === 0) return
  for (let j = from - 1; j >= 0; j -= 1) {
    if (kept[j]) continue
    for (const handle of tools.handles(list[j]).provided) {
      if (!wanted.has(handle)) continue
      keepUnit(starts, kept, j)
      break
    }
  }
}

/** The least recently used fill: units not kept, most recently used first (`toLastUse`), each kept while the fill stays within `capacity` tokens. */
const keepRecentlyUsed = (list: Messages, starts: ReadonlyArray<number>, kept: boolean[], sizes: ReadonlyArray<number>, capacity: number, tools: WorkingSetTools): void => {
  if (capacity <= 0) return
  const lastUse = toLastUse(list, tools.handles)
  const order = list.map((_, i) => i).filter((i) => !kept[i] && starts[i] === i).sort((x, y) => lastUse[y] - lastUse[x] || y - x)
  let filled = 0
  for (const start of order) {
    let size = 0
    for (let j = start; j < list.length && starts[j] === start; j += 1) size += sizes[j]
    if (filled + size > capacity) continue
    filled += size
    keepUnit(starts, kept, start)
  }
}

/**
 * The cut: the unit start from which the removable units are removed now, where the tokens
 * removed after it times `payback` most exceed the kept tokens after it (which the rewrite
 * re-bills); `list.length` when no position gains.
 */
const selectCut = (starts: ReadonlyArray<number>, kept: ReadonlyArray<boolean>, sizes: ReadonlyArray<number>, payback: number): number => {
  let cut = kept.length
  let best = 0
  let removedAfter = 0
  let keptAfter = 0
  for (let i = kept.length - 1; i >= 0; i -= 1) {
    if (kept[i]) keptAfter += sizes[i]
    else removedAfter += sizes[i]
    if (kept[i] || (i > 0 && starts[i] === starts[i - 1])) continue
    const net = payback * removedAfter - keptAfter
    if (net > best) {
      best = net
      cut = i
    }
  }
  return cut
}

/**
 * The working set of `settings` over `list`, a non-system list with the sticky decisions applied
 * (module comment): every unit with a message among the last `window` or always kept; every older
 * unit providing a handle the window uses (Denning's working set); then the units used most
 * recently (`toLastUse`, src/core/compaction/reference-order.ts) while they fit in `capacity`
 * tokens. The units outside it are removed from the cut on (`payback`): a removal far back,
 * which re-bills all that follows it, waits until it frees enough. Deterministic; never splits a
 * tool group; never mutates `list`.
 *
 * @example
 * const tools: WorkingSetTools = { handles: toMessageHandles, estimate: () => 10, isAnchor: (message) => message.role === 'user' }
 * const list: Messages = [
 *   { role: 'user', content: 'My id is mia_li_3668', metadata: { _seq: 0 } },
 *   { role: 'assistant', content: 'Noted. Anything else?', metadata: { _seq: 1 } },
 *   { role: 'user', content: 'The weather is nice', metadata: { _seq: 2 } },
 *   { role: 'assistant', content: 'Looking up mia_li_3668', metadata: { _seq: 3 } },
 *   { role: 'user', content: 'thanks', metadata: { _seq: 4 } },
 * ]
 * const set = selectWorkingSet(list, { window: 2, capacity: 0, payback: 3 }, tools)
 * set.kept // => [true, false, false, true, true]
 * set.removable // => [1, 2]
 * set.tokens // => 20
 */
export const selectWorkingSet = (list: Messages, settings: WorkingSetSettings, tools: WorkingSetTools): WorkingSet => {
  const n = list.length
  const starts = toUnitStarts(list)
  const kept = new Array<boolean>(n).fill(false)
  const lastAnchor = toAnchorPositions(list, tools.isAnchor).last
  const openStart = selectOpenToolGroupStart(list)
  const from = Math.max(0, n - Math.max(1, Math.trunc(settings.window)))
  for (let i = 0; i < n; i += 1) if (i >= from || isAlwaysKept(list, starts, i, lastAnchor, openStart)) keepUnit(starts, kept, i)
  keepReferenced(list, starts, kept, from, tools)
  const sizes = list.map((message) => tools.estimate(message))
  keepRecentlyUsed(list, starts, kept, sizes, settings.capacity, tools)
  const cut = selectCut(starts, kept, sizes, settings.payback)
  const removable: number[] = []
  let tokens = 0
  for (let i = cut; i < n; i += 1) {
    if (kept[i]) continue
    removable.push(i)
    tokens += sizes[i]
  }
  return { kept, removable, tokens }
}
