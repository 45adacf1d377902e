/**
 * The irreducible floor (guard `compaction_floor_guard`, docs/configuration.md): what the ladder can never take
 * out of a view — system messages, the messages its deepest level protects, the open tool group —
 * and the `context:compaction-infeasible` payload when that floor sits above the target.
 */
import type { Config } from '../config.js'
import type { Message, Messages } from '../messages/message.js'
import { isTruthy } from '../messages/values.js'
import { isExemptToolResult } from '../tool-results/tool-result-budget.js'
import type { PassContext } from './context.js'
import { isStubbable } from './stub.js'
import { toAnchorPositions } from './anchors.js'
import { isToolCallMessage, selectOpenToolGroupStart, selectResultRunEnd } from './tool-pairs.js'
import { protectedToolPositions } from './ladder.js'
import { selectRecentStart } from './retention.js'

/**
 * The floor of one working list, in estimator tokens. `protected_tokens` are the non-system
 * messages no level removes, in the smallest form the ladder can give them (unprotected tool
 * results truncated, the first user message stubbed); `open_group_tokens` the open tool group at
 * the tail (SPEC 17.8); `floor_tokens` the sum of the three parts.
 *
 * @example
 * const floor: FloorBreakdown = { floor_tokens: 9000, system_tokens: 8000, protected_tokens: 900, open_group_tokens: 100 }
 */
export interface FloorBreakdown {
  readonly floor_tokens: number
  readonly system_tokens: number
  readonly protected_tokens: number
  readonly open_group_tokens: number
}

/**
 * The `context:compaction-infeasible` payload: the floor, the target it cannot reach, the
 * effective budget, and the configuration key whose lowering alone would bring the floor under the
 * target (`protected_tool_results`, then `protected_recent`), or null when neither would (the
 * system prompt, the last user message or the open group alone is too big). Tokens throughout.
 *
 * @example
 * const payload: InfeasiblePayload = { floor_tokens: 9000, system_tokens: 8000, protected_tokens: 900, open_group_tokens: 100, target_tokens: 4600, budget: 9200, knob: null }
 */
export interface InfeasiblePayload extends FloorBreakdown {
  readonly target_tokens: number
  readonly budget: number
  readonly knob: 'protected_recent' | 'protected_tool_results' | null
  /** `token_meter: "calibrated"` only: the model's overhead (billed tokens) that leaves no room. */
  readonly overhead_tokens?: number
  /** `token_meter: "calibrated"` only: the model's scale (billed tokens per estimator token). */
  readonly scale?: number
}

const smallestToolResult = (message: Message, protectedResult: boolean, context: PassContext): number => {
  if (protectedResult || isTruthy(message._truncated) || isExemptToolResult(message, context.config, context.toolNames)) return context.estimate(message)
  return context.estimate(context.truncatedForm(message))
}

/**
 * Measure the floor of the sticky-applied non-system list `nonSystem` with the protections of
 * `config` (levels 7 and 8: the recent zone `protected_recent × 0.3`, or `protected_recent_tokens × 0.3` tokens, the last user message, the
 * first user message as its stub, user messages too short to stub, the last
 * `protected_tool_results` results at full size, tool groups that reach into the recent zone,
 * orphan results, the open tool group). `systemTokens` is the estimate of the system messages.
 * Pure; never throws.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * const floor = measureFloor([{ role: 'user', content: 'hi' }], 8000, DEFAULT_CONFIG, context)
 * floor.floor_tokens === 8000 + estimateOne({ role: 'user', content: 'hi' }) // => true
 * floor.open_group_tokens // => 0
 */
