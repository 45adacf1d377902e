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
import { toRequestFacts } from './facts.js'
import { finishStage } from './finish.js'
import { meterStage } from './meter.js'
import { strictFitStage } from './strict-fit.js'
import { summaryTriggerStage } from './summary-trigger.js'
import { tailStage } from './tail.js'
import type { RequestDraft, RequestSlices, RequestStage, StageOutput } from './types.js'
import { viewStage } from './view.js'

export { toWorkingList } from './facts.js'

/**
 * The stages of a request, in order: budget provenance, meter, summary trigger, compaction
 * trigger, compaction pass, tail (replay and notice), view, strict fit, finish.
 *
 * @example
 * REQUEST_STAGES.map((stage) => stage.name)[0] // => 'budget'
 */
export const REQUEST_STAGES: ReadonlyArray<RequestStage> = [
  budgetStage,
  meterStage,
  summaryTriggerStage,
  compactionTriggerStage,
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

/**
 * The draft a request starts from: the state's slices, no request slice written yet, W as the
 * list so far.
 *
 * @example
 * startDraft(makeInitialState(), []).slices.pass // => null
 */
export const startDraft = (state: State, working: Messages): RequestDraft => ({
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
    trigger: { fires: false, breakerHolds: false },
    pass: null,
    view: null,
    output: null,
  },
  list: working,
  spills: [],
  log: [],
})

/**
 * `slices` with the slices `written` holds replaced: what `{ ...slices, ...written }` gives, with
 * every key named (the double spread is about 0.5 µs per merge on Node 20; named, a request's fixed
 * cost fell from 3.1 to 2.1 µs: docs/performance.md, "The 3 MB session"). A slice added to
 * `RequestSlices` must be added here (the return type requires it).
 */
const mergeSlices = (slices: RequestSlices, written: NonNullable<StageOutput['slices']>): RequestSlices => ({
  history: ('history' in written ? written.history : slices.history) as RequestSlices['history'],
  nextSeq: ('nextSeq' in written ? written.nextSeq : slices.nextSeq) as RequestSlices['nextSeq'],
  toolNames: ('toolNames' in written ? written.toolNames : slices.toolNames) as RequestSlices['toolNames'],
  budget: ('budget' in written ? written.budget : slices.budget) as RequestSlices['budget'],
  meter: ('meter' in written ? written.meter : slices.meter) as RequestSlices['meter'],
  summary: ('summary' in written ? written.summary : slices.summary) as RequestSlices['summary'],
  compaction: ('compaction' in written ? written.compaction : slices.compaction) as RequestSlices['compaction'],
  toolResults: ('toolResults' in written ? written.toolResults : slices.toolResults) as RequestSlices['toolResults'],
  cacheBreakpoints: ('cacheBreakpoints' in written ? written.cacheBreakpoints : slices.cacheBreakpoints) as RequestSlices['cacheBreakpoints'],
  trigger: ('trigger' in written ? written.trigger : slices.trigger) as RequestSlices['trigger'],
  pass: ('pass' in written ? written.pass : slices.pass) as RequestSlices['pass'],
  view: ('view' in written ? written.view : slices.view) as RequestSlices['view'],
  output: ('output' in written ? written.output : slices.output) as RequestSlices['output'],
})

/** The draft after `stage` returned `output`; the draft itself when the stage wrote nothing and returned no effect or spill. */
const advance = (draft: RequestDraft, stage: RequestStage, output: StageOutput): RequestDraft => {
  const effects = output.effects !== undefined && output.effects.length > 0
  const spills = output.spills !== undefined && output.spills.length > 0
  if (output.slices === undefined && output.list === undefined && !effects && !spills) return draft
  return {
    slices: output.slices === undefined ? draft.slices : mergeSlices(draft.slices, output.slices),
    list: output.list ?? draft.list,
    spills: spills ? mergeSpills([draft.spills, output.spills ?? []]) : draft.spills,
    log: effects ? [...draft.log, { stage, effects: output.effects ?? [] }] : draft.log,
  }
}

const toStep = (draft: RequestDraft, stopped: boolean): Step => {
  const state = toState(draft.slices)
  const view = stopped ? undefined : (draft.slices.view?.view ?? undefined)
  const effects = draft.log.flatMap((entry) => entry.effects)
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
  let draft = startDraft(state, facts.working)
  for (const stage of REQUEST_STAGES) {
    const output = stage.run(facts, draft)
    if (output.replace !== undefined) return output.replace
    draft = advance(draft, stage, output)
    if (output.stop === true) return toStep(draft, true)
  }
  return toStep(draft, false)
}
