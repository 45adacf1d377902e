/**
 * One compaction pass (SPEC 6.2, 6.7, 12.6, 14, 17.1, 17.5): summary swap, sticky re-application,
 * inner gate, ladder, worth-the-rebuild verdict and finalize, over a working list W.
 */
import type { Effect } from '../effects.js'
import type { Message, Messages } from '../messages/message.js'
import { appendTo, toPlainArray } from '../messages/appendable.js'
import type { GuardState, MeterState, StickyState, SummaryState } from '../state.js'
import type { CompactionStats } from '../stats.js'
import { resolveClearAtLeast, toSkipLimitMessage, toSkippedPayload, type Refusal } from './clear-at-least.js'
import { needsEscalation, type HybridReading } from '../meter/token-meter.js'
import { trySwap } from '../summary/summary.js'
import { estimateMessages } from '../meter/estimate.js'
import type { PassContext } from './context.js'
import { measureFloor, toInfeasiblePayload } from './floor.js'
import { runLadder } from './ladder.js'
import { applySticky, hasNewDecision, recordRemoved, toStickyDraft, type StickyDraft } from './sticky.js'
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
  readonly guards: GuardState
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
}

/**
 * What a pass produced. `list` is C (system messages first), or null when the request must fail
 * (the fail-loud error is then among `effects`). `refused` marks a worth-the-rebuild refusal.
 *
 * @example
 * const outcome: PassOutcome = {
 *   list: [], refused: false, sticky: EMPTY_STICKY, compactionStats: null, skipStreak: 0,
 *   summary: EMPTY_SUMMARY, history: [], nextSeq: 0, effects: [],
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
  readonly guards: GuardState
  readonly effects: ReadonlyArray<Effect>
}

const toSticky = (draft: StickyDraft, cumulativeLevel: number): StickyState => ({
  removed: draft.removed,
  truncated: draft.truncated,
  stubbed: draft.stubbed,
  cumulativeLevel,
})

// The floor guard (`compaction_floor_guard` true or "deep"): with the floor above the target, the
// ladder works toward E instead of the unreachable target (`stopTarget`), and a view that already
// fits E is left alone (`escalate` false); reported once per change.
const applyFloorGuard = (
  guards: GuardState,
  at: { readonly current: number; readonly escalate: boolean; readonly effective: number; readonly target: number; readonly stickyApplied: Messages; readonly systemTokens: number },
  context: PassContext,
  effects: Effect[],
): { readonly guards: GuardState; readonly stopTarget: number; readonly escalate: boolean } => {
  const mode = context.config.compaction_floor_guard
  if ((mode !== true && mode !== 'deep') || at.effective <= 0 || !(at.escalate || guards.infeasible)) return { guards, stopTarget: at.target, escalate: at.escalate }
  const floor = measureFloor(at.stickyApplied, at.systemTokens, context.config, context)
  const infeasible = floor.floor_tokens > at.target
  if (infeasible && !guards.infeasible) {
    effects.push({ type: 'emit_hook', name: 'context:compaction-infeasible', data: toInfeasiblePayload(floor, at.stickyApplied, at.target, at.effective, context) })
  }
  const next = infeasible !== guards.infeasible ? { ...guards, infeasible } : guards
  if (!infeasible) return { guards: next, stopTarget: at.target, escalate: at.escalate }
  // true: stop just under E; "deep": compact once as far as the ladder goes (to the floor), so the
  // next turns do not cross E again at once (docs/configuration.md, "The irreducible floor").
  return { guards: next, stopTarget: mode === 'deep' ? at.target : at.effective, escalate: at.escalate && at.current > at.effective }
}

// docs/contract.md 17.14 (`compaction_floor_guard: "report"`, outside the calibrated meter, whose
// infeasible case 17.13 reports in billed tokens): a pass that ends over E because the floor itself
// is over E (the open tool group of 17.8, a protected zone) says so once; the report re-arms once
// a candidate or a compacted view (`tokens`) fits E again. `passed`: the ladder ran on this list.
const reportFloorOverE = (
  guards: GuardState,
  at: { readonly tokens: number; readonly passed: boolean; readonly effective: number; readonly target: number; readonly stickyApplied: Messages; readonly systemTokens: number },
  context: PassContext,
  effects: Effect[],
): GuardState => {
  if (at.effective <= 0) return guards
  if (at.tokens <= at.effective) return guards.infeasible ? { ...guards, infeasible: false } : guards
  if (!at.passed || guards.infeasible) return guards
  const floor = measureFloor(at.stickyApplied, at.systemTokens, context.config, context)
  if (floor.floor_tokens <= at.effective) return guards
  effects.push({ type: 'emit_hook', name: 'context:compaction-infeasible', data: toInfeasiblePayload(floor, at.stickyApplied, at.target, at.effective, context) })
  return { ...guards, infeasible: true }
}

/**
 * Run one compaction pass. In sticky-only mode (SPEC 17.1) it re-applies decisions and returns,
 * deciding nothing and never swapping a pending summary. Never throws: the fail-loud condition
 * (SPEC 14.4) gives `list: null` and a `raise_error` effect; warnings are `log` effects.
 *
 * @example
 * runCompactionPass(input, context).list // the compacted list C
 */
