/**
 * `context-simple compare`: replays every session of the inputs under each configuration with
 * the provider model, in worker threads when that helps, and prints a table per configuration
 * (with totals and ratios against the first) or one JSON line per (configuration, session).
 */
import { availableParallelism } from 'node:os'
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { expandInputs, type ConfigLayers } from './evaluate.js'
import { runCompareUnit, type CompareRow, type CompareSettings, type CompareUnit, type CompareUnitResult } from './compare-unit.js'
import { SingleBar, Presets, Table } from './libraries.js'
import { UsageError } from './options.js'
import { addWarning, warningTallyLines, type WarningTally } from './core-warnings.js'

/**
 * One configuration of a compare run: its label (the preset name or the `--config` path as
 * given, then each `--set` that takes effect as typed, joined by ` + `: `configurationLabel`) and its layers
 * (`--config` never overlays a preset; `--set` applies to every one).
 *
 * @example
 * const config: CompareConfig = { label: 'recommended', layers: { preset: {}, file: null, settings: [] } }
 */
export interface CompareConfig {
  readonly label: string
  readonly layers: ConfigLayers
}

/**
 * Everything `compare` needs, parsed from the command line.
 *
 * @example
 * const configs: CompareConfig[] = [{ label: 'reference', layers: { preset: {}, file: null, settings: [] } }]
 * const options: CompareOptions = { inputs: ['fixtures/sessions/claude-code'], configs, format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null, json: false, jobs: null, progress: true }
 */
export interface CompareOptions extends CompareSettings {
  readonly inputs: ReadonlyArray<string>
  readonly configs: ReadonlyArray<CompareConfig>
  readonly json: boolean
  readonly jobs: number | null
  readonly progress: boolean
}

/** Where compare writes (the CLI's `CliIo`). */
interface Io {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly isTty: boolean
}

const rebuildError = (name: string, message: string): Error => {
  if (name === 'UsageError') return new UsageError(message)
  const error = new Error(message)
  error.name = name
  return error
}

/** Worker threads only when running compiled JavaScript (the worker file is a `.js` file then). */
const workerUrl = (): URL | null => (import.meta.url.endsWith('.js') ? new URL('./compare-worker.js', import.meta.url) : null)

const runInWorkers = async (units: ReadonlyArray<CompareUnit>, jobs: number, url: URL, onDone: () => void): Promise<CompareUnitResult[]> => {
  const results: CompareUnitResult[] = []
  const queue = [...units]
  let failure: Error | null = null
  const runWorker = async (): Promise<void> => {
    const worker = new Worker(url)
    try {
      for (let unit = queue.shift(); unit !== undefined && failure === null; unit = queue.shift()) {
        const current = unit
        const answer = await new Promise<{ ok: true; result: CompareUnitResult } | { ok: false; name: string; message: string }>((resolve, reject) => {
          const onMessage = (value: { ok: true; result: CompareUnitResult } | { ok: false; name: string; message: string }): void => {
            worker.off('error', onError)
            resolve(value)
          }
          const onError = (error: Error): void => {
            worker.off('message', onMessage)
            reject(error)
          }
          worker.once('message', onMessage)
          worker.once('error', onError)
          worker.postMessage(current)
        })
        if (!answer.ok) failure = rebuildError(answer.name, answer.message)
        else results.push(answer.result)
        onDone()
      }
    } finally {
      await worker.terminate()
    }
  }
  await Promise.all(Array.from({ length: jobs }, runWorker))
  if (failure !== null) throw failure
  return results
}

/** Input bytes (summed over the runs) from which `compare` uses worker threads by default. */
const PARALLEL_WORK_BYTES = 64 * 1024 * 1024

const fmt = (value: number): string => value.toLocaleString('en-US')
const usd = (value: number): string => `$${value.toFixed(4)}`
const ratio = (value: number, base: number): string => (base === 0 ? (value === 0 ? '1.00' : '∞') : (value / base).toFixed(2))
const fitPercent = (error: number | null): string => (error === null ? '' : `${(100 * error).toFixed(1)} %`)
const percent = (recalled: number, needed: number): string => (needed === 0 ? '' : `${((100 * recalled) / needed).toFixed(1)} %`)

