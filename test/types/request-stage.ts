// Type tests (checked by `npm run typecheck`, not run): a request stage's `run` returns only the
// slices its `writes` names (src/core/request/types.ts, `defineStage`).
import { defineStage } from '../../src/core/request/types.js'

export const meterOnly = defineStage({ name: 'meter-only', writes: ['meter'], observes: false, run: (_facts, draft) => ({ slices: { meter: draft.slices.meter } }) })

export const writesMore = defineStage({
  name: 'writes-more',
  writes: ['meter'],
  observes: false,
  // @ts-expect-error summary is not among the slices the stage writes
  run: (_facts, draft) => ({ slices: { meter: draft.slices.meter, summary: draft.slices.summary } }),
})

export const writesMoreLater = defineStage({
  name: 'writes-more-later',
  writes: ['meter', 'output'],
  observes: false,
  // @ts-expect-error one of the returns writes summary, which the stage does not write
  run: (facts, draft) => {
    if (facts.budget > 0) return { slices: { meter: draft.slices.meter }, stop: true }
    const slices = { meter: draft.slices.meter, summary: draft.slices.summary }
    return { slices }
  },
})
