/**
 * The request reducer (SPEC 2.3 with 17.1): a fold of the request's facts over a table of stages,
 * in the spirit of redux-loop's `combineReducers`. Each stage is a pure function of (facts, the
 * slices so far, the list so far) that writes only its own slices and returns its effects; the
 * table's order is the order of the contract's steps and of the effects (docs/architecture.md,
 * "The request pipeline"). Adding a stage is one entry here and one module.
 */
import type { CoreDeps } from '../deps.js'
import type { RequestReceived } from '../events.js'
import type { Messages } from '../messages/message.js'
import type { State } from '../state.js'
import type { Step } from '../step.js'
import type { DerivationMemo } from '../memo/derivation-memo.js'
import { mergeSpills } from '../compaction/context.js'
import { budgetStage } from './budget-provenance.js'
import { compactionPassStage } from './compaction-pass.js'
import { compactionTriggerStage } from './compaction-trigger.js'
import { eagerProjectionStage } from './eager-projection.js'
import { toRequestFacts } from './facts.js'
import { finishStage } from './finish.js'
import { meterStage } from './meter.js'
import { strictFitStage } from './strict-fit.js'
import { summaryTriggerStage } from './summary-trigger.js'
import { tailStage } from './tail.js'
import type { Effect } from '../effects.js'
import type { SpillRequest } from '../tool-results/tool-result-budget.js'
import type { RequestDraft, RequestSlices, RequestStage, SliceName, StageEffects, StageOutput } from './types.js'
import { viewStage } from './view.js'
import { workingSetStage } from './working-set.js'

export { toWorkingList } from './facts.js'

/**
 * The stages of a request, in order: budget provenance, meter, summary trigger, compaction
 * trigger, eager projection, working set, compaction pass, tail (replay and notice), view, strict fit, finish.
 *
 * @example
 * REQUEST_STAGES.map((stage) => stage.name)[0] // => 'budget'
 */
export const REQUEST_STAGES: ReadonlyArray<RequestStage> = [
  budgetStage,
  meterStage,
  summaryTriggerStage,
  compactionTriggerStage,
  eagerProjectionStage,
  workingSetStage,
  compactionPassStage,
  tailStage,
  viewStage,
  strictFitStage,
  finishStage,
]

/** The state of `slices`: the request's own slices left out (named one by one: a literal of one shape, no rest copy). */
const toState = (slices: RequestSlices): State => ({
  history: slices.history,
  nextSeq: slices.nextSeq,
  toolNames: slices.toolNames,
  budget: slices.budget,
  meter: slices.meter,
  summary: slices.summary,
  compaction: slices.compaction,
  toolResults: slices.toolResults,
  cacheBreakpoints: slices.cacheBreakpoints,
})

/** The trigger slice before the compaction-trigger stage wrote it (never changed: the fold replaces slices, it does not write into them). */
const NO_TRIGGER: RequestSlices['trigger'] = Object.freeze({ fires: false, breakerHolds: false, early: false })
const NO_SPILLS: RequestDraft['spills'] = Object.freeze([])

/**
 * The draft a request starts from: the state's slices, no request slice written yet, W as the
 * list so far. The fold (`applyRequest`) writes each stage's output into it (`advance`); it is
 * the request's own object, made here and read by no one after the request (docs/performance.md,
 * "The 3 MB session").
 *
 * @example
 * startDraft(makeInitialState(), []).slices.pass // => null
 */
export const startDraft = (state: State, working: Messages): FoldDraft => ({
  // Every slice named: an object spread followed by more keys measured 5-14 µs here on Node 20 (docs/performance.md), a literal 0.03 µs.
  slices: {
    history: state.history,
    nextSeq: state.nextSeq,
    toolNames: state.toolNames,
    budget: state.budget,
    meter: state.meter,
    summary: state.summary,
    compaction: state.compaction,
    toolResults: state.toolResults,
    cacheBreakpoints: state.cacheBreakpoints,
    trigger: NO_TRIGGER,
    pass: null,
    view: null,
    output: null,
  },
  list: working,
  spills: NO_SPILLS,
  log: [],
})

