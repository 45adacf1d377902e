/**
 * The running fold of one replay (`iterateReplay`, src/core/replay/replay.ts): its state, the
 * interpretation of each operation's effects as the shell would, and the provider model's
 * figures of each request.
 */
import { makeStep, toStepDeps } from '../reducer.js'
import { DEFAULT_CONFIG } from '../config.js'
import type { Step } from '../step.js'
import type { CoreDeps } from '../deps.js'
import type { Effect, RequestSummary, WriteSpill } from '../effects.js'
import type { Event, SpillFailed, SpillWritten } from '../events.js'
import type { Message } from '../messages/message.js'
import type { Recording, RecordingOp, ReplayEvent, ReplayOutputLine } from './recording.js'
import type { ReplayOptions, ReplayUsage, ShapedView } from './options.js'
import { makeInitialState, type State } from '../state.js'
import { toCacheItems, toWireKey } from '../economics/items.js'
import { applySimulatedRequest, EMPTY_SIMULATION, toReading, type RequestEconomics, type SimulationState } from '../economics/simulation.js'
import { fitProviderModel, toBilledCount, type FitPair, type ProviderFit } from '../economics/provider-model.js'
import { makeCachedEstimator, type TokenEstimator } from '../meter/estimate.js'
import { isPlainObject } from '../messages/values.js'
import { stripMessage } from '../compaction/context.js'
import { makeDerivationMemo, type DerivationMemo } from '../memo/derivation-memo.js'
import { toPlainArray } from '../messages/appendable.js'

/**
 * How much an add changed the stored history's count: the pieces it appended, and the growth of
 * the last message when the add merged into it (a provider format's pieces of one turn, e.g. a
 * Responses reasoning item and its function call, docs/formats.md).
 */
const toAddedTokens = (before: ReadonlyArray<Message>, after: ReadonlyArray<Message>, count: (message: Message) => number): number => {
  let start = before.length
  let delta = 0
  if (start > 0 && after.length >= start && after[start - 1] !== before[start - 1]) {
    start -= 1
    delta -= count(before[start])
  }
  for (let i = start; i < after.length; i += 1) delta += count(after[i])
  return delta
}

/**
 * The provider model's fit pairs (`FitPair`): at each request with a reading, the count of the
 * history as the manager stores it (the adds folded through `deps`' format, so a provider
 * format's items count as their stored pieces, metadata aside) and the reading. For a contract
 * recording these are `selectFitPairs`' pairs; a Responses recording's raw items also hold
 * encrypted reasoning that the stored pieces keep only in `metadata`, never counted.
 */
const selectStoredFitPairs = (recording: Recording, deps: CoreDeps, readings: ReadonlyMap<number, unknown>, count: TokenEstimator): ReadonlyArray<FitPair> => {
  // The billing model comes from the session, not from the configuration under test: the adds are
  // folded with the default configuration (only the format kept), so no graded key (an ingress cap,
  // say) changes the stored history the readings are fitted against.
  const step = makeStep({ ...deps, config: DEFAULT_CONFIG })
  const memo = makeDerivationMemo()
  let state = makeInitialState()
  const pairs: FitPair[] = []
  recording.ops.forEach((op, index) => {
    if (op.op === 'add_message') state = step(state, { type: 'message_added', message: op.message, timestamp: recording.now }).state
    else if (op.op === 'set_messages') state = step(state, { type: 'messages_replaced', messages: op.messages }).state
    else if (op.op === 'clear') state = step(state, { type: 'history_cleared' }).state
    else if (op.op === 'get_messages_for_request' && readings.has(index)) {
      const reading = toReading(readings.get(index))?.total ?? null
      if (reading !== null) pairs.push({ count: state.history.reduce((total, message) => total + count(stripMessage(message, memo)), 0), reading })
    }
  })
  return pairs
}

/**
 * The running fold of one replay (`iterateReplay`): the reducer and its state, the replay's own
 * bookkeeping (system prompt, hook events not yet shown on a line, the spill answers of the
 * current operation), what the result collects, and the provider model's running figures.
 * Mutable, owned by one `iterateReplay` call.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 1000 }] }
 * const run: ReplayRun = startReplay(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, {})
 * run.lines.length // => 0
 */
