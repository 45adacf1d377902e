// Summary hysteresis under the calibrated meter (docs/contract.md 17.13, "The summary trigger and
// swap"; src/core/request/summary-trigger.ts, src/core/compaction/pass.ts `escalates`): for any
// prior overhead up to about half of E and any conversation, a summary is asked for by the time
// the progressive ladder would compact, and every boundary of the summary strategy rides on an
// escalation (it reached a ladder level or the target). Before the fix the trigger compared
// estimator tokens with billed E, so from a share of about a third no summary ever started.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Event } from '../src/core/events.js'
import type { Message } from '../src/core/messages/message.js'
import type { State } from '../src/core/state.js'
import { added, assistant, effectsOf, fold, hookNames, request, stepFor, user } from '../test/support/core.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 60)
const provider = request({ providerGiven: true, provider: {} })

interface Compaction { readonly after_tokens: number; readonly target_tokens: number; readonly strategy_level: number }
interface Outcome { readonly boundaries: number; readonly requested: number; readonly state: State; readonly compactions: ReadonlyArray<Compaction> }

const run = (config: Record<string, unknown>, turns: ReadonlyArray<readonly [number, number]>): Outcome => {
  const step = stepFor({ compaction_notice_enabled: false, max_tokens: 3000, target_usage: 0.4, summary_hysteresis: true, token_meter: 'calibrated', ...config })
  let state = fold(step, []).state
  let boundaries = 0
  let requested = 0
  const compactions: Compaction[] = []
  const apply = (event: Event): void => {
    const next = step(state, event)
    state = next.state
    for (const effect of effectsOf(next.effects, 'emit_hook')) if (effect.name === 'context:compaction') compactions.push(effect.data as Compaction)
    boundaries += hookNames(next.effects).filter((name) => name === 'context:compaction').length
    for (const effect of effectsOf(next.effects, 'request_summary')) {
      requested += 1
      expect(effect.seqs.length).toBeGreaterThan(0)
      apply({ type: 'summary_call_started', id: effect.id })
      apply({ type: 'summary_completed', id: effect.id, text: 'Summary: the questions so far.' })
    }
  }
  turns.forEach(([ask, answer], i) => {
    const messages: Message[] = [user(`question ${i} `.padEnd(ask, 'q')), assistant(`answer ${i} `.padEnd(answer, 'x'))]
    for (const message of messages) apply(added(message))
    apply(provider)
  })
  return { boundaries, requested, state, compactions }
}

describe('summary hysteresis under the calibrated meter', () => {
  it('a summary starts at the first pass the ladder would make, and every boundary rides on an escalation', () => {
    const property = fc.property(
      fc.integer({ min: 0, max: 1_500 }),
      fc.array(fc.tuple(fc.integer({ min: 20, max: 400 }), fc.integer({ min: 20, max: 1_200 })), { minLength: 5, maxLength: 40 }),
      (overhead, turns) => {
        const summary = run({ compaction_strategy: 'summary', calibration_overhead_tokens: overhead }, turns)
        const progressive = run({ compaction_strategy: 'progressive', calibration_overhead_tokens: overhead }, turns)
        if (progressive.boundaries > 0) expect(summary.requested).toBeGreaterThan(0)
        for (const stats of summary.compactions) expect(stats.after_tokens <= stats.target_tokens || stats.strategy_level > 0).toBe(true)
      },
    )
    runProperty('summary hysteresis under the calibrated meter', property, numRuns)
  })
})
