/**
 * The shapes of the request pipeline (docs/architecture.md, "The request pipeline"): what every
 * stage reads (`StageFacts`), the value the stages fold over (`RequestDraft`: the state's
 * slices, the request's own slices, the list so far), and a stage.
 */
import type { ResolvedBudget } from '../budget.js'
import type { Config } from '../config.js'
import type { TokenEstimator } from '../deps.js'
import type { Effect } from '../effects.js'
import type { RequestReceived } from '../events.js'
import type { Message, Messages } from '../messages/message.js'
import type { State, StickyState } from '../state.js'
import type { TokenMeterStats } from '../stats.js'
import type { Step } from '../step.js'
import type { PassContext } from '../compaction/context.js'
import type { AppliedView, DerivationMemo, StrippedView } from '../memo/derivation-memo.js'
import type { Working } from '../incremental/working.js'
import type { HybridReading, TriggerDecision } from '../meter/token-meter.js'
import type { CalibratedReading } from '../meter/calibrated-meter.js'
import type { SpillRequest } from '../tool-results/tool-result-budget.js'

/**
 * The meter reading of one request (SPEC 10, docs/contract.md 17.13): the meter stats as the
 * `context:token_meter` event carries them (foreground, media and calibrated keys included), the
 * hybrid number for the inner gate, the calibrated reading (null unless `token_meter:
 * "calibrated"`), the spills of the candidate view it counted, and the outer trigger's decision on
 * that count (with the meter state its provenance counters leave).
 *
 * @example
 * const memo = makeDerivationMemo()
 * const reading: MeterReading = readMeter(DEFAULT_CONFIG, memo, makeInitialState(), selectWorking(memo, [], null, null, estimateOne), 9800, makePassContext(DEFAULT_CONFIG, estimateOne, {}, memo))
 * reading.calibrated // => null
 */
export interface MeterReading {
  readonly stats: TokenMeterStats
  readonly hybrid: HybridReading
  readonly calibrated: CalibratedReading | null
  readonly spills: ReadonlyArray<SpillRequest>
  readonly decision: TriggerDecision
}

/**
 * What every stage of one request reads, computed once (SPEC 2.3 steps 1-5): the request event
 * and the state it arrived on (`before`), the request budget `budget` and E `effective` (tokens)
 * with the budget's resolution and its warnings, the working list W and its estimate (tokens),
 * the pass toolkit, the sticky decisions it starts from, the meter reading, and the derivation
 * memo (a cache of derivations).
 *
 * @example
 * const event: RequestReceived = { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now: DEFAULT_REPLAY_NOW }
 * const facts: StageFacts = toRequestFacts({ config: DEFAULT_CONFIG, estimate: estimateOne }, makeDerivationMemo(), makeInitialState(), event)
 * facts.budget // => 10000
 */
export interface StageFacts {
  readonly config: Config
  readonly estimate: TokenEstimator
  readonly memo: DerivationMemo
  readonly event: RequestReceived
  readonly before: State
  readonly resolved: ResolvedBudget
  readonly budget: number
  readonly effective: number
  readonly budgetEffects: ReadonlyArray<Effect>
  readonly factoryMessage: Message | null
  readonly selected: Working
  readonly working: Messages
  readonly workingTokens: number
  readonly context: PassContext
  /** The sticky decisions the request starts from: the state's, with the eager projections of W (src/core/request/eager-projection.ts). */
  readonly sticky: StickyState
  readonly reading: MeterReading
}

/**
 * The compaction trigger's verdict (SPEC 6.2 step 6, docs/configuration.md's breaker): whether
 * the outer trigger fires, and whether a tripped breaker holds re-escalation back.
 *
 * @example
 * const trigger: TriggerSlice = { fires: true, breakerHolds: false, early: false }
 */
export interface TriggerSlice {
  readonly fires: boolean
  readonly breakerHolds: boolean
  /** The trigger fired as the early pass (`compact_early_threshold`, src/core/compaction/early-pass.ts), not at `compact_threshold`. */
  readonly early: boolean
}

/**
 * What the compaction-pass stage did. `plain`: no decision exists and the trigger did not fire,
 * W is sent as it is (SPEC 2.3 step 7). `pass`: the pass ran; `list` is its C (before the tail),
 * `applied` the sticky-applied W it was given (or null), `mayDecide` whether it could decide,
 * `decided` whether it changed decisions, history or stats, `refused` a worth-the-rebuild refusal.
 *
 * @example
 * const slice: PassSlice = { kind: 'plain' }
 */
