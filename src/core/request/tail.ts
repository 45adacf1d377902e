/**
 * The tail stage (SPEC 13, SPEC 9 with `compaction_notice_repeat` in docs/configuration.md): the
 * last user message replayed after a compaction boundary, and the compaction notice.
 */
import type { Message, Messages } from '../messages/message.js'
import { isHumanPrompt } from '../compaction/anchors.js'
import { selectNotice } from '../compaction/notice.js'
import { isRealUserMessage, selectLastUserReplay, toBoundaryIdentity } from '../compaction/replay-last-user.js'
import { defineStage } from './types.js'

/**
 * After a pass (not for W sent as it is): appends the replay of the last real user message once
 * per boundary (`replay_last_user_on_compaction`; not after a refusal), then the notice; the full
 * notice goes out once per accepted compaction (a new stats object) unless
 * `compaction_notice_repeat` is `"full"`. Writes the replay marker and whether the full notice went out.
 *
 * @example
 * tailStage.writes // => ['compaction']
 */
export const tailStage = defineStage({
  name: 'tail',
  writes: ['compaction'],
  observes: false,
  run: (facts, draft) => {
    const { config } = facts
    const slices = draft.slices
    if (slices.pass?.kind !== 'pass') return {}
    // C is the pass slice's own list (strict fit measures its floor): appended to in one copy, made at the first append
    // (a plain `slice`, not a spread: a spread of C iterates it, which allocates per message until the engine optimizes this stage).
    let list: Messages = draft.list
    let copy: Message[] | null = null
    const append = (message: Message): void => {
      copy ??= list.slice()
      copy.push(message)
      list = copy
    }
    const compaction = slices.compaction
    let replayMarker = compaction.replayMarker
    if (config.replay_last_user_on_compaction && !slices.pass.refused) {
      const identity = toBoundaryIdentity(compaction.sticky.cumulativeLevel, slices.summary.absorbedCount)
      const replay = selectLastUserReplay(list, identity, replayMarker, facts.effective, facts.estimate, config.human_anchors ? isHumanPrompt : isRealUserMessage)
      if (replay !== null) {
        append(replay)
        replayMarker = identity
      }
    }
    const fresh = compaction.stats !== facts.before.compaction.stats
    const fullSent = config.compaction_notice_repeat !== 'full' && !fresh && compaction.noticeSent
    const notice = selectNotice(config, compaction.stats, list, facts.memo.notice, fullSent)
    if (notice !== null) append(notice)
    const noticeSent = config.compaction_notice_repeat !== 'full' ? fullSent || notice !== null : compaction.noticeSent
    const appended = list === draft.list ? {} : { list }
    if (replayMarker === compaction.replayMarker && noticeSent === compaction.noticeSent) return appended
    return { slices: { compaction: { ...compaction, replayMarker, noticeSent } }, ...appended }
  },
})
