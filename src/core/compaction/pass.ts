/**
 * One compaction pass (SPEC 6.2, 6.7, 12.6, 14, 17.1, 17.5): summary swap, sticky re-application,
 * inner gate, ladder, worth-the-rebuild verdict and finalize, over a working list W.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { Message, Messages } from '../messages/message.js'
import { appendTo, toPlainArray } from '../messages/appendable.js'
import type { BreakerState, MeterState, StickyState, SummaryState } from '../state.js'
import type { CompactionStats } from '../stats.js'
import type { SpillRequest } from '../tool-results/tool-result-budget.js'
import { resolveClearAtLeast, toSkipLimitMessage, toSkippedPayload, type Refusal } from './clear-at-least.js'
import { needsEscalation, type HybridReading } from '../meter/token-meter.js'
import { trySwap } from '../summary/summary.js'
import { estimateMessages } from '../meter/estimate.js'
import { collectSpills, type PassContext } from './context.js'
import { measureFloor, toInfeasiblePayload } from './floor.js'
import { runLadder } from './ladder.js'
import { refillHistory } from './refill.js'
import { selectTarget } from './retention.js'
import { applySticky, hasNewDecision, recordRemoved, toStickyDraft, toStickyState, type StickyDraft } from './sticky.js'
import { endsInOpenToolGroup } from './tool-pairs.js'

/**
 * Everything a pass reads: the working list W and its estimate `workingTokens` (tokens), the
 * effective budget `effective` (E, tokens), whether the pass is sticky-only (SPEC 17.1), the state
 * it may change, and `now` (module timestamp, stamped on a swapped-in summary).
 *
 * @example
 * const input: PassInput = {
 *   working: [], workingTokens: 0, effective: 9200, stickyOnly: false, sticky: EMPTY_STICKY, compactionStats: null,
 *   skipStreak: 0, summary: EMPTY_SUMMARY, history: [], nextSeq: 0, meter: EMPTY_METER, hybrid: null, now: DEFAULT_REPLAY_NOW,
 *   infeasible: false, breaker: EMPTY_COMPACTION.breaker,
 * }
 */
export interface PassInput {
  readonly working: Messages
  readonly workingTokens: number
  readonly effective: number
  readonly stickyOnly: boolean
  readonly sticky: StickyState
  readonly compactionStats: CompactionStats | null
  readonly skipStreak: number
  readonly summary: SummaryState
  readonly history: Messages
  readonly nextSeq: number
  readonly meter: MeterState
  readonly hybrid: HybridReading | null
  readonly now: string
  /** The floor verdict of the compaction slice (`infeasible`): the floor was above the target (or, under "report", over E). */
  readonly infeasible: boolean
  readonly breaker: BreakerState
  /**
   * The sticky decisions already re-applied to W (docs/architecture.md, incremental requests: derived incrementally by the
   * request); used when no summary can be swapped in, instead of splitting and re-applying here.
   */
  readonly applied?: PreparedList
  /**
   * `token_meter: "calibrated"` (docs/contract.md 17.13): E and the target converted into
   * estimator units through the model, so each level is checked in billed tokens; the pass then
   * escalates whenever it is not sticky-only (the trigger fired on the calibrated count of this
   * very list). The floor guard, the predicate, the breaker and the over-budget warning use the
   * converted E; the stats keep the real E and target.
   */
  readonly billed?: { readonly effective: number; readonly target: number }
  /**
   * Removals recorded ahead of the pass in this request (the working-set stage's,
   * src/core/request/working-set.ts), already in `sticky`: the pass finalizes (stats,
   * `context:compaction`) even when it escalates nothing, as after a summary-only swap (SPEC 6.2
   * step 9, SPEC 9), and in sticky-only mode it still escalates nothing.
   */
  readonly removedAhead?: boolean
  /**
   * The early pass (`compact_early_threshold`, src/core/compaction/early-pass.ts): the trigger
   * fired below `compact_threshold`, so the pass escalates whenever the list is over its target
   * (as under the calibrated meter), not on the meter's reading against `compact_threshold`.
   */
  readonly early?: boolean
}

