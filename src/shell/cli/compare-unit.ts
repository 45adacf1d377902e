/**
 * One unit of `compare` work: one configuration over one input file, as plain data so it can
 * cross to a worker thread, and the function that runs it (in the main thread or a worker).
 */
import type { SessionMetrics } from '../../core/economics/metrics.js'
import type { UsageMode } from '../../core/economics/simulation.js'
import { loadPriceTable, loadWindowTable } from '../economics-data.js'
import type { InputFormatChoice } from '../importers/detect.js'
import { evaluateSession, prepareSessions, readInput, type ConfigLayers } from './evaluate.js'
import { keptHeaderKeys, keptHeaderNote, type BudgetOverride } from './options.js'
import { unpricedModelWarnings } from './unpriced.js'

/**
 * The run settings every unit of a compare shares, as plain data (paths of the model tables, not
 * the tables; null = the bundled ones).
 *
 * @example
 * const settings: CompareSettings = { format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null }
 */
export interface CompareSettings {
  readonly format: InputFormatChoice
  readonly budget: BudgetOverride | null
  readonly summarizer: 'recorded' | 'none' | 'extractive'
  readonly usage: UsageMode
  readonly model: string | null
  readonly pricesPath: string | null
  readonly windowsPath: string | null
}

/**
 * A unit of work: the configuration (index, label, layers), the input file, and the settings.
 *
 * @example
 * const settings: CompareSettings = { format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null }
 * const unit: CompareUnit = { configIndex: 0, config: 'reference', layers: { preset: {}, file: null, settings: [] }, input: 'fixtures/sessions/claude-code/short.jsonl', inputIndex: 0, ...settings }
 */
export interface CompareUnit extends CompareSettings {
  readonly configIndex: number
  readonly config: string
  readonly layers: ConfigLayers
  readonly input: string
  readonly inputIndex: number
}

/**
 * One output row of `compare`: the configuration label, the session name, the model used, and
 * the session's figures.
 *
 * @example
 * const metrics: SessionMetrics = { requests: 12, boundaries: 2, highest_level: 3, invalid_views: 0, overflows: 0, overflows_unknown: 0, prefix_breaks: 2, input_tokens: 240000, cache_read_tokens: 200000, cache_write_tokens: 30000, uncached_input_tokens: 10000, cost_usd: 0.34, relative_cost: 67500, budget: 59200, overflow_limit: 59200, clamped_requests: 0, failed_requests: 0, infeasible_requests: 0, needed_facts: 40, recalled_facts: 36, recall: 0.9, fit_error: 0.012, fit_requests: 10 }
 * const row: CompareRow = { config: 'reference', session: 'short.jsonl', model: 'claude-opus-4-6', ...metrics }
 */
export type CompareRow = { readonly config: string; readonly session: string; readonly model: string | null } & SessionMetrics

/**
 * The result of a unit: its rows in session order, the distinct configuration warnings, and the
 * warnings the core logged while replaying (`coreWarnings`: per session, each distinct message
 * with its count), as plain data for the worker threads.
 *
 * @example
 * const settings: CompareSettings = { format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null }
 * const unit: CompareUnit = { configIndex: 0, config: 'reference', layers: { preset: {}, file: null, settings: [] }, input: 'fixtures/sessions/claude-code/short.jsonl', inputIndex: 0, ...settings }
 * runCompareUnit(unit).rows.length // => 1
 */
export interface CompareUnitResult {
  readonly configIndex: number
  readonly inputIndex: number
  readonly rows: ReadonlyArray<CompareRow>
  readonly warnings: ReadonlyArray<string>
  readonly coreWarnings: ReadonlyArray<{ readonly session: string; readonly message: string; readonly count: number }>
}

/**
 * Runs one unit: reads the input, prepares every session under the unit's configuration and
 * evaluates it. Throws what reading, decoding and the tables throw (`UsageError`,
 * `RecordingFormatError`, `ModelDataError`).
 *
 * @example
 * const settings: CompareSettings = { format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null }
 * const unit: CompareUnit = { configIndex: 0, config: 'reference', layers: { preset: {}, file: null, settings: [] }, input: 'fixtures/sessions/claude-code/short.jsonl', inputIndex: 0, ...settings }
 * const row = runCompareUnit(unit).rows[0]
 * row.session // => 'short.jsonl'
 * row.requests // => 2
 */
export const runCompareUnit = (unit: CompareUnit): CompareUnitResult => {
  const options = {
    format: unit.format,
    budget: unit.budget,
    summarizer: unit.summarizer,
    usage: unit.usage,
    model: unit.model,
    prices: unit.pricesPath === null ? loadPriceTable() : loadPriceTable(unit.pricesPath),
    windows: unit.windowsPath === null ? loadWindowTable() : loadWindowTable(unit.windowsPath),
  }
  const loaded = readInput(unit.input, unit.format, { model: unit.model, windows: options.windows })
  const sessions = prepareSessions(unit.input, loaded, unit.layers, options)
  const warnings = new Set<string>()
  for (const recording of loaded.recordings) for (const notice of recording.notices ?? []) warnings.add(`${unit.input}: ${notice}`)
  for (const recording of loaded.recordings) {
    const note = keptHeaderNote(unit.input, unit.config, keptHeaderKeys(recording.config, unit.layers))
    if (note !== null) warnings.add(note)
  }
  for (const session of sessions) for (const warning of session.warnings) warnings.add(warning.message)
  const coreWarnings: Array<{ session: string; message: string; count: number }> = []
  const rows = sessions.map((session): CompareRow => {
    const evaluated = evaluateSession(session, options)
    for (const [message, count] of evaluated.warnings) coreWarnings.push({ session: session.name, message, count })
    return { config: unit.config, session: session.name, model: session.model, ...evaluated.metrics }
  })
  for (const warning of unpricedModelWarnings(sessions, unit.input, 'cost_usd is 0', Object.keys(options.prices.models))) warnings.add(warning)
  return { configIndex: unit.configIndex, inputIndex: unit.inputIndex, rows, warnings: [...warnings], coreWarnings }
}
