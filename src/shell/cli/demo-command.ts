/**
 * `context-simple demo` (what `npm start` runs): replays a bundled real Claude Code session at a
 * budget where compaction happens, under the `reference` and `recommended` presets, prints them
 * side by side with a legend, and writes the HTML report of both.
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { presets, type PresetName } from '../../core/presets.js'
import { loadChartLibrary } from '../report/chart-library.js'
import { renderHtmlReport, toFrontierPoint } from '../report/html.js'
import type { ReportSection } from '../report/model.js'
import { Table } from './libraries.js'
import { replayInput, type CliIo, type ReplayInputFlags } from './replay-input.js'
import { describeBudget, generatorName, toReportSections, writeReportFile } from './report-command.js'
import { countNoun } from '../count-noun.js'

/**
 * The session the demo replays: a real 140-request Claude Code session (MIT, see the LICENSE
 * beside it) in which Claude Code compacted its own context once, shipped gzipped with the package.
 *
 * @example
 * DEMO_SESSION.endsWith('4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz') // => true
 */
export const DEMO_SESSION = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz')

/**
 * The demo's default budget in tokens: small enough that the session compacts, close to what a
 * mid-sized model window leaves for the conversation.
 *
 * @example
 * DEMO_BUDGET // => 60000
 */
export const DEMO_BUDGET = 60_000

/**
 * The presets the demo compares, in column order.
 *
 * @example
 * DEMO_PRESETS[1] // => 'recommended'
 */
export const DEMO_PRESETS: ReadonlyArray<PresetName> = ['reference', 'recommended']

/**
 * The flags of `demo`: where to write the page, the budget (tokens, as typed), the input (default
 * `DEMO_SESSION`) and the progress bar.
 *
 * @example
 * const flags: DemoFlags = { html: 'context-simple-report.html', budget: '60000', progress: true }
 */
export interface DemoFlags {
  readonly html: string
  readonly budget: string
  readonly progress: boolean
}

const sum = (values: ReadonlyArray<number | null> | null): number => (values ?? []).reduce<number>((total, value) => total + (value ?? 0), 0)

// "Over budget" is billed input above the request budget the agent asked for (`--budget`), not
// above E (the budget less the notice reserve): what a provider would refuse or bill past.
const countOverBudget = (section: ReportSection, requestBudget: number | null): number =>
  section.providerInput.filter((input, i) => {
    const limit = requestBudget ?? section.budget[i]
    return input !== null && limit !== null && limit !== undefined && input > limit
  }).length

const ROWS: ReadonlyArray<{ readonly name: string; readonly value: (section: ReportSection, requestBudget: number | null) => string; readonly legend: string }> = [
  { name: 'requests', value: (section) => String(section.requests), legend: 'model requests replayed' },
  { name: 'compactions', value: (section) => String(section.boundaries.length), legend: 'requests where the library shrank the conversation to fit the budget' },
  {
    name: 'deepest compaction',
    value: (section) => (section.boundaries.length === 0 ? 'none' : `level ${Math.max(...section.boundaries.map((boundary) => boundary.level))} of 8`),
    legend: 'how far the library had to go: 1 shortens old tool results, 8 keeps only protected messages',
  },
  { name: 'cache restarts', value: (section) => String(section.prefixBreaks ?? 0), legend: "requests whose start differs from the previous request's, so the provider's prompt cache is reused only up to the change" },
  { name: 'input tokens', value: (section) => sum(section.providerInput).toLocaleString('en-US'), legend: 'all input tokens a provider would bill, summed over the requests (simulated from the views sent)' },
  { name: 'served from cache', value: (section) => `${Math.round((100 * sum(section.cacheRead)) / Math.max(1, sum(section.providerInput)))}%`, legend: 'share of those input tokens read from the prompt cache (cheaper than uncached input)' },
  {
    name: 'input cost',
    value: (section) => (section.costUsd === null ? 'no price' : `$${section.costUsd.toFixed(2)}`),
    legend: "what those input tokens cost at the session model's list prices (data/prices.json), in US dollars",
  },
  {
    name: 'over budget',
    value: (section, requestBudget) => String(countOverBudget(section, requestBudget)),
    legend: "requests whose input, as the provider model bills it (the recorded reading + the change of the view, counted with gpt-tokenizer), is above the request budget: the agent's own system prompt and tool definitions, which the session file leaves out, are billed too (see docs/evaluation.md)",
  },
  { name: 'failed requests', value: (section) => String(section.failedRequests), legend: 'requests the library refused (none expected)' },
]

