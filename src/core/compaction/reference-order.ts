/**
 * Least recently referenced first (`compaction_order: "least_referenced"`, docs/configuration.md;
 * docs/evaluation.md, "Least recently referenced first"): the order in which the ladder's waves
 * and removal levels visit their candidates, by when the agent last *used* what a message
 * brought into the conversation instead of by its age (the contract, SPEC 6.3-6.4, visits oldest
 * first). The cache analogy: LRU instead of FIFO. `"least_referenced_per_token"` is the
 * cost-aware LRU of caches: a unit's tokens times the messages since its last use, largest first
 * (`toVisitOrder`); measured better on tau-bench and worse on Claude Code and Codex, where the
 * large file read just used is what the next answer quotes (docs/evaluation.md, "Cost-aware least
 * recently referenced, and superseded results (not taken)").
 *
 * What counts as a use. An agent carries forward *handles*: the ids, paths, file names and
 * numbers it read in a tool result and passes on in its next tool call or names in its answer.
 * A message's handles are read from its content (every string in it; a tool result's whole
 * text, keys included, since what matters is that a later reference can be found in it). A use is
 * a later user message (its content) or assistant message (its text and the values of its tool
 * calls' arguments, parsed when they are JSON, so parameter names are not uses) naming one of
 * them. Later tool results are not uses: a result repeating an id shows what the tool returned,
 * not what the agent chose to carry on. A tool group's handles are those of its results and its
 * assistant's text, not its call arguments: a later call with the same arguments (reading the
 * same file again) brings its own copy and is no reason to keep the old one.
 *
 * Handles are runs of letters, digits, `_` and the joiners `.` `/` `-` `:` (joiners trimmed at
 * both ends) of at least three characters that are not words of prose: they hold a digit, an
 * `_`, a `/`, or a `.` between two letters or digits. Each run also yields its parts split at
 * `/` and `:` that qualify alone, so `src/a.ts:12` is a use of `a.ts` and of `src/a.ts`.
 *
 * Independence from the retention measure. The needed-fact recall of
 * src/core/economics/recall.ts also reads identifiers; this module shares none of its code. It
 * tokenizes by a character scan (not that regex), takes no camel-case or extension classes, takes
 * three-character runs and path parts, reads results' JSON as text, and decides by the latest use
 * before the request, never by the answer that follows it (which the measure grades and the
 * library cannot see). The overlap is the principle both rest on: agents re-use handles.
 *
 * Pure functions over message lists; no state, no estimator. A message's handles are a pure
 * function of it, so the ladder reads them through its pass context (`PassContext.handles`):
 * each message is scanned once, not at every level of every compaction, and the memo keeps only
 * the handles of the messages the last ladder run ranked (`DerivationMemo.rankedHandles`), not
 * those of every message ever ranked (most of them removed since), which would stay in memory as
 * long as the history does.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject } from '../messages/values.js'
import type { CompactionOrder } from '../config.js'
import { estimateOne } from '../meter/estimate.js'
import { isToolCallMessage, selectResultRunEnd } from './tool-pairs.js'

/** Shortest handle, in characters. */
const MIN_HANDLE = 3
/** Longest run read as a handle (longer runs are data: base64, hashes of pages, minified code). */
const MAX_HANDLE = 160
/** Keys whose strings are opaque data, never handles. */
const OPAQUE_KEYS: ReadonlySet<string> = new Set(['signature', 'encrypted_content', 'data', 'image_url'])

const isWordCode = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
const isJoinerCode = (code: number): boolean => code === 46 || code === 47 || code === 45 || code === 58
const isDigitCode = (code: number): boolean => code >= 48 && code <= 57

/** Whether a trimmed run is a handle rather than a word of prose. */
const isHandle = (run: string): boolean => {
  if (run.length < MIN_HANDLE || run.length > MAX_HANDLE) return false
  for (let i = 0; i < run.length; i += 1) {
    const code = run.charCodeAt(i)
    if (isDigitCode(code) || code === 95 || code === 47) return true
    if (code === 46 && run.length > MIN_HANDLE && i > 0 && i < run.length - 1 && isWordCode(run.charCodeAt(i - 1)) && isWordCode(run.charCodeAt(i + 1))) return true
  }
  return false
}

const trimJoiners = (run: string): string => {
  let start = 0
  let end = run.length
  while (start < end && isJoinerCode(run.charCodeAt(start))) start += 1
  while (end > start && isJoinerCode(run.charCodeAt(end - 1))) end -= 1
  return run.slice(start, end)
}

