/**
 * The request reducer (SPEC 2.3 with 17.1): budget, working list, meter and its event, summary
 * trigger, outer trigger, compaction pass (or sticky-only re-application), replay, notice, strip.
 */
import { computeEffectiveBudget, isSameBudget, resolveBudget, toBudgetPayload } from './budget.js'
import type { CoreDeps } from './deps.js'
import type { Effect } from './effects.js'
import type { RequestReceived } from './events.js'
import type { Message, Messages } from './messages/message.js'
import type { MeterState, State } from './state.js'
import { hasStickyDecisions } from './state.js'
import type { Step } from './step.js'
import { estimateMessages } from './meter/estimate.js'
import { makePassContext, stripMessage, type PassContext } from './compaction/context.js'
import type { DerivationMemo, StrippedView } from './memo/derivation-memo.js'
import { measureFloor, type InfeasiblePayload } from './compaction/floor.js'
import { readCalibrated, recordSentView, type CalibratedReading } from './meter/calibrated-meter.js'
import type { Config } from './config.js'
import type { ContextLengthDetails } from './errors.js'
import type { TokenMeterStats } from './stats.js'
import { selectNotice } from './compaction/notice.js'
import { runCompactionPass } from './compaction/pass.js'
import { isReplacedSystem, selectAppliedView, selectMedia, selectPlainView, selectWorking, type Working } from './incremental/working.js'
import { toPlainArray } from './messages/appendable.js'
import { isRealUserMessage, selectLastUserReplay, toBoundaryIdentity } from './compaction/replay-last-user.js'
import { isHumanPrompt } from './compaction/anchors.js'
import { triggerSummary } from './summary/summary.js'
import { withForegroundStats } from './meter/foreground.js'
import { copyMeterStats, decideTrigger, measureRequest } from './meter/token-meter.js'

/**
 * The working list W (SPEC 2.3 step 4): in factory mode the factory's system message followed by
 * the history without non-hook system messages; in static mode the history itself. With `memo`,
 * one factory message object is reused while the prompt text is unchanged (`memo` is updated).
 *
 * @example
 * toWorkingList(history, 'You are helpful.')[0] // => { role: 'system', content: 'You are helpful.' }
 */
export const toWorkingList = (history: Messages, systemPrompt: string | null, memo?: DerivationMemo): Messages => {
  if (systemPrompt === null) return history
  const working: Message[] = [toFactoryMessage(systemPrompt, memo)]
  for (const message of toPlainArray(history)) if (!isReplacedSystem(message)) working.push(message)
  return working
}

/**
 * The step of a request whose view does not fit under `strict_fit` (SPEC 17.11): the state as it
 * was (history, sticky decisions, summary and guard state untouched; only the meter stats of this
 * request recorded), the `context:token_meter` event and logs already produced, and a
 * `ContextLengthError` carrying the view's size, the budgets and the floor of `list`.
 */
const failFit = (
  state: State,
  meterStats: TokenMeterStats,
  effects: ReadonlyArray<Effect>,
  list: Messages,
  viewTokens: number,
  budget: number,
  effective: number,
  context: PassContext,
): Step => {
  const system = list.filter((message) => message.role === 'system')
  const floor = measureFloor(
    list.filter((message) => message.role !== 'system'),
    estimateMessages(system, context.estimate),
    context.config,
    context,
  )
  const details: ContextLengthDetails = { view_tokens: viewTokens, budget, effective_budget: effective, ...floor }
  const message = isUnusableBudget(budget, effective)
    ? `context-simple: the request budget is ${budget} tokens and the effective budget ${effective} (strict_fit): no view fits it; the view is ${viewTokens} tokens. ` +
      'Pass a positive tokenBudget, or a provider whose context window exceeds its reserved output plus 4,096 tokens, and a compaction_notice_token_reserve below the budget; history and compaction state are unchanged.'
    : `context-simple: the view is ${viewTokens} tokens, over the request budget of ${budget} (strict_fit); ` +
      `the irreducible floor is ${floor.floor_tokens} tokens (system ${floor.system_tokens}, protected ${floor.protected_tokens}, open tool group ${floor.open_group_tokens}). ` +
      'Raise the budget, lower protected_recent or protected_tool_results, or cut the largest protected message; history and compaction state are unchanged.'
  return {
    state: { ...state, meterStats },
    view: undefined,
    effects: [...effects.filter((effect) => effect.type === 'emit_hook' || effect.type === 'log'), { type: 'raise_error', name: 'ContextLengthError', message, details }],
  }
}