/**
 * W split and re-applied ahead of the pass: its system messages and their estimate, and the
 * sticky-applied non-system messages N' and their estimate (tokens); their spills are already in
 * the pass context.
 *
 * @example
 * const prepared: PreparedList = { system: [], systemTokens: 0, stickyApplied: [], stickyTokens: 0 }
 */
export interface PreparedList {
  readonly system: Messages
  readonly systemTokens: number
  readonly stickyApplied: Messages
  readonly stickyTokens: number
  /** S ++ N' itself, when the caller has it (the request's sticky-applied view does): C is then that list, not a copy. */
  readonly list?: Messages
}

/**
 * What a pass produced. `list` is C (system messages first), or null when the request must fail
 * (the fail-loud error is then among `effects`). `refused` marks a worth-the-rebuild refusal.
 * `spills` are the spills its own truncations asked for (SPEC 11.5), in the order asked for; the
 * request turns them into `write_spill` effects.
 *
 * @example
 * const outcome: PassOutcome = {
 *   list: [], refused: false, sticky: EMPTY_STICKY, compactionStats: null, skipStreak: 0,
 *   summary: EMPTY_SUMMARY, history: [], nextSeq: 0, infeasible: false, breaker: EMPTY_COMPACTION.breaker, effects: [], spills: [],
 * }
 */
export interface PassOutcome {
  readonly list: Messages | null
  readonly refused: boolean
  readonly sticky: StickyState
  readonly compactionStats: CompactionStats | null
  readonly skipStreak: number
  readonly summary: SummaryState
  readonly history: Messages
  readonly nextSeq: number
  readonly infeasible: boolean
  readonly breaker: BreakerState
  readonly effects: ReadonlyArray<Effect>
  readonly spills: ReadonlyArray<SpillRequest>
}

/** What a pass decides on, before the spills: `PassOutcome` without them. */
type Decided = Omit<PassOutcome, 'spills'>

/**
 * Run one compaction pass. In sticky-only mode (SPEC 17.1) it re-applies decisions and returns,
 * deciding nothing and never swapping a pending summary. Never throws: the fail-loud condition
 * (SPEC 14.4) gives `list: null` and a `raise_error` effect; warnings are `log` effects. The
 * spills its truncations ask for are returned in `spills`, never written anywhere.
 *
 * @example
 * const state = makeInitialState()
 * const working = [{ role: 'user', content: 'Fix the test', _seq: 0 }]
 * const context = makePassContext(DEFAULT_CONFIG, estimateOne, state.toolNames, makeDerivationMemo(), state.toolResults.spillFailed)
 * const input: PassInput = { working, workingTokens: 10, effective: 9200, stickyOnly: true, sticky: state.compaction.sticky, compactionStats: null, skipStreak: 0, summary: state.summary, history: working, nextSeq: 1, meter: state.meter, hybrid: null, now: '2026-01-01T00:00:00Z', infeasible: false, breaker: state.compaction.breaker }
 * runCompactionPass(input, context).list?.length // => 1
 */
export const runCompactionPass = (input: PassInput, context: PassContext): PassOutcome => {
  // Sticky-only over the prepared list (the quiet request) derives nothing, so no spill can be asked for.
  const prepared = input.applied
  if (input.stickyOnly && input.removedAhead !== true && prepared !== undefined) return { ...keep(input, prepared.list ?? prepared.system.concat(prepared.stickyApplied), []), spills: [] }
  const collector = collectSpills(context)
  const decided = decidePass(input, collector.context)
  return { ...decided, spills: collector.spills() }
}

/** W as the pass splits it: the prepared list when it stands for W, else S and N of W. */
interface SplitList {
  readonly prepared: PreparedList | null
  readonly system: Messages
  readonly nonSystem: ReadonlyArray<Message>
}

