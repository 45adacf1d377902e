/**
 * `context-simple report FILE --html OUT`: replay an input and write one self-contained HTML page
 * that charts every request of every session (tokens, budget and threshold, compaction
 * boundaries with their level, the provider's prompt cache).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadChartLibrary } from '../report/chart-library.js'
import { renderHtmlReport, type ReportAbout } from '../report/html.js'
import { toEconomicsInputs, toReportSection, type ReportSection } from '../report/model.js'
import { toRecallFigures } from '../../core/economics/recall.js'
import { judgeOverBudget } from '../../core/economics/metrics.js'
import type { TokenMeterStats } from '../../core/stats.js'
import type { BudgetOverride } from './options.js'
import { configurationLabel, parseSettings, UsageError } from './options.js'
import { replayInput, type CliIo, type ReplayedInput, type ReplayInputFlags } from './replay-input.js'
import { countNoun } from '../count-noun.js'
import { unpricedModelWarnings } from './unpriced.js'

/**
 * The flags of `report`: the replay flags (the command's `--usage` default is `simulated`) plus
 * the output file.
 *
 * @example
 * const flags: ReportFlags = { html: 'out/report.html', format: 'auto', set: [], summarizer: 'recorded', progress: false, usage: 'simulated' }
 */
export interface ReportFlags extends ReplayInputFlags {
  readonly html: string
}

/**
 * The report sections of a replayed input, one per session in file order, with the provider
 * model's readings (`replayed.usage`), each request's over-budget judgement (`judgeOverBudget`
 * against its E), the needed-fact recall of every request and, where the
 * session's model has a price, the cumulative input cost. Titles name the session (`<task_id>-t<trial>` for multi-session files, else the
 * file's base name), prefixed by `label` when given (the demo's configuration names).
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const flags: ReplayInputFlags = { format: 'auto', set: [], summarizer: 'recorded', progress: false, usage: 'simulated' }
 * const replayed = await replayInput('fixtures/sessions/claude-code/short.jsonl', flags, io, false)
 * toReportSections(replayed, 'recommended')[0].title // => 'recommended · short.jsonl'
 */
export const toReportSections = (replayed: ReplayedInput, label: string | null = null): ReportSection[] =>
  replayed.sessions.map((item) =>
    toReportSection(
      {
        title: [label, item.session ?? basename(replayed.path)].filter((part) => part !== null).join(' · '),
        lines: item.result.lines,
        compactThreshold: item.config.compact_threshold,
        readingSource: replayed.usage,
        ...toEconomicsInputs(item.result.economics, item.price),
        recall: toRecallFigures(item.recording, item.result.lines.map((line) => line.view)),
        overBudget: item.result.economics.map((economics, index) => (economics === null ? null : judgeOverBudget(economics, (item.result.lines[index].token_meter_stats as TokenMeterStats | null)?.budget ?? null))),
      },
      item.estimate,
    ),
  )

/**
 * How the budget was set, in words for the page header.
 *
 * @example
 * describeBudget({ kind: 'budget', tokens: 60000 }) // => '60,000 tokens (--budget)'
 */
export const describeBudget = (budget: BudgetOverride | null): string =>
  budget === null
    ? "each request's recorded budget"
    : budget.kind === 'budget'
      ? `${budget.tokens.toLocaleString('en-US')} tokens (--budget)`
      : `window ${budget.contextWindow.toLocaleString('en-US')} tokens, max output ${budget.maxOutputTokens.toLocaleString('en-US')}`

/**
 * Write `html` (creating its folder), or throw `UsageError` naming the path and the cause.
 *
 * @example
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const path = join(tmpdir(), 'context-simple-example', 'report.html')
 * writeReportFile(path, '<!doctype html><title>report</title>') // => path
 */
export const writeReportFile = (path: string, html: string): string => {
  const target = resolve(path)
  try {
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, html)
  } catch (error) {
    throw new UsageError(`--html ${path}: cannot write the report (${(error as Error).message})`)
  }
  return target
}

/**
 * The package's name and version for the page header, read from its package.json
 * (`context-simple 0.1.0`; `context-simple` alone when the file cannot be read).
 *
 * @example
 * generatorName() // => 'context-simple 0.1.0'
 */
export const generatorName = (): string => {
  try {
    const manifest = JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../package.json'), 'utf8')) as { version?: unknown }
    return typeof manifest.version === 'string' ? `context-simple ${manifest.version}` : 'context-simple'
  } catch {
    return 'context-simple'
  }
}

/**
 * One warning per model without a price among the replayed sessions (the page then shows no input
 * cost for them), worded as `compare`'s (`unpricedModelWarnings`, src/shell/cli/unpriced.ts): the model (`(none named)`
 * when neither the session nor `--model` names one), the input, the number of sessions, the fix.
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const flags: ReplayInputFlags = { format: 'auto', set: [], summarizer: 'recorded', progress: false, usage: 'simulated', session: '12-t0' }
 * const file = 'fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz'
 * unpricedWarnings(await replayInput(file, flags, io, true)) // => [`no price for model (none named) in ${file} (1 session): the page shows no input cost; give --model NAME or --prices FILE`]
 * unpricedWarnings(await replayInput(file, { ...flags, model: 'gpt-4o' }, io, true)) // => []
 */
export const unpricedWarnings = (replayed: ReplayedInput): string[] => unpricedModelWarnings(replayed.sessions, replayed.path, 'the page shows no input cost')

/**
 * Run `report`: replay `file` with `flags`, write the page to `flags.html`, and print its
 * absolute path with the number of sessions and requests. Resolves to 1 when a replayed request
 * raised the fail-loud error (the page still shows the others), else 0. Throws what `replayInput`
 * throws, and `UsageError` when the file cannot be written.
 *
 * @example
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const html = join(mkdtempSync(join(tmpdir(), 'report-')), 'report.html')
 * await runReport('fixtures/sessions/claude-code/short.jsonl', { html, format: 'auto', set: [], summarizer: 'recorded', progress: false }, io) // => 0
 */
export const runReport = async (file: string | undefined, flags: ReportFlags, io: CliIo): Promise<number> => {
  const replayed = await replayInput(file, flags, io, true)
  const sections = toReportSections(replayed)
  const about: ReportAbout = {
    input: replayed.path,
    format: replayed.format,
    // the --set flags that took effect (a key given twice: its last value, as the replay used it); a
    // recording header with keys is the lowest layer (docs/cli.md, "Configuration precedence"): named first
    configuration: configurationLabel(
      [replayed.sessions.some((session) => Object.keys(session.recording.config).length > 0) ? 'recording header' : undefined, flags.preset, flags.config],
      parseSettings(flags.set).shown,
    ),
    budget: describeBudget(replayed.budget),
    usage: replayed.usage,
    generator: generatorName(),
  }
  const target = writeReportFile(flags.html, renderHtmlReport(sections, about, loadChartLibrary()))
  const requests = sections.reduce((sum, section) => sum + section.requests, 0)
  for (const warning of unpricedWarnings(replayed)) io.stderr(`warning: ${warning}\n`)
  io.stdout(`wrote ${target} (${countNoun(sections.length, 'session')}, ${countNoun(requests, 'request')})\n`)
  return sections.some((section) => section.failedRequests > 0) ? 1 : 0
}
