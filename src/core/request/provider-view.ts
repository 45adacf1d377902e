/**
 * The view as the caller asked for it (docs/formats.md): converted to the provider format,
 * repaired and checked against the provider's rules, the problems reported as effects. Used by
 * the finish stage of a request and by the `spills_answered` event of a request that spilled.
 */
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import type { Messages } from '../messages/message.js'
import type { MessageFormat } from '../formats/carrier.js'
import type { ViewShape } from '../events.js'
import { toRequestView } from '../formats/dispatch.js'
import { findHistoryRefusals, repairHistoryRefusals, resolveProviderRules, type HistoryWalks } from '../formats/input-rules.js'
import { NO_CACHE_BREAKPOINTS, placeCacheBreakpoints, type CacheBreakpointPositions, type PrefixHashes } from '../formats/anthropic-cache.js'

/**
 * `provider_rules` on a view (docs/formats.md): what only the history shows a provider would
 * refuse is a warning logged once per manager (`"warn"`), left out of the view with such a warning
 * (`"repair"`), or an `InvalidMessageError` naming the view path (`"refuse"`: null, the
 * `raise_error` effect appended). `walks`: the walks to resume, `base` a view `view` extends (`findHistoryRefusals`).
 */
const applyProviderRules = <V>(config: Config, format: MessageFormat, view: V, effects: Effect[], walks?: HistoryWalks, base?: Messages): V | null => {
  const found = findHistoryRefusals(format, view, walks, base)
  if (found.length === 0) return view
  const mode = resolveProviderRules(config.provider_rules, format)
  if (mode === 'refuse') {
    effects.push({ type: 'raise_error', name: 'InvalidMessageError', field: `view${found[0].path}`, message: `${found[0].detail}; fix: ${found[0].fix}` })
    return null
  }
  for (const problem of found) {
    const message =
      mode === 'repair'
        ? `context-simple: view${problem.path}: ${problem.detail}. It is left out of the view (provider_rules "repair"; history unchanged); set provider_rules: "refuse" to raise an error instead`
        : `context-simple: view${problem.path}: ${problem.detail}. The view is sent as it is (provider_rules "warn"); set provider_rules: "repair" to leave it out of the view`
    effects.push({ type: 'log', level: 'warning', message, once: true })
  }
  return mode === 'repair' ? repairHistoryRefusals(format, view).view : view
}

/**
 * What `toProviderView` made: the view in the shape asked for (`output`, null when
 * `provider_rules: "refuse"` refused it: the `raise_error` effect is then last), its effects, and
 * for Anthropic under `anthropic_cache_breakpoints` the breakpoint positions it carries
 * (`cacheBreakpoints`, the state's slice for the next view; absent otherwise).
 *
 * @example
 * const made: ProviderView = { output: [{ role: 'user', content: 'hi' }], repaired: false, effects: [] }
 */
export interface ProviderView {
  readonly output: unknown
  /** Whether `shape.repair` changed the view (`toRequestView`); false without it and for the contract shape. */
  readonly repaired: boolean
  readonly effects: ReadonlyArray<Effect>
  readonly cacheBreakpoints?: CacheBreakpointPositions
}

/**
 * `view` (a contract view, stripped) as `shape` asks for it: in a provider format converted
 * (`toRequestView`, with `history` for what the conversion reads of it), `context:view-invalid`
 * when the converted view breaks the format's rules, `provider_rules` applied, and for Anthropic
 * under `anthropic_cache_breakpoints` the cache breakpoints placed, keeping the marks of
 * `breakpoints` (the positions of the last view sent, `State.cacheBreakpoints`) whose prefix is
 * unchanged (`placeCacheBreakpoints`); a contract view only has `provider_rules` applied. `walks`
 * (the derivation memo's, src/core/memo/derivation-memo.ts): the `provider_rules` chat and
 * Responses checks, and the Anthropic format check, resume them instead of walking the whole view;
 * the same result. `prefixes`
 * (the derivation memo's too): the running hashes the breakpoints' prefix fingerprints resume
 * from (`PrefixHashes`); the same result. `base`: a view `view` extends (its leading items, the
 * same objects: `StrippedView.prefix`), which the contract shape's walk resumes from without
 * comparing them; the same result.
 *
 * @example
 * toProviderView(DEFAULT_CONFIG, { format: 'contract', repair: false }, [{ role: 'user', content: 'hi' }], []).output // => [{ role: 'user', content: 'hi' }]
 */
export const toProviderView = (
  config: Config,
  shape: ViewShape,
  view: Messages,
  history: Messages,
  breakpoints: CacheBreakpointPositions = NO_CACHE_BREAKPOINTS,
  walks?: HistoryWalks,
  prefixes?: PrefixHashes,
  base?: Messages,
): ProviderView => {
  const effects: Effect[] = []
  if (shape.format === 'contract') return { output: applyProviderRules(config, 'contract', view, effects, walks, base), repaired: false, effects }
  const converted = toRequestView(shape.format, view, { repair: shape.repair, history, anthropicWalk: walks?.anthropic })
  if (converted.problems.length > 0) effects.push({ type: 'emit_hook', name: 'context:view-invalid', data: { format: shape.format, problems: [...converted.problems] } })
  const checked = applyProviderRules(config, shape.format, converted.view, effects, walks)
  const repaired = converted.repaired
  if (checked === null) return { output: null, repaired, effects }
  if (shape.format !== 'anthropic' || !config.anthropic_cache_breakpoints) return { output: checked, repaired, effects }
  const marked = placeCacheBreakpoints(checked as Parameters<typeof placeCacheBreakpoints>[0], undefined, breakpoints, prefixes)
  return { output: marked.view, repaired, effects, cacheBreakpoints: marked.positions }
}