export const measureFloor = (nonSystem: Messages, systemTokens: number, config: Config, context: PassContext): FloorBreakdown => {
  const n = nonSystem.length
  const open = selectOpenToolGroupStart(nonSystem)
  const openStart = open < 0 ? n : open
  // The zone level 7 and 8 protect (by tokens under protected_recent_tokens: src/core/compaction/retention.ts).
  const recentStart = selectRecentStart(nonSystem, config.protected_recent, 0.3, config.protected_recent_tokens, context.estimate)
  const { first, last } = toAnchorPositions(nonSystem, context.isAnchor)
  const toolPositions: number[] = []
  for (let i = 0; i < n; i += 1) if (nonSystem[i].role === 'tool') toolPositions.push(i)
  const keptTools = protectedToolPositions(toolPositions, config.protected_tool_results)
  // Tool groups that reach into the recent zone (or start in it) are never removed; results
  // outside any group (orphans) are never removed either.
  const pinned = new Set<number>()
  const grouped = new Set<number>()
  for (let i = 0; i < n; i += 1) {
    if (!isToolCallMessage(nonSystem[i])) continue
    const end = selectResultRunEnd(nonSystem, i)
    for (let k = i + 1; k < end; k += 1) grouped.add(k)
    if (end > recentStart) for (let k = i; k < end; k += 1) pinned.add(k)
  }
  let protectedTokens = 0
  let openTokens = 0
  for (let i = 0; i < n; i += 1) {
    const message = nonSystem[i]
    let tokens = 0
    if (message.role === 'tool') {
      // Results in the recent zone, pinned groups and orphans stay, possibly truncated.
      if (i >= recentStart || pinned.has(i) || !grouped.has(i) || i >= openStart) tokens = smallestToolResult(message, keptTools.has(i), context)
    } else if (message.role === 'user') {
      // Level 8 stubs the first user message (not also the last) even inside the recent zone (SPEC 6.5), whose stub may be the larger.
      if (i === last) tokens = context.estimate(message)
      else if (i === first) tokens = isStubbable(message) && !isTruthy(message._stubbed) ? context.estimate(context.stub(message)) : context.estimate(message)
      else if (i >= recentStart) tokens = context.estimate(message)
      else if (!isTruthy(message._stubbed) && !isStubbable(message)) tokens = context.estimate(message)
    } else if (i >= recentStart || pinned.has(i) || i >= openStart) {
      tokens = context.estimate(message)
    }
    if (i >= openStart) openTokens += tokens
    else protectedTokens += tokens
  }
  return { floor_tokens: systemTokens + protectedTokens + openTokens, system_tokens: systemTokens, protected_tokens: protectedTokens, open_group_tokens: openTokens }
}

/**
 * The `context:compaction-infeasible` payload for a floor above `target` (tokens), naming the
 * knob that would make it fit: the floor re-measured with `protected_tool_results: 0`, then with
 * `protected_recent: 0`; the first that reaches the target is named, else null.
 *
 * @example
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, {}, makeDerivationMemo())
 * const nonSystem: Messages = [
 *   { role: 'user', content: 'read it' },
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read', arguments: '{}' } }] },
 *   { role: 'tool', tool_call_id: 'a', content: 'x'.repeat(20000) },
 *   { role: 'assistant', content: 'done' },
 *   { role: 'user', content: 'thanks' },
 * ]
 * const floor = measureFloor(nonSystem, 0, DEFAULT_CONFIG, context)
 * toInfeasiblePayload(floor, nonSystem, 1000, 1250, context).knob // => 'protected_tool_results'
 */
export const toInfeasiblePayload = (
  floor: FloorBreakdown,
  nonSystem: Messages,
  target: number,
  effective: number,
  context: PassContext,
): InfeasiblePayload => {
  const config = context.config
  let knob: InfeasiblePayload['knob'] = null
  if (config.protected_tool_results > 0 && measureFloor(nonSystem, floor.system_tokens, { ...config, protected_tool_results: 0 }, context).floor_tokens <= target) {
    knob = 'protected_tool_results'
  } else if (config.protected_recent > 0 && measureFloor(nonSystem, floor.system_tokens, { ...config, protected_recent: 0 }, context).floor_tokens <= target) {
    knob = 'protected_recent'
  }
  return { ...floor, target_tokens: target, budget: effective, knob }
}
