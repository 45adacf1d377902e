// The reducer's memo never changes a result (docs/architecture.md), under everything that can invalidate it:
// random sessions in the contract format and every provider format (Responses merges included),
// with the ingress cap (cut at once, or after a spill), tool-result spills answered written or
// failed in any order, a system prompt factory switching texts, the summary strategy with its
// answers, clear and set_messages, and rewinds (stepping a state saved earlier, as a host that
// restores an older snapshot does). Every request through the one reducer gives exactly the view,
// effects and state a fresh reducer (empty memo) gives for the same state.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { Event, RequestReceived } from '../src/core/events.js'
import type { MessageFormat } from '../src/core/formats/carrier.js'
import { toNativeHistory } from '../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import { makeStep } from '../src/core/reducer.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'
import { makeSessionArb, render, type Session } from './format-sessions.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 30)
const NOW = '2026-01-01T00:00:00.000+00:00'
const PROMPTS = [null, 'You are a careful agent.', 'You are a different agent.'] as const

/** What happens between messages: one entry per tick, cycled. */
interface Schedule {
  readonly cap: number | null
  readonly spillDir: boolean
  readonly strategy: 'progressive' | 'summary'
  readonly ticks: ReadonlyArray<{
    readonly answer: number // 0: oldest spill written, 1: oldest failed, 2: newest written, else none
    readonly prompt: number // 0-2: switch the factory to PROMPTS[n], else keep
    readonly request: boolean
    readonly reset: number // 0: clear, 1: set_messages, 2-3: rewind to a saved state, 4-7: save this state, else nothing
    readonly rewindTo: number
  }>
}

const scheduleArb: fc.Arbitrary<Schedule> = fc.record({
  cap: fc.constantFrom(null, 12, 40, 200),
  spillDir: fc.boolean(),
  strategy: fc.constantFrom('progressive' as const, 'summary' as const),
  ticks: fc.array(
    fc.record({ answer: fc.nat(5), prompt: fc.nat(8), request: fc.boolean(), reset: fc.nat(20), rewindTo: fc.nat() }),
    { minLength: 10, maxLength: 30 },
  ),
})

const check = (format: MessageFormat, session: Session, schedule: Schedule): void => {
  const decoded = decodeConfig({
    ...session.config,
    tool_result_ingress_cap_bytes: schedule.cap,
    tool_result_spill_dir: schedule.spillDir ? '/tmp/context-simple-spill' : null,
    compaction_strategy: schedule.strategy,
  })
  if (decoded._tag === 'Left') throw decoded.left
  const deps = { config: decoded.right.config, estimate: makeCachedEstimator(), format }
  const step = makeStep(deps)
  let state: State = makeInitialState()
  let prompt: string | null = null
  let pending: string[] = []
  const saved: State[] = []
  let tick = 0

  const apply = (event: Event, label: string): void => {
    const result = step(state, event)
    if (event.type === 'request_received') {
      const fresh = makeStep(deps)(state, event)
      expect(result.view, `${label}: view`).toEqual(fresh.view)
      expect(result.effects, `${label}: effects`).toEqual(fresh.effects)
      expect(result.state, `${label}: state`).toEqual(fresh.state)
    }
    state = result.state
    for (const effect of result.effects) {
      if (effect.type === 'write_spill') pending.push(effect.path)
      if (effect.type === 'request_summary') {
        apply({ type: 'summary_call_started', id: effect.id }, `${label}, summary started`)
        apply({ type: 'summary_completed', id: effect.id, text: 'The task so far: files read, one test fixed.' }, `${label}, summary answered`)
      }
    }
  }
  const request = (label: string): void => {
    const event: RequestReceived = { type: 'request_received', tokenBudget: null, provider: null, providerGiven: true, systemPrompt: prompt, now: NOW }
    apply(event, label)
  }
  const between = (label: string): void => {
    const next = schedule.ticks[tick % schedule.ticks.length]
    tick += 1
    if (pending.length > 0 && next.answer <= 2) {
      const path = next.answer === 2 ? (pending.pop() as string) : (pending.shift() as string)
      apply(next.answer === 1 ? { type: 'spill_failed', path, error: 'disk full' } : { type: 'spill_written', path }, `${label}, spill answer`)
    }
    if (next.prompt <= 2) prompt = PROMPTS[next.prompt]
    if (next.request) request(label)
    if (next.reset === 0) {
      apply({ type: 'history_cleared' }, `${label}, clear`)
      pending = []
    } else if (next.reset === 1) {
      const messages = format === 'contract' ? [...state.history] : toNativeHistory(format, state.history)
      apply({ type: 'messages_replaced', messages }, `${label}, set_messages`)
      pending = []
    } else if (next.reset <= 3) {
      if (saved.length > 0) state = saved[next.rewindTo % saved.length]
    } else if (next.reset <= 7) saved.push(state)
  }

  session.turns.forEach((turn, index) => {
    // The contract format stores the OpenAI chat shape as it is.
    for (const message of render(format === 'contract' ? 'openai-chat' : format, turn, index)) {
      apply({ type: 'message_added', message, timestamp: NOW }, `turn ${index}`)
      between(`turn ${index}`)
    }
    request(`turn ${index}, end`)
  })
}

describe('the memo never changes a result', () => {
  for (const format of ['contract', 'anthropic', 'ai-sdk', 'openai-responses', 'openai-chat'] as const) {
    it(`${format}: ingress cap, spill answers, factory prompts, summaries, resets and rewinds`, () => {
      runProperty(`memo equivalence: ${format}`, fc.property(makeSessionArb(true), scheduleArb, (session, schedule) => check(format, session, schedule)), numRuns)
    })
  }
})
