#!/usr/bin/env node
// Runs the measurements of docs/evaluation.md with the compiled CLI and prints them as Markdown:
// every shared session under the presets and under the peers (scripts/peers.mjs: no compaction,
// LangChain.js trimMessages, the AI SDK's pruneMessages), with the same provider and cache model
// and the same needed-fact recall; per scenario a totals table (for tau-bench also per half: even
// and odd task ids), a per-session table and a recall-against-cost chart: the report's uPlot chart
// (src/shell/report/html.ts), rendered in Chromium (playwright-core, a dev dependency; CHROMIUM_PATH
// or /usr/bin/chromium) and written as SVG from uPlot's layout to docs/evaluation-recall-cost-*.svg.
// Inputs: ../shared/sessions when it is beside the clone (every shared session), else
// fixtures/sessions (the copies kept in the repository).
// Usage: npm run evaluation [-- --quick] [-- --rows FILE]
//   --quick: the presets only, no peers; --rows FILE: also write every (scenario, configuration,
//   session) row as one JSON object per line, for per-session and per-half figures.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { main } from '../dist/shell/cli/main.js'
import { prepareSessions, readInput, runSession, expandInputs } from '../dist/shell/cli/evaluate.js'
import { loadPriceTable, loadWindowTable } from '../dist/shell/economics-data.js'
import { toSessionMetrics } from '../dist/core/economics/metrics.js'
import { makeEstimatorFor } from '../dist/shell/estimators.js'
import { presets } from '../dist/core/presets.js'
import { PEERS } from './peers.mjs'
import { renderHtmlReport } from '../dist/shell/report/html.js'
import { loadChartLibrary } from '../dist/shell/report/chart-library.js'

const quick = process.argv.includes('--quick')
const rowsFile = process.argv.includes('--rows') ? process.argv[process.argv.indexOf('--rows') + 1] : null
const allRows = []
const SHARED = '../shared/sessions'
const root = existsSync(SHARED) ? SHARED : 'fixtures/sessions'
const dirs = (...names) => names.map((name) => `${root}/${name}`).filter((path) => existsSync(path))

const PRESETS = ['reference', 'recommended', 'recommended-summary', ...(presets['recommended-retention'] !== undefined ? ['recommended-retention'] : [])]
const CONFIGS = [...PRESETS.flatMap((name) => ['--preset', name]), '--summarizer', 'extractive']
const SCENARIOS = [
  { title: 'tau-bench, --budget 4500 --model gpt-4o', goal: 'tau-bench', inputs: dirs('openai-chat'), args: ['--budget', '4500', '--model', 'gpt-4o'], budget: { kind: 'budget', tokens: 4500 }, model: 'gpt-4o' },
  { title: 'Claude Code, --budget 60000', goal: 'Claude Code', inputs: dirs('claude-code', 'claude-code-2'), args: ['--budget', '60000'], budget: { kind: 'budget', tokens: 60000 }, model: null },
  { title: 'Codex, --budget 60000', inputs: dirs('codex'), args: ['--budget', '60000'], budget: { kind: 'budget', tokens: 60000 }, model: null, presetsOnly: true },
  { title: 'Claude Code, --window 200000 --max-output 64000', inputs: dirs('claude-code', 'claude-code-2'), args: ['--window', '200000', '--max-output', '64000'], budget: { kind: 'window', contextWindow: 200000, maxOutputTokens: 64000 }, model: null, presetsOnly: true },
]

const compare = async (inputs, args, configs = CONFIGS) => {
  let out = ''
  const code = await main(['compare', ...inputs, ...args, ...configs, '--json', '--no-progress'], { stdout: (text) => void (out += text), stderr: () => {}, isTty: false })
  if (code !== 0) throw new Error(`compare ${args.join(' ')} exited ${code}`)
  return out.trim().split('\n').map((line) => JSON.parse(line))
}

/**
 * One peer over the scenario's sessions: the replay runs twice, first to collect each request's
 * stored history and budget E (what the peer is given), then with the peer's precomputed views in
 * place of the library's, so the provider model, overflows and recall see the peer's views. The
 * library's notice reserve is 0 here, so E is the request budget itself.
 */