const splitWorking = (input: PassInput, config: PassContext['config']): SplitList => {
  // A prepared list stands for W when no pending summary can be swapped in (the swap needs N).
  const prepared = input.applied !== undefined && (input.stickyOnly || config.compaction_strategy !== 'summary' || input.summary.pending === null) ? input.applied : null
  if (prepared !== null) return { prepared, system: prepared.system, nonSystem: [] }
  const system: Message[] = []
  const nonSystem: Message[] = []
  const working = toPlainArray(input.working)
  for (let i = 0; i < working.length; i += 1) (working[i].role === 'system' ? system : nonSystem).push(working[i])
  return { prepared, system, nonSystem }
}

/** The pass's state as it came in, with `list` and `effects`: nothing decided. */
const keep = (input: PassInput, list: Messages, effects: ReadonlyArray<Effect>): Decided => ({
  list,
  refused: false,
  sticky: input.sticky,
  compactionStats: input.compactionStats,
  skipStreak: input.skipStreak,
  summary: input.summary,
  history: input.history,
  nextSeq: input.nextSeq,
  infeasible: input.infeasible,
  breaker: input.breaker,
  effects,
})

const decidePass = (input: PassInput, context: PassContext): Decided => {
  const split = splitWorking(input, context.config)
  // SPEC 17.1: re-apply the decisions, decide nothing, swap nothing (no copy of the sets).
  if (input.stickyOnly && input.removedAhead !== true) return keep(input, split.system.concat(split.prepared?.stickyApplied ?? applySticky(split.nonSystem, input.sticky, context)), [])
  const swap = swapPending(input, split, context)
  const measured = measureSwapped(input, split, swap, context)
  // Sticky-only with removals made ahead: finalize them, escalate nothing (SPEC 17.1).
  const gate: Gate = input.stickyOnly ? { escalate: false, stopTarget: measured.target, infeasible: input.infeasible, effects: [] } : gateEscalation(input, swap, measured, context)
  const effects = [...swap.effects, ...gate.effects]
  // The prepared list is S ++ N' already (src/core/incremental/working.ts): no copy while the swap left N' as it was.
  // `concat`, not a spread, here and below: a spread of the second list iterates it, which allocates per message until the pass is optimized.
  const list = (measured.stickyApplied === split.prepared?.stickyApplied ? split.prepared.list : undefined) ?? split.system.concat(measured.stickyApplied)
  const unchanged: Decided = { ...keep(input, list, effects), summary: swap.summary, history: swap.history, nextSeq: swap.nextSeq, infeasible: gate.infeasible }
  if (!gate.escalate && !swap.swapped && input.removedAhead !== true) return unchanged
  return escalate(input, split, swap, measured, gate, unchanged, context)
}

/** After the summary swap (or none): the decisions it recorded and the state it changed. */
interface Swapped {
  readonly recorded: StickyDraft | null
  readonly summary: SummaryState
  readonly history: Messages
  readonly nextSeq: number
  readonly swapped: boolean
  readonly nonSystem: ReadonlyArray<Message>
  readonly effects: ReadonlyArray<Effect>
}

/**
 * The summary swap (SPEC 12): a pending summary replaces the messages it absorbed. A swap appends
 * the summary after the last stored message; while the history ends inside an open tool group that
 * would put a user message between a call and its results, so the summary stays pending until the
 * group is answered (the contract's tool-pair promise, SPEC 17.3). Summary hysteresis: the swap
 * rides on a pass that escalates anyway (judged on the list before the swap), so it never makes
 * a boundary of its own.
 */
