/**
 * The view stage (SPEC 1.6): the list so far as a view carries it, without `_seq`, and its estimate.
 */
import type { Messages } from '../messages/message.js'
import { stripMessage } from '../compaction/context.js'
import type { StrippedView } from '../memo/derivation-memo.js'
import { estimateMessages } from '../meter/estimate.js'
import { selectPlainView } from '../incremental/working.js'
import { defineStage, type StageFacts } from './types.js'

const strip = (facts: StageFacts, list: Messages): Messages => list.map((message) => stripMessage(message, facts.memo))

/**
 * Strips the list so far. W sent as it is and a pass that decided nothing (S ++ N' itself) reuse
 * the memoized stripped view of the request's derivations: only the tail items (replay, notice)
 * are stripped here.
 *
 * @example
 * viewStage.writes // => ['view']
 */
export const viewStage = defineStage({
  name: 'view',
  writes: ['view'],
  observes: false,
  run: (facts, draft) => {
    const pass = draft.slices.pass
    if (pass === null || pass.kind === 'plain') return { slices: { view: selectPlainView(facts.memo, facts.selected, facts.estimate) } }
    const applied = pass.applied
    let view: StrippedView
    if (applied !== null && (!pass.mayDecide || !pass.decided)) {
      const tail = strip(facts, draft.list.slice(applied.list.length))
      view = tail.length === 0 ? applied : { view: applied.view.concat(tail), tokens: applied.tokens + estimateMessages(tail, facts.estimate) }
    } else {
      const stripped = strip(facts, draft.list)
      view = { view: stripped, tokens: estimateMessages(stripped, facts.estimate) }
    }
    return { slices: { view } }
  },
})
