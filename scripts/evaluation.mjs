#!/usr/bin/env node
// Runs the measurements of docs/evaluation.md with the compiled CLI and prints them as Markdown:
// every shared session under the presets and under the peers (scripts/peers.mjs: no compaction,
// LangChain.js trimMessages, the AI SDK's pruneMessages), with the same provider and cache model
// and the same needed-fact recall; per scenario a totals table, a per-session table and a
// recall-against-cost chart (Mermaid). Inputs: ../shared/sessions when it is beside the clone
// (every shared session), else fixtures/sessions (the copies kept in the repository).
// Usage: npm run evaluation [-- --quick] [-- --rows FILE]
//   --quick: the presets only, no peers; --rows FILE: also write every (scenario, configuration,
//   session) row as one JSON object per line, for per-session and per-half figures.
import { existsSync, writeFileSync } from 'node:fs'
import { main } from '../dist/shell/cli/main.js'
import { prepareSessions, readInput, runSession, expandInputs } from '../dist/shell/cli/evaluate.js'
import { loadPriceTable, loadWindowTable } from '../dist/shell/economics-data.js'
import { toSessionMetrics } from '../dist/core/economics/metrics.js'
import { makeEstimatorFor } from '../dist/shell/estimators.js'
import { presets } from '../dist/core/presets.js'
import { PEERS } from './peers.mjs'

const quick = process.argv.includes('--quick')
const rowsFile = process.argv.includes('--rows') ? process.argv[process.argv.indexOf('--rows') + 1] : null
const allRows = []
const SHARED = '../shared/sessions'
const root = existsSync(SHARED) ? SHARED : 'fixtures/sessions'
const dirs = (...names) => names.map((name) => `${root}/${name}`).filter((path) => existsSync(path))

const PRESETS = ['reference', 'recommended', 'recommended-summary', ...(presets['recommended-retention'] !== undefined ? ['recommended-retention'] : [])]
const CONFIGS = [...PRESETS.flatMap((name) => ['--preset', name]), '--summarizer', 'extractive']
const SCENARIOS = [
  { title: 'tau-bench, --budget 4500 --model gpt-4o', inputs: dirs('openai-chat'), args: ['--budget', '4500', '--model', 'gpt-4o'], budget: { kind: 'budget', tokens: 4500 }, model: 'gpt-4o' },
  { title: 'Claude Code, --budget 60000', inputs: dirs('claude-code', 'claude-code-2'), args: ['--budget', '60000'], budget: { kind: 'budget', tokens: 60000 }, model: null },
  { title: 'Codex, --budget 60000', inputs: dirs('codex'), args: ['--budget', '60000'], budget: { kind: 'budget', tokens: 60000 }, model: null, presetsOnly: true },
  { title: 'Claude Code, --window 200000 --max-output 64000', inputs: dirs('claude-code', 'claude-code-2'), args: ['--window', '200000', '--max-output', '64000'], budget: { kind: 'window', contextWindow: 200000, maxOutputTokens: 64000 }, model: null, presetsOnly: true },
]

const compare = async (inputs, args) => {
  let out = ''
  const code = await main(['compare', ...inputs, ...args, ...CONFIGS, '--json', '--no-progress'], { stdout: (text) => void (out += text), stderr: () => {}, isTty: false })
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
      runSession(session, options, undefined, {}, (history, budget) => {
        asked.push({ history, budget })
        return history
      })
      const fn = peer.make(estimate)
      const views = []
      for (const { history, budget } of asked) {
        try {
          const view = await fn(history, budget)
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

const chart = (title, points) => {
  const usable = points.filter((point) => point.needed > 0)
  if (usable.length === 0) return ''
  const costs = usable.map((point) => point.cost)
  const low = Math.min(...costs)
  const high = Math.max(...costs)
  const span = high - low || 1
  const lines = [
    '```mermaid',
    'quadrantChart',
    `    title ${title.replace(/[,:]/g, ' ')}: recall against relative input cost`,
    `    x-axis "cost ${Math.round(low).toLocaleString('en-US')}" --> "cost ${Math.round(high).toLocaleString('en-US')}"`,
    '    y-axis "recall 0 %" --> "recall 100 %"',
    '    quadrant-1 "good recall, high cost"',
    '    quadrant-2 "good recall, low cost"',
    '    quadrant-3 "poor recall, low cost"',
    '    quadrant-4 "poor recall, high cost"',
  ]
  for (const point of usable) {
    const x = 0.05 + (0.9 * (point.cost - low)) / span
    const y = point.recalled / point.needed
    lines.push(`    "${point.label.replace(/[":]/g, '')}": [${x.toFixed(3)}, ${y.toFixed(3)}]`)
  }
  lines.push('```')
  return lines.join('\n')
}

for (const scenario of SCENARIOS) {
  if (scenario.inputs.length === 0) continue
  const rows = await compare(scenario.inputs, scenario.args)
  if (!quick && scenario.presetsOnly !== true) for (const peer of PEERS) rows.push(...(await runPeer(peer, scenario)))
  const configs = [...new Set(rows.map((row) => row.config))]
  for (const row of rows) allRows.push({ scenario: scenario.title, ...row })
  console.log(`### ${scenario.title}\n`)
  console.log(`\`node bin/context-simple.js compare ${scenario.inputs.join(' ')} ${scenario.args.join(' ')} ${CONFIGS.join(' ')}\`${quick || scenario.presetsOnly ? '' : ' and the peers of scripts/peers.mjs'}\n`)
  console.log(`| configuration | ${HEAD.join(' | ')} |`)
  console.log(`|---|${HEAD.map(() => '---:').join('|')}|`)
  const totals = configs.map((config) => sumOf(rows.filter((row) => row.config === config)))
  configs.forEach((config, index) => {
    const total = totals[index]
    console.log(`| **${config}** | ${FIELDS.map((field) => cell(field, total[field])).join(' | ')} | ${pct(total.recalled_facts, total.needed_facts)} |`)
  })
  console.log('')
  const sessions = [...new Set(rows.map((row) => row.session))]
  const many = sessions.length > 10
  console.log(many ? `Per session (${sessions.length} sessions): recall / relative cost / overflows, those where some configuration lost a fact or overflowed.\n` : 'Per session: recall (recalled / needed) / relative cost / overflows.\n')
  console.log(`| session | ${configs.join(' | ')} |`)
  console.log(`|---|${configs.map(() => '---:').join('|')}|`)
  for (const session of sessions) {
    const own = configs.map((config) => rows.find((row) => row.config === config && row.session === session))
    if (many && own.every((row) => row === undefined || (row.recalled_facts === row.needed_facts && row.overflows === 0))) continue
    console.log(`| ${session} | ${own.map((row) => (row === undefined ? '' : `${pct(row.recalled_facts, row.needed_facts)} (${row.recalled_facts}/${row.needed_facts}) / ${cell('relative_cost', row.relative_cost)} / ${row.overflows}`)).join(' | ')} |`)
  }
  console.log('')
  console.log(chart(scenario.title, configs.map((config, index) => ({ label: config, cost: totals[index].relative_cost, recalled: totals[index].recalled_facts, needed: totals[index].needed_facts }))))
  console.log('')
}
if (rowsFile !== null) writeFileSync(rowsFile, allRows.map((row) => JSON.stringify(row)).join('\n') + '\n')
