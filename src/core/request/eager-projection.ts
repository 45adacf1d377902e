/**
 * The eager-projection stage (`tool_result_json_eager_after`, docs/configuration.md "Eager tail
 * projection"; src/core/compaction/eager-projection.ts): writes the sticky truncations of the JSON
 * tool results the agent has moved past into the compaction slice, before the working set and the
 * pass, which apply them (a sticky-only request re-applies them without a `context:compaction`:
 * they are not a pass). The decisions are made with the facts (`toEagerSticky`), so the meter's
 * reading already measures the view they make. Off by default: the contract's request is unchanged.
 */
import type { Config } from '../config.js'
import type { Messages } from '../messages/message.js'
import type { StickyState } from '../state.js'
import type { PassContext } from '../compaction/context.js'
import { withEagerProjections } from '../compaction/eager-projection.js'
import { defineStage } from './types.js'

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

/**
 * Writes the request's eager sticky decisions (`facts.sticky`) into the compaction slice when
 * they differ from the state's; emits nothing.
 *
 * @example
 * eagerProjectionStage.writes // => ['compaction']
 */
export const eagerProjectionStage = defineStage({
  name: 'eager-projection',
  writes: ['compaction'],
  observes: false,
  run: (facts, draft) => {
    if (facts.sticky === draft.slices.compaction.sticky) return {}
    return { slices: { compaction: { ...draft.slices.compaction, sticky: facts.sticky } } }
  },
})