/**
 * The draft as the fold holds it: the same fields as `RequestDraft`, written in place between two
 * stages (a stage reads it as the read-only `RequestDraft` and never keeps it). Each stage used to
 * get a new draft and a new 13-slice object per write (`{ ...slices, ...written }`): about 1 µs of
 * a quiet request's 2 µs fixed cost on the 3 MB session (docs/performance.md, "The 3 MB session").
 */
interface FoldDraft {
  slices: { -readonly [K in SliceName]: RequestSlices[K] }
  list: Messages
  spills: ReadonlyArray<SpillRequest>
  readonly log: StageEffects[]
}

/**
 * Writes `stage`'s `output` into `draft`: the slices it wrote (only those its `writes` names; the
 * type checker holds a stage to them, `defineStage`), the list, the spills (one per path), its effects.
 */
const advance = (draft: FoldDraft, stage: RequestStage, output: StageOutput): void => {
  const written = output.slices
  // Indexed loops here and in `toStep` / `applyRequest`: a benchmark's request runs mostly before the engine optimizes the fold, where `for…of` costs an iterator.
  const writes = stage.writes
  if (written !== undefined) for (let i = 0; i < writes.length; i += 1) if (writes[i] in written) writeSlice(draft.slices, writes[i], written)
  if (output.list !== undefined) draft.list = output.list
  if (output.spills !== undefined && output.spills.length > 0) draft.spills = mergeSpills([draft.spills, output.spills])
  if (output.effects !== undefined && output.effects.length > 0) draft.log.push({ stage, effects: output.effects })
}

const writeSlice = <K extends SliceName>(slices: FoldDraft['slices'], name: K, written: NonNullable<StageOutput['slices']>): void => {
  slices[name] = written[name] as RequestSlices[K]
}

const toStep = (draft: FoldDraft, stopped: boolean): Step => {
  const state = toState(draft.slices)
  const view = stopped ? undefined : (draft.slices.view?.view ?? undefined)
  const effects: Effect[] = []
  const log = draft.log
  for (let i = 0; i < log.length; i += 1) {
    const entry = log[i].effects
    for (let j = 0; j < entry.length; j += 1) effects.push(entry[j])
  }
  // Two literals rather than a conditional spread (docs/performance.md: spreads on the request path).
  const output = draft.slices.output
  return output === null ? { state, view, effects } : { state, view, effects, output: output.value, repaired: output.repaired }
}

/**
 * Reduce one `get_messages_for_request` (SPEC 2.3). The step's view is the stripped list to send,
 * or undefined when the request raised (the worth-the-rebuild cap, strict fit: a `raise_error`
 * effect is then last). Hook events come out as `emit_hook` effects in contract order:
 * `context:token_meter` first, then at most one of `context:compaction` / `context:compaction-skipped`.
 *
 * @example
 * const deps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const event: RequestReceived = { type: 'request_received', tokenBudget: 10000, provider: null, providerGiven: false, systemPrompt: null, now: DEFAULT_REPLAY_NOW }
 * applyRequest(deps, makeDerivationMemo(), makeInitialState(), event).view // => []
 */
export const applyRequest = (deps: CoreDeps, memo: DerivationMemo, state: State, event: RequestReceived): Step => {
  const facts = toRequestFacts(deps, memo, state, event)
  const draft = startDraft(state, facts.working)
  for (let i = 0; i < REQUEST_STAGES.length; i += 1) {
    const stage = REQUEST_STAGES[i]
    const output = stage.run(facts, draft)
    if (output.replace !== undefined) return output.replace
    advance(draft, stage, output)
    if (output.stop === true) return toStep(draft, true)
  }
  return toStep(draft, false)
}