const addRun = (raw: string, into: Set<string>): void => {
  const run = trimJoiners(raw)
  if (run.length > MAX_HANDLE) return
  if (isHandle(run)) into.add(run)
  if (run.indexOf('/') < 0 && run.indexOf(':') < 0) return
  const parts = run.split(':').map(trimJoiners)
  for (const part of parts) if (part !== run && isHandle(part)) into.add(part)
  for (const part of parts.flatMap((colonPart) => colonPart.split('/')).map(trimJoiners)) if (isHandle(part)) into.add(part)
}

/**
 * Add the handles of `text` to `into` (see the module comment for what a handle is).
 *
 * @example
 * const handles = new Set<string>()
 * addHandles('Reservation HAT076 for mia_li_3668, see src/a.ts:12 and the 2 bags.', handles)
 * [...handles] // => ['HAT076', 'mia_li_3668', 'src/a.ts:12', 'src/a.ts', 'a.ts']
 */
export const addHandles = (text: string, into: Set<string>): void => {
  let start = -1
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : 32
    const inRun = isWordCode(code) || isJoinerCode(code)
    if (inRun && start < 0) start = i
    else if (!inRun && start >= 0) {
      addRun(text.slice(start, i), into)
      start = -1
    }
  }
}

/**
 * True when `text` holds at least one handle (see the module comment).
 *
 * @example
 * holdsHandle('2024-05-21') // => true
 * holdsHandle('economy class') // => false
 */
export const holdsHandle = (text: string): boolean => {
  const handles = new Set<string>()
  addHandles(text, handles)
  return handles.size > 0
}

const addStrings = (value: unknown, into: Set<string>, depth: number): void => {
  if (typeof value === 'string') addHandles(value, into)
  else if (depth > 32) return
  else if (Array.isArray(value)) for (const item of value) addStrings(item, into, depth + 1)
  else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) if (!OPAQUE_KEYS.has(key)) addStrings(value[key], into, depth + 1)
  }
}

/** The values of a tool call's arguments (parsed when they are a JSON string). */
const addArgumentValues = (call: unknown, into: Set<string>): void => {
  if (!isPlainObject(call)) return
  const fn = isPlainObject(call.function) ? call.function : call
  const raw = fn.arguments ?? fn.input ?? fn.args
  let parsed: unknown = raw
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw)
    } catch {
      parsed = raw
    }
  }
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') addHandles(value, into)
    else if (typeof value === 'number') addHandles(String(value), into)
    else if (depth > 32) return
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1)
    else if (isPlainObject(value)) for (const key of Object.keys(value)) walk(value[key], depth + 1)
  }
  walk(parsed, 0)
}

/** The handles a message brought into the conversation (its content). */
const toProvided = (message: Message): Set<string> => {
  const handles = new Set<string>()
  addStrings(message.content, handles, 0)
  return handles
}

/**
 * The handles a message provides (its content) and uses (user content; assistant text and
 * tool-call argument values); see the module comment.
 *
 * @example
 * const handles: MessageHandles = { provided: new Set(['HAT076']), used: new Set(['HAT076']) }
 */
export interface MessageHandles {
  readonly provided: ReadonlySet<string>
  readonly used: ReadonlySet<string>
}

const NO_HANDLES: ReadonlySet<string> = new Set()

/** The handles a message uses: user content, assistant text and tool-call argument values. */
const toUsed = (message: Message, provided: ReadonlySet<string>): ReadonlySet<string> => {
  if (message.role === 'user') return provided
  if (message.role !== 'assistant') return NO_HANDLES
  if (!Array.isArray(message.tool_calls)) return provided
  const handles = new Set(provided)
  for (const call of message.tool_calls) addArgumentValues(call, handles)
  return handles
}

/**
 * The handles `message` provides (its content) and uses (user content; assistant text and
 * tool-call argument values); see the module comment.
 *
 * @example
 * const handles = toMessageHandles({ role: 'assistant', content: 'see a.ts', tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{"path":"src/b.ts"}' } }] })
 * [...handles.provided] // => ['a.ts']
 * [...handles.used] // => ['a.ts', 'src/b.ts', 'b.ts']
 */
export const toMessageHandles = (message: Message): MessageHandles => {
  const provided = toProvided(message)
  return { provided, used: toUsed(message, provided) }
}

