/**
 * The eager-projection stage (`tool_result_json_eager_after`, docs/configuration.md "Eager tail
 * projection"; src/core/compaction/eager-projection.ts): writes the sticky truncations of the JSON
 * tool results the agent has moved past into the compaction slice, before the working set and the
 * pass, which apply them (a sticky-only request re-applies them without a `context:compaction`:
 * they are not a pass). The decisions are made with the facts (`toEagerSticky` in
 * src/core/compaction/eager-projection.ts), so the meter's reading already measures the view they
 * make. Off by default: the contract's request is unchanged.
 */
import { defineStage } from './types.js'

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