const runPeer = async (peer, scenario) => {
  const options = { format: 'auto', budget: scenario.budget, summarizer: 'none', usage: 'simulated', model: scenario.model, prices: loadPriceTable(), windows: loadWindowTable() }
  const rows = []
  for (const input of expandInputs(scenario.inputs)) {
    const sessions = prepareSessions(input, readInput(input, 'auto'), { preset: null, file: null, settings: [['compaction_notice_token_reserve', 0]] }, options)
    for (const session of sessions) {
      const estimate = makeEstimatorFor(session.config)
      const asked = []
      const first = runSession(session, options, undefined, {}, (history, budget) => {
        asked.push({ history, budget })
        return history
      })
      // An honest-budget peer is given E less the provider model's fitted overhead, in counted
      // tokens ((E - b) / a, the oracle conversion the calibrated-meter goals compare against);
      // only where the session has readings (else the fit is a = 1, b = 0: the plain peer).
      const fit = first.providerFit
      if (peer.honest === true && (fit === null || fit.source === 'none')) continue
      const honest = (budget) => (peer.honest === true && budget !== null ? Math.max(1, Math.floor((budget - fit.overhead) / fit.scale)) : budget)
      const fn = peer.make(estimate)
      const views = []
      for (const { history, budget } of asked) {
        try {
          const view = await fn(history, honest(budget))
          views.push(Array.isArray(view) && view.every((message) => message !== null && typeof message === 'object') ? view : null)
        } catch {
          views.push(null)
        }
      }
      const result = runSession(session, options, undefined, {}, (_history, _budget, request) => views[request])
      rows.push({ config: peer.label, session: session.name, model: session.model, ...toSessionMetrics(result, session.original, session.limit, session.price) })
    }
  }
  return rows
}

const FIELDS = ['requests', 'boundaries', 'invalid_views', 'overflows', 'failed_requests', 'prefix_breaks', 'input_tokens', 'relative_cost', 'cost_usd', 'needed_facts', 'recalled_facts']
const HEAD = ['requests', 'boundaries', 'invalid', 'overflows', 'failed', 'prefix breaks', 'input', 'relative cost', 'cost (input)', 'needed', 'recalled', 'recall']
const sumOf = (rows) => Object.fromEntries(FIELDS.map((field) => [field, rows.reduce((sum, row) => sum + row[field], 0)]))
const pct = (recalled, needed) => (needed === 0 ? '-' : `${((100 * recalled) / needed).toFixed(1)} %`)
const cell = (field, value) => (field === 'cost_usd' ? `$${value.toFixed(4)}` : Math.round(value).toLocaleString('en-US'))

