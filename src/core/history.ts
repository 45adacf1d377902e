/**
 * History reducers (SPEC 1.4, 2.4, 2.5): add_message stamps timestamp and `_seq`, set_messages
 * renumbers and resets, clear empties. Tool names are harvested when per-tool config is active.
 */
import type { Config } from './config.js'
import { isPerToolConfigActive } from './config.js'
import type { Effect } from './effects.js'
import { seqOf, type Message } from './messages/message.js'
import { castDraft } from 'immer'
import { update } from './immer.js'
import { EMPTY_BUDGET, EMPTY_COMPACTION, EMPTY_METER, EMPTY_SUMMARY, type State } from './state.js'
import { isPlainObject, isPresent, isTruthy, setOwn } from './messages/values.js'
import type { MessageFormat } from './formats/carrier.js'
import { withOrigin } from './formats/carrier.js'
import { expandMessage } from './formats/dispatch.js'
import { mergeResponsesPieces } from './formats/openai-responses.js'
import { NO_CACHE_BREAKPOINTS } from './formats/anthropic-cache.js'
import { appendTo, lastOf, replaceLast } from './messages/appendable.js'
import { toJsonStripped } from './tool-results/json-whitespace.js'

/**
 * Add `call id → tool name` entries for the tool calls of `message` (SPEC 11.4); later entries
 * overwrite. Returns the same map when nothing changes.
 *
 * @example
 * harvestToolNames({}, { role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'grep' } }] }) // => { c1: 'grep' }
 */
export const harvestToolNames = (toolNames: Readonly<Record<string, string>>, message: Message): Readonly<Record<string, string>> => {
  const calls = message.tool_calls
  if (!Array.isArray(calls)) return toolNames
  let next: Record<string, string> | null = null
  for (const call of calls) {
    if (!isPlainObject(call)) continue
    const id = isTruthy(call.id) ? call.id : call.tool_call_id
    const name = isPlainObject(call.function) ? call.function.name : isTruthy(call.name) ? call.name : call.tool
    if (!isTruthy(id) || !isTruthy(name)) continue
    next = next ?? { ...toolNames }
    setOwn(next, String(id), String(name))
  }
  return next ?? toolNames
}

/**
 * The stored form of an added message (SPEC 1.4): `metadata.timestamp` added when absent (a
 * present key, even null, is kept), then `_seq` set (replaced in place or added last). The
 * caller's object is never mutated.
 *
 * @example
 * toStoredMessage({ role: 'user', content: 'hi' }, '2026-01-01T00:00:00.000+00:00', 0)
 * // { role: 'user', content: 'hi', metadata: { timestamp: '2026-01-01T00:00:00.000+00:00', _seq: 0 } }
 */
export const toStoredMessage = (message: Message, timestamp: string, seq: number): Message => {
  const source = isTruthy(message.metadata) && isPlainObject(message.metadata) ? message.metadata : {}
  const withTime = isPresent(source, 'timestamp') ? source : { ...source, timestamp }
  return { ...message, metadata: { ...withTime, _seq: seq } }
}

/**
 * Reduce `add_message` (SPEC 1.4): append the stored form, advance `nextSeq`, harvest tool names.
 * The hottest reducer: a plain spread here, not immer (a draft per add cost ~35 µs against ~6 µs,
 * `npm run bench`), and the history is an appendable list (`appendTo`), so the cost is the
 * message's, not the history's.
 *
 * @example
 * applyMessageAdded(DEFAULT_CONFIG, makeInitialState(), { role: 'user', content: 'hi' }, DEFAULT_REPLAY_NOW).history.length // => 1
 */
export const applyMessageAdded = (config: Config, state: State, message: Message, timestamp: string, format: MessageFormat = 'contract'): State => {
  if (format !== 'contract') return applyProviderMessageAdded(config, state, message, timestamp, format)
  const stored = toStoredMessage(toJsonStripped(config, message), timestamp, state.nextSeq)
  return {
    ...state,
    history: appendTo(state.history, [stored]),
    nextSeq: state.nextSeq + 1,
    toolNames: isPerToolConfigActive(config) ? harvestToolNames(state.toolNames, stored) : state.toolNames,
  }
}