const swapPending = (input: PassInput, split: SplitList, context: PassContext): Swapped => {
  const { config, estimate } = context
  const none: Swapped = { recorded: null, summary: input.summary, history: input.history, nextSeq: input.nextSeq, swapped: false, nonSystem: split.nonSystem, effects: [] }
  const pending = input.summary.pending
  if (config.compaction_strategy !== 'summary' || pending === null || input.stickyOnly) return none
  const systemTokens = config.summary_hysteresis ? estimateMessages(split.system, estimate) : 0
  const swapAllowed =
    !config.summary_hysteresis ||
    escalates(input, systemTokens + estimateMessages(applySticky(split.nonSystem, input.sticky, context), estimate), selectPassTarget(input, config, systemTokens), config)
  if (!swapAllowed || endsInOpenToolGroup(split.nonSystem)) return none
  const swap = trySwap(pending, split.nonSystem, input.sticky.removed, input.now, input.nextSeq, estimate)
  const cleared: Swapped = { ...none, summary: { ...input.summary, pending: null }, nextSeq: swap.seqConsumed ? input.nextSeq + 1 : input.nextSeq, effects: swap.effects }
  if (!swap.swapped || swap.summaryMessage === null) return cleared
  const draft = toStickyDraft(input.sticky)
  for (const message of swap.absorbed) recordRemoved(draft, message)
  return {
    ...cleared,
    recorded: draft,
    history: appendTo(input.history, [swap.summaryMessage]),
    nonSystem: [...swap.nonSystem],
    summary: { ...cleared.summary, absorbedCount: cleared.summary.absorbedCount + swap.absorbed.length },
    swapped: true,
  }
}

/** The sticky-applied list after the swap and what it is measured against (tokens). */
interface Measured {
  readonly systemTokens: number
  readonly stickyApplied: Messages
  readonly current: number
  readonly target: number
  readonly effective: number
}

const measureSwapped = (input: PassInput, split: SplitList, swap: Swapped, context: PassContext): Measured => {
  const { config, estimate } = context
  const prepared = split.prepared
  const systemTokens = prepared?.systemTokens ?? estimateMessages(split.system, estimate)
  const stickyApplied = prepared?.stickyApplied ?? applySticky(swap.nonSystem, swap.recorded ?? input.sticky, context)
  const current = systemTokens + (prepared?.stickyTokens ?? estimateMessages(stickyApplied, estimate))
  // The target (SPEC 6.2, or on the compactable part: src/core/compaction/retention.ts); under the
  // calibrated meter E and the target are in estimator units through the model (contract 17.13).
  const effective = input.billed?.effective ?? input.effective
  const target = selectPassTarget(input, config, systemTokens)
  return { systemTokens, stickyApplied, current, target, effective }
}

/** Whether the ladder runs, toward which target, and the floor guard's state and event. */
interface Gate {
  readonly escalate: boolean
  readonly stopTarget: number
  readonly infeasible: boolean
  readonly effects: ReadonlyArray<Effect>
}

/**
 * The pass's target (SPEC 6.2, or on the compactable part: src/core/compaction/retention.ts);
 * under the calibrated meter in estimator units through the model (docs/contract.md 17.13).
 */
const selectPassTarget = (input: PassInput, config: Config, systemTokens: number): number =>
  selectTarget(config, systemTokens, input.billed?.effective ?? input.effective, input.billed?.target ?? Math.trunc(input.effective * config.target_usage))

/**
 * Whether a list of `current` tokens escalates (SPEC 6.2 step 7): under the calibrated meter when
 * it is over the pass's target in estimator units (docs/contract.md 17.13), else on the meter's
 * reading against `compact_threshold` × E. The summary swap's hysteresis asks the same question
 * of the list before the swap, so a swap rides only on a pass that escalates anyway.
 */
const escalates = (input: PassInput, current: number, target: number, config: Config): boolean =>
  input.billed !== undefined || input.early === true ? current > target : needsEscalation(config, input.meter, input.hybrid, current, input.effective)

/**
 * The inner gate (SPEC 6.2 step 7) and the floor guard.
 */
const gateEscalation = (input: PassInput, swap: Swapped, measured: Measured, context: PassContext): Gate => {
  const { config } = context
  // Under summary hysteresis a swap rode on an escalation: the ladder still runs to the target.
  const escalate =
    (config.summary_hysteresis && swap.swapped) || escalates(input, measured.current, measured.target, config)
  // The 17.14 report judges the list the pass returns (below, after the ladder); an unchanged
  // candidate that fits E re-arms it in the compaction-pass stage, which clears `infeasible` for
  // every returned list within E.
  // The floor guard fits E; an early pass works far below E, so it neither reports nor steers it.
  if (input.early === true) return { escalate, stopTarget: measured.target, infeasible: input.infeasible, effects: [] }
  return applyFloorGuard(escalate, input.infeasible, measured, context)
}

