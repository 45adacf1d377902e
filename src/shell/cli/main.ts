/**
 * The `context-simple` command line: `replay` a recording, a Claude Code session or OpenAI chat
 * trajectories through the pure core and print a timeline (or the replay-output JSON lines).
 */
import Table from 'cli-table3'
import { Command, CommanderError, Option } from 'commander'
import type { ProviderFormat } from '../../core/formats/carrier.js'
import { findFormatViolations, toFormatView } from '../../core/formats/dispatch.js'
import type { ReplayOutputLine } from '../../core/recording.js'
import { makeFileSpillWriter } from '../spill-fs.js'
import { UsageError } from './options.js'
import { addReplayOptions, replayInput, type CliIo, type ReplayInputFlags } from './replay-input.js'
import { runReport, type ReportFlags } from './report-command.js'
import { summarizeRows, toRequestRow, type ReplaySummary, type RequestRow } from './report.js'

export { BUNDLED_SESSION, CLAUDE_CODE_WINDOW, type CliIo } from './replay-input.js'

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stderr.isTTY === true,
}

interface ReplayFlags extends ReplayInputFlags {
  readonly json?: boolean
}

/** Rules about call ids the input itself repeats (RECORDING.md): not counted as broken views. */
const REPEATED_ID_RULES = new Set(['A4', 'R4', 'O3', 'S4'])

/** The rule codes of each view format, for the summary line. */
const RULE_NAMES: Readonly<Record<ProviderFormat, string>> = {
  anthropic: 'anthropic rules A1-A7',
  'openai-chat': 'openai-chat rules R1-R3, C5',
  'openai-responses': 'openai-responses rules O1, O2, O4',
  'ai-sdk': 'ai-sdk rules S1-S3, S5',
}

/**
 * The view of a replay output line in a provider format (`--view-format`), and the problems of
 * that view under the format's rules, less repeated-call-id rules (the input's own repeats).
 *
 * @example
 * toFormatLine(line, 'anthropic').line.view // { system, messages }
 */
export const toFormatLine = (line: ReplayOutputLine, format: ProviderFormat): { readonly line: ReplayOutputLine; readonly problems: ReadonlyArray<string> } => {
  if (line.view === null) return { line, problems: [] }
  const view = toFormatView(format, line.view)
  const problems = findFormatViolations(format, view).filter((problem) => !REPEATED_ID_RULES.has(problem.split(' ')[0]))
  return { line: { ...line, view: view as unknown as ReplayOutputLine['view'] }, problems }
}

const fmt = (value: number | null): string => (value === null ? '' : value.toLocaleString('en-US'))

const renderTable = (rows: ReadonlyArray<RequestRow>, multiSession: boolean, showHybrid: boolean): string => {
  const head = [
    ...(multiSession ? ['session'] : []),
    'request',
    'history msgs',
    'estimated',
    'measured',
    ...(showHybrid ? ['hybrid'] : []),
    'budget',
    'level',
    'boundary',
    'view msgs',
  ]
  const table = new Table({ head, style: { head: [], border: [], compact: true }, colAligns: head.map((name) => (name === 'session' || name === 'boundary' ? 'left' : 'right')) })
  for (const row of rows) {
    const marks = [row.boundary, row.pairingProblems.length > 0 ? 'BROKEN PAIRING' : '', row.replayed ? 'replay' : ''].filter((mark) => mark !== '')
    table.push([
      ...(multiSession ? [row.session ?? ''] : []),
      row.request,
      row.historyMessages,
      fmt(row.estimatedTokens),
      fmt(row.measuredTokens),
      ...(showHybrid ? [row.hybridTokens === null ? '' : `${fmt(row.hybridTokens)}${row.hybridKind === 'usage' ? '' : ' (est)'}`] : []),
      fmt(row.budget),
      row.level === null ? '' : row.level,
      marks.join(', '),
      row.viewMessages === null ? 'ERROR' : row.viewMessages,
    ])
  }
  return table.toString()
}