/**
 * The `context:compaction-infeasible` payload of the calibrated meter (docs/contract.md 17.13):
 * the floor of W in estimator tokens, the real target and E, and the model's overhead and scale
 * that leave no room.
 */
const toCalibratedInfeasible = (working: Messages, calibrated: CalibratedReading, effective: number, config: Config, context: PassContext): InfeasiblePayload => {
  const system = working.filter((message) => message.role === 'system')
  const floor = measureFloor(working.filter((message) => message.role !== 'system'), estimateMessages(system, context.estimate), config, context)
  return { ...floor, target_tokens: Math.trunc(effective * config.target_usage), budget: effective, knob: null, overhead_tokens: Math.round(calibrated.model.overhead), scale: calibrated.model.scale }
}

/**
 * True for a budget no view can be fitted to (`strict_fit` raises on it; docs/contract.md 17.11):
 * a request budget of 0 tokens or less, or an effective budget E of 1 token or less (a negative
 * notice reserve can turn a negative budget into E = 1).
 */
const isUnusableBudget = (budget: number, effective: number): boolean => budget <= 0 || effective <= 1

/**
 * The factory's system message for `systemPrompt`; with `memo`, one object per prompt text (so
 * repeated requests do not re-estimate it; `memo` is updated).
 */
const toFactoryMessage = (systemPrompt: string, memo?: DerivationMemo): Message => {
  const fresh: Message = { role: 'system', content: systemPrompt }
  if (memo === undefined) return fresh
  if (memo.factoryMessage === null || memo.factoryMessage.content !== systemPrompt) memo.factoryMessage = fresh
  return memo.factoryMessage
}

/**
 * Reduce one `get_messages_for_request` (SPEC 2.3). The step's view is the stripped list to send,
 * or undefined when the worth-the-rebuild cap was reached (a `raise_error` effect is then last).
 * Hook events come out as `emit_hook` effects in contract order: `context:token_meter` first,
 * then at most one of `context:compaction` / `context:compaction-skipped`.
 *
 * @example
 * applyRequest(deps, memo, state, { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now }).view
 */
