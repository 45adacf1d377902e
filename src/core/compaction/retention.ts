/**
 * Retention policy pieces of the ladder (docs/evaluation.md, "The policy candidates"), each behind
 * a configuration key whose default reproduces the contract (SPEC 6.3-6.5):
 *
 * - the recent zone a removal level protects, by tokens (`protected_recent_tokens`) instead of by
 *   a share of the message count (`protected_recent`, SPEC 6.4), measured on the list the pass
 *   started from (src/core/compaction/ladder.ts, docs/contract.md 17.14);
 * - observation masking (`tool_result_truncation: "mask"`): the tool-result waves run over every
 *   unprotected result before any message is removed, and each result the ladder reaches becomes
 *   its identifying stub whatever its size, so user messages and assistant tool calls (with their
 *   arguments) stay longest.
 *
 * Pure functions over message lists and an estimator; no state.
 */
import type { Config } from '../config.js'
import type { Messages } from '../messages/message.js'
import type { TokenEstimator } from '../meter/estimate.js'

/**
 * The first position of the recent zone a removal level protects, in a list of `length`
 * messages. `scale` is the level's multiplier (1 at level 3, 0.6 at level 5, 0.3 at level 7,
 * SPEC 6.4). With `tokens` null (the contract) the zone is the last `share × scale` of the
 * messages: `trunc(length × (1 − share × scale))`. With `tokens` (estimator tokens) it is the
 * longest suffix whose estimate is at most `tokens × scale`, at least the last message; the
 * zone then holds as much recent conversation whatever the size of the messages in it.
 * Returns a position in 0..length.
 *
 * @example
 * selectRecentStart([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], 0.5, 1, null, () => 10) // => 1
 * selectRecentStart([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'user', content: 'c' }], 0.5, 1, 25, () => 10) // => 1
 */
export const selectRecentStart = (working: Messages, share: number, scale: number, tokens: number | null, estimate: TokenEstimator): number => {
  const length = working.length
  if (tokens === null) return Math.trunc(length * (1 - share * scale))
  const limit = tokens * scale
  let start = length
  let total = 0
  while (start > 0) {
    const next = total + estimate(working[start - 1])
    if (next > limit && start < length) break
    total = next
    start -= 1
  }
  return start
}

/**
 * The tool-result positions (indexes into the list of tool-result positions, `[from, to)`) each
 * wave of the ladder visits among `count` results: levels 1 and 2, then 4 (SPEC 6.3: the first,
 * second and third quarter of the results, oldest first; level 6 visits all; level 4 takes its
 * quarter of the results left after level 3's removals, so the ladder calls this again there). Under observation masking
 * (`tool_result_truncation: "mask"`) level 2 visits every result after the first quarter, so every
 * unprotected result is cleared before level 3 removes any message.
 *
 * @example
 * toWaveRanges(8, 'head') // => { level1: [0, 2], level2: [2, 4], level4: [4, 6] }
 * toWaveRanges(8, 'mask') // => { level1: [0, 2], level2: [2, 8], level4: [4, 6] }
 */
export const toWaveRanges = (
  count: number,
  truncation: Config['tool_result_truncation'],
): { readonly level1: readonly [number, number]; readonly level2: readonly [number, number]; readonly level4: readonly [number, number] } => {
  const quarter = (fraction: number): number => Math.trunc(count * fraction)
  return {
    level1: [0, quarter(0.25)],
    level2: [quarter(0.25), truncation === 'mask' ? count : quarter(0.5)],
    level4: [quarter(0.5), quarter(0.75)],
  }
}

/**
 * Whether a tool result of `length` characters (code points) with a character budget of
 * `budgetChars` is shortened when the ladder reaches it: over its budget (SPEC 11.2), or, under
 * observation masking, whenever its stub (`stubLength` characters) is shorter than the result.
 *
 * @example
 * isShortened(300, 1000, 60, 'head') // => false
 * isShortened(300, 1000, 60, 'mask') // => true
 * isShortened(40, 1000, 60, 'mask') // => false
 */
export const isShortened = (length: number, budgetChars: number, stubLength: number, truncation: Config['tool_result_truncation']): boolean =>
  length > budgetChars || (truncation === 'mask' && length > stubLength)

/**
 * The target of a compaction pass in estimator tokens: `contractTarget` under `target_basis:
 * "budget"` (SPEC 6.2: `trunc(E × target_usage)`, or its conversion through the calibrated
 * meter's model, docs/contract.md 17.13); under `"compactable"` the system messages' tokens plus
 * `trunc((E − system tokens) × target_usage)`, E being `effective` in estimator units (under the
 * calibrated meter already without the model's overhead), so a long system prompt or a large
 * hidden overhead does not send every compaction to the bottom of the ladder.
 *
 * @example
 * selectTarget({ ...DEFAULT_CONFIG, target_basis: 'compactable', target_usage: 0.5 }, 1000, 3000, 1500) // => 2000
 * selectTarget({ ...DEFAULT_CONFIG, target_usage: 0.5 }, 1000, 3000, 1500) // => 1500
 */
export const selectTarget = (config: Config, systemTokens: number, effective: number, contractTarget: number): number =>
  config.target_basis === 'compactable' ? systemTokens + Math.trunc(Math.max(0, effective - systemTokens) * config.target_usage) : contractTarget