/**
 * Reduce `add_message` for a provider format (docs/formats.md): the message is stored as its
 * contract pieces, numbered in order, each carrying the message in `metadata.native` with
 * `origin` = the first piece's `_seq`. A Responses assistant-side item continues the stored
 * assistant piece right before it (same `_seq`) unless compaction already decided about that
 * piece.
 *
 * @example
 * applyProviderMessageAdded(DEFAULT_CONFIG, makeInitialState(), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }, { type: 'text', text: 'next' }] }, DEFAULT_REPLAY_NOW, 'anthropic').history.length // => 2
 */
export const applyProviderMessageAdded = (config: Config, state: State, message: Message, timestamp: string, format: Exclude<MessageFormat, 'contract'>): State => {
  const last = lastOf(state.history)
  const lastSeq = last === undefined ? undefined : seqOf(last)
  const sticky = state.compaction.sticky
  const decided = lastSeq !== undefined && (sticky.removed.has(lastSeq) || sticky.truncated.has(lastSeq) || sticky.stubbed.has(lastSeq))
  const expanded = expandAfter(format, message, state.history, !decided)
  if ('merged' in expanded) {
    return {
      ...state,
      history: replaceLast(state.history, expanded.merged),
      toolNames: isPerToolConfigActive(config) ? harvestToolNames(state.toolNames, expanded.merged) : state.toolNames,
    }
  }
  let seq = state.nextSeq
  let toolNames = state.toolNames
  const stored: Message[] = []
  for (const piece of expanded.pieces) {
    const message = toStoredMessage(withOrigin(toJsonStripped(config, piece.message), state.nextSeq), timestamp, seq)
    stored.push(message)
    if (isPerToolConfigActive(config)) toolNames = harvestToolNames(toolNames, message)
    seq += 1
  }
  return { ...state, history: appendTo(state.history, stored), nextSeq: seq, toolNames }
}

/**
 * The contract pieces of a provider-format message list, as `set_messages` stores them before
 * numbering: origins are the positions of each message's first piece; consecutive Responses
 * assistant-side items are merged into one piece.
 *
 * @example
 * toProviderPieces('anthropic', [{ role: 'user', content: 'hi' }]).length // => 1
 */
export const toProviderPieces = (format: Exclude<MessageFormat, 'contract'>, messages: ReadonlyArray<Message>): Array<Message> => {
  const out: Message[] = []
  for (const message of messages) {
    const expanded = expandAfter(format, message, out, true)
    if ('merged' in expanded) {
      out[out.length - 1] = expanded.merged
      continue
    }
    const origin = out.length
    for (const piece of expanded.pieces) out.push(withOrigin(piece.message, origin))
  }
  return out
}

/**
 * The pieces of `message` added after the list `before`, or, when `mayMerge` and the message is
 * a lone Responses piece that continues the last piece of `before`, that last piece merged with it.
 */
const expandAfter = (
  format: Exclude<MessageFormat, 'contract'>,
  message: Message,
  before: ReadonlyArray<Message>,
  mayMerge: boolean,
): { readonly merged: Message } | { readonly pieces: ReturnType<typeof expandMessage> } => {
  const pieces = expandMessage(format, message, before)
  const last = before[before.length - 1]
  if (mayMerge && format === 'openai-responses' && pieces.length === 1 && last !== undefined) {
    const merged = mergeResponsesPieces(last, pieces[0].message)
    if (merged !== null) return { merged }
  }
  return { pieces }
}

const cancelInFlight = (state: State): ReadonlyArray<Effect> =>
  state.summary.inFlight !== null ? [{ type: 'cancel_summary', id: state.summary.inFlight }] : []

