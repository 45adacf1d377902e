// The reducer's memo never changes a result (docs/architecture.md), under everything that can invalidate it:
// random sessions in the contract format and every provider format (Responses merges included),
// with the ingress cap (cut at once, or after a spill), tool-result spills answered written or
// failed in any order, a system prompt factory switching texts, the summary strategy with its
// answers, clear and set_messages, rewinds (stepping a state saved earlier, as a host that
// restores an older snapshot does), and the calibrated meter (its pass measures with W's Responses
// reasoning sums, kept per request and extended by what was appended, selectReasoningPrefix), and
// Anthropic cache breakpoints (the view asked for as Anthropic's: the marks' prefix fingerprints
// resume from the last view's running hashes), and views asked for in every shape, switched from
// request to request, with and without repair, under every provider_rules mode (the provider_rules
// walks resumed, the contract shape's from the view it extends, and the Anthropic format check's:
// src/core/formats/input-rules.ts, anthropic.ts). Every request through the one reducer gives exactly
// the view, output, repaired flag, effects and state a fresh reducer (empty memo) gives for the same state.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { Event, RequestReceived } from '../src/core/events.js'
import type { ProviderRulesMode } from '../src/core/config.js'
import type { MessageFormat } from '../src/core/formats/carrier.js'
import { toNativeHistory } from '../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import { extendReasoningPrefix, measureUnbilledReasoning } from '../src/core/formats/openai-responses.js'
import { recordAppend, selectReasoningPrefix, selectWorking } from '../src/core/incremental/working.js'
import { makeDerivationMemo } from '../src/core/memo/derivation-memo.js'
import { toBilledEstimator } from '../src/core/meter/calibrated-meter.js'
import { toPlainArray } from '../src/core/messages/appendable.js'
import type { Message } from '../src/core/messages/message.js'
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
  readonly meter: 'estimate' | 'calibrated'
  readonly order: 'oldest' | 'least_referenced' | 'least_referenced_per_token'
  readonly reasoning: 'current_turn' | 'all_turns'
  readonly breakpoints: boolean
  readonly rules: ProviderRulesMode | null
  /** The shapes the requests ask for, cycled ('none': no shape, the view alone). */
  readonly shapes: ReadonlyArray<{ readonly format: MessageFormat | 'none'; readonly repair: boolean }>
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
  meter: fc.constantFrom('estimate' as const, 'calibrated' as const),
  order: fc.constantFrom('oldest' as const, 'least_referenced' as const, 'least_referenced_per_token' as const),
  reasoning: fc.constantFrom('current_turn' as const, 'all_turns' as const),
  breakpoints: fc.boolean(),
  rules: fc.constantFrom(null, 'warn' as const, 'repair' as const, 'refuse' as const),
  shapes: fc.array(
    fc.record({ format: fc.constantFrom('none' as const, 'contract' as const, 'anthropic' as const, 'openai-chat' as const, 'openai-responses' as const, 'ai-sdk' as const), repair: fc.boolean() }),
    { minLength: 1, maxLength: 4 },
  ),
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
    token_meter: schedule.meter,
    compaction_order: schedule.order,
    calibration_reasoning_context: schedule.reasoning,
    anthropic_cache_breakpoints: schedule.breakpoints,
    provider_rules: schedule.rules,
  })
  if (decoded._tag === 'Left') throw decoded.left
  const deps = { config: decoded.right.config, estimate: makeCachedEstimator(), format }
  const step = makeStep(deps)
  let state: State = makeInitialState()
  let prompt: string | null = null
  let pending: string[] = []
  const saved: State[] = []
  let tick = 0
  let requests = 0

  const apply = (event: Event, label: string): void => {
    const result = step(state, event)
    if (event.type === 'request_received') {
      const fresh = makeStep(deps)(state, event)
      expect(result.view, `${label}: view`).toEqual(fresh.view)
      expect(result.output, `${label}: output`).toEqual(fresh.output)
      expect(result.repaired, `${label}: repaired`).toEqual(fresh.repaired)
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
    // Under anthropic_cache_breakpoints the first view of every cycle is asked for as Anthropic's, so the
    // breakpoints' prefix fingerprints resume from the memo's running hashes
    // (src/core/formats/anthropic-cache.ts) across views of other shapes.
    const shapes = schedule.breakpoints ? [{ format: 'anthropic' as const, repair: false }, ...schedule.shapes] : schedule.shapes
    const asked = shapes[requests % shapes.length]
    requests += 1
    const shape = asked.format === 'none' ? {} : { shape: { format: asked.format, repair: asked.repair } }
    const event: RequestReceived = { type: 'request_received', tokenBudget: null, provider: null, providerGiven: true, systemPrompt: prompt, now: NOW, ...shape }
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

// The calibrated pass's reasoning sums over W (selectReasoningPrefix), kept in one memo across the
// requests of a Responses session and extended by what was appended, against a walk over W (the
// plain path): the same sums, and the same billed estimator for every message of W. Histories from
// the reducer (Responses merges, the ingress cap), with factory prompts, clears and rewinds.
const checkReasoning = (session: Session, schedule: Schedule): void => {
  const decoded = decodeConfig({ ...session.config, tool_result_ingress_cap_bytes: schedule.cap })
  if (decoded._tag === 'Left') throw decoded.left
  const estimate = makeCachedEstimator()
  const step = makeStep({ config: decoded.right.config, estimate, format: 'openai-responses' })
  const memo = makeDerivationMemo()
  const factory = new Map<string, Message>()
  let state: State = makeInitialState()
  let prompt: string | null = null
  const saved: State[] = []
  let tick = 0
  const request = (label: string): void => {
    const factoryMessage = prompt === null ? null : (factory.get(prompt) ?? factory.set(prompt, { role: 'system', content: prompt }).get(prompt) ?? null)
    const selected = selectWorking(memo, state.history, prompt, factoryMessage, estimate)
    const { estimate: keptEstimate, ...kept } = selectReasoningPrefix(selected, estimate)
    const working = toPlainArray(selected.entry.working)
    const { estimate: plainEstimate, ...plain } = extendReasoningPrefix(null, working, estimate)
    expect(kept, `${label}: sums`).toEqual(plain)
    expect(keptEstimate === estimate && plainEstimate === estimate).toBe(true)
    expect(kept.unbilled).toBe(measureUnbilledReasoning(working, estimate))
    const billed = toBilledEstimator(selected.entry.working, estimate, selectReasoningPrefix(selected, estimate))
    const walked = toBilledEstimator(working, estimate)
    expect(billed === null, `${label}: billed estimator`).toBe(walked === null)
    for (const message of working) expect(billed?.(message), `${label}: billed`).toBe(walked?.(message))
  }
  session.turns.forEach((turn, index) => {
    for (const message of render('openai-responses', turn, index)) {
      const next = step(state, { type: 'message_added', message, timestamp: NOW }).state
      recordAppend(memo, next.history, state.history)
      state = next
      const at = schedule.ticks[tick % schedule.ticks.length]
      tick += 1
      if (at.prompt <= 2) prompt = PROMPTS[at.prompt]
      if (at.request) request(`turn ${index}`)
      if (at.reset === 0) state = step(state, { type: 'history_cleared' }).state
      else if (at.reset <= 3) state = saved.length > 0 ? saved[at.rewindTo % saved.length] : state
      else if (at.reset <= 7) saved.push(state)
    }
    request(`turn ${index}, end`)
  })
}

describe('the reasoning sums kept across requests equal a walk over W', () => {
  it('openai-responses: merges, ingress cap, factory prompts, clears and rewinds', () => {
    runProperty('memo equivalence: reasoning sums', fc.property(makeSessionArb(true), scheduleArb, (session, schedule) => checkReasoning(session, schedule)), numRuns)
  })
})