export const applyRequest = (deps: CoreDeps, memo: DerivationMemo, state: State, event: RequestReceived): Step => {
  const { config, estimate } = deps
  const effects: Effect[] = []
  const resolved = resolveBudget(config, event.tokenBudget, event.provider)
  const budget = resolved.budget
  let summary = state.summary
  if (config.compaction_strategy === 'summary' && event.providerGiven && !summary.providerKnown) summary = { ...summary, providerKnown: true }
  const { effective, effects: budgetEffects } = computeEffectiveBudget(config, budget)
  effects.push(...budgetEffects)
  let guards = state.guards
  if (config.budget_provenance) {
    const payload = toBudgetPayload(resolved, effective)
    if (!isSameBudget(guards.lastBudget, payload)) {
      effects.push({ type: 'emit_hook', name: 'context:budget', data: payload })
      guards = { ...guards, lastBudget: payload }
    }
  }

  // W and its estimate, extended from the previous request's when the history only grew (docs/architecture.md).
  const factoryMessage = event.systemPrompt === null ? null : toFactoryMessage(event.systemPrompt, memo)
  const selected = selectWorking(memo, state.history, event.systemPrompt, factoryMessage, estimate)
  const working = selected.entry.working
  const estimated = selected.entry.tokens
  const measured = measureRequest(config, working, estimated, effective, state.meter, estimate)
  let meterStats = withForegroundStats(config, measured.stats, state.guards)
  if (config.token_estimator !== 'reference') {
    // The media meter stats (docs/configuration.md, `token_estimator`): say when media were present and how many could not be measured.
    const media = selectMedia(memo, selected)
    meterStats = { ...meterStats, media_items: media.media, media_unmeasured: media.unmeasured }
  }
  const hybrid = measured.hybrid
  let meter: MeterState = state.meter
  const context = makePassContext(config, estimate, state.toolNames, memo, state.spillFailed)
  // docs/contract.md 17.13: the calibrated count of the view as it would be sent now.
  let calibrated: CalibratedReading | null = null
  if (config.token_meter === 'calibrated') {
    const candidate = hasStickyDecisions(state.sticky) ? selectAppliedView(memo, selected, state.sticky, context) : selectPlainView(memo, selected, estimate)
    calibrated = readCalibrated(config, state, meterStats, candidate.view, candidate.tokens, estimate)
    meterStats = calibrated.stats
  }
  effects.push({ type: 'emit_hook', name: 'context:token_meter', data: copyMeterStats(meterStats) })

  if (config.compaction_strategy === 'summary') {
    // Summary hysteresis (docs/configuration.md): the trigger may measure the view (sticky decisions applied)
    // instead of the whole history, and waits out a cooldown after each request.
    const used = config.summary_hysteresis ? selectAppliedView(memo, selected, state.sticky, context).tokens : meterStats.used_tokens
    const cooling = guards.summaryCooldown > 0
    if (cooling) guards = { ...guards, summaryCooldown: guards.summaryCooldown - 1 }
    else {
      const started = triggerSummary(state, summary, config, used, effective, estimate)
      if (started.summary.inFlight !== summary.inFlight && config.summary_cooldown_requests !== null) guards = { ...guards, summaryCooldown: config.summary_cooldown_requests }
      summary = started.summary
      effects.push(...started.effects)
    }
  }

  const decision = decideTrigger(config, meterStats, meter)
  meter = decision.meter
  effects.push(...decision.effects)
  let fires = decision.fires
  if (calibrated !== null) {
    // The overhead alone leaves no room: reported once, and no pass storms against it.
    const infeasible = calibrated.effectiveUnits <= 0 || calibrated.targetUnits <= 0
    if (infeasible && !guards.infeasible) {
      effects.push({ type: 'emit_hook', name: 'context:compaction-infeasible', data: toCalibratedInfeasible(working, calibrated, effective, config, context) })
      guards = { ...guards, infeasible: true }
    } else if (!infeasible && guards.infeasible && config.compaction_floor_guard !== true && config.compaction_floor_guard !== 'deep') guards = { ...guards, infeasible: false }
    if (calibrated.effectiveUnits <= 0) fires = false
  }

  const strip = (list: Messages): Messages => list.map((message) => stripMessage(message, memo))
  const spillEffects = (): Effect[] => {
    const out: Effect[] = []
    for (const spill of context.spills.values()) {
      if (!state.spillWritten.has(spill.path)) out.push({ type: 'write_spill', directory: spill.directory, path: spill.path, content: spill.content })
    }
    return out
  }

  // A tripped breaker stops re-escalation until a view fits again or the budget changes.
  if (guards.breakerTripped && guards.breakerBudget !== effective) guards = { ...guards, overBudgetPasses: 0, breakerTripped: false, breakerBudget: null }
  const breakerHolds = guards.breakerTripped

  if (!fires && !hasStickyDecisions(state.sticky)) {
    const plain = selectPlainView(memo, selected, estimate)
    if (config.strict_fit && (isUnusableBudget(budget, effective) || plain.tokens > budget)) return failFit({ ...state, guards: { ...state.guards, lastBudget: guards.lastBudget } }, meterStats, effects, working, plain.tokens, budget, effective, context)
    const next: State = { ...state, summary, meterStats, guards, meter: { ...meter, lastSentEstimate: plain.tokens } }
    return {
      state: calibrated !== null ? recordSentView(next, plain.view, estimate) : next,
      view: plain.view,
      effects,
    }
  }

  // SPEC 17.1: the sticky decisions re-applied to W, extending the previous request's list (issue
  // 14). Not when a pending summary may be swapped in first: the pass then re-applies after it.
  const stickyOnly = !fires || breakerHolds
  const mayDecide = !stickyOnly
  const applied = stickyOnly || config.compaction_strategy !== 'summary' || summary.pending === null ? selectAppliedView(memo, selected, state.sticky, context) : null
  const pass = runCompactionPass(
    {
      working,
      workingTokens: estimated,
      effective,
      stickyOnly,
      ...(applied !== null ? { applied } : {}),
      sticky: state.sticky,
      compactionStats: state.compactionStats,
      skipStreak: state.skipStreak,
      summary,
      history: state.history,
      nextSeq: state.nextSeq,
      meter,
      hybrid,
      now: event.now,
      guards,
      ...(calibrated !== null
        ? { billed: { effective: calibrated.effectiveUnits, target: calibrated.targetUnits > 0 ? calibrated.targetUnits : Math.trunc(calibrated.effectiveUnits * config.target_usage) } }
        : {}),
    },
    context,
  )
  let passState: State = {
    ...state,
    history: pass.history,
    nextSeq: pass.nextSeq,
    sticky: pass.sticky,
    compactionStats: pass.compactionStats,
    skipStreak: pass.skipStreak,
    summary: pass.summary,
    meterStats,
    meter,
    guards: breakerHolds && pass.list !== null && effective > 0 && estimateMessages(pass.list, estimate) <= effective ? { ...pass.guards, overBudgetPasses: 0, breakerTripped: false, breakerBudget: null } : pass.guards,
  }
  const spills = spillEffects()
  if (pass.list === null) {
    return { state: passState, view: undefined, effects: [...effects, ...spills, ...pass.effects] }
  }

  const list: Message[] = [...pass.list]
  let replayMarker = state.replayMarker
  if (config.replay_last_user_on_compaction && !pass.refused) {
    const identity = toBoundaryIdentity(pass.sticky.cumulativeLevel, pass.summary.absorbedCount)
    const replay = selectLastUserReplay(list, identity, replayMarker, effective, estimate, config.human_anchors ? isHumanPrompt : isRealUserMessage)
    if (replay !== null) {
      list.push(replay)
      replayMarker = identity
    }
  }
  // Notice hygiene: the full notice goes out once per accepted compaction (new stats object).
  const fresh = pass.compactionStats !== state.compactionStats
  const fullSent = config.compaction_notice_repeat !== 'full' && !fresh && passState.guards.noticeSent
  const notice = selectNotice(config, pass.compactionStats, list, memo.notice, fullSent)
  if (notice !== null) list.push(notice)
  if (config.compaction_notice_repeat !== 'full') {
    const noticeSent = fullSent || notice !== null
    if (noticeSent !== passState.guards.noticeSent) passState = { ...passState, guards: { ...passState.guards, noticeSent } }
  }
  // A pass that decided nothing returns the sticky-applied list itself (S ++ N'), whose stripped
  // view is memoized: only the tail items (replay, notice) are stripped here.
  const decided = pass.sticky !== state.sticky || pass.history !== state.history || pass.compactionStats !== state.compactionStats
  let sent: StrippedView
  if (applied !== null && (!mayDecide || !decided)) {
    const tail = strip(list.slice(applied.list.length))
    sent = tail.length === 0 ? applied : { view: [...applied.view, ...tail], tokens: applied.tokens + estimateMessages(tail, estimate) }
  } else {
    const view = strip(list)
    sent = { view, tokens: estimateMessages(view, estimate) }
  }
  if (config.strict_fit && (isUnusableBudget(budget, effective) || sent.tokens > budget)) return failFit({ ...state, guards: { ...state.guards, lastBudget: guards.lastBudget } }, meterStats, effects, pass.list, sent.tokens, budget, effective, context)
  // Derive the next request's sticky-applied list now, while this compacting request walks the
  // history anyway, so the requests until the next compaction stay incremental.
  if (decided) warmAppliedView(memo, selected, passState, event.systemPrompt, factoryMessage, deps)
  const finished: State = { ...passState, replayMarker, meter: { ...meter, lastSentEstimate: sent.tokens } }
  return {
    state: calibrated !== null ? recordSentView(finished, sent.view, estimate) : finished,
    view: sent.view,
    effects: [...effects, ...spills, ...pass.effects],
  }
}

/**
 * After a compacting pass: the memo entry for the state it produced, with its sticky-applied list
 * derived in a context of its own (its spills belong to the next request, which re-records them).
 */
const warmAppliedView = (memo: DerivationMemo, selected: Working, state: State, systemPrompt: string | null, factoryMessage: Message | null, deps: CoreDeps): void => {
  const working = state.history === selected.entry.history ? selected : selectWorking(memo, state.history, systemPrompt, factoryMessage, deps.estimate)
  selectAppliedView(memo, { entry: working.entry, previous: null, added: null }, state.sticky, makePassContext(deps.config, deps.estimate, state.toolNames, memo, state.spillFailed))
}