/**
 * Run the demo: replay `file` (default `DEMO_SESSION`) at `flags.budget` with simulated provider
 * readings under each of `DEMO_PRESETS`, print the comparison table and its legend, write the
 * HTML report (one section per preset) to `flags.html`, and print its absolute path. Resolves to
 * 0 (1 when a request failed). Throws what `replayInput` and `writeReportFile` throw.
 *
 * @example
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const html = join(mkdtempSync(join(tmpdir(), 'demo-')), 'report.html')
 * await runDemo('fixtures/sessions/claude-code/short.jsonl', { html, budget: '2000', progress: false }, io) // => 0
 */
export const runDemo = async (file: string | undefined, flags: DemoFlags, io: CliIo): Promise<number> => {
  const path = file ?? DEMO_SESSION
  const sections: ReportSection[] = []
  let about: { format: string; budget: string; model: string | null } | null = null
  let requestBudget: number | null = null
  for (const preset of DEMO_PRESETS) {
    const replayFlags: ReplayInputFlags = { format: 'auto', preset, set: [], budget: flags.budget, summarizer: 'recorded', progress: flags.progress, usage: 'simulated' }
    const replayed = await replayInput(path, replayFlags, io, true)
    about = { format: replayed.format, budget: describeBudget(replayed.budget), model: replayed.sessions[0]?.model ?? null }
    requestBudget = replayed.budget?.kind === 'budget' ? replayed.budget.tokens : null
    sections.push(...toReportSections(replayed, preset))
  }
  const budget = Number.parseInt(flags.budget, 10).toLocaleString('en-US')
  io.stdout(`Replaying a real Claude Code session (${countNoun(sections[0]?.requests ?? 0, 'request')}${about?.model ? `, model ${about.model}` : ''}) with a budget of ${budget} tokens per request,\n`)
  io.stdout(`once with the contract's defaults (reference) and once with the recommended preset:\n\n`)
  const table = new Table({ head: ['', ...DEMO_PRESETS], style: { head: [], border: [], compact: true }, colAligns: ['left', ...DEMO_PRESETS.map(() => 'right' as const)] })
  for (const row of ROWS) table.push([row.name, ...sections.map((section) => row.value(section, requestBudget))])
  io.stdout(`${table.toString()}\n`)
  const keys = Object.entries(presets.recommended).map(([key, value]) => `${key}=${JSON.stringify(value)}`)
  io.stdout(keys.length === 0 ? '(recommended sets no keys yet, so both columns match; see docs/evaluation.md)\n\n' : `(recommended sets ${keys.join(', ')}; reasons in docs/evaluation.md)\n\n`)
  for (const row of ROWS) io.stdout(`  ${row.name.padEnd(20)}${row.legend}\n`)
  // recall against cost, one point per preset (src/shell/report/html.ts)
  const frontier = { title: 'This session', costLabel: 'input cost (USD)', unit: 'usd' as const, points: DEMO_PRESETS.map((preset) => toFrontierPoint(preset, sections.filter((section) => section.title.startsWith(`${preset} · `)))) }
  const html = renderHtmlReport(
    sections,
    { input: path, format: about?.format ?? '', configuration: DEMO_PRESETS.join(' vs '), budget: about?.budget ?? '', usage: 'simulated', generator: generatorName() },
    loadChartLibrary(),
    [frontier],
  )
  const target = writeReportFile(flags.html, html)
  io.stdout(`\nHTML report (open it in a browser; it works offline): ${target}\n`)
  return sections.some((section) => section.failedRequests > 0) ? 1 : 0
}
