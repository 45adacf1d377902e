/**
 * What a restored session asks for again: work that was outstanding when its snapshot was taken
 * (today the in-flight summary request), as effects for the shell to run.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { State } from '../state.js'
import { toSummaryRequest } from '../summary/summary.js'

/**
 * The effects that resume a restored state: a `request_summary` for the summary in flight (same
 * id and span, so its answer is applied as if the call had never been interrupted), or nothing.
 *
 * @example
 * const state = makeInitialState()
 * selectResumeEffects(DEFAULT_CONFIG, state) // => []
 * selectResumeEffects(DEFAULT_CONFIG, { ...state, summary: { ...state.summary, inFlight: 'summary-1', inFlightSeqs: [0, 1] } }).length // => 1
 */
export const selectResumeEffects = (config: Config, state: State): ReadonlyArray<Effect> =>
  state.summary.inFlight === null ? [] : [toSummaryRequest(config, state.history, state.summary.inFlight, state.summary.inFlightSeqs)]
