// Production guards (docs/configuration.md) folded through the pure reducer on generated sessions:
// - compaction_floor_guard: no pass records a decision (removal, truncation, stub) that was not
//   needed to reach its stop point, `floor > target ? E : target`: every pass that decided
//   something started over that point;
// - with the guard off the same scenarios emit no guard event (the contract is unchanged).
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { toStub } from '../src/core/compaction/stub.js'
import { estimateOne } from '../src/core/meter/estimate.js'
import type { Message, Messages } from '../src/core/messages/message.js'
import type { StickyState } from '../src/core/state.js'
import { truncateToolResult } from '../src/core/tool-results/tool-result-budget.js'
import type { Config } from '../src/core/config.js'
import type { State } from '../src/core/state.js'
import { isHumanPrompt } from '../src/core/compaction/anchors.js'
import { countCalibrated, EMPTY_CALIBRATION, fitCalibration } from '../src/core/meter/calibration.js'
import { toCalibrationPriors } from '../src/core/meter/calibrated-meter.js'
import type { RecordingOp } from '../src/core/replay/recording.js'
import { describeConfig, foldScenario, hookNames, makeScenario, modelWorkingList, runProperty, scenarioArb, seqOfStored, stripSeq, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)
// The floor guard's stop point is in estimator tokens of the real E and target; the calibrated
// meter converts both through its model (docs/contract.md 17.13) and reports its own infeasible
// case, so these properties run over the contract's three meters.
const CONTRACT_METERS = ['estimate', 'actual', 'hybrid'] as const

/** The estimate (with `_seq`, as the ladder counts) of the working list with `sticky` applied. */
const stickyTokens = (config: Config, state: State, sticky: StickyState, systemPrompt: string | null): number => {
  let total = 0
  for (const message of modelWorkingList(state.history, systemPrompt)) {
    const seq = seqOfStored(message)
    let form: Message | null = message
    if (message.role !== 'system' && seq !== undefined) {
      if (sticky.removed.has(seq)) form = null
      else if (sticky.truncated.has(seq)) form = truncateToolResult(message, config, state.toolNames).message
      else if (sticky.stubbed.has(seq)) form = toStub(message)
    }
    if (form !== null) total += estimateOne(form)
  }
  return total
}

const decided = (before: StickyState, after: StickyState): boolean =>
  [...after.removed].some((seq) => !before.removed.has(seq)) ||
  [...after.truncated].some((seq) => !before.truncated.has(seq)) ||
  [...after.stubbed].some((seq) => !before.stubbed.has(seq))

const withGuards = (scenario: Scenario, breaker: number | null, guard: true | 'deep' = true): Scenario =>
  makeScenario({ ...scenario.rawConfig, compaction_floor_guard: guard, compaction_breaker_passes: breaker }, scenario.ops)

const checkNeeded = (scenario: Scenario): void => {
  for (const request of foldScenario(scenario).requests) {
    if (request.view === null || request.meterStats === null) continue
    if (!decided(request.before.compaction.sticky, request.after.compaction.sticky)) continue
    const effective = request.meterStats.budget
    const target = Math.trunc(effective * scenario.config.target_usage)
    const stop = request.after.compaction.infeasible ? effective : target
    const before = stickyTokens(scenario.config, request.after, request.before.compaction.sticky, request.systemPrompt)
    expect(before, `op ${request.index} with ${describeConfig(scenario)}: decided at ${before} tokens, stop point ${stop}`).toBeGreaterThan(stop)
  }
}

/**
 * The billed count of `view` under the calibrated meter (docs/contract.md 17.13), recomputed from
 * the meter state before the request: the model fitted on its pairs, the append shape on its anchor.
 */
const billedCount = (config: Config, before: State, view: Messages): number => {
  const calibration = before.meter.calibration ?? EMPTY_CALIBRATION
  const model = fitCalibration(toCalibrationPriors(config), calibration.points)
  const estimate = view.reduce((sum, message) => sum + estimateOne(message), 0)
  return countCalibrated(calibration, model, view, estimate, estimateOne, config.calibration_reasoning_context).calibrated_tokens
}

