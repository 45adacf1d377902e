// The goals of the calibrated meter (docs/evaluation.md, "The meter measured on every shared
// session"), measured with the provider model (--usage simulated, gpt-tokenizer count) on every
// session given, per session and in total. Two forms:
//
//   npx tsx scripts/measure-calibration.ts <budget|never> <preset[+json]|json-config> <files or folders>...
//     one configuration: boundaries, views billed over the request budget, and the prediction
//     error of used_tokens / model_tokens / the reference estimate against the provider's reading
//     of each request (meaningful in a run that never compacts: every view is then what the
//     agent sent), e.g. npx tsx scripts/measure-calibration.ts never '{"token_meter":"calibrated"}' fixtures/sessions/codex
//
//   npx tsx scripts/measure-calibration.ts goals <budget,budget,...> [--predict <json-config>] <files or folders>...
//     per session with recorded usage: the prediction errors of a never-compacting calibrated
//     replay (the meter as `recommended` runs it, calibrated with the typed estimator, unless
//     --predict names another configuration); then at each budget B `recommended` (views billed over B, boundaries) against the
//     oracle-calibrated reference run: the reference preset at the budget converted with the
//     session's own least-squares fit of the recorded readings on the reference estimate of the
//     original requests, floor((B - b) / a), whose boundaries bound recommended's at 1.5 x + 1.
//     A session whose fitted overhead (the provider model's) alone is at or above B is infeasible
//     at B: reported, and left out of the totals. Sessions without readings are listed and skipped.
//
//   npx tsx scripts/measure-calibration.ts storms <budget|window> <file> <preset[+json]|json-config>...
//     per configuration: boundaries, images in the last view against those stored, guard events
//     (`window`: the format's own window, Claude Code's 200,000 with 64,000 output).
//
//   npx tsx scripts/measure-calibration.ts tau <budget> <model> <files or folders>...
//     tau-bench shape (no readings): `recommended` against the previous recommended (without the
//     calibrated meter and the typed estimator): boundaries, views over E and over the request
//     budget as billed, invalid views, in total and for every trajectory where any is non-zero.
import { readInput, prepareSessions, runSession, expandInputs, type RunOptions } from '../src/shell/cli/evaluate.js'
import { loadPriceTable, loadWindowTable } from '../src/shell/economics-data.js'
import { toSessionMetrics } from '../src/core/economics/metrics.js'
import { presets } from '../src/core/presets.js'
import type { Config } from '../src/core/config.js'