/**
 * The last use of each position of `working`: the latest later position whose message uses a
 * handle the message provides (module comment), or the position itself when none does; then,
 * for every tool group (SPEC 17.3: an assistant with tool calls and its adjacent results), the
 * latest of its members' values given to all of them, so a group is ranked as one unit.
 * `handlesOf` gives a message's handles (`toMessageHandles`, or the memoized `PassContext.handles`).
 *
 * @example
 * const working: Messages = [
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'get_user', arguments: '{"user_id":"mia_li_3668"}' } }] },
 *   { role: 'tool', tool_call_id: 'a', content: '{"reservations":["HAT076"]}' },
 *   { role: 'assistant', content: 'Checking.' },
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'b', type: 'function', function: { name: 'get_reservation', arguments: '{"reservation_id":"HAT076"}' } }] },
 * ]
 * toLastUse(working) // => [3, 3, 2, 3]
 */
export const toLastUse = (working: Messages, handlesOf: (message: Message) => MessageHandles = toMessageHandles): number[] => {
  const n = working.length
  const lastUse = new Array<number>(n).fill(0)
  const latest = new Map<string, number>()
  for (let j = n - 1; j >= 0; j -= 1) {
    const { provided, used } = handlesOf(working[j])
    let use = j
    for (const handle of provided) {
      const at = latest.get(handle)
      if (at !== undefined && at > use) use = at
    }
    lastUse[j] = use
    for (const handle of used) if (!latest.has(handle)) latest.set(handle, j)
  }
  for (let a = 0; a < n; a += 1) {
    if (!isToolCallMessage(working[a])) continue
    const end = selectResultRunEnd(working, a)
    let use = lastUse[a]
    for (let i = a + 1; i < end; i += 1) use = Math.max(use, lastUse[i])
    for (let i = a; i < end; i += 1) lastUse[i] = use
    a = end - 1
  }
  return lastUse
}

/**
 * What keeping each position of `working` costs, in `sizeOf` tokens: the sum over its tool group
 * (SPEC 17.3: an assistant with tool calls and its adjacent results) for every member of one, its
 * own size otherwise, so a group is weighed as one unit.
 *
 * @example
 * const working: Messages = [
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read', arguments: '{}' } }] },
 *   { role: 'tool', tool_call_id: 'a', content: 'x' },
 *   { role: 'user', content: 'y' },
 * ]
 * toUnitSizes(working, () => 10) // => [20, 20, 10]
 */
export const toUnitSizes = (working: Messages, sizeOf: (message: Message) => number): number[] => {
  const sizes = working.map(sizeOf)
  for (let a = 0; a < working.length; a += 1) {
    if (!isToolCallMessage(working[a])) continue
    const end = selectResultRunEnd(working, a)
    let total = 0
    for (let i = a; i < end; i += 1) total += sizes[i]
    for (let i = a; i < end; i += 1) sizes[i] = total
    a = end - 1
  }
  return sizes
}

/**
 * `positions` in the order the ladder visits them under `compaction_order`: as given (the
 * contract: oldest first) for `"oldest"`; by their last use in `working` (`toLastUse`), least
 * recent first, for `"least_referenced"`; for `"least_referenced_per_token"` by what keeping them
 * costs against how long ago they were last used, largest first: the unit's tokens (`toUnitSizes`
 * with `sizeOf`) times the messages since its last use (`working.length - lastUse`, at least 1).
 * That is the cost-aware LRU of caches (evict the lowest value per token, with the value of a
 * unit falling with the time since its last use): a large result unused for long goes before a
 * small message unused as long, and one removal frees what several would. Ties by position
 * (`handlesOf` as for `toLastUse`). Never drops or adds a position.
 *
 * @example
 * const working: Messages = [{ role: 'assistant', content: 'ref A-17' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'about A-17' }]
 * toVisitOrder(working, [0, 1], 'least_referenced') // => [1, 0]
 * toVisitOrder(working, [0, 1], 'oldest') // => [0, 1]
 * toVisitOrder(working, [0, 1], 'least_referenced_per_token', toMessageHandles, (message) => (message.content === 'x' ? 1 : 50)) // => [0, 1]
 */
export const toVisitOrder = (
  working: Messages,
  positions: ReadonlyArray<number>,
  order: CompactionOrder,
  handlesOf: (message: Message) => MessageHandles = toMessageHandles,
  sizeOf: (message: Message) => number = estimateOne,
): number[] => {
  if (order === 'oldest') return [...positions]
  const lastUse = toLastUse(working, handlesOf)
  if (order === 'least_referenced') return [...positions].sort((x, y) => lastUse[x] - lastUse[y] || x - y)
  const sizes = toUnitSizes(working, sizeOf)
  const n = working.length
  const weight = (i: number): number => sizes[i] * Math.max(1, n - lastUse[i])
  return [...positions].sort((x, y) => weight(y) - weight(x) || x - y)
}