export type PassSlice =
  | { readonly kind: 'plain' }
  | { readonly kind: 'pass'; readonly list: Messages; readonly applied: AppliedView | null; readonly mayDecide: boolean; readonly decided: boolean; readonly refused: boolean }

/**
 * The slices one request folds over: the state's own (each written by the stage that owns it)
 * and the request's (`trigger`, `pass`, `view`: the stripped view to send and its estimate, `output`: that view in the shape asked for),
 * which live only while the request is reduced.
 *
 * @example
 * const slices: RequestSlices = { ...makeInitialState(), trigger: { fires: false, breakerHolds: false, early: false }, pass: null, view: null, output: null }
 */
export interface RequestSlices extends State {
  readonly trigger: TriggerSlice
  readonly pass: PassSlice | null
  readonly view: StrippedView | null
  /** The view in the shape the request asked for (`request_received.shape`), once the finish stage made it. */
  readonly output: { readonly value: unknown; readonly repaired: boolean } | null
}

/**
 * The name of one slice of `RequestSlices`.
 *
 * @example
 * const name: SliceName = 'compaction'
 */
export type SliceName = keyof RequestSlices

/**
 * The effects one stage returned, in order.
 *
 * @example
 * const entry: StageEffects = { stage: budgetStage, effects: [] }
 * entry.stage.name // => 'budget'
 */
export interface StageEffects {
  readonly stage: RequestStage
  readonly effects: ReadonlyArray<Effect>
}

/**
 * The value the stages fold over: the slices so far, the list so far (W until the compaction
 * pass replaces it with C; the tail appends to it), the spills asked for so far (one per path,
 * SPEC 11.5) and the effects of each stage that ran.
 *
 * @example
 * const draft: RequestDraft = startDraft(makeInitialState(), [])
 * draft.log // => []
 */
export interface RequestDraft {
  readonly slices: RequestSlices
  readonly list: Messages
  readonly spills: ReadonlyArray<SpillRequest>
  readonly log: ReadonlyArray<StageEffects>
}

/**
 * What a stage returns: new values of its own slices (`K`), the list, its effects, the spills its
 * derivations asked for; `stop` ends the request without a view (a `raise_error` effect is then
 * among the effects), `replace` ends it with that step instead of the fold's (strict fit).
 *
 * @example
 * const output: StageOutput<'budget'> = { slices: { budget: { lastBudget: null } } }
 */
export interface StageOutput<K extends SliceName = SliceName> {
  /** The slices outside `K` are `never`, so a stage returning one does not compile (`defineStage`). */
  readonly slices?: { readonly [P in SliceName]?: P extends K ? RequestSlices[P] : never }
  readonly list?: Messages
  readonly effects?: ReadonlyArray<Effect>
  readonly spills?: ReadonlyArray<SpillRequest>
  readonly stop?: true
  readonly replace?: Step
}

/**
 * One stage of the request pipeline: its name, the slices it writes, whether its hook and log
 * effects are observations that a request failing under `strict_fit` still reports (docs/contract.md 17.11),
 * and the pure function of (facts, draft) it is.
 *
 * @example
 * const stage: RequestStage = defineStage({ name: 'noop', writes: [], observes: false, run: () => ({}) })
 */
export interface RequestStage {
  readonly name: string
  readonly writes: ReadonlyArray<SliceName>
  readonly observes: boolean
  readonly run: (facts: StageFacts, draft: RequestDraft) => StageOutput
}

/**
 * A stage that writes only the slices `writes` names (the type checker holds its `run` to them:
 * `K` is inferred from `writes` alone, and a slice outside it is an error in `run`'s return).
 *
 * @example
 * defineStage({ name: 'noop', writes: [], observes: false, run: () => ({}) }).name // => 'noop'
 */
export const defineStage = <K extends SliceName>(stage: {
  readonly name: string
  readonly writes: ReadonlyArray<K>
  readonly observes: boolean
  readonly run: (facts: StageFacts, draft: RequestDraft) => StageOutput<NoInfer<K>>
  // The slices of a StageOutput<K> are slices of RequestSlices; the checker cannot relate the two
  // conditional types for a generic K, hence the conversion.
}): RequestStage => stage as unknown as RequestStage
