/**
 * Deterministic replay (docs/recording-format.md): a fold of a recording's operations through the pure
 * reducer on a fixed clock, producing one output line per request.
 */
import { makeStep } from '../reducer.js'
import type { CoreDeps } from '../deps.js'
import type { Effect, WriteSpill } from '../effects.js'
import type { Recording, ReplayOutputLine } from './recording.js'
import type { State } from '../state.js'
import type { RequestEconomics } from '../economics/simulation.js'
import type { ProviderFit } from '../economics/provider-model.js'
import type { ReplayOptions, ShapedView } from './options.js'
import { applyOp, startReplay } from './fold.js'

export type { ReplayHandOver, ReplayOptions, ReplayPeer, ReplaySummarizer, ReplayUsage, ShapedView } from './options.js'

/**
 * The result of a replay: output lines, the stored history size at each line's request, every spill the requests asked for (written by the
 * caller if wanted; replay treats them as written), the log effects, and the final state.
 * `historySizes[i]` is the number of stored messages when `lines[i]` was produced.
 * With `options.usage`, `economics[i]` is the split, overhead and prefix break of `lines[i]`.
 *
 * @example
 * const deps: CoreDeps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const result: ReplayResult = replayRecording(recording, deps)
 * result.historySizes // => [1]
 */
export interface ReplayResult {
  readonly lines: ReadonlyArray<ReplayOutputLine>
  /**
   * Per line (same index), the request's economics under `options.usage` (null for a failed
   * request); empty without `options.usage`.
   */
  readonly economics: ReadonlyArray<RequestEconomics | null>
  /** Requests whose hidden overhead was clamped at 0 (0 without `options.usage`). */
  readonly clampedRequests: number
  /** The session's provider model (null without `options.usage`). */
  readonly providerFit: ProviderFit | null
  readonly historySizes: ReadonlyArray<number>
  /**
   * With `options.shape`, per line (same index): the request's view in that shape as the core made
   * it (`ShapedView`; null for a failed request or a peer's line); empty without `options.shape`.
   */
  readonly shaped: ReadonlyArray<ShapedView | null>
  readonly spills: ReadonlyArray<WriteSpill>
  readonly logs: ReadonlyArray<Effect>
  readonly state: State
}

/**
 * Replay `recording` with `deps` (its config already decoded): every operation becomes core
 * events applied in order; each `get_messages_for_request` yields an output line with the view
 * (or the fail-loud error), the hook events emitted since the previous line, and both stats.
 * Spill writes are answered as written; summary requests are answered by `summary_result`
 * operations (answering the in-flight request; ignored when none) or by `options.summarizer`.
 * Throws only what `options.summarizer` throws; domain problems become `logs`.
 *
 * @example
 * const deps: CoreDeps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * replayRecording({ config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 1000 }] }, deps).lines[0].view // => []
 */
export const replayRecording = (recording: Recording, deps: CoreDeps, options: ReplayOptions = {}): ReplayResult => {
  const iterator = iterateReplay(recording, deps, options)
  for (;;) {
    const next = iterator.next()
    if (next.done === true) return next.value
  }
}

/**
 * The same fold as `replayRecording`, one operation at a time: yields the 0-based index of each
 * operation after applying it, and returns the result (for progress display).
 *
 * @example
 * const deps: CoreDeps = { config: DEFAULT_CONFIG, estimate: estimateOne }
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const iterator = iterateReplay(recording, deps)
 * let next = iterator.next()
 * while (next.done !== true) next = iterator.next()
 * next.value.lines.length // => 1
 */
export function* iterateReplay(recording: Recording, given: CoreDeps, options: ReplayOptions = {}): Generator<number, ReplayResult> {
  const run = startReplay(recording, given, options)
  for (let index = 0; index < recording.ops.length; index += 1) {
    applyOp(run, recording.ops[index], index)
    const handOver = options.handOver
    if (handOver !== undefined && (typeof handOver.at === 'number' ? handOver.at === index : handOver.at(index))) {
      run.state = handOver.through(run.state)
      run.step = makeStep(run.deps)
    }
    yield index
  }
  const { lines, economics, simulation, providerFit, historySizes, shaped, spills, logs, state } = run
  return { lines, economics, clampedRequests: simulation.clamped, providerFit, historySizes, shaped, spills, logs, state }
}
