/**
 * The `context-simple` command line: `replay` recordings, Claude Code sessions or OpenAI chat
 * trajectories through the pure core and print a timeline (or the replay-output JSON lines),
 * `report` them as an HTML page, and `compare` configurations over many sessions with the
 * provider model (docs/cli.md).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { UsageMode } from '../../core/economics/simulation.js'
import type { ProviderFit } from '../../core/economics/provider-model.js'
import type { ProviderFormat } from '../../core/formats/carrier.js'
import { isRepeatedIdProblem } from '../../core/formats/dispatch.js'
import type { ShapedView } from '../../core/replay/options.js'
import type { ReplayOutputLine } from '../../core/replay/recording.js'
import { loadPriceTable, loadWindowTable } from '../economics-data.js'
import { makeFileSpillWriter } from '../node/spill-file.js'
import { serializeRecording } from '../recording-file.js'
import { runCompare, type CompareConfig } from './compare.js'
import { expandInputs } from './evaluate.js'
import { INPUT_FORMAT_CHOICES } from '../importers/detect.js'
import { Command, CommanderError, Option, Table } from './libraries.js'
import { configurationLabel, parseSettings, parseTokenCount, toPreset, UsageError } from './options.js'
import { addReplayOptions, readConfigFile, replayInput, toBudgetOverride, type CliIo, type ReplayedInput, type ReplayInputFlags } from './replay-input.js'
import { DEMO_BUDGET, runDemo, type DemoFlags } from './demo-command.js'
import { runReport, type ReportFlags } from './report-command.js'
import { summarizeRows, toRequestRow, type ReplaySummary, type RequestRow } from './report.js'
import { countNoun } from '../count-noun.js'

export { BUNDLED_SESSION, CLAUDE_CODE_WINDOW, type CliIo } from './replay-input.js'

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stderr.isTTY === true,
}

interface ReplayFlags extends ReplayInputFlags {
  readonly json?: boolean
  readonly views: boolean
  readonly writeRecording?: string
  /** `--usage` was given on the command line: `--json` lines then carry `over_budget`. */
  readonly usageGiven?: boolean
}

interface CompareFlags extends Omit<ReplayInputFlags, 'preset' | 'config' | 'session' | 'viewFormat'> {
  readonly usage: UsageMode
  readonly json?: boolean
  readonly jobs?: string
}