type Totals = Pick<
  CompareRow,
  | 'requests'
  | 'boundaries'
  | 'highest_level'
  | 'invalid_views'
  | 'overflows'
  | 'overflows_unknown'
  | 'prefix_breaks'
  | 'input_tokens'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'uncached_input_tokens'
  | 'cost_usd'
  | 'relative_cost'
  | 'clamped_requests'
  | 'failed_requests'
  | 'needed_facts'
  | 'recalled_facts'
  | 'fit_error'
>

// The fit error of the totals: the sessions' means weighted by the requests each was taken over
// (`fit_requests`, SessionMetrics).
const fitWeight = (row: CompareRow): number => (row.fit_error === null ? 0 : row.fit_requests)
const pooledFitError = (rows: ReadonlyArray<CompareRow>): number | null => {
  const weight = rows.reduce((sum, row) => sum + fitWeight(row), 0)
  return weight === 0 ? null : rows.reduce((sum, row) => sum + fitWeight(row) * (row.fit_error ?? 0), 0) / weight
}

const total = (rows: ReadonlyArray<CompareRow>): Totals => ({
  ...rows.reduce<Omit<Totals, 'fit_error'>>(
    (sum, row) => ({
      requests: sum.requests + row.requests,
      boundaries: sum.boundaries + row.boundaries,
      highest_level: Math.max(sum.highest_level, row.highest_level),
      invalid_views: sum.invalid_views + row.invalid_views,
      overflows: sum.overflows + row.overflows,
      overflows_unknown: sum.overflows_unknown + row.overflows_unknown,
      prefix_breaks: sum.prefix_breaks + row.prefix_breaks,
      input_tokens: sum.input_tokens + row.input_tokens,
      cache_read_tokens: sum.cache_read_tokens + row.cache_read_tokens,
      cache_write_tokens: sum.cache_write_tokens + row.cache_write_tokens,
      uncached_input_tokens: sum.uncached_input_tokens + row.uncached_input_tokens,
      cost_usd: sum.cost_usd + row.cost_usd,
      relative_cost: sum.relative_cost + row.relative_cost,
      clamped_requests: sum.clamped_requests + row.clamped_requests,
      failed_requests: sum.failed_requests + row.failed_requests,
      needed_facts: sum.needed_facts + row.needed_facts,
      recalled_facts: sum.recalled_facts + row.recalled_facts,
    }),
    {
      requests: 0,
      boundaries: 0,
      highest_level: 0,
      invalid_views: 0,
      overflows: 0,
      overflows_unknown: 0,
      prefix_breaks: 0,
      input_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      uncached_input_tokens: 0,
      cost_usd: 0,
      relative_cost: 0,
      clamped_requests: 0,
      failed_requests: 0,
      needed_facts: 0,
      recalled_facts: 0,
    },
  ),
  fit_error: pooledFitError(rows),
})

// Unknown overflows (no bill of the view sent, judgeOverBudget) are counted apart, never as within.
const overflowCell = (figures: Totals): string => `${fmt(figures.overflows)}${figures.overflows_unknown > 0 ? ` (${fmt(figures.overflows_unknown)} unknown)` : ''}`

const HEAD = ['session', 'budget', 'requests', 'boundaries', 'level', 'invalid', 'overflows', 'prefix breaks', 'input', 'cache read', 'cache write', 'uncached', 'cost (input)', 'needed', 'recalled', 'recall', 'fit error']

const cells = (name: string, budget: string, figures: Totals): string[] => [
  name,
  budget,
  fmt(figures.requests),
  fmt(figures.boundaries),
  String(figures.highest_level),
  fmt(figures.invalid_views),
  overflowCell(figures),
  fmt(figures.prefix_breaks),
  fmt(figures.input_tokens),
  fmt(figures.cache_read_tokens),
  fmt(figures.cache_write_tokens),
  fmt(figures.uncached_input_tokens),
  usd(figures.cost_usd),
  fmt(figures.needed_facts),
  fmt(figures.recalled_facts),
  percent(figures.recalled_facts, figures.needed_facts),
  fitPercent(figures.fit_error),
]