/** `compaction_floor_guard: "report"` outside the calibrated meter (whose infeasible case 17.13 reports in billed tokens). */
const reportsFloorOverE = (input: PassInput, context: PassContext): boolean => context.config.compaction_floor_guard === 'report' && input.billed === undefined

/**
 * docs/contract.md 17.14 (`compaction_floor_guard: "report"`): a pass that ends over E because the
 * floor itself is over E (the open tool group of 17.8, a protected zone) says so once; the report
 * re-arms once a candidate or a compacted view (`tokens`) fits E again. `passed`: the ladder ran on this list.
 */
const reportFloorOverE = (reported: boolean, tokens: number, passed: boolean, measured: Measured, context: PassContext): { readonly infeasible: boolean; readonly effects: ReadonlyArray<Effect> } => {
  const { effective, target, stickyApplied, systemTokens } = measured
  if (effective <= 0) return { infeasible: reported, effects: [] }
  if (tokens <= effective) return { infeasible: false, effects: [] }
  if (!passed || reported) return { infeasible: reported, effects: [] }
  const floor = measureFloor(stickyApplied, systemTokens, context.config, context)
  if (floor.floor_tokens <= effective) return { infeasible: reported, effects: [] }
  return { infeasible: true, effects: [{ type: 'emit_hook', name: 'context:compaction-infeasible', data: toInfeasiblePayload(floor, stickyApplied, target, effective, context) }] }
}

/**
 * The floor guard (`compaction_floor_guard` true or "deep"): with the floor above the target, the
 * ladder works toward E instead of the unreachable target (`stopTarget`), and a view that already
 * fits E is left alone (`escalate` false); reported once per change.
 */
const applyFloorGuard = (escalate: boolean, reported: boolean, measured: Measured, context: PassContext): Gate => {
  const { config } = context
  const { current, target, effective, stickyApplied, systemTokens } = measured
  const mode = config.compaction_floor_guard
  if ((mode !== true && mode !== 'deep') || effective <= 0 || !(escalate || reported)) return { escalate, stopTarget: target, infeasible: reported, effects: [] }
  const floor = measureFloor(stickyApplied, systemTokens, config, context)
  const infeasible = floor.floor_tokens > target
  const effects: Effect[] =
    infeasible && !reported ? [{ type: 'emit_hook', name: 'context:compaction-infeasible', data: toInfeasiblePayload(floor, stickyApplied, target, effective, context) }] : []
  if (!infeasible) return { escalate, stopTarget: target, infeasible, effects }
  // true: stop just under E; "deep": compact once as far as the ladder goes (to the floor),
  // so the next turns do not cross E again at once (docs/configuration.md, "The irreducible floor").
  return { escalate: escalate && current > effective, stopTarget: mode === 'deep' ? target : effective, infeasible, effects }
}

/**
 * `compaction_refill: "history"` after the ladder: the non-system history W (after a summary swap,
 * the swapped list) refilled under `target` (`refillHistory`), or `working` as the ladder left it.
 */
const refillWhole = (input: PassInput, split: SplitList, swap: Swapped, working: Messages, measured: Measured, target: number, draft: StickyDraft, context: PassContext): Messages => {
  const history = swap.swapped || split.prepared === null ? swap.nonSystem : toPlainArray(input.working).filter((message) => message.role !== 'system')
  return refillHistory(history, estimateMessages(working, context.estimate) + measured.systemTokens, target, draft, context) ?? working
}

/**
 * The ladder toward the stop target, then the worth-the-rebuild verdict (SPEC 14) and, for an
 * accepted pass, its stats, the breaker and the over-budget warning.
 */
