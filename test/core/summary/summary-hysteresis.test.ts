// Unit tests for the summary hysteresis keys of docs/configuration.md in src/core/summary/summary.ts,
// request.ts and compaction/pass.ts: the trigger measures the view, a finished summary is swapped
// in only by a pass that escalates anyway (and the ladder then runs to the target), a minimum
// span, a separate post-absorb target and a cooldown in requests. All off by default.
import { describe, expect, it } from 'vitest'
import type { Event } from '../../../src/core/events.js'
import type { Message } from '../../../src/core/messages/message.js'
import type { State } from '../../../src/core/state.js'
import type { Step } from '../../../src/core/step.js'
import { added, assistant, effectsOf, fold, hookNames, request, stepFor, user } from '../../support/core.js'

const SUMMARY = { compaction_strategy: 'summary', compaction_notice_enabled: false, max_tokens: 3000, target_usage: 0.4 }
const turn = (i: number): Message[] => [user(`question ${i}`), assistant(`answer ${i} `.padEnd(400, 'x'))]
const provider = request({ providerGiven: true, provider: {} })

/** Answer every summary request at once with a short text (what replay's extractive stand-in does). */
const run = (config: Record<string, unknown>, turns: number): { steps: Step[]; state: State; requested: number; boundaries: number } => {
  const step = stepFor({ ...SUMMARY, ...config })
  let state = fold(step, []).state
  const steps: Step[] = []
  let requested = 0
  const apply = (event: Event) => {
    const next = step(state, event)
    steps.push(next)
    state = next.state
    for (const effect of effectsOf(next.effects, 'request_summary')) {
      requested += 1
      apply({ type: 'summary_call_started', id: effect.id })
      apply({ type: 'summary_completed', id: effect.id, text: 'Summary: questions answered so far.' })
    }
  }
  for (let i = 0; i < turns; i += 1) {
    for (const message of turn(i)) apply(added(message))
    apply(provider)
  }
  const boundaries = steps.reduce((sum, s) => sum + hookNames(s.effects).filter((name) => name === 'context:compaction').length, 0)
  return { steps, state, requested, boundaries }
}

describe('summary hysteresis', () => {
  it('off (the contract): the trigger measures the history, so summaries refire and each swap is a boundary', () => {
    const contract = run({}, 40)
    const progressive = run({ compaction_strategy: 'progressive' }, 40)
    expect(contract.boundaries).toBeGreaterThan(progressive.boundaries)
  })

  it('summary_hysteresis: no more boundaries than the progressive ladder, and fewer summary requests', () => {
    const contract = run({}, 40)
    const guarded = run({ summary_hysteresis: true }, 40)
    const progressive = run({ compaction_strategy: 'progressive' }, 40)
    expect(guarded.boundaries).toBeLessThanOrEqual(progressive.boundaries)
    expect(guarded.requested).toBeLessThan(contract.requested)
    expect(guarded.state.summary.absorbedCount).toBeGreaterThan(0)
  })

  it('a swap rides on an escalation: every boundary under hysteresis reached a ladder level or the target', () => {
    const guarded = run({ summary_hysteresis: true }, 40)
    for (const step of guarded.steps) {
      for (const effect of effectsOf(step.effects, 'emit_hook')) {
        if (effect.name !== 'context:compaction') continue
        const stats = effect.data as { after_tokens: number; target_tokens: number; strategy_level: number }
        expect(stats.after_tokens <= stats.target_tokens || stats.strategy_level > 0).toBe(true)
      }
    }
  })

  it('summary_min_span_tokens: a span under the minimum is not sent', () => {
    expect(run({ summary_min_span_tokens: 1_000_000 }, 40).requested).toBe(0)
  })

  it('summary_cooldown_requests: requests wait out the cooldown after each summary request', () => {
    const eager = run({}, 40)
    const cooled = run({ summary_cooldown_requests: 5 }, 40)
    expect(cooled.requested).toBeLessThan(eager.requested)
    expect(cooled.requested).toBeGreaterThan(0)
  })

  it('summary_target_usage: a lower post-absorb target selects a longer span', () => {
    const firstSpan = (config: Record<string, unknown>): number => {
      const { steps } = run(config, 40)
      const effect = steps.flatMap((s) => effectsOf(s.effects, 'request_summary'))[0]
      return effect?.seqs.length ?? 0
    }
    expect(firstSpan({ summary_target_usage: 0.05 })).toBeGreaterThan(firstSpan({}))
  })
})

describe('summary hysteresis under the calibrated meter (docs/contract.md 17.13)', () => {
  // A prior overhead of 2,000 billed tokens of E (3,000 less the notice reserve): the view the
  // trigger measures, in estimator tokens, never reaches summary_trigger × E in billed tokens, and
  // a pass's list never reached compact_threshold × billed E. The trigger and the swap's gate read
  // E and the target converted through the model, as the pass does.
  const CALIBRATED = { summary_hysteresis: true, token_meter: 'calibrated', calibration_overhead_tokens: 2000 }

  it('summaries start and are swapped in, riding on the passes the progressive ladder makes anyway', () => {
    const guarded = run(CALIBRATED, 40)
    const progressive = run({ ...CALIBRATED, compaction_strategy: 'progressive' }, 40)
    expect(guarded.requested).toBeGreaterThan(0)
    expect(guarded.state.summary.absorbedCount).toBeGreaterThan(0)
    expect(guarded.boundaries).toBeLessThanOrEqual(progressive.boundaries)
  })
})