export const runCompactionPass = (input: PassInput, context: PassContext): PassOutcome => {
  const { config, estimate } = context
  const effects: Effect[] = []
  // A prepared list stands for W when no pending summary can be swapped in (the swap needs N).
  const prepared = input.applied !== undefined && (input.stickyOnly || config.compaction_strategy !== 'summary' || input.summary.pending === null) ? input.applied : null
  let system: Messages = prepared?.system ?? []
  let nonSystem: Message[] = []
  if (prepared === null) {
    const own: Message[] = []
    for (const message of toPlainArray(input.working)) (message.role === 'system' ? own : nonSystem).push(message)
    system = own
  }

  if (input.stickyOnly) {
    // SPEC 17.1: re-apply the decisions, decide nothing, swap nothing (no copy of the sets).
    return {
      list: [...system, ...(prepared?.stickyApplied ?? applySticky(nonSystem, input.sticky, context))],
      refused: false,
      sticky: input.sticky,
      compactionStats: input.compactionStats,
      skipStreak: input.skipStreak,
      summary: input.summary,
      history: input.history,
      nextSeq: input.nextSeq,
      guards: input.guards,
      effects,
    }
  }

  // The sets are copied only once something may be recorded (a swap or an escalation).
  let recorded: StickyDraft | null = null
  let summary = input.summary
  let history = input.history
  let nextSeq = input.nextSeq
  let swapped = false
  // A swap appends the summary after the last stored message; while the history ends inside an
  // open tool group that would put a user message between a call and its results, so the summary
  // stays pending until the group is answered (the contract's tool-pair promise, SPEC 17.3).
  // Summary hysteresis: the swap rides on a pass that escalates anyway (judged on the list before
  // the swap), so it never makes a boundary of its own.
  const swapAllowed =
    !config.summary_hysteresis ||
    needsEscalation(config, input.meter, input.hybrid, estimateMessages(system, estimate) + estimateMessages(applySticky(nonSystem, input.sticky, context), estimate), input.effective)
  if (config.compaction_strategy === 'summary' && summary.pending !== null && swapAllowed && !endsInOpenToolGroup(nonSystem)) {
    const pending = summary.pending
    summary = { ...summary, pending: null }
    const swap = trySwap(pending, nonSystem, input.sticky.removed, input.now, nextSeq, estimate)
    effects.push(...swap.effects)
    if (swap.seqConsumed) nextSeq += 1
    if (swap.swapped && swap.summaryMessage !== null) {
      const draft = toStickyDraft(input.sticky)
      for (const message of swap.absorbed) recordRemoved(draft, message)
      recorded = draft
      history = appendTo(history, [swap.summaryMessage])
      nonSystem = [...swap.nonSystem]
      summary = { ...summary, absorbedCount: summary.absorbedCount + swap.absorbed.length }
      swapped = true
    }
  }

  const systemTokens = prepared?.systemTokens ?? estimateMessages(system, estimate)
  const stickyApplied = prepared?.stickyApplied ?? applySticky(nonSystem, recorded ?? input.sticky, context)
  const current = systemTokens + (prepared?.stickyTokens ?? estimateMessages(stickyApplied, estimate))
  // target_basis "compactable": the fraction applies to what a compaction can act on (E less the
  // system messages), docs/evaluation.md "Target on the compactable part"; "budget" is SPEC 6.2.
  // Under the calibrated meter the target is in billed tokens (docs/contract.md 17.13).
  const target =
    input.billed?.target ??
    (config.target_basis === 'compactable' ? systemTokens + Math.trunc(Math.max(0, input.effective - systemTokens) * config.target_usage) : Math.trunc(input.effective * config.target_usage))
  const effective = input.billed?.effective ?? input.effective
  // Under summary hysteresis a swap rode on an escalation: the ladder still runs to the target.
  let escalate = (config.summary_hysteresis && swapped) || (input.billed !== undefined ? current > target : needsEscalation(config, input.meter, input.hybrid, current, input.effective))
  const guarded = applyFloorGuard(input.guards, { current, escalate, effective, target, stickyApplied, systemTokens }, context, effects)
  let guards = guarded.guards
  const stopTarget = guarded.stopTarget
  escalate = guarded.escalate
  const reports = config.compaction_floor_guard === 'report' && input.billed === undefined
  if (reports) guards = reportFloorOverE(guards, { tokens: current, passed: false, effective, target, stickyApplied, systemTokens }, context, effects)
  const unchanged = (list: Messages): PassOutcome => ({
    list,
    refused: false,
    sticky: input.sticky,
    compactionStats: input.compactionStats,
    skipStreak: input.skipStreak,
    summary,
    history,
    nextSeq,
    guards,
    effects,
  })
  if (!escalate && !swapped) return unchanged([...system, ...stickyApplied])

  const draft = recorded ?? toStickyDraft(input.sticky)
  let working: Messages = stickyApplied
  let levelReached = 0
  let required = 0
  // The predicate's baseline snapshot of the sets (post-swap), taken only when it is enabled.
  let snapshot: StickyDraft | null = null
  if (escalate) {
    const resolved = resolveClearAtLeast(config.compact_clear_at_least, effective)
    effects.push(...resolved.effects)
    required = resolved.required
    if (required > 0) snapshot = toStickyDraft(draft)
    const ladder = runLadder(stickyApplied, systemTokens, current, stopTarget, draft, context)
    working = ladder.working
    levelReached = ladder.levelReached
  }
  const finalList: Messages = [...system, ...working]
  const afterTokens = estimateMessages(finalList, estimate)

  let skipStreak = input.skipStreak
  if (escalate && snapshot !== null && hasNewDecision(draft, snapshot)) {
    const freed = current - afterTokens
    if (freed < required) {
      skipStreak += 1
      const baseline = [...system, ...stickyApplied]
      const cap = config.compact_max_consecutive_skips
      const refusal: Refusal = { freed, required, levelReached, streak: skipStreak, cap, baseline, baselineTokens: current, effective }
      const restored = toSticky(snapshot, input.sticky.cumulativeLevel)
      const base = { refused: true, sticky: restored, compactionStats: input.compactionStats, skipStreak, summary, history, nextSeq, guards }
      if (skipStreak >= cap) {
        effects.push({ type: 'raise_error', name: 'CompactionSkipLimitError', message: toSkipLimitMessage(config, refusal) })
        return { ...base, list: null, effects }
      }
      effects.push({ type: 'emit_hook', name: 'context:compaction-skipped', data: toSkippedPayload(config, refusal) })
      return { ...base, list: baseline, effects }
    }
    skipStreak = 0
  }

  const cumulativeLevel = Math.max(input.sticky.cumulativeLevel, levelReached)
  const stats: CompactionStats = {
    before_tokens: input.workingTokens,
    after_tokens: afterTokens,
    before_messages: input.working.length,
    after_messages: finalList.length,
    messages_removed: draft.removed.size,
    messages_truncated: draft.truncated.size,
    user_messages_stubbed: draft.stubbed.size,
    system_messages_preserved: system.length,
    strategy_level: cumulativeLevel,
    budget: input.effective,
    target_tokens: target,
    protected_recent: config.protected_recent,
    protected_tool_results: config.protected_tool_results,
    ...(config.compaction_strategy === 'summary' ? { messages_absorbed_by_summary: summary.absorbedCount } : {}),
  }
  effects.push({ type: 'emit_hook', name: 'context:compaction', data: { ...stats } })
  if (config.compaction_breaker_passes !== null) {
    if (effective > 0 && afterTokens > effective) {
      const overBudgetPasses = guards.overBudgetPasses + 1
      const trips = overBudgetPasses >= config.compaction_breaker_passes && !guards.breakerTripped
      guards = { ...guards, overBudgetPasses, ...(trips ? { breakerTripped: true, breakerBudget: input.effective } : {}) }
      if (trips) effects.push({ type: 'emit_hook', name: 'context:compaction-breaker', data: { consecutive_over_budget: overBudgetPasses } })
    } else if (guards.overBudgetPasses !== 0 || guards.breakerTripped) {
      guards = { ...guards, overBudgetPasses: 0, breakerTripped: false, breakerBudget: null }
    }
  }
  if (reports) guards = reportFloorOverE(guards, { tokens: afterTokens, passed: escalate, effective, target, stickyApplied, systemTokens }, context, effects)
  if (effective > 0 && afterTokens > effective) {
    const floorNote = systemTokens > target ? ` The system prompt ALONE is ${systemTokens} tokens, above the target: it is the floor compaction cannot go below.` : ''
    effects.push({
      type: 'log',
      level: 'warning',
      message: `context-simple: OVER BUDGET after compaction: ${afterTokens} tokens against a budget of ${effective}${input.billed !== undefined ? ` estimator tokens (E = ${input.effective} billed tokens through the calibration)` : ''} (level ${cumulativeLevel}, target ${target}, system ${systemTokens}).${floorNote}`,
    })
  }
  return {
    list: finalList,
    refused: false,
    sticky: toSticky(draft, cumulativeLevel),
    compactionStats: stats,
    skipStreak,
    summary,
    history,
    nextSeq,
    guards,
    effects,
  }
}