const escalate = (input: PassInput, split: SplitList, swap: Swapped, measured: Measured, gate: Gate, unchanged: Decided, context: PassContext): Decided => {
  const { config, estimate } = context
  const effects: Effect[] = [...unchanged.effects]
  const draft = swap.recorded ?? toStickyDraft(input.sticky)
  let working: Messages = measured.stickyApplied
  let levelReached = 0
  let required = 0
  // The predicate's baseline snapshot of the sets (post-swap), taken only when it is enabled.
  let snapshot: StickyDraft | null = null
  if (gate.escalate) {
    const resolved = resolveClearAtLeast(config.compact_clear_at_least, measured.effective)
    effects.push(...resolved.effects)
    required = resolved.required
    if (required > 0) snapshot = toStickyDraft(draft)
    // The named-fields groups of `tool_result_json_projection` stay unless the list is over halfway from the target to E.
    const ceiling = Math.trunc((gate.stopTarget + measured.effective) / 2)
    const ladder = runLadder(measured.stickyApplied, measured.systemTokens, measured.current, gate.stopTarget, draft, context, ceiling)
    working = ladder.working
    levelReached = ladder.levelReached
    // compaction_refill "history" (src/core/compaction/refill.ts): earlier decisions lifted while they fit under the target.
    if (config.compaction_refill === 'history' && levelReached >= 3) working = refillWhole(input, split, swap, working, measured, gate.stopTarget, draft, context)
  }
  const finalList: Messages = split.system.concat(working)
  const afterTokens = estimateMessages(finalList, estimate)
  let skipStreak = input.skipStreak
  if (gate.escalate && snapshot !== null && hasNewDecision(draft, snapshot)) {
    const freed = measured.current - afterTokens
    if (freed < required) {
      const refusal: Refusal = {
        freed, required, levelReached, streak: skipStreak + 1, cap: config.compact_max_consecutive_skips,
        baseline: split.system.concat(measured.stickyApplied), baselineTokens: measured.current, effective: measured.effective,
      }
      return refuse(unchanged, refusal, toStickyState(snapshot, input.sticky.cumulativeLevel), effects, context, input.early === true)
    }
    skipStreak = 0
  }
  const cumulativeLevel = Math.max(input.sticky.cumulativeLevel, levelReached)
  const stats = toCompactionStats(input, measured, draft, finalList, afterTokens, cumulativeLevel, unchanged.summary, split.system.length, context)
  effects.push({ type: 'emit_hook', name: 'context:compaction', data: { ...stats } })
  const breaker = applyBreaker(unchanged.breaker, afterTokens, measured.effective, input.effective, context)
  effects.push(...breaker.effects)
  let infeasible = unchanged.infeasible
  if (reportsFloorOverE(input, context)) {
    const report = reportFloorOverE(infeasible, afterTokens, gate.escalate, measured, context)
    infeasible = report.infeasible
    effects.push(...report.effects)
  }
  if (measured.effective > 0 && afterTokens > measured.effective) effects.push(overBudgetWarning(input, measured, afterTokens, cumulativeLevel))
  return { ...unchanged, list: finalList, sticky: toStickyState(draft, cumulativeLevel), compactionStats: stats, skipStreak, infeasible, breaker: breaker.breaker, effects }
}

/**
 * A pass refused by the worth-the-rebuild predicate (SPEC 14): the decisions restored, the
 * streak counted, `context:compaction-skipped`, or at the cap the fail-loud error and no list.
 */
const refuse = (unchanged: Decided, refusal: Refusal, restored: StickyState, effects: ReadonlyArray<Effect>, context: PassContext, early: boolean): Decided => {
  // An early pass (src/core/compaction/early-pass.ts) works far below E: refused, it is dropped
  // quietly (no event, the streak not counted); the fail-loud cap is for passes that must fit E.
  if (early) return { ...unchanged, refused: true, sticky: restored, list: refusal.baseline, effects }
  const base: Decided = { ...unchanged, refused: true, sticky: restored, skipStreak: refusal.streak }
  if (refusal.streak >= refusal.cap) {
    return { ...base, list: null, effects: [...effects, { type: 'raise_error', name: 'CompactionSkipLimitError', message: toSkipLimitMessage(context.config, refusal) }] }
  }
  return { ...base, list: refusal.baseline, effects: [...effects, { type: 'emit_hook', name: 'context:compaction-skipped', data: toSkippedPayload(context.config, refusal) }] }
}

