/**
 * The early pass (`compact_early_threshold`, docs/configuration.md "The early pass"): a second,
 * lower trigger for views whose history is mostly JSON records. Both its threshold and its target
 * are shares of the compactable room, E less the system messages (as `target_basis:
 * "compactable"` measures), so they keep their meaning whatever share of E a system prompt
 * takes. When the view's history fills `compact_early_threshold` of that room (while the
 * contract's trigger, `compact_threshold` of E, has not fired) and at least
 * `compact_early_record_share` of the history's tokens are JSON tool results that have a form
 * under `tool_result_json_projection` (whole or already in it), an ordinary compaction pass runs
 * toward the system messages plus `compact_early_target` of the room.
 *
 * Why records: a pass over a view of records shortens them to their forms, which keep their
 * handles (ids, codes, dates; src/core/tool-results/json-handles.ts), and keeps the groups in
 * form while it removes conversation around them (`tool_result_json_projected_groups` "kept"),
 * so compacting earlier costs little of what the agent names next (under
 * `tool_result_json_projected_groups: "early"` only the early pass keeps them; the pass at
 * `compact_threshold` removes them as any group, so a session with few records compacts there
 * as without a projection's kept groups). A text tool result (a file
 * read, a command's output) has no form: a pass over it removes it whole, and compacting earlier
 * removes it sooner. A view whose history is text or conversation is therefore left to the
 * contract's trigger: the gate reads what the view holds, not which agent sent it.
 *
 * Pure functions; the pass itself is the contract's (src/core/compaction/pass.ts).
 */
import type { Config } from '../config.js'
import type { Messages } from '../messages/message.js'
import type { PassContext } from './context.js'
import { estimateMessages } from '../meter/estimate.js'

/**
 * The share (0..1) of `history`'s estimated tokens held by JSON records: tool results whose
 * truncated form in `context` is a JSON projection, or that are one already (a sticky form). 0
 * for an empty history, and always 0 under `tool_result_json_projection` "off" (no forms).
 * `total` is the history's estimate when the caller has it (the trigger's sticky-applied view),
 * so only the records are estimated again.
 *
 * @example
 * const context = makePassContext({ ...DEFAULT_CONFIG, tool_result_json_projection: 'handle_values' }, () => 10, {}, makeDerivationMemo())
 * const history: Messages = [
 *   { role: 'user', content: 'Find it' },
 *   { role: 'tool', tool_call_id: 'a', content: '{"id":"R-100","note":"a long note"}' },
 * ]
 * toRecordShare(history, context) // => 0.5
 */
export const toRecordShare = (history: Messages, context: PassContext, total: number = estimateMessages(history, context.estimate)): number => {
  if (total <= 0) return 0
  let records = 0
  for (let i = 0; i < history.length; i += 1) {
    if (context.isRecord(history[i])) records += context.estimate(history[i])
  }
  return records / total
}

/**
 * The share of the compactable room the view's history fills: `historyTokens / (effective −
 * systemTokens)`, all in estimator units (under the calibrated meter E converted through its
 * model); null when the system messages leave no room.
 *
 * @example
 * toCompactableRatio(1000, 1500, 4000) // => 0.5
 * toCompactableRatio(5000, 10, 4100) // => null
 */
export const toCompactableRatio = (systemTokens: number, historyTokens: number, effective: number): number | null => {
  const room = effective - systemTokens
  return room > 0 ? historyTokens / room : null
}

/**
 * Whether the early pass is due at `ratio` (`toCompactableRatio`): `compact_early_threshold` is
 * set and `ratio` reaches it.
 *
 * @example
 * isEarlyDue({ ...DEFAULT_CONFIG, compact_early_threshold: 0.45 }, 0.5) // => true
 * isEarlyDue(DEFAULT_CONFIG, 0.99) // => false
 */
export const isEarlyDue = (config: Config, ratio: number | null): boolean => {
  const threshold = config.compact_early_threshold
  return threshold !== null && ratio !== null && ratio >= threshold
}

/**
 * Whether the early pass runs on the view whose history (sticky-applied, system messages left
 * out) is `history`, at `ratio` (`toCompactableRatio`): it is due (`isEarlyDue`) and JSON records
 * hold at least `compact_early_record_share` of the history's tokens (`toRecordShare`; `total`,
 * the history's estimate when the caller has it).
 *
 * @example
 * const config = { ...DEFAULT_CONFIG, tool_result_json_projection: 'handle_values' as const, compact_early_threshold: 0.45 }
 * const context = makePassContext(config, () => 10, {}, makeDerivationMemo())
 * isEarlyFiring(config, 0.5, [{ role: 'tool', tool_call_id: 'a', content: '{"id":"R-100","note":"a long note"}' }], context) // => true
 * isEarlyFiring(config, 0.5, [{ role: 'tool', tool_call_id: 'a', content: 'line one of a file' }], context) // => false
 */
export const isEarlyFiring = (config: Config, ratio: number | null, history: Messages, context: PassContext, total?: number): boolean =>
  isEarlyDue(config, ratio) && toRecordShare(history, context, total) >= config.compact_early_record_share

/**
 * `context` for an early pass: the same toolkit with the target `compact_early_target` on the
 * compactable part (`target_usage` and `target_basis: "compactable"`, which the pass reads its
 * target from, src/core/compaction/retention.ts `selectTarget`): the system messages plus that
 * share of the room beyond them; and `tool_result_json_projected_groups` `"early"` read as
 * `"kept"` (the early pass keeps the groups in form, the pass at `compact_threshold` does not).
 *
 * @example
 * const context = makePassContext({ ...DEFAULT_CONFIG, compact_early_target: 0.15 }, () => 10, {}, makeDerivationMemo())
 * toEarlyContext(context).config.target_usage // => 0.15
 * toEarlyContext(context).config.target_basis // => 'compactable'
 * toEarlyContext(makePassContext({ ...DEFAULT_CONFIG, tool_result_json_projected_groups: 'early' }, () => 10, {}, makeDerivationMemo())).config.tool_result_json_projected_groups // => 'kept'
 */
export const toEarlyContext = (context: PassContext): PassContext => ({
  ...context,
  config: {
    ...context.config,
    target_usage: context.config.compact_early_target,
    target_basis: 'compactable',
    tool_result_json_projected_groups: context.config.tool_result_json_projected_groups === 'early' ? 'kept' : context.config.tool_result_json_projected_groups,
  },
})