const checkStrictFit = (scenario: Scenario): void => {
  const calibrated = scenario.config.token_meter === 'calibrated'
  let firstRaise = true
  for (const request of foldScenario(scenario).requests) {
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    const raised = request.effects.find((effect) => effect.type === 'raise_error')
    if (raised !== undefined && raised.type === 'raise_error' && raised.name === 'ContextLengthError') {
      expect(request.after.history, where).toBe(request.before.history)
      expect(request.after.compaction.sticky, where).toBe(request.before.compaction.sticky)
      expect(request.after.summary, where).toBe(request.before.summary)
      // docs/contract.md 17.11: a budget ≤ 0 or E ≤ 1 raises whatever the view; otherwise the view was over.
      const unusable = (raised.details?.budget ?? 1) <= 0 || (raised.details?.effective_budget ?? 2) <= 1
      if (!unusable) expect(raised.details?.view_tokens, where).toBeGreaterThan(raised.details?.budget ?? Infinity)
      if (calibrated && !unusable && firstRaise) {
        // 17.13: refused only when over the budget as billed. Until the first refusal the same
        // scenario without strict_fit folds to the same state, so its view is the refused one.
        const loose = foldScenario(makeScenario({ ...scenario.rawConfig, strict_fit: false }, scenario.ops)).requests.find((other) => other.index === request.index)
        if (loose?.view != null) expect(billedCount(scenario.config, loose.before, loose.view), `${where}: refused though it fits as billed`).toBeGreaterThan(raised.details?.budget ?? Infinity)
      }
      firstRaise = false
    } else if (request.view !== null && request.meterStats !== null && request.meterStats.budget <= 1) {
      expect.fail(`${where}: a view returned under strict_fit at the effective budget ${request.meterStats.budget}`)
    } else if (request.view !== null && request.meterStats !== null && request.meterStats.budget > 0) {
      const reserve = scenario.config.compaction_notice_enabled ? scenario.config.compaction_notice_token_reserve : 0
      // In the budget's units: under the calibrated meter as billed (17.13), else the estimate.
      const viewTokens = calibrated ? billedCount(scenario.config, request.before, request.view) : request.view.reduce((sum, message) => sum + estimateOne(message), 0)
      expect(viewTokens, where).toBeLessThanOrEqual(request.meterStats.budget + Math.max(0, reserve))
    }
  }
}

const checkHumanAnchors = (scenario: Scenario): void => {
  for (const request of foldScenario(scenario).requests) {
    if (request.view === null) continue
    const prompts = request.after.history.filter(isHumanPrompt)
    if (prompts.length === 0) continue
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    const wanted = JSON.stringify(stripSeq(prompts[prompts.length - 1]))
    expect(request.view.some((message) => JSON.stringify(message) === wanted), `${where}: last human prompt missing`).toBe(true)
    const first = seqOfStored(prompts[0])
    expect(first !== undefined && request.after.compaction.sticky.removed.has(first), `${where}: first human prompt removed`).toBe(false)
  }
}

describe('human_anchors', () => {
  it('the last human prompt is in every view verbatim and the first is never removed (progressive)', () => {
    runProperty(
      'guards: human anchors',
      fc.property(scenarioArb({ strategies: ['progressive'], pressure: true }), (scenario) => checkHumanAnchors(makeScenario({ ...scenario.rawConfig, human_anchors: true }, scenario.ops))),
      numRuns,
    )
  })
})

describe('strict_fit', () => {
  it('a returned view fits the budget (under the calibrated meter as billed, and a refused one did not); a failed call changes neither history, sticky nor summary state', () => {
    runProperty(
      'guards: strict fit',
      fc.property(scenarioArb({ pressure: true }), (scenario) => checkStrictFit(makeScenario({ ...scenario.rawConfig, strict_fit: true }, scenario.ops))),
      numRuns,
    )
  })

  // Found by "guards: strict fit" once it judged calibrated views as billed (FC_SEED=-137125021,
  // shrunk): the stage compared the view's estimate with the budget in this mode too, so after a
  // reading of 252 for a 2-message view, a view whose estimate fit the budget of 266 was returned
  // though its billed count (the reading + what was appended) was over it.
  it('a calibrated view over the budget as billed is not returned though its estimate fits', () => {
    const found = JSON.parse(readFileSync(new URL('./counterexamples/strict-fit-calibrated-137125021.json', import.meta.url), 'utf8')) as { rawConfig: Record<string, unknown>; ops: RecordingOp[] }
    const scenario = makeScenario(found.rawConfig, found.ops)
    const last = foldScenario(scenario).requests[1]
    expect(last.error).toMatch(/tokens as billed \(calibrated meter/)
    checkStrictFit(scenario)
  })
})

describe('compaction_floor_guard', () => {
  it('no pass decides anything not needed to reach floor > target ? E : target', () => {
    runProperty(
      'guards: removal only when needed',
      fc.property(scenarioArb({ strategies: ['progressive'], pressure: true, meters: CONTRACT_METERS }), fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), (scenario, breaker) =>
        checkNeeded(withGuards(scenario, breaker)),
      ),
      numRuns,
    )
  })

  it('"deep": a pass decides only when over the target, and over E when the floor is above the target', () => {
    runProperty(
      'guards: deep floor guard',
      fc.property(scenarioArb({ strategies: ['progressive'], pressure: true, meters: CONTRACT_METERS }), fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), (scenario, breaker) =>
        checkNeeded(withGuards(scenario, breaker, 'deep')),
      ),
      numRuns,
    )
  })

  it('off by default: no guard event on any generated session', () => {
    runProperty(
      'guards: off by default',
      fc.property(scenarioArb({ meters: CONTRACT_METERS }), (scenario) => {
        for (const request of foldScenario(scenario).requests) {
          const names = hookNames(request.effects)
          expect(names.includes('context:compaction-infeasible') || names.includes('context:compaction-breaker')).toBe(false)
        }
      }),
      numRuns,
    )
  })
})