export interface ReplayRun {
  readonly recording: Recording
  readonly deps: CoreDeps
  readonly options: ReplayOptions
  step: (state: State, event: Event) => Step
  state: State
  systemPrompt: string | null
  carried: ReplayEvent[]
  /** The spill_result lines right after the current operation: path -> error of a failed write. */
  spillFailures: Map<string, string>
  readonly lines: ReplayOutputLine[]
  readonly historySizes: number[]
  /** With `options.shape`, per line: the view in that shape (null for a failed request or a peer's view). */
  readonly shaped: Array<ShapedView | null>
  readonly spills: WriteSpill[]
  readonly logs: Effect[]
  readonly economics: Array<RequestEconomics | null>
  /** The reading that describes each request: the first llm_response after it, before the next request. */
  readonly readings: ReadonlyMap<number, unknown>
  readonly providerFit: ProviderFit | null
  /** The meter's estimator and the provider model's billed count (the estimator without a fit). */
  readonly estimate: TokenEstimator
  readonly billed: TokenEstimator
  /** Strips `_seq` as a view carries each message (SPEC 1.6), for what the original agent sent. */
  readonly sentMemo: DerivationMemo
  simulation: SimulationState
  /** Tokens of what the original agent sent (its stored history), estimator and billed. */
  sentTokens: number
  sentBilledTokens: number
  /** The latest message time seen (epoch ms), null before one. */
  timeMs: number | null
}

/** The first llm_response after each request, before the next request, by the request's op index. */
const selectRequestReadings = (recording: Recording): Map<number, unknown> => {
  const readings = new Map<number, unknown>()
  let request: number | null = null
  recording.ops.forEach((op, index) => {
    if (op.op === 'get_messages_for_request') request = index
    else if (op.op === 'llm_response' && request !== null) {
      readings.set(request, op.usage)
      request = null
    }
  })
  return readings
}

/**
 * The fold before the first operation: the deps (the recording's format unless `given` names
 * one), an initial state, and with `options.usage` the session's provider model fitted on its
 * readings.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 1000 }] }
 * startReplay(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, {}).providerFit // => null
 */
export const startReplay = (recording: Recording, given: CoreDeps, options: ReplayOptions): ReplayRun => {
  // A recording of a provider-format manager replays through that format unless deps name one.
  const deps: CoreDeps = given.format === undefined && recording.format !== undefined ? { ...given, format: recording.format } : given
  const usage = options.usage
  const readings = usage !== undefined ? selectRequestReadings(recording) : new Map<number, unknown>()
  const estimate = toStepDeps(deps).estimate
  // The provider model: the session's fit of its readings on the counter's count of what was sent.
  const counter = usage?.count ?? estimate
  const providerFit = usage === undefined ? null : fitProviderModel(selectStoredFitPairs(recording, deps, readings, makeCachedEstimator(counter)))
  const billed = providerFit === null ? estimate : makeCachedEstimator(toBilledCount(providerFit, counter))
  return {
    recording,
    deps,
    options,
    step: makeStep(deps),
    state: makeInitialState(),
    systemPrompt: null,
    carried: [],
    spillFailures: new Map(),
    lines: [],
    historySizes: [],
    shaped: [],
    spills: [],
    logs: [],
    economics: [],
    readings,
    providerFit,
    estimate,
    billed,
    sentMemo: makeDerivationMemo(),
    simulation: EMPTY_SIMULATION,
    sentTokens: 0,
    sentBilledTokens: 0,
    timeMs: null,
  }
}

/**
 * Applies `event` and interprets its effects as the shell would: hook events wait for the next
 * line, spill writes are answered (written, or failed as the spill_result lines say) together as
 * one `spills_answered` event, as the manager answers a call's own writes (SPEC 17.9; it gives
 * back the view without the pointers whose write failed), summary requests go to
 * `options.summarizer`; answers are applied in turn. Returns the view, the view in the shape the
 * event asked for (a request's, made by the core: its finish stage, or the `spills_answered` event
 * when it spilled, as in the manager) and the fail-loud error of the event.
 */