const [modeArg, ...rest] = process.argv.slice(2)
const prices = loadPriceTable()
const windows = loadWindowTable()
const optionsAt = (budget: number, model: string | null = null): RunOptions => ({ format: 'auto', budget: { kind: 'budget', tokens: budget }, summarizer: 'extractive', usage: 'simulated', model, prices, windows })
const NEVER = 100_000_000
const q = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]
}
const pct = (x: number): string => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(2)} %`)
const fmt = (x: number): string => x.toLocaleString('en-US')
type Layers = { preset: Partial<Config>; file: null; settings: [] }
const layersOf = (preset: Partial<Config>): Layers => ({ preset, file: null, settings: [] })
const parseConfig = (arg: string): Partial<Config> =>
  arg.startsWith('{')
    ? JSON.parse(arg)
    : { ...(presets as Record<string, Partial<Config>>)[arg.split('+')[0]], ...(arg.includes('+') ? JSON.parse(arg.split('+').slice(1).join('+')) : {}) }

/** One replay of one session: per line the compaction flag, the bill, E, and the meter's counts against the reading. */
interface Run {
  readonly name: string
  readonly requests: number
  readonly boundaries: number
  readonly overBudget: number
  readonly overE: number
  readonly invalid: number
  readonly fit: { scale: number; overhead: number; source: string }
  readonly errors: { used: number[]; model: number[]; estimate: number[] }
  /** (reference estimate of the view, recorded reading) of the requests that have a reading. */
  readonly pairs: Array<[number, number]>
}

const runAll = (paths: ReadonlyArray<string>, preset: Partial<Config>, budget: number, model: string | null = null, only?: (name: string) => boolean): Run[] => {
  const runs: Run[] = []
  const options = optionsAt(budget, model)
  for (const path of expandInputs(paths)) {
    const loaded = readInput(path, 'auto', { model, windows })
    for (const session of prepareSessions(path, loaded, layersOf(preset), options)) {
      if (only !== undefined && !only(session.name)) continue
      const result = runSession(session, options)
      const metrics = toSessionMetrics(result, session.original, session.limit, session.price)
      let boundaries = 0
      let overBudget = 0
      let overE = 0
      const errors = { used: [] as number[], model: [] as number[], estimate: [] as number[] }
      const pairs: Array<[number, number]> = []
      result.lines.forEach((line, i) => {
        if (line.events.some((event) => event.name === 'context:compaction')) boundaries += 1
        const economics = result.economics[i]
        const stats = line.token_meter_stats as { used_tokens: number; model_tokens?: number; estimated_tokens: number; budget: number } | null
        if (economics && economics.split.input_tokens > budget) overBudget += 1
        if (economics && stats && economics.split.input_tokens > stats.budget) overE += 1
        if (economics && economics.recorded_input !== null && stats) {
          const reading = economics.recorded_input
          errors.used.push(Math.abs(stats.used_tokens - reading) / reading)
          if (stats.model_tokens !== undefined) errors.model.push(Math.abs(stats.model_tokens - reading) / reading)
          errors.estimate.push(Math.abs(stats.estimated_tokens - reading) / reading)
          pairs.push([stats.estimated_tokens, reading])
        }
      })
      const fit = result.providerFit ?? { scale: 1, overhead: 0, source: 'none' }
      runs.push({ name: session.name, requests: result.lines.length, boundaries, overBudget, overE, invalid: metrics.invalid_views, fit, errors, pairs })
    }
  }
  return runs
}

/** Least squares of the readings on the reference estimate: reading ≈ a × estimate + b. */
const leastSquares = (pairs: ReadonlyArray<[number, number]>): { a: number; b: number } | null => {
  if (pairs.length < 2) return null
  const n = pairs.length
  const mx = pairs.reduce((s, [x]) => s + x, 0) / n
  const my = pairs.reduce((s, [, y]) => s + y, 0) / n
  const sxx = pairs.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  if (sxx === 0) return null
  const a = pairs.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx
  return { a, b: my - a * mx }
}

const single = (): void => {
  const [budgetArg, configArg, ...paths] = rest
  const budget = budgetArg === 'never' ? NEVER : Number(budgetArg)
  const all = { req: 0, b: 0, over: 0, used: [] as number[], model: [] as number[], est: [] as number[] }
  for (const run of runAll(paths, parseConfig(configArg), budget)) {
    const infeasible = run.fit.source !== 'none' && run.fit.overhead >= budget
    console.log([run.name, `req ${run.requests}`, `boundaries ${run.boundaries}`, `over-budget(billed>${budget}) ${run.overBudget}`, infeasible ? 'INFEASIBLE' : '', `used med ${pct(q(run.errors.used, 0.5))} p95 ${pct(q(run.errors.used, 0.95))}`, run.errors.model.length ? `model med ${pct(q(run.errors.model, 0.5))} p95 ${pct(q(run.errors.model, 0.95))}` : '', `est med ${pct(q(run.errors.estimate, 0.5))}`, `fit ${run.fit.scale.toFixed(3)}x+${Math.round(run.fit.overhead)}`].join(' | '))
    if (!infeasible) {
      all.req += run.requests
      all.b += run.boundaries
      all.over += run.overBudget
    }
    all.used.push(...run.errors.used)
    all.model.push(...run.errors.model)
    all.est.push(...run.errors.estimate)
  }
  console.log(`TOTAL (feasible) req ${all.req} boundaries ${all.b} over ${all.over} | used med ${pct(q(all.used, 0.5))} p95 ${pct(q(all.used, 0.95))} | model med ${pct(q(all.model, 0.5))} p95 ${pct(q(all.model, 0.95))} | est med ${pct(q(all.est, 0.5))}`)
}

const goals = (): void => {
  // The prediction runs the meter as `recommended` does (calibrated, typed estimator) unless
  // `--predict <json-config>` names another configuration (e.g. '{"token_meter":"calibrated"}').
  const predictAt = rest.indexOf('--predict')
  const predict: Partial<Config> = predictAt >= 0 ? parseConfig(rest.splice(predictAt, 2)[1]) : { token_meter: 'calibrated', token_estimator: 'typed' }
  const [budgetsArg, ...paths] = rest
  const budgets = budgetsArg.split(',').map(Number)
  const never = runAll(paths, predict, NEVER)
  // The reference estimate column and the oracle fit are always of the reference estimator (the
  // oracle run is the reference preset), whatever estimator the prediction ran with.
  const reference = new Map(runAll(paths, {}, NEVER).map((run) => [run.name, run]))
  const withReadings = never.filter((run) => run.pairs.length > 0)
  for (const run of never) if (run.pairs.length === 0) console.log(`no readings (skipped): ${run.name}, ${run.requests} requests`)
  const wanted = new Set(withReadings.map((run) => run.name))
  console.log(`\n### Prediction, never compacting (\`never '${JSON.stringify(predict)}'\`): error against the reading of each request`)
  console.log('| session | requests with a reading | `used_tokens` median / p95 | `model_tokens` median / p95 | reference estimate median | oracle fit (reading on reference estimate) |')
  console.log('|---|---:|---:|---:|---:|---:|')
  const all = { used: [] as number[], model: [] as number[], est: [] as number[], n: 0 }
  const oracleFits = new Map<string, { a: number; b: number } | null>()
  for (const run of withReadings) {
    const base = reference.get(run.name) ?? run
    const fit = leastSquares(base.pairs)
    oracleFits.set(run.name, fit)
    console.log(`| ${run.name} | ${run.pairs.length} | ${pct(q(run.errors.used, 0.5))} / ${pct(q(run.errors.used, 0.95))} | ${pct(q(run.errors.model, 0.5))} / ${pct(q(run.errors.model, 0.95))} | ${pct(q(base.errors.estimate, 0.5))} | ${fit === null ? '—' : `${fit.a.toFixed(3)} × estimate + ${fmt(Math.round(fit.b))}`} |`)
    all.used.push(...run.errors.used)
    all.model.push(...run.errors.model)
    all.est.push(...base.errors.estimate)
    all.n += run.pairs.length
  }
  console.log(`| **total** | ${all.n} | **${pct(q(all.used, 0.5))} / ${pct(q(all.used, 0.95))}** | **${pct(q(all.model, 0.5))} / ${pct(q(all.model, 0.95))}** | ${pct(q(all.est, 0.5))} | |`)
  for (const budget of budgets) {
    const recommended = runAll(paths, presets.recommended, budget, null, (name) => wanted.has(name))
    console.log(`\n### --budget ${budget}, --preset recommended --usage simulated, against the oracle-calibrated reference run`)
    console.log('| session | requests | over the budget as billed | boundaries | oracle budget | oracle boundaries | bound 1.5 × oracle + 1 | met |')
    console.log('|---|---:|---:|---:|---:|---:|---:|---|')
    const tot = { req: 0, over: 0, b: 0, ob: 0, met: 0, feasible: 0 }
    for (const run of recommended) {
      if (run.fit.source !== 'none' && run.fit.overhead >= budget) {
        console.log(`| ${run.name} | ${run.requests} | infeasible: fitted overhead ${fmt(Math.round(run.fit.overhead))} ≥ ${fmt(budget)} (${run.overBudget} over, left out) | ${run.boundaries} | | | | |`)
        continue
      }
      const fit = oracleFits.get(run.name) ?? null
      const oracleBudget = fit === null ? null : Math.floor((budget - fit.b) / fit.a)
      const oracle = oracleBudget === null || oracleBudget <= 0 ? null : runAll(paths, {}, oracleBudget, null, (name) => name === run.name)[0]
      const bound = oracle === undefined || oracle === null ? null : 1.5 * oracle.boundaries + 1
      const met = run.overBudget === 0 && (bound === null || run.boundaries <= bound)
      console.log(`| ${run.name} | ${run.requests} | ${run.overBudget} | ${run.boundaries} | ${oracleBudget === null ? '—' : fmt(oracleBudget)} | ${oracle ? oracle.boundaries : '—'} | ${bound ?? '—'} | ${met ? 'yes' : '**no**'} |`)
      tot.req += run.requests
      tot.over += run.overBudget
      tot.b += run.boundaries
      tot.ob += oracle ? oracle.boundaries : 0
      tot.met += met ? 1 : 0
      tot.feasible += 1
    }
    console.log(`| **total (feasible)** | ${tot.req} | **${tot.over}** | ${tot.b} | | ${tot.ob} | | ${tot.met} of ${tot.feasible} |`)
  }
}

