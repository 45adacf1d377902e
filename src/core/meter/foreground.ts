/**
 * Foreground usage (`usage_intake: "foreground"`, docs/configuration.md): only the agent loop's own model calls
 * feed the meter; other `llm:response` readings (titles, evaluators, sub-agents) are observed and
 * counted, not recorded; a malformed foreground reading keeps the last good one, marked stale.
 */
import type { Config } from '../config.js'
import type { MeterState, State } from '../state.js'
import type { Step } from '../step.js'
import type { TokenMeterStats } from '../stats.js'
import { applyUsage } from './token-meter.js'
import { isPlainObject } from '../messages/values.js'

/**
 * True when an `llm:response` payload is marked as the agent loop's own call: `foreground: true`
 * on the payload (`manager.onLlmResponse({ usage, foreground: true })`).
 *
 * @example
 * isForegroundPayload({ usage: { input_tokens: 1 }, foreground: true }) // => true
 */
export const isForegroundPayload = (data: unknown): boolean => isPlainObject(data) && data.foreground === true

/**
 * Reduce a `usage_observed` event (SPEC 10.2 with 17.6, 17.10). With `usage_intake: "all"` (the
 * contract) every payload is read. With `"foreground"`, a payload not marked `foreground: true` is
 * observed only (`meter.usageObservedOnly` + 1, a debug log, the meter unchanged); a marked one
 * is read, and if it is malformed the last good reading stays and is marked stale
 * (`meter.usageStale`) until the next good one.
 *
 * @example
 * const state = makeInitialState()
 * applyUsageIntake({ ...DEFAULT_CONFIG, usage_intake: 'foreground' }, state, { usage: { input_tokens: 9 } }).state.meter.measured // => null
 */
export const applyUsageIntake = (config: Config, state: State, data: unknown): Step => {
  if (config.usage_intake === 'foreground' && !isForegroundPayload(data)) {
    return {
      state: { ...state, meter: { ...state.meter, usageObservedOnly: state.meter.usageObservedOnly + 1 } },
      view: undefined,
      effects: [{ type: 'log', level: 'debug', message: 'context-simple: llm:response usage observed, not recorded (usage_intake "foreground": the payload is not marked foreground: true)' }],
    }
  }
  const result = applyUsage(state.meter, data, state.nextSeq)
  let next = result.meter === state.meter ? state : { ...state, meter: result.meter }
  if (config.usage_intake === 'foreground') {
    const stale = result.meter === state.meter
    if (stale !== state.meter.usageStale) next = { ...next, meter: { ...next.meter, usageStale: stale } }
  }
  return { state: next, view: undefined, effects: result.effects }
}

/**
 * The meter stats with the foreground keys appended (`usage_intake: "foreground"` only):
 * `usage_stale` (the last foreground reading was malformed; `measured_tokens` is older) and
 * `usage_observed_only` (readings observed, not recorded, since the last reset).
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'get_messages_for_request', token_budget: 10_000 }] }
 * const stats = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }).lines[0].token_meter_stats as TokenMeterStats
 * const foreground: Config = { ...DEFAULT_CONFIG, usage_intake: 'foreground' }
 * withForegroundStats(foreground, stats, makeInitialState().meter).usage_stale // => false
 * withForegroundStats(DEFAULT_CONFIG, stats, makeInitialState().meter) // => stats
 */
export const withForegroundStats = (config: Config, stats: TokenMeterStats, meter: MeterState): TokenMeterStats =>
  config.usage_intake === 'foreground' ? { ...stats, usage_stale: meter.usageStale, usage_observed_only: meter.usageObservedOnly } : stats