const applyEvent = (run: ReplayRun, event: Event): { view: ReadonlyArray<Message> | undefined; shaped: ShapedView | undefined; error: string | null } => {
  const result = run.step(run.state, event)
  run.state = result.state
  let error: string | null = null
  // null: where the spill answers go, among the other answers (a step's spill writes are consecutive effects).
  const answers: Array<Event | null> = []
  const spillAnswers: Array<SpillWritten | SpillFailed> = []
  for (const effect of result.effects) {
    switch (effect.type) {
      case 'emit_hook':
        run.carried.push({ name: effect.name, data: effect.data })
        break
      case 'write_spill': {
        // SPEC 17.9: a spill_result line after the op names a write that did not succeed.
        run.spills.push(effect)
        const failure = run.spillFailures.get(effect.path)
        if (spillAnswers.length === 0) answers.push(null)
        spillAnswers.push(failure === undefined ? { type: 'spill_written', path: effect.path } : { type: 'spill_failed', path: effect.path, error: failure })
        break
      }
      case 'raise_error':
        error = effect.message
        break
      case 'log':
        run.logs.push(effect)
        break
      case 'request_summary':
        answers.push(...toSummaryAnswers(run, effect))
        break
      case 'cancel_summary':
        break
    }
  }
  let view = result.view
  let shaped = 'output' in result ? { view: result.output, repaired: result.repaired === true } : undefined
  // The shape goes with the answers of a request that spilled: its view is made once they are in.
  const shape = event.type === 'request_received' && view !== undefined ? event.shape : undefined
  for (const answer of answers) {
    if (answer !== null) applyEvent(run, answer)
    else {
      const answered = applyEvent(run, { type: 'spills_answered', answers: spillAnswers, view, ...(shape !== undefined ? { shape } : {}) })
      view = answered.view
      shaped = answered.shaped ?? shaped
      error = answered.error ?? error
    }
  }
  return { view, shaped, error }
}

/** The events answering a summary request from `options.summarizer` (none when it has no answer). */
const toSummaryAnswers = (run: ReplayRun, effect: RequestSummary): Event[] => {
  if (run.options.summarizer === undefined) return []
  const answer = run.options.summarizer(effect, toPlainArray(run.state.history))
  if (answer === null) return []
  return [
    { type: 'summary_call_started', id: effect.id },
    'text' in answer ? { type: 'summary_completed', id: effect.id, text: answer.text } : { type: 'summary_failed', id: effect.id, error: answer.error },
  ]
}

/** The spill_result lines right after op `index` (docs/recording-format.md): path -> error of each failed write. */
const selectSpillFailures = (ops: ReadonlyArray<RecordingOp>, index: number): Map<string, string> => {
  const failures = new Map<string, string>()
  for (let next = index + 1; next < ops.length; next += 1) {
    const following = ops[next]
    if (following.op !== 'spill_result') break
    if (!following.ok) failures.set(following.path, following.error ?? 'the spill write failed')
  }
  return failures
}

/** Counts `message` into what the original agent sent (as a view carries it). */
const noteSent = (run: ReplayRun, message: Message): void => {
  const sent = stripMessage(message, run.sentMemo)
  run.sentTokens += run.estimate(sent)
  run.sentBilledTokens += run.billed(sent)
}

/** Counts what an add changed in the stored history (`toAddedTokens`) into what the original agent sent. */
const noteAdded = (run: ReplayRun, before: ReadonlyArray<Message>): void => {
  const after = run.state.history
  run.sentTokens += toAddedTokens(before, after, (message) => run.estimate(stripMessage(message, run.sentMemo)))
  run.sentBilledTokens += toAddedTokens(before, after, (message) => run.billed(stripMessage(message, run.sentMemo)))
}

const noteTime = (run: ReplayRun, message: Message): void => {
  const stamp = isPlainObject(message.metadata) ? message.metadata.timestamp : undefined
  const parsed = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN
  if (!Number.isNaN(parsed)) run.timeMs = run.timeMs === null ? parsed : Math.max(run.timeMs, parsed)
}

/**
 * Applies operation `index` of the recording to `run` (docs/recording-format.md): its events
 * through the reducer, its spill and summary answers, and for a request its output line.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 1000 }] }
 * const run = startReplay(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, {})
 * applyOp(run, recording.ops[0], 0)
 * run.lines[0].view // => []
 */
