#!/usr/bin/env node
// Runs the measurements of docs/evaluation.md with the compiled CLI and prints them as
// Markdown tables: every shared session under `reference`, `recommended` and
// `recommended-summary` (--summarizer extractive), Claude Code at --window 200000 --max-output
// 64000 and at --budget 60000, tau-bench at --budget 4500 --model gpt-4o; per session and total.
// Usage: npm run build && node scripts/evaluation.mjs
import { main } from '../dist/shell/cli/main.js'

const CONFIGS = ['--preset', 'reference', '--preset', 'recommended', '--preset', 'recommended-summary', '--summarizer', 'extractive']
const SCENARIOS = [
  ['Claude Code, --window 200000 --max-output 64000', ['fixtures/sessions/claude-code', '--window', '200000', '--max-output', '64000']],
  ['Claude Code, --budget 60000', ['fixtures/sessions/claude-code', '--budget', '60000']],
  ['tau-bench, --budget 4500 --model gpt-4o', ['fixtures/sessions/openai-chat', '--budget', '4500', '--model', 'gpt-4o']],
]
const FIELDS = ['requests', 'boundaries', 'highest_level', 'invalid_views', 'overflows', 'prefix_breaks', 'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'uncached_input_tokens', 'cost_usd']

const compare = async (args) => {
  let out = ''
  const code = await main(['compare', ...args, ...CONFIGS, '--json', '--no-progress'], { stdout: (text) => void (out += text), stderr: () => {}, isTty: false })
  if (code !== 0) throw new Error(`compare ${args.join(' ')} exited ${code}`)
  return out.trim().split('\n').map((line) => JSON.parse(line))
}

const cell = (field, value) => (field === 'cost_usd' ? `$${value.toFixed(4)}` : value.toLocaleString('en-US'))

for (const [title, args] of SCENARIOS) {
  const rows = await compare(args)
  const configs = [...new Set(rows.map((row) => row.config))]
  console.log(`### ${title}\n\n\`node bin/context-simple.js compare ${args.join(' ')} ${CONFIGS.join(' ')}\`\n`)
  console.log(`| configuration | ${FIELDS.join(' | ')} |`)
  console.log(`|---|${FIELDS.map(() => '---:').join('|')}|`)
  const totals = configs.map((config) => {
    const own = rows.filter((row) => row.config === config)
    return Object.fromEntries(FIELDS.map((field) => [field, field === 'highest_level' ? Math.max(...own.map((row) => row[field])) : own.reduce((sum, row) => sum + row[field], 0)]))
  })
  configs.forEach((config, index) => console.log(`| **${config}** (total) | ${FIELDS.map((field) => cell(field, totals[index][field])).join(' | ')} |`))
  console.log('')
  const sessions = [...new Set(rows.map((row) => row.session))]
  const many = sessions.length > 10
  console.log(many ? `Per session (${sessions.length} sessions): only those where the configurations differ in boundaries, overflows or prefix breaks.\n` : 'Per session:\n')
  console.log(`| session | ${configs.map((config) => `${config}: boundaries / overflows / prefix breaks / cost`).join(' | ')} |`)
  console.log(`|---|${configs.map(() => '---:').join('|')}|`)
  for (const session of sessions) {
    const own = configs.map((config) => rows.find((row) => row.config === config && row.session === session))
    const key = (row) => `${row.boundaries}/${row.overflows}/${row.prefix_breaks}`
    if (many && own.every((row) => key(row) === key(own[0]))) continue
    console.log(`| ${session} | ${own.map((row) => `${row.boundaries} / ${row.overflows} / ${row.prefix_breaks} / ${cell('cost_usd', row.cost_usd)}`).join(' | ')} |`)
  }
  console.log('')
}