const renderSummary = (summary: ReplaySummary, rows: ReadonlyArray<RequestRow>, viewFormat: ProviderFormat | undefined): string => {
  const lines = [
    `sessions: ${summary.sessions}`,
    `requests: ${summary.requests}`,
    `compaction boundaries: ${summary.compactionBoundaries}`,
    `highest level: ${summary.highestLevel}`,
    viewFormat === undefined ? `views that break tool pairing (R1-R3): ${summary.brokenViews}` : `views that break ${RULE_NAMES[viewFormat]}: ${summary.brokenViews}`,
    `skipped compactions: ${summary.skippedCompactions}`,
    `last-user replays: ${summary.replays}`,
    `spill files: ${summary.spills}`,
    `failed requests: ${summary.failedRequests}`,
  ]
  lines.push(
    summary.drift === null
      ? 'estimator drift: no provider usage in this input'
      : `estimator drift (measured / estimated, ${summary.drift.requests} requests): median ${summary.drift.median.toFixed(3)}, p90 ${summary.drift.p90.toFixed(3)}`,
  )
  for (const row of rows.filter((r) => r.error !== null).slice(0, 3)) lines.push(`request ${row.request}${row.session ? ` (${row.session})` : ''} failed: ${row.error}`)
  for (const row of rows.filter((r) => r.pairingProblems.length > 0).slice(0, 5)) lines.push(`request ${row.request} breaks pairing: ${row.pairingProblems.slice(0, 2).join('; ')}`)
  return lines.join('\n')
}

const runReplay = async (file: string | undefined, flags: ReplayFlags, io: CliIo): Promise<number> => {
  const { path, format, sessions } = await replayInput(file, flags, io, flags.json !== true)
  const results = sessions.map((item) => item.result)

  const writer = makeFileSpillWriter()
  let spillFiles = 0
  const spillPaths = new Set<string>()
  for (const result of results) {
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

  const rows: RequestRow[] = []
  let failed = false
  for (const result of results) {
    result.lines.forEach((line, index) => {
      if (line.error !== undefined) failed = true
      const viewed = flags.viewFormat === undefined ? null : toFormatLine(line, flags.viewFormat)
      if (flags.json) io.stdout(JSON.stringify(viewed === null ? line : viewed.line) + '\n')
      else {
        const row = toRequestRow(line, index, result.historySizes[index])
        rows.push(viewed === null ? row : { ...row, pairingProblems: viewed.problems })
      }
    })
  }
  if (!flags.json) {
    const multiSession = results.length > 1
    const showHybrid = rows.some((row) => row.measuredTokens !== null)
    io.stdout(`${path} (${format}, ${results.length} session${results.length === 1 ? '' : 's'})\n`)
    io.stdout(renderTable(rows, multiSession, showHybrid) + '\n')
    io.stdout(renderSummary(summarizeRows(rows, results.length, spillFiles), rows, flags.viewFormat) + '\n')
  }
  return failed ? 1 : 0
}

/**
 * Run the CLI with `argv` (without the node and script names). Resolves to the exit code: 0 on
 * success, 1 when a replayed request raised the fail-loud error, 2 for bad flags or bad input
 * files (one line on stderr: `UsageError`, `RecordingFormatError`, `ConfigError`). Any other
 * error is rethrown.
 *
 * @example
 * await main(['replay', 'fixtures/sessions/claude-code/short.jsonl', '--json'])
 */
export const main = async (argv: ReadonlyArray<string>, io: CliIo = processIo): Promise<number> => {
  const program = new Command('context-simple')
    .description('Conversation context manager for LLM agents: replay recorded sessions through the compaction core.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
  let exitCode = 0
  addReplayOptions(
    program
      .command('replay')
      .description('Replay a recording, a Claude Code session or OpenAI chat trajectories and print the request timeline.')
      .argument('[file]', 'input file (default: the bundled Claude Code session)'),
  )
    .option('--json', 'print exactly the replay-output JSON lines on stdout')
    .addOption(new Option('--view-format <format>', 'print views as a provider request wants them (default: the contract shape)').choices(['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']))
    .action(async (file: string | undefined, flags: ReplayFlags) => {
      exitCode = await runReplay(file, flags, io)
    })
  addReplayOptions(
    program
      .command('report')
      .description('Replay an input and write one self-contained HTML page charting every request (tokens, budget, compaction boundaries, prompt cache).')
      .argument('[file]', 'input file (default: the bundled Claude Code session)'),
  )
    .requiredOption('--html <file>', 'where to write the HTML page')
    .action(async (file: string | undefined, flags: ReportFlags) => {
      exitCode = await runReport(file, flags, io)
    })
  try {
    await program.parseAsync(argv as string[], { from: 'user' })
    return exitCode
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2
    const name = (error as Error).name
    if (error instanceof UsageError || name === 'RecordingFormatError' || name === 'ConfigError') {
      io.stderr(`context-simple: ${(error as Error).message}\n`)
      return 2
    }
    throw error
  }
}