/** The Anthropic cache figures under each breakpoint placement (extra columns; absent for OpenAI). */
const CACHE_MODE_HEAD = ['read/write: breakpoints', 'read/write: automatic', 'read/write: none']
type CacheModes = NonNullable<CompareRow['cache_modes']>
const sumCacheModes = (rows: ReadonlyArray<CompareRow>): CacheModes | undefined => {
  const given = rows.map((row) => row.cache_modes).filter((modes): modes is CacheModes => modes !== undefined)
  if (given.length === 0) return undefined
  const add = (mode: keyof CacheModes) => ({
    cache_read_tokens: given.reduce((total, modes) => total + modes[mode].cache_read_tokens, 0),
    cache_write_tokens: given.reduce((total, modes) => total + modes[mode].cache_write_tokens, 0),
  })
  return { breakpoints: add('breakpoints'), automatic: add('automatic'), none: add('none') }
}
const cacheModeCells = (modes: CacheModes | undefined): string[] =>
  (['breakpoints', 'automatic', 'none'] as const).map((mode) => (modes === undefined ? '' : `${fmt(modes[mode].cache_read_tokens)} / ${fmt(modes[mode].cache_write_tokens)}`))

/**
 * The human report: per configuration a table of its sessions and their total (with needed,
 * recalled facts and recall = recalled / needed, blank when nothing was needed), then one table of
 * the totals with relative cost, recall and ratios against the first configuration.
 *
 * @example
 * const metrics: SessionMetrics = { requests: 12, boundaries: 2, highest_level: 3, invalid_views: 0, overflows: 0, overflows_unknown: 0, prefix_breaks: 2, input_tokens: 240000, cache_read_tokens: 200000, cache_write_tokens: 30000, uncached_input_tokens: 10000, cost_usd: 0.34, relative_cost: 67500, budget: 59200, overflow_limit: 59200, clamped_requests: 0, failed_requests: 0, infeasible_requests: 0, needed_facts: 40, recalled_facts: 36, recall: 0.9, fit_error: 0.012, fit_requests: 10 }
 * const rows: CompareRow[] = [{ config: 'reference', session: 'a.jsonl', model: null, ...metrics }, { config: 'recommended', session: 'a.jsonl', model: null, ...metrics, boundaries: 1 }]
 * const text = renderCompareTables(rows, ['reference', 'recommended'])
 * text.startsWith('configuration 1: reference') // => true
 * text.includes('totals (x = ratio against reference)') // => true
 */
export const renderCompareTables = (rows: ReadonlyArray<CompareRow>, labels: ReadonlyArray<string>): string => {
  const style = { head: [], border: [], compact: true }
  const parts: string[] = []
  const totals = labels.map((label) => total(rows.filter((row) => row.config === label)))
  labels.forEach((label, index) => {
    const own = rows.filter((row) => row.config === label)
    // Anthropic sessions also show the cache figures with the breakpoint option, the automatic mode and neither.
    const modes = own.some((row) => row.cache_modes !== undefined)
    const head = modes ? [...HEAD, ...CACHE_MODE_HEAD] : HEAD
    const table = new Table({ head, style, colAligns: head.map((name) => (name === 'session' ? 'left' : 'right')) })
    for (const row of own) table.push([...cells(row.session, row.budget === null ? '' : fmt(row.budget), row), ...(modes ? cacheModeCells(row.cache_modes) : [])])
    table.push([...cells('TOTAL', '', totals[index]), ...(modes ? cacheModeCells(sumCacheModes(own)) : [])])
    parts.push(`configuration ${index + 1}: ${label}\n${table.toString()}`)
  })
  const head = ['configuration', 'boundaries', 'invalid', 'overflows', 'prefix breaks', 'input', 'cost (input)', 'relative cost', 'recall', 'fit error', 'x boundaries', 'x prefix breaks', 'x input', 'x cost']
  const summary = new Table({ head, style, colAligns: head.map((name) => (name === 'configuration' ? 'left' : 'right')) })
  const base = totals[0]
  labels.forEach((label, index) => {
    const figures = totals[index]
    summary.push([
      label,
      fmt(figures.boundaries),
      fmt(figures.invalid_views),
      overflowCell(figures),
      fmt(figures.prefix_breaks),
      fmt(figures.input_tokens),
      usd(figures.cost_usd),
      fmt(figures.relative_cost),
      percent(figures.recalled_facts, figures.needed_facts),
      fitPercent(figures.fit_error),
      ratio(figures.boundaries, base.boundaries),
      ratio(figures.prefix_breaks, base.prefix_breaks),
      ratio(figures.input_tokens, base.input_tokens),
      ratio(figures.cost_usd, base.cost_usd),
    ])
  })
  parts.push(`totals (x = ratio against ${labels[0]})\n${summary.toString()}`)
  return parts.join('\n\n')
}

