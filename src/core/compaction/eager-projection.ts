/**
 * Eager tail projection (`tool_result_json_eager_after`, docs/configuration.md "Eager tail
 * projection"): at every request, not only in a compaction pass, a JSON tool result the agent has
 * moved past (followed by N assistant messages of the counted kind) is shortened to the form
 * `tool_result_json_projection` writes, recorded as a sticky truncation (SPEC 7) so every later
 * view keeps that form and the prefix before it stays the same. The rewrite is near the tail of
 * the view (only the form and the messages after it are new to the provider's cache), where a
 * compaction pass rewrites from its first changed message on.
 *
 * Pure functions; the history is never touched (a sticky decision changes views only).
 */
import type { Config, EagerUnit } from '../config.js'
import type { Message, Messages } from '../messages/message.js'
import { seqOf } from '../messages/message.js'
import type { StickyState } from '../state.js'
import { isJsonProjection } from '../tool-results/json-projection.js'
import type { PassContext } from './context.js'
import { isToolCallMessage } from './tool-pairs.js'
import { toStickyState } from './sticky.js'

/**
 * What eager projection reads from the configuration: `after`, the number of later assistant
 * messages (at least 1) that make a result old, and `unit`, which assistant messages count.
 *
 * @example
 * const settings: EagerSettings = { after: 1, unit: 'answers' }
 */
export interface EagerSettings {
  readonly after: number
  readonly unit: EagerUnit
}

/** Whether `message` counts as one exchange after a result under `unit`. */
const counts = (message: Message, unit: EagerUnit): boolean => message.role === 'assistant' && (unit === 'turns' || !isToolCallMessage(message))

/** True when no sticky decision names `seq` yet. */
const isUndecided = (sticky: StickyState, seq: number): boolean => !sticky.removed.has(seq) && !sticky.truncated.has(seq) && !sticky.stubbed.has(seq)

/**
 * The tool results of `list` (W, in order) to shorten now: each followed by at least
 * `settings.after` counted assistant messages, with a `_seq`, named by no sticky decision yet,
 * and whose truncated form in `context` is a JSON projection (`isJsonProjection`: the handles or
 * named-fields form; a result the form does not apply to stays whole). In list order.
 *
 * @example
 * const context = makePassContext({ ...DEFAULT_CONFIG, tool_result_json_projection: 'handles' }, estimateOne, {}, makeDerivationMemo())
 * const list: Messages = [
 *   { role: 'user', content: 'Find it', metadata: { _seq: 0 } },
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'get', arguments: '{}' } }], metadata: { _seq: 1 } },
 *   { role: 'tool', tool_call_id: 'a', content: '{"id":"R-1","note":"a long note"}', metadata: { _seq: 2 } },
 *   { role: 'assistant', content: 'It is R-1.', metadata: { _seq: 3 } },
 * ]
 * selectEagerProjections(list, EMPTY_STICKY, { after: 1, unit: 'answers' }, context).map(seqOf) // => [2]
 */
export const selectEagerProjections = (list: Messages, sticky: StickyState, settings: EagerSettings, context: PassContext): ReadonlyArray<Message> => {
  const found: Message[] = []
  let later = 0
  for (let i = list.length - 1; i >= 0; i -= 1) {
    const message = list[i]
    if (later < settings.after) {
      if (counts(message, settings.unit)) later += 1
      continue
    }
    if (message.role !== 'tool') continue
    const seq = seqOf(message)
    if (seq === undefined || !isUndecided(sticky, seq)) continue
    if (isJsonProjection(context.truncatedForm(message))) found.push(message)
  }
  return found.reverse()
}

/**
 * `sticky` with the eager projections of `list` recorded as truncations (`selectEagerProjections`),
 * the removed and stubbed sets and the recorded heads shared with `sticky` (the same objects: a compaction pass tells
 * these decisions from removals made ahead of it by the removed set); `sticky` itself when there
 * are none.
 *
 * @example
 * const context = makePassContext({ ...DEFAULT_CONFIG, tool_result_json_projection: 'handles' }, estimateOne, {}, makeDerivationMemo())
 * withEagerProjections([], EMPTY_STICKY, { after: 1, unit: 'answers' }, context) === EMPTY_STICKY // => true
 */
export const withEagerProjections = (list: Messages, sticky: StickyState, settings: EagerSettings, context: PassContext): StickyState => {
  const found = selectEagerProjections(list, sticky, settings, context)
  if (found.length === 0) return sticky
  const truncated = new Set(sticky.truncated)
  for (const message of found) truncated.add(seqOf(message) as number)
  // The recorded heads (`compaction_refill_head: "fit"`) stay: a head is the form of a truncated result (src/core/compaction/sticky.ts).
  return toStickyState({ ...sticky, truncated }, sticky.cumulativeLevel)
}

/**
 * The sticky decisions a request starts from: `sticky` with the eager projections of W
 * (`withEagerProjections`) under `tool_result_json_eager_after`, else `sticky` itself.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * toEagerSticky(DEFAULT_CONFIG, [], EMPTY_STICKY, context) === EMPTY_STICKY // => true
 */
export const toEagerSticky = (config: Config, working: Messages, sticky: StickyState, context: PassContext): StickyState => {
  const after = config.tool_result_json_eager_after
  if (after === null || config.tool_result_json_projection === 'off') return sticky
  return withEagerProjections(working, sticky, { after, unit: config.tool_result_json_eager_unit }, context)
}