export const applyOp = (run: ReplayRun, op: RecordingOp, index: number): void => {
  const { recording, options } = run
  const usage = options.usage
  run.spillFailures = selectSpillFailures(recording.ops, index)
  switch (op.op) {
    case 'spill_result':
      return
    case 'add_message': {
      const before = run.state.history
      applyEvent(run, { type: 'message_added', message: op.message, timestamp: recording.now })
      if (usage !== undefined && run.state.history !== before) {
        noteAdded(run, before)
        noteTime(run, op.message)
      }
      return
    }
    case 'llm_response':
      // Under simulated usage the request's own reading replaced it (see applyRequestOp).
      // A recorded reading is the agent loop's own call (usage_intake "foreground" records it).
      if (usage?.mode !== 'simulated') applyEvent(run, { type: 'usage_observed', data: { usage: op.usage, foreground: true } })
      return
    case 'set_messages':
      applyEvent(run, { type: 'messages_replaced', messages: op.messages })
      if (usage !== undefined) {
        run.sentTokens = 0
        run.sentBilledTokens = 0
        for (const message of run.state.history) noteSent(run, message)
        for (const message of op.messages) noteTime(run, message)
      }
      return
    case 'clear':
      applyEvent(run, { type: 'history_cleared' })
      run.sentTokens = 0
      run.sentBilledTokens = 0
      return
    case 'set_system_prompt':
      run.systemPrompt = op.content
      return
    case 'summary_result': {
      const id = run.state.summary.inFlight
      if (id === null) return
      applyEvent(run, { type: 'summary_call_started', id })
      applyEvent(run, op.error !== undefined ? { type: 'summary_failed', id, error: op.error } : { type: 'summary_completed', id, text: op.text ?? '' })
      return
    }
    case 'get_messages_for_request':
      applyRequestOp(run, op, index)
      return
  }
}

/** A `get_messages_for_request` operation: the request event, its output line and its economics. */
const applyRequestOp = (run: ReplayRun, op: Extract<RecordingOp, { op: 'get_messages_for_request' }>, index: number): void => {
  const { recording, options } = run
  const provider = op.provider ?? null
  const { view, shaped, error } = applyEvent(run, {
    type: 'request_received',
    tokenBudget: op.token_budget ?? null,
    provider,
    providerGiven: provider !== null,
    systemPrompt: run.systemPrompt,
    now: recording.now,
    ...(options.shape !== undefined ? { shape: options.shape } : {}),
  })
  const state = run.state
  // a plain array of its own (a view may be a version of an appendable list, src/core/messages/appendable.ts)
  let shown: ReadonlyArray<Message> | null = error !== null || view === undefined ? null : [...view]
  let shownError = error
  if (options.peer !== undefined) {
    const history = toPlainArray(state.history).map((message) => stripMessage(message, run.sentMemo))
    shown = options.peer(history, state.meter.stats?.budget ?? null, run.lines.length)
    shownError = shown === null ? 'the peer returned no message list' : null
  }
  const line: ReplayOutputLine = {
    ...(recording.session !== undefined ? { session: recording.session } : {}),
    op_index: index,
    view: shown,
    // a peer's line carries none of the library's own events or compaction figures
    events: options.peer === undefined ? run.carried : [],
    token_meter_stats: state.meter.stats,
    compaction_stats: options.peer === undefined ? state.compaction.stats : null,
    ...(shownError !== null ? { error: { message: shownError } } : {}),
  }
  run.carried = []
  run.lines.push(line)
  run.historySizes.push(state.history.length)
  if (options.shape !== undefined) run.shaped.push(line.view === null || options.peer !== undefined ? null : (shaped ?? null))
  if (options.usage !== undefined) recordEconomics(run, options.usage, line, index)
}

/**
 * The view is, on the wire (`toWireKey`: metadata is never sent), the stored history, i.e. the
 * request the original agent sent: no compaction, tail or summary changed it, so that request's
 * recorded reading bills it.
 */
const isSentRequest = (view: ReadonlyArray<Message>, history: ReadonlyArray<Message>): boolean =>
  view.length === history.length && view.every((message, index) => message === history[index] || toWireKey(message) === toWireKey(history[index]))

/** The provider model's figures of one output line (null for a failed request); a simulated reading is observed. */
const recordEconomics = (run: ReplayRun, usage: ReplayUsage, line: ReplayOutputLine, index: number): void => {
  if (line.view === null) {
    run.economics.push(null)
    return
  }
  const next = applySimulatedRequest(usage.provider, usage.mode, run.simulation, {
    recorded: toReading(run.readings.get(index)),
    sentTokens: run.sentBilledTokens,
    items: toCacheItems(line.view, usage.provider, run.billed),
    timeMs: run.timeMs,
    modelOverhead: run.providerFit?.overhead ?? 0,
    estimated: { sent: run.sentTokens, view: line.view.reduce((total, message) => total + run.estimate(message), 0) },
    // only recorded readings need it: a simulated reading bills every view
    sentView: usage.mode === 'recorded' && usage.readingsBillHistory !== false && isSentRequest(line.view, run.state.history),
  })
  run.simulation = next.state
  run.economics.push(next.economics)
  if (next.economics.usage !== null) applyEvent(run, { type: 'usage_observed', data: { usage: next.economics.usage, foreground: true } })
}