const tau = (): void => {
  const [budgetArg, model, ...paths] = rest
  const budget = Number(budgetArg)
  const { token_meter: _meter, token_estimator: _estimator, ...previous } = presets.recommended
  const configs: Array<[string, Partial<Config>]> = [
    ['previous recommended (estimate meter, reference estimator)', previous],
    ['recommended', presets.recommended],
  ]
  console.log(`| configuration | trajectories | requests | boundaries | over E as billed | over ${fmt(budget)} as billed | invalid views |`)
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  const notable: string[] = []
  for (const [label, preset] of configs) {
    const runs = runAll(paths, preset, budget, model)
    const sum = (key: 'requests' | 'boundaries' | 'overE' | 'overBudget' | 'invalid'): number => runs.reduce((s, run) => s + run[key], 0)
    console.log(`| ${label} | ${runs.length} | ${fmt(sum('requests'))} | ${sum('boundaries')} | ${sum('overE')} | ${sum('overBudget')} | ${sum('invalid')} |`)
    for (const run of runs) if (run.overE + run.overBudget + run.invalid > 0) notable.push(`${label}: ${run.name} over E ${run.overE}, over budget ${run.overBudget}, invalid ${run.invalid}`)
  }
  for (const line of notable) console.log(line)
}

// Storm shapes: per configuration, requests, boundaries, the images of the last view against the
// images stored, and the guard events (docs/evaluation.md, "Screenshots and the storm shapes").
const countImages = (value: unknown): number => {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countImages(item), 0)
  if (value === null || typeof value !== 'object') return 0
  const record = value as Record<string, unknown>
  const own = record.type === 'image' || record.type === 'image_url' || record.type === 'input_image' ? 1 : 0
  return own + Object.entries(record).reduce((sum, [key, item]) => sum + (key === 'metadata' ? 0 : countImages(item)), 0)
}
const storms = (): void => {
  const [budgetArg, file, ...configs] = rest
  console.log(`| configuration | requests | boundaries | images in the last view / stored | context:compaction-infeasible | context:compaction-breaker | over ${budgetArg} as billed |`)
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const config of configs) {
    const options: RunOptions = budgetArg === 'window' ? { ...optionsAt(0), budget: null } : optionsAt(Number(budgetArg))
    for (const session of prepareSessions(file, readInput(file, 'auto', { windows }), layersOf(parseConfig(config)), options)) {
      const result = runSession(session, options)
      const events = (name: string): number => result.lines.reduce((sum, line) => sum + line.events.filter((event) => event.name === name).length, 0)
      const last = [...result.lines].reverse().find((line) => line.view !== null)
      const stored = countImages(session.recording.ops.flatMap((op) => (op.op === 'add_message' ? [op.message] : [])))
      const over = budgetArg === 'window' ? 0 : result.economics.filter((economics) => economics !== null && economics.split.input_tokens > Number(budgetArg)).length
      console.log(`| ${config} | ${result.lines.length} | ${events('context:compaction')} | ${countImages(last?.view ?? [])} / ${stored} | ${events('context:compaction-infeasible')} | ${events('context:compaction-breaker')} | ${budgetArg === 'window' ? '—' : over} |`)
    }
  }
}

if (modeArg === 'goals') goals()
else if (modeArg === 'storms') storms()
else if (modeArg === 'tau') tau()
else {
  rest.unshift(modeArg)
  single()
}