/**
 * Runs `compare`: expands the inputs, makes one unit per (configuration, input), runs them (in
 * `jobs` worker threads when compiled and more than one unit; by default one per core when the
 * runs hold at least 64 MiB of input, else in this thread), draws a
 * progress bar on stderr when it is a terminal, prints the configuration warnings and the
 * warnings the core logged while replaying on stderr (each distinct message once, with its count
 * and runs: `warningTallyLines`), and prints the tables or the JSON lines, ordered
 * by configuration, then input, then session. Resolves to 0. Throws `UsageError` and the input
 * errors.
 *
 * @example
 * let out = ''
 * const io: CliIo = { stdout: (text) => { out += text }, stderr: () => {}, isTty: false }
 * const configs: CompareConfig[] = [{ label: 'reference', layers: { preset: {}, file: null, settings: [] } }]
 * const options: CompareOptions = { inputs: ['fixtures/sessions/claude-code/short.jsonl'], configs, format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, pricesPath: null, windowsPath: null, json: true, jobs: null, progress: false }
 * await runCompare(options, io) // => 0
 * JSON.parse(out.split('\n')[0]).session // => 'short.jsonl'
 */
export const runCompare = async (options: CompareOptions, io: Io): Promise<number> => {
  if (options.configs.length === 0) throw new UsageError('compare needs at least one configuration: give --preset NAME or --config FILE (repeatable), e.g. --preset reference --preset recommended')
  const inputs = expandInputs(options.inputs)
  const units: CompareUnit[] = options.configs.flatMap((config, configIndex) =>
    inputs.map((input, inputIndex) => ({
      configIndex,
      config: config.label,
      layers: config.layers,
      input,
      inputIndex,
      format: options.format,
      budget: options.budget,
      summarizer: options.summarizer,
      usage: options.usage,
      model: options.model,
      pricesPath: options.pricesPath,
      windowsPath: options.windowsPath,
    })),
  )
  // Largest inputs first, so the long sessions do not finish last on one worker.
  const size = new Map(inputs.map((input) => [input, statSync(input).size]))
  const scheduled = [...units].sort((a, b) => (size.get(b.input) ?? 0) - (size.get(a.input) ?? 0))
  const bar = options.progress && io.isTty ? new SingleBar({ format: 'comparing [{bar}] {value}/{total} (configuration, input) runs', stream: process.stderr }, Presets.shades_classic) : null
  bar?.start(units.length, 0)
  let done = 0
  const onDone = (): void => {
    done += 1
    bar?.update(done)
  }
  // Worker threads pay a start-up (about 0.2 s each to load the modules): worth it only when the
  // runs hold enough input (bytes on disk, gzipped files count compressed). Measured with
  // `npm run bench`: the shared sessions (0.7 MB on disk, three configurations) take about 1 s of
  // CPU and run slower in two workers than in this thread, so by default they run here.
  const work = units.reduce((sum, unit) => sum + (size.get(unit.input) ?? 0), 0)
  const jobs = Math.max(1, Math.min(options.jobs ?? (work >= PARALLEL_WORK_BYTES ? availableParallelism() : 1), units.length))
  const url = workerUrl()
  let results: CompareUnitResult[]
  try {
    if (jobs > 1 && url !== null) results = await runInWorkers(scheduled, jobs, url, onDone)
    else
      results = scheduled.map((unit) => {
        const result = runCompareUnit(unit)
        onDone()
        return result
      })
  } finally {
    bar?.stop()
  }
  results.sort((a, b) => a.configIndex - b.configIndex || a.inputIndex - b.inputIndex)
  // Labels may repeat; tell them apart by position.
  const labels = options.configs.map((config, index) => (options.configs.filter((other) => other.label === config.label).length > 1 ? `${config.label} (${index + 1})` : config.label))
  const warnings = new Set(results.flatMap((result) => result.warnings))
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`)
  // The warnings the core logged while replaying (as replay prints them), each distinct message once, with its count and runs.
  const tally = new Map<string, WarningTally>()
  for (const result of results) for (const { session, message, count } of result.coreWarnings) addWarning(tally, message, count, `${labels[result.configIndex]} · ${session}`)
  for (const line of warningTallyLines(tally)) io.stderr(line)
  const rows = results.flatMap((result) => result.rows)
  if (options.json) {
    for (const row of rows) io.stdout(JSON.stringify(row) + '\n')
    return 0
  }
  const labelled = results.flatMap((result) => result.rows.map((row) => ({ ...row, config: labels[result.configIndex] })))
  io.stdout(renderCompareTables(labelled, labels) + '\n')
  return 0
}