/** Whether a tau-bench row's task id (`…#N-tK`) is even: the per-half figures split on it. */
const isEvenTask = (row) => Number(/#(\d+)-t\d+$/.exec(row.session)?.[1] ?? -1) % 2 === 0
const halvesOf = (rows) => [rows.filter(isEvenTask), rows.filter((row) => !isEvenTask(row))]

const slug = (title) => title.toLowerCase().replace(/ --max-output.*| --model.*/, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
const noteOf = (total) => [total.overflows > 0 ? `${total.overflows} overflows` : '', total.failed_requests > 0 ? `${total.failed_requests} failed` : ''].filter((part) => part !== '').join(', ') || null
const frontiers = []

/**
 * Each scenario's recall-against-cost chart as SVG: the report page with only those charts, opened
 * in Chromium, each chart read back through the page's frontierSvg (drawn from uPlot's layout).
 * Without Chromium the charts are not regenerated (the Markdown says so).
 */
const writeCharts = async () => {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (frontiers.length === 0 || !existsSync(chromium)) return new Map()
  const { chromium: launcher } = await import('playwright-core')
  const folder = mkdtempSync(join(tmpdir(), 'context-simple-evaluation-'))
  const page = join(folder, 'frontiers.html')
  writeFileSync(page, renderHtmlReport([], { input: 'npm run evaluation', format: 'all shared sessions', configuration: 'presets and peers', budget: 'per scenario', usage: 'simulated', generator: 'scripts/evaluation.mjs' }, loadChartLibrary(), frontiers.map((item) => item.chart)))
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu'] })
  const written = new Map()
  try {
    const tab = await browser.newPage({ viewport: { width: 1000, height: 800 }, deviceScaleFactor: 1 })
    await tab.goto(pathToFileURL(page).href)
    await tab.waitForFunction(() => globalThis.contextSimpleReport !== undefined)
    for (const [index, item] of frontiers.entries()) {
      const svg = await tab.evaluate((i) => globalThis.contextSimpleReport.frontierSvg(i), index)
      const file = `docs/evaluation-recall-cost-${item.slug}.svg`
      writeFileSync(file, `${svg}\n`)
      written.set(item.slug, file)
    }
  } finally {
    await browser.close()
    rmSync(folder, { recursive: true, force: true })
  }
  return written
}

const output = []
const print = (line) => void output.push(line)

for (const scenario of SCENARIOS) {
  if (scenario.inputs.length === 0) continue
  const rows = await compare(scenario.inputs, scenario.args)
  if (!quick && scenario.presetsOnly !== true) for (const peer of PEERS) rows.push(...(await runPeer(peer, scenario)))
  const configs = [...new Set(rows.map((row) => row.config))]
  for (const row of rows) allRows.push({ scenario: scenario.title, ...row })
  print(`### ${scenario.title}\n`)
  print(`\`node bin/context-simple.js compare ${scenario.inputs.join(' ')} ${scenario.args.join(' ')} ${CONFIGS.join(' ')}\`${quick || scenario.presetsOnly ? '' : ' and the peers of scripts/peers.mjs'}\n`)
  print(`| configuration | ${HEAD.join(' | ')} |`)
  print(`|---|${HEAD.map(() => '---:').join('|')}|`)
  const totals = configs.map((config) => sumOf(rows.filter((row) => row.config === config)))
  configs.forEach((config, index) => {
    const total = totals[index]
    print(`| **${config}** | ${FIELDS.map((field) => cell(field, total[field])).join(' | ')} | ${pct(total.recalled_facts, total.needed_facts)} |`)
  })
  print('')
  const sessions = [...new Set(rows.map((row) => row.session))]
  const many = sessions.length > 10
  print(many ? `Per session (${sessions.length} sessions): recall / relative cost / overflows, those where some configuration lost a fact or overflowed.\n` : 'Per session: recall (recalled / needed) / relative cost / overflows.\n')
  print(`| session | ${configs.join(' | ')} |`)
  print(`|---|${configs.map(() => '---:').join('|')}|`)
  for (const session of sessions) {
    const own = configs.map((config) => rows.find((row) => row.config === config && row.session === session))
    if (many && own.every((row) => row === undefined || (row.recalled_facts === row.needed_facts && row.overflows === 0))) continue
    print(`| ${session} | ${own.map((row) => (row === undefined ? '' : `${pct(row.recalled_facts, row.needed_facts)} (${row.recalled_facts}/${row.needed_facts}) / ${cell('relative_cost', row.relative_cost)} / ${row.overflows}`)).join(' | ')} |`)
  }
  print('')
  const halves = sessions.some((session) => /#\d+-t\d+$/.test(session))
  if (halves) {
    print('Per half (even / odd task ids, 50 trajectories each): recall / relative cost / overflows / failed.\n')
    print('| configuration | even task ids | odd task ids |')
    print('|---|---:|---:|')
    configs.forEach((config) => {
      const halves = halvesOf(rows.filter((row) => row.config === config)).map(sumOf)
      print(`| ${config} | ${halves.map((total) => `${pct(total.recalled_facts, total.needed_facts)} / ${cell('relative_cost', total.relative_cost)} / ${total.overflows} / ${total.failed_requests}`).join(' | ')} |`)
    })
    print('')
  }
  const chartSlug = slug(scenario.title)
  frontiers.push({ slug: chartSlug, chart: { title: scenario.title, costLabel: 'relative input cost', unit: 'relative', points: configs.map((config, index) => ({ label: config.replace(/^peer: /, ''), cost: totals[index].relative_cost, recall: totals[index].needed_facts === 0 ? null : totals[index].recalled_facts / totals[index].needed_facts, note: noteOf(totals[index]) })) } })
  print(`@@CHART ${chartSlug}@@`)
  print('')
}
// The goals of the retention issue (docs/evaluation.md, "Goals"), checked on this run's rows. The
// cost caps are `recommended` as it was at d45b1be (these keys over the contract's defaults, the
// estimate meter), replayed here under the same provider model; sessions on which `recommended`
// reported context:compaction-infeasible (no room under E whatever is compacted) are left out of
// the recall and overflow checks, as the issue says.
const D45B1BE = { target_usage: 0.4, compaction_notice_verbosity: 'minimal', compaction_notice_token_reserve: 400, compaction_notice_repeat: 'none' }
const figure = (rows) => { const total = sumOf(rows); return { ...total, recall: total.needed_facts === 0 ? null : total.recalled_facts / total.needed_facts } }
const money = (value) => cell('cost_usd', value)
const int = (value) => cell('relative_cost', value)
const goalRows = []
const capsFolder = mkdtempSync(join(tmpdir(), 'context-simple-goals-'))
const capsFile = join(capsFolder, 'd45b1be.json')
writeFileSync(capsFile, JSON.stringify(D45B1BE))
for (const scenario of SCENARIOS.filter((item) => item.goal !== undefined && item.inputs.length > 0)) {
  const base = figure(await compare(scenario.inputs, scenario.args, ['--config', capsFile, '--summarizer', 'extractive']))
  const own = allRows.filter((row) => row.scenario === scenario.title)
  const infeasible = new Set(own.filter((row) => row.config === 'recommended' && row.infeasible_requests > 0).map((row) => row.session))
  const rec = own.filter((row) => row.config === 'recommended')
  const kept = rec.filter((row) => !infeasible.has(row.session))
  const cost = figure(rec)
  const graded = figure(kept)
  const need = scenario.goal === 'tau-bench' ? 0.85 : 0.9
  const halves = scenario.goal === 'tau-bench' ? halvesOf(kept).map(figure) : []
  const recallMet = graded.recall !== null && graded.recall >= need && halves.every((half) => half.recall !== null && half.recall >= need)
  const costMet = cost.relative_cost <= base.relative_cost && cost.cost_usd <= base.cost_usd + 1e-9
  const cleanMet = graded.invalid_views === 0 && graded.overflows === 0 && graded.failed_requests === 0
  const left = infeasible.size === 0 ? '' : `; left out as infeasible: ${[...infeasible].join(', ')}`
  goalRows.push([
    `\`recommended\`: recall ≥ ${need * 100} % on ${scenario.goal}${halves.length > 0 ? ' (each half of the task ids too)' : ''}, cost ≤ d45b1be's, 0 invalid views, 0 overflows`,
    `${pct(graded.recalled_facts, graded.needed_facts)}${halves.length > 0 ? ` (${halves.map((half) => pct(half.recalled_facts, half.needed_facts)).join(' / ')})` : ''}; ${int(cost.relative_cost)} relative against ${int(base.relative_cost)}, ${money(cost.cost_usd)} against ${money(base.cost_usd)}; ${graded.invalid_views} invalid, ${graded.overflows} overflows, ${graded.failed_requests} failed${left}`,
    recallMet && costMet && cleanMet ? 'yes' : `no (${[recallMet ? null : 'recall', costMet ? null : 'cost', cleanMet ? null : 'invalid / overflows'].filter((part) => part !== null).join(', ')})`,
  ])
  if (scenario.goal !== 'tau-bench') continue
  const peer = own.filter((row) => row.config === 'peer: LangChain trimMessages')
  if (peer.length === 0) continue
  const ret = own.filter((row) => row.config === 'recommended-retention')
  const [r, p] = [figure(ret), figure(peer)]
  const [rh, ph] = [halvesOf(ret).map(figure), halvesOf(peer).map(figure)]
  const below = (a, b) => 1 - a / b
  const met = r.recall >= p.recall && rh.every((half, index) => half.recall >= ph[index].recall) && below(r.relative_cost, p.relative_cost) >= 0.06 && below(r.cost_usd, p.cost_usd) >= 0.06 && r.overflows === 0 && r.failed_requests === 0
  goalRows.push([
    '`recommended-retention`: recall ≥ `trimMessages`\' on tau-bench (each half too), ≥ 6 % below its cost (relative and dollars), 0 overflows, 0 failed requests',
    `${pct(r.recalled_facts, r.needed_facts)} (${rh.map((half) => pct(half.recalled_facts, half.needed_facts)).join(' / ')}) against ${pct(p.recalled_facts, p.needed_facts)} (${ph.map((half) => pct(half.recalled_facts, half.needed_facts)).join(' / ')}); ${int(r.relative_cost)} against ${int(p.relative_cost)} (${(-100 * below(r.relative_cost, p.relative_cost)).toFixed(1)} %), ${money(r.cost_usd)} against ${money(p.cost_usd)} (${(-100 * below(r.cost_usd, p.cost_usd)).toFixed(1)} %); ${r.overflows} overflows, ${r.failed_requests} failed (trimMessages: ${p.overflows}, ${p.failed_requests})`,
    met ? 'yes' : 'no',
  ])
}
rmSync(capsFolder, { recursive: true, force: true })
if (goalRows.length > 0) {
  print('### Goals\n')
  print(`The retention goals, checked on the rows above; the cost caps are \`recommended\` at d45b1be (\`--config\` ${JSON.stringify(D45B1BE)}) replayed here under the same provider model.\n`)
  print('| goal | measured | met |')
  print('|---|---|---|')
  for (const row of goalRows) print(`| ${row.join(' | ')} |`)
  print('')
}
if (rowsFile !== null) writeFileSync(rowsFile, allRows.map((row) => JSON.stringify(row)).join('\n') + '\n')
const charts = await writeCharts()
for (const line of output) {
  const marker = /^@@CHART (.+)@@$/.exec(line)
  if (marker === null) console.log(line)
  else console.log(charts.has(marker[1]) ? `![recall against relative input cost, one point per configuration and peer](${charts.get(marker[1]).replace(/^docs\//, '')})` : '(chart not regenerated: no Chromium at CHROMIUM_PATH or /usr/bin/chromium)')
}