const PACKAGE_VERSION = (JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../package.json'), 'utf8')) as { version: string }).version

/** The rule codes of each view format, for the summary line. */
const RULE_NAMES: Readonly<Record<ProviderFormat, string>> = {
  anthropic: 'anthropic rules A1-A7',
  'openai-chat': 'openai-chat rules R1-R3, C5',
  'openai-responses': 'openai-responses rules O1, O2, O4',
  'ai-sdk': 'ai-sdk rules S1-S3, S5',
}

/**
 * A replay output line with its view in a provider format (`--view-format`), as the core made it
 * (`ReplayResult.shaped`: converted, with `--repair` repaired, and checked by the request's finish
 * stage, src/core/request/provider-view.ts), the problems of that view under the format's rules
 * (its `context:view-invalid` events) less repeated-call-id rules (the input's own repeats), and
 * whether `--repair` changed it. A failed request's line is unchanged.
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 1000 }] }
 * const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: estimateOne }, { shape: { format: 'anthropic', repair: true } })
 * toFormatLine(result.lines[0], result.shaped[0]).line.view // => { messages: [{ role: 'user', content: 'hi' }] }
 * toFormatLine(result.lines[0], result.shaped[0]).repaired // => false
 */
export const toFormatLine = (
  line: ReplayOutputLine,
  shaped: ShapedView | null | undefined,
): { readonly line: ReplayOutputLine; readonly problems: ReadonlyArray<string>; readonly repaired: boolean } => {
  if (line.view === null || shaped === null || shaped === undefined) return { line, problems: [], repaired: false }
  const problems = line.events
    .filter((event) => event.name === 'context:view-invalid')
    .flatMap((event) => (event.data as { readonly problems: ReadonlyArray<string> }).problems)
    .filter((problem) => !isRepeatedIdProblem(problem))
  return { line: { ...line, view: shaped.view as ReplayOutputLine['view'] }, problems, repaired: shaped.repaired }
}

/** A table row of `replay`: `repaired` is true when `--repair` changed the request's view. */
type ReplayRow = RequestRow & { readonly repaired: boolean }

const fmt = (value: number | null): string => (value === null ? '' : value.toLocaleString('en-US'))

const renderTable = (rows: ReadonlyArray<ReplayRow>, multiSession: boolean, showHybrid: boolean, simulated: boolean): string => {
  const head = [
    ...(multiSession ? ['session'] : []),
    'request',
    'history msgs',
    'estimated',
    'measured',
    ...(showHybrid ? ['hybrid'] : []),
    'budget',
    ...(simulated ? ['input (sim)'] : ['view tokens', 'input (rec)']),
    'level',
    'boundary',
    'view msgs',
  ]
  const table = new Table({ head, style: { head: [], border: [], compact: true }, colAligns: head.map((name) => (name === 'session' || name === 'boundary' ? 'left' : 'right')) })
  for (const row of rows) {
    const marks = [row.boundary, row.overBudget === true ? 'OVER BUDGET' : '', row.pairingProblems.length > 0 ? 'BROKEN PAIRING' : '', row.lastUserReplayed ? 'replay' : '', row.repaired ? 'repaired' : ''].filter((mark) => mark !== '')
    // the input of a bill of the view sent, marked over the budget, or ? where none bills it
    const billed = row.overBudget === 'unknown' ? '?' : `${fmt(row.inputTokens)}${row.overBudget ? ' !' : ''}`
    table.push([
      ...(multiSession ? [row.session ?? ''] : []),
      row.request,
      row.historyMessages,
      fmt(row.estimatedTokens),
      fmt(row.measuredTokens),
      ...(showHybrid ? [row.hybridTokens === null ? '' : `${fmt(row.hybridTokens)}${row.hybridKind === 'usage' ? '' : ' (est)'}`] : []),
      fmt(row.effectiveBudget),
      ...(simulated ? [billed] : [fmt(row.viewTokens), billed]),
      row.level === null ? '' : row.level,
      marks.join(', '),
      row.viewMessages === null ? 'ERROR' : row.viewMessages,
    ])
  }
  return table.toString()
}

const legend = (showHybrid: boolean, simulated: boolean, repair: boolean): string =>
  [
    'legend:',
    '  history msgs  messages stored when the request was made',
    '  estimated     estimator tokens of the stored history (SPEC 5)',
    `  measured      the provider reading the token meter holds${simulated ? ' (simulated: the previous request as billed)' : ''}`,
    ...(showHybrid ? ['  hybrid        anchor reading + estimated tail; (est) = no usable reading'] : []),
    '  budget        effective budget E (tokens, after the notice reserve)',
    ...(simulated
      ? ['  input (sim)   billed input of this request under the provider model: its recorded reading + scale x (view - what the agent sent), counted with gpt-tokenizer (tokens); ! = over the budget']
      : [
          '  view tokens   estimator tokens of the view sent, i.e. after compaction',
          '  input (rec)   the recorded reading of this request where it bills the view sent (the view is the request the agent sent); ! = over the budget;',
          '                ? = no reading bills the view sent (after the replay\'s first compaction, no reading, or a recording replayed under another configuration or budget): over the budget unknown',
        ]),
    '  level         cumulative compaction level (0-8) of the last accepted pass',
    `  boundary      compacted / skipped / failed on this request; OVER BUDGET; BROKEN PAIRING; replay (last user replayed)${repair ? '; repaired (--repair changed the view)' : ''}`,
  ].join('\n')

const describeFits = (fits: ReadonlyArray<ProviderFit | null>): string => {
  const known = fits.filter((fit): fit is ProviderFit => fit !== null)
  if (known.length === 0) return 'no provider model'
  if (known.every((fit) => fit.source === 'none')) return 'no readings in this input: billed = the gpt-tokenizer count of the view (scale 1, no overhead)'
  if (known.length === 1) {
    const fit = known[0]
    return `provider model fitted on ${countNoun(fit.points, 'reading')}${fit.rejected > 0 ? ` (${fit.rejected} left out)` : ''}: reading ~ ${fit.scale.toFixed(3)} x count + ${Math.round(fit.overhead).toLocaleString('en-US')}`
  }
  return `provider model fitted per session on ${countNoun(known.reduce((sum, fit) => sum + fit.points, 0), 'reading')}`
}

// Unknowns are counted apart: no bill of the view sent says whether it was over (judgeOverBudget).
const describeOverBudget = (rows: ReadonlyArray<RequestRow>): string => {
  const unknown = rows.filter((row) => row.overBudget === 'unknown').length
  const over = `requests over the budget: ${rows.filter((row) => row.overBudget === true).length}`
  return unknown === 0 ? over : `${over} (unknown on ${unknown}: no recorded reading bills the view sent there; --usage simulated bills every view)`
}

const renderSummary = (summary: ReplaySummary, rows: ReadonlyArray<ReplayRow>, flags: Pick<ReplayFlags, 'viewFormat' | 'repair'>, simulated: boolean, clamped: number, fits: ReadonlyArray<ProviderFit | null> = []): string => {
  const viewFormat = flags.viewFormat
  const lines = [
    `sessions: ${summary.sessions}`,
    `requests: ${summary.requests}`,
    `compaction boundaries: ${summary.compactionBoundaries}`,
    `highest level: ${summary.highestLevel}`,
    viewFormat === undefined ? `views that break tool pairing (R1-R3): ${summary.brokenViews}` : `views that break ${RULE_NAMES[viewFormat]}${flags.repair === true ? ' after repair' : ''}: ${summary.brokenViews}`,
    ...(flags.repair === true ? [`views changed by repair: ${rows.filter((row) => row.repaired).length}`] : []),
    describeOverBudget(rows),
    `skipped compactions: ${summary.skippedCompactions}`,
    `last-user replays: ${summary.lastUserReplays}`,
    `spill files: ${summary.spills}`,
    `failed requests: ${summary.failedRequests}`,
  ]
  if (simulated) lines.push(`usage: simulated (${describeFits(fits)}; hidden overhead clamped at 0 on ${countNoun(clamped, 'request')})`)
  else {
    lines.push(
      summary.drift === null
        ? 'estimator drift: no provider usage in this input'
        : `estimator drift (reading / estimate of the request it describes, ${countNoun(summary.drift.requests, 'request')}): median ${summary.drift.median.toFixed(3)}, p90 ${summary.drift.p90.toFixed(3)}`,
    )
  }
  for (const row of rows.filter((r) => r.error !== null).slice(0, 3)) lines.push(`request ${row.request}${row.session ? ` (${row.session})` : ''} failed: ${row.error}`)
  for (const row of rows.filter((r) => r.pairingProblems.length > 0).slice(0, 5)) lines.push(`request ${row.request} breaks pairing: ${row.pairingProblems.slice(0, 2).join('; ')}`)
  return lines.join('\n')
}

/** What one input contributes to the total of a replay of several inputs. */
interface ReplayedPart {
  readonly failed: boolean
  readonly rows: ReadonlyArray<ReplayRow>
  readonly sessions: number
  readonly spills: number
  readonly clamped: number
  readonly fits: ReadonlyArray<ProviderFit | null>
}

const printReplayed = (replayed: ReplayedInput, flags: ReplayFlags, io: CliIo, spillFiles: number, several: boolean): ReplayedPart => {
  const simulated = replayed.usage === 'simulated'
  const repair = flags.repair === true
  const rows: ReplayRow[] = []
  let failed = false
  for (const item of replayed.sessions) {
    const result = item.result
    result.lines.forEach((line, index) => {
      if (line.error !== undefined) failed = true
      const viewed = flags.viewFormat === undefined ? null : toFormatLine(line, result.shaped[index])
      const economics = result.economics[index] ?? null
      const row = toRequestRow(line, index, result.historySizes[index], { economics, live: replayed.format === 'recording', simulated })
      rows.push(viewed === null ? { ...row, repaired: false } : { ...row, pairingProblems: viewed.problems, repaired: viewed.repaired })
      if (flags.json) {
        const { view: _view, ...rest } = viewed === null ? line : viewed.line
        const out = {
          ...(several ? { file: replayed.path } : {}),
          ...(flags.views ? (viewed === null ? line : viewed.line) : rest),
          ...(repair && viewed !== null ? { view_repaired: viewed.repaired } : {}),
          ...(simulated && economics !== null ? { simulated_usage: economics.usage } : {}),
          // only when asked with --usage: without it the lines are exactly the replay-output lines (docs/recording-format.md)
          ...(flags.usageGiven === true && economics !== null ? { over_budget: row.overBudget } : {}),
        }
        io.stdout(JSON.stringify(out) + '\n')
      }
    })
  }
  const part = {
    failed,
    rows,
    sessions: replayed.sessions.length,
    spills: spillFiles,
    clamped: replayed.sessions.reduce((sum, item) => sum + item.result.clampedRequests, 0),
    fits: replayed.sessions.map((item) => item.result.providerFit),
  }
  if (!flags.json) {
    const multiSession = replayed.sessions.length > 1
    const showHybrid = rows.some((row) => row.measuredTokens !== null)
    io.stdout(`${replayed.path} (${replayed.format}, ${countNoun(replayed.sessions.length, 'session')})\n`)
    io.stdout(renderTable(rows, multiSession, showHybrid, simulated) + '\n')
    io.stdout(legend(showHybrid, simulated, repair) + '\n')
    io.stdout(renderSummary(summarizeRows(rows, part.sessions, spillFiles), rows, flags, simulated, part.clamped, part.fits) + '\n')
  }
  return part
}

/**
 * The total of a replay of several inputs: the summary lines of one input over all their requests
 * (text), or one last JSON line `{"total": {...}}` with the same figures (`--json`).
 */
const printTotal = (parts: ReadonlyArray<ReplayedPart>, flags: ReplayFlags, io: CliIo, simulated: boolean): void => {
  const rows = parts.flatMap((part) => part.rows)
  const summary = summarizeRows(
    rows,
    parts.reduce((sum, part) => sum + part.sessions, 0),
    parts.reduce((sum, part) => sum + part.spills, 0),
  )
  const clamped = parts.reduce((sum, part) => sum + part.clamped, 0)
  if (!flags.json) {
    io.stdout(`\nTOTAL (${countNoun(parts.length, 'input')})\n${renderSummary(summary, rows, flags, simulated, clamped, parts.flatMap((part) => part.fits))}\n`)
    return
  }
  const total = {
    inputs: parts.length,
    sessions: summary.sessions,
    requests: summary.requests,
    compaction_boundaries: summary.compactionBoundaries,
    highest_level: summary.highestLevel,
    broken_views: summary.brokenViews,
    ...(flags.repair === true ? { repaired_views: rows.filter((row) => row.repaired).length } : {}),
    over_budget: rows.filter((row) => row.overBudget === true).length,
    over_budget_unknown: rows.filter((row) => row.overBudget === 'unknown').length,
    skipped_compactions: summary.skippedCompactions,
    last_user_replays: summary.lastUserReplays,
    spill_files: summary.spills,
    failed_requests: summary.failedRequests,
    ...(simulated ? { clamped_requests: clamped } : { drift: summary.drift }),
  }
  io.stdout(JSON.stringify({ total }) + '\n')
}

/**
 * `--write-recording FILE`: the one session replayed, as a recording file (`serializeRecording`
 * of `ReplayedSession.replayable`). Throws `UsageError` when the input holds several sessions
 * (pick one with `--session`) or the file cannot be written.
 */
const writeReplayedRecording = (path: string, replayed: ReplayedInput): void => {
  if (replayed.sessions.length !== 1) {
    const names = replayed.sessions.map((item) => item.session ?? '').slice(0, 8).join(', ')
    throw new UsageError(`--write-recording ${path}: ${replayed.path} holds ${countNoun(replayed.sessions.length, 'session')} (${names}); pick one with --session`)
  }
  try {
    writeFileSync(path, serializeRecording(replayed.sessions[0].replayable))
  } catch (error) {
    throw new UsageError(`--write-recording ${path}: cannot write the file (${(error as Error).message})`)
  }
}

const runReplay = async (files: ReadonlyArray<string>, flags: ReplayFlags, io: CliIo): Promise<number> => {
  if (flags.repair === true && flags.viewFormat === undefined) {
    throw new UsageError('--repair needs --view-format: the repair applies to provider-format views, e.g. --view-format anthropic --repair')
  }
  const paths = files.length === 0 ? [undefined] : expandInputs(files)
  if (flags.writeRecording !== undefined && paths.length > 1) {
    throw new UsageError(`--write-recording ${flags.writeRecording}: give one input file (got ${paths.length}); a recording file holds one session`)
  }
  const parts: ReplayedPart[] = []
  let simulated = false
  for (const file of paths) {
    const replayed = await replayInput(file, flags, io, flags.json !== true)
    if (flags.writeRecording !== undefined) writeReplayedRecording(flags.writeRecording, replayed)
    const writer = makeFileSpillWriter()
    let spillFiles = 0
    const spillPaths = new Set<string>()
    for (const { result } of replayed.sessions) {
      for (const spill of result.spills) {
        if (spillPaths.has(spill.path)) continue
        spillPaths.add(spill.path)
        try {
          await writer.write(spill.directory, spill.path, spill.content)
          spillFiles += 1
        } catch (error) {
          io.stderr(`warning: could not spill ${spill.path}: ${(error as Error).message}\n`)
        }
      }
    }
    parts.push(printReplayed(replayed, flags, io, spillFiles, paths.length > 1))
    simulated = replayed.usage === 'simulated'
  }
  if (parts.length > 1) printTotal(parts, flags, io, simulated)
  return parts.some((part) => part.failed) ? 1 : 0
}

/**
 * Run the CLI with `argv` (without the node and script names). Resolves to the exit code: 0 on
 * success, 1 when a replayed request raised the fail-loud error, 2 for bad flags or bad input
 * files (one line on stderr: `UsageError`, `RecordingFormatError`, `ConfigError`,
 * `ModelDataError`). Any other error is rethrown.
 *
 * @example
 * await main(['replay', 'fixtures/sessions/claude-code/short.jsonl', '--json'])
 * await main(['compare', 'fixtures/sessions/claude-code', '--preset', 'reference', '--preset', 'recommended'])
 */
export const main = async (argv: ReadonlyArray<string>, io: CliIo = processIo): Promise<number> => {
  const program = new Command('context-simple')
    .description('Conversation context manager for LLM agents: replay recorded sessions through the compaction core, report them, and compare configurations.')
    .version(PACKAGE_VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
  let exitCode = 0
  addReplayOptions(
    program
      .command('replay')
      .description('Replay recordings, Claude Code sessions, Codex CLI rollouts or OpenAI chat trajectories and print the request timeline.')
      .argument('[inputs...]', 'input files or directories (a directory contributes its *.jsonl and *.json files, gzipped or not, not recursively; default: the bundled 5-request Claude Code session)'),
  )
    .option('--json', 'print exactly the replay-output JSON lines on stdout')
    .option('--no-views', 'leave "view" out of the --json lines')
    .addOption(new Option('--view-format <format>', 'print views as a provider request wants them (default: the contract shape)').choices(['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']))
    .option('--repair', 'with --view-format: repair each view before converting and checking it, as the manager option repair: true does')
    .option('--write-recording <file>', 'write the session as replayed (imported ops, budget flags, merged configuration) as a recording file that replays the same with no flags')
    .action(async (inputs: string[], flags: ReplayFlags, command: Command) => {
      exitCode = await runReplay(inputs, { ...flags, usageGiven: command.getOptionValueSource('usage') === 'cli' }, io)
    })
  addReplayOptions(
    program
      .command('report')
      .description('Replay an input and write one self-contained HTML page charting every request (tokens, budget, compaction boundaries, prompt cache).')
      .argument('[file]', 'input file (default: the bundled 5-request Claude Code session)'),
    'simulated',
  )
    .requiredOption('--html <file>', 'where to write the HTML page')
    .action(async (file: string | undefined, flags: ReportFlags) => {
      exitCode = await runReport(file, flags, io)
    })
  program
    .command('demo')
    .description('Replay a bundled real Claude Code session at a budget where it compacts, compare the reference and recommended presets, and write the HTML report.')
    .argument('[file]', 'input file (default: the bundled 140-request Claude Code session)')
    .option('--html <file>', 'where to write the HTML page', 'context-simple-report.html')
    .option('--budget <tokens>', 'token budget for every request', String(DEMO_BUDGET))
    .option('--no-progress', 'no progress bar')
    .action(async (file: string | undefined, flags: DemoFlags) => {
      exitCode = await runDemo(file, flags, io)
    })
  // --preset and --config of compare are configurations in the order given: one shared list.
  const configs: Array<{ kind: 'preset' | 'config'; value: string }> = []
  program
    .command('compare')
    .description('Replay every session of the inputs under each configuration with the provider model and compare boundaries, invalid views, overflows, prefix breaks, cache and cost.')
    .argument('<inputs...>', 'input files or directories (a directory contributes its *.jsonl and *.json files, gzipped or not, not recursively)')
    .option('--preset <name>', 'one configuration: a preset (repeatable, in order with --config)', (value: string) => void configs.push({ kind: 'preset', value }))
    .option('--config <file>', 'one configuration: a JSON file of keys over the header (repeatable, in order with --preset)', (value: string) => void configs.push({ kind: 'config', value }))
    .addOption(new Option('--format <format>', 'input format').choices([...INPUT_FORMAT_CHOICES]).default('auto'))
    .option('--set <key=value>', 'one configuration key for every configuration (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--window <tokens>', 'model context window for every request (with --max-output)')
    .option('--max-output <tokens>', 'model max output tokens for every request (with --window)')
    .option('--budget <tokens>', 'explicit token budget for every request')
    .addOption(new Option('--summarizer <mode>', 'summary answers: recorded lines, none, or a local extractive stand-in').choices(['recorded', 'none', 'extractive']).default('recorded'))
    .addOption(new Option('--usage <mode>', 'provider usage the meters see').choices(['recorded', 'simulated']).default('simulated'))
    .option('--model <name>', "model for prices, window and cache rules (default: the session's own)")
    .option('--prices <file>', 'JSON price table (default: the bundled data/prices.json)')
    .option('--windows <file>', 'JSON window table (default: the bundled data/windows.json)')
    .option('--json', 'print one JSON object per (configuration, session) on stdout and nothing else')
    .option('--jobs <n>', 'worker threads (default: the number of cores)')
    .option('--no-progress', 'no progress bar')
    .action(async (inputs: string[], flags: CompareFlags) => {
      const { settings, shown, warnings } = parseSettings(flags.set)
      for (const warning of warnings) io.stderr(`warning: ${warning}\n`)
      const list: CompareConfig[] = configs.map((entry) => ({
        label: configurationLabel([entry.value], shown),
        layers: entry.kind === 'preset' ? { preset: toPreset(entry.value), file: null, settings } : { preset: null, file: readConfigFile(entry.value), settings },
      }))
      // Check the tables up front (a bad --prices file is one clear error, not one per worker).
      loadPriceTable(flags.prices)
      loadWindowTable(flags.windows)
      exitCode = await runCompare(
        {
          inputs,
          configs: list,
          format: flags.format,
          budget: toBudgetOverride(flags),
          summarizer: flags.summarizer,
          usage: flags.usage,
          model: flags.model ?? null,
          pricesPath: flags.prices ?? null,
          windowsPath: flags.windows ?? null,
          json: flags.json === true,
          jobs: flags.jobs === undefined ? null : Math.max(1, parseTokenCount('--jobs', flags.jobs)),
          progress: flags.progress,
        },
        io,
      )
    })

  try {
    await program.parseAsync(argv as string[], { from: 'user' })
    return exitCode
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2
    const name = (error as Error).name
    if (error instanceof UsageError || name === 'UsageError' || name === 'RecordingFormatError' || name === 'ConfigError' || name === 'ModelDataError') {
      io.stderr(`context-simple: ${(error as Error).message}\n`)
      return 2
    }
    throw error
  }
}