/**
 * Reduce `set_messages` (SPEC 2.4): history replaced by copies numbered `_seq = 0..n−1` (no
 * timestamps added); sticky, stats, replay marker, predicate streak, summary, anchor state and
 * the held cache breakpoints reset; the measured usage, meter stats, spill memo and provenance counters kept.
 *
 * @example
 * applyMessagesReplaced(DEFAULT_CONFIG, makeInitialState(), [{ role: 'user', content: 'hi' }]).state.nextSeq // => 1
 */
export const applyMessagesReplaced = (
  config: Config,
  state: State,
  given: ReadonlyArray<Message>,
  format: MessageFormat = 'contract',
): { readonly state: State; readonly effects: ReadonlyArray<Effect> } => {
  const messages = format === 'contract' ? given : toProviderPieces(format, given)
  const history = messages.map((message, index) => ({
    ...toJsonStripped(config, message),
    metadata: { ...(isTruthy(message.metadata) && isPlainObject(message.metadata) ? message.metadata : {}), _seq: index },
  }))
  let toolNames: Readonly<Record<string, string>> = {}
  if (isPerToolConfigActive(config)) for (const message of history) toolNames = harvestToolNames(toolNames, message)
  return {
    state: update(state, (draft) => {
      draft.history = castDraft(history)
      draft.nextSeq = history.length
      draft.compaction = castDraft(EMPTY_COMPACTION)
      draft.toolNames = toolNames
      draft.budget = EMPTY_BUDGET
      // A new history: the entries the held breakpoints read belong to the old one.
      draft.cacheBreakpoints = castDraft(NO_CACHE_BREAKPOINTS)
      // The slice replaced, not written into: a nested draft (`draft.toolResults.…`) makes immer walk
      // every new value of this draft at the end, the whole history included (2-2.6x setMessages, docs/performance.md).
      draft.toolResults = castDraft({ ...state.toolResults, ingressPending: {} })
      draft.summary = castDraft({ ...EMPTY_SUMMARY, nextRequestNumber: state.summary.nextRequestNumber })
      // Kept: the last reading, the meter stats, the calibration, the spill memo and the provenance counters.
      draft.meter = castDraft({
        ...EMPTY_METER,
        measured: state.meter.measured,
        provenanceRefusals: state.meter.provenanceRefusals,
        provenanceOverrides: state.meter.provenanceOverrides,
        stats: state.meter.stats,
        ...(state.meter.calibration !== undefined ? { calibration: state.meter.calibration } : {}),
      })
    }),
    effects: cancelInFlight(state),
  }
}

/**
 * Reduce `clear()` (SPEC 2.5): everything reset (the held cache breakpoints too) except the
 * provenance counters (spill files are never deleted; only the memo of written paths is emptied).
 *
 * @example
 * applyHistoryCleared(makeInitialState()).state.history // => []
 */
export const applyHistoryCleared = (state: State): { readonly state: State; readonly effects: ReadonlyArray<Effect> } => ({
  state: {
    history: [],
    nextSeq: 0,
    toolNames: {},
    budget: EMPTY_BUDGET,
    meter: {
      ...EMPTY_METER,
      provenanceRefusals: state.meter.provenanceRefusals,
      provenanceOverrides: state.meter.provenanceOverrides,
      // docs/contract.md 17.13: the fit describes the provider and the tools, not the history; kept.
      ...(state.meter.calibration !== undefined ? { calibration: { ...state.meter.calibration, sent: null, anchor: null } } : {}),
    },
    summary: { ...EMPTY_SUMMARY, nextRequestNumber: state.summary.nextRequestNumber },
    compaction: EMPTY_COMPACTION,
    toolResults: { spillWritten: new Set(), spillFailed: new Set(), ingressPending: {} },
    cacheBreakpoints: NO_CACHE_BREAKPOINTS,
  },
  effects: cancelInFlight(state),
})