/** The stats of an accepted pass (SPEC 6.7); `budget` is the real E, also under the calibrated meter. */
const toCompactionStats = (
  input: PassInput,
  measured: Measured,
  draft: StickyDraft,
  finalList: Messages,
  afterTokens: number,
  cumulativeLevel: number,
  summary: SummaryState,
  systemCount: number,
  context: PassContext,
): CompactionStats => {
  const { config } = context
  return {
    before_tokens: input.workingTokens,
    after_tokens: afterTokens,
    before_messages: input.working.length,
    after_messages: finalList.length,
    messages_removed: draft.removed.size,
    messages_truncated: draft.truncated.size,
    user_messages_stubbed: draft.stubbed.size,
    system_messages_preserved: systemCount,
    strategy_level: cumulativeLevel,
    budget: input.effective,
    target_tokens: measured.target,
    protected_recent: config.protected_recent,
    protected_tool_results: config.protected_tool_results,
    ...(config.compaction_strategy === 'summary' ? { messages_absorbed_by_summary: summary.absorbedCount } : {}),
    // An early pass (src/core/compaction/early-pass.ts) says so; the contract's passes carry no such key.
    ...(input.early === true ? { early_pass: true as const } : {}),
  }
}

/**
 * The breaker (`compaction_breaker_passes`, docs/configuration.md): consecutive accepted passes
 * that end over E trip it once; a pass that fits re-arms it. `effective` is the converted E the
 * pass worked against, `realEffective` the real one it trips under.
 */
const applyBreaker = (breaker: BreakerState, afterTokens: number, effective: number, realEffective: number, context: PassContext): { readonly breaker: BreakerState; readonly effects: ReadonlyArray<Effect> } => {
  if (context.config.compaction_breaker_passes === null) return { breaker, effects: [] }
  if (effective > 0 && afterTokens > effective) {
    const overBudgetPasses = breaker.overBudgetPasses + 1
    const trips = overBudgetPasses >= context.config.compaction_breaker_passes && !breaker.tripped
    const next: BreakerState = { ...breaker, overBudgetPasses, ...(trips ? { tripped: true, budget: realEffective } : {}) }
    return { breaker: next, effects: trips ? [{ type: 'emit_hook', name: 'context:compaction-breaker', data: { consecutive_over_budget: overBudgetPasses } }] : [] }
  }
  if (breaker.overBudgetPasses !== 0 || breaker.tripped) return { breaker: ARMED_BREAKER, effects: [] }
  return { breaker, effects: [] }
}

/**
 * The breaker armed: no over-budget pass counted, not tripped, no budget (docs/configuration.md).
 *
 * @example
 * ARMED_BREAKER.tripped // => false
 */
export const ARMED_BREAKER: BreakerState = { overBudgetPasses: 0, tripped: false, budget: null }

const overBudgetWarning = (input: PassInput, measured: Measured, afterTokens: number, cumulativeLevel: number): Effect => {
  const { systemTokens, target, effective } = measured
  const floorNote = systemTokens > target ? ` The system prompt ALONE is ${systemTokens} tokens, above the target: it is the floor compaction cannot go below.` : ''
  return {
    type: 'log',
    level: 'warning',
    message: `context-simple: OVER BUDGET after compaction: ${afterTokens} tokens against a budget of ${effective}${input.billed !== undefined ? ` estimator tokens (E = ${input.effective} billed tokens through the calibration)` : ''} (level ${cumulativeLevel}, target ${target}, system ${systemTokens}).${floorNote} The view is sent over the budget; raise the budget (tokenBudget or max_tokens), protect less (protected_recent, protected_tool_results), or set strict_fit: true to raise ContextLengthError instead.`,
  }
}
