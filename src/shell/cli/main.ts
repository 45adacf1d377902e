/**
 * The `context-simple` command line: `replay` a recording, a Claude Code session or OpenAI chat
 * trajectories through the pure core and print a timeline (or the replay-output JSON lines).
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SingleBar, Presets } from 'cli-progress'
import Table from 'cli-table3'
import { Command, CommanderError, Option } from 'commander'
import { isLeft } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../core/codecs.js'
import { makeCachedEstimator } from '../../core/estimate.js'
import { toExtractiveSummary } from '../../core/extractive-summary.js'
import type { Recording } from '../../core/recording.js'
import { iterateReplay, type ReplayResult, type ReplaySummarizer } from '../../core/replay.js'
import { seqOf } from '../../core/message.js'
import { loadRecordings, type InputFormatChoice } from '../importers/detect.js'
import { readTextFile } from '../read-text.js'
import { importClaudeCodeSession } from '../importers/claude-code.js'
import type { ProviderFormat } from '../../core/formats/carrier.js'
import { findFormatViolations, toFormatView } from '../../core/formats/dispatch.js'
import type { ReplayOutputLine } from '../../core/recording.js'
import { makeFileSpillWriter } from '../spill-fs.js'
import { applyBudgetOverride, mergeConfig, parseSetting, parseTokenCount, toPreset, UsageError, type BudgetOverride } from './options.js'
import { summarizeRows, toRequestRow, type ReplaySummary, type RequestRow } from './report.js'

/**
 * The real session replayed when no FILE is given (MIT, see sessions/LICENSE): an absolute path
 * into the package's `sessions/` directory.
 *
 * @example
 * BUNDLED_SESSION.endsWith('sessions/claude-code-tool-heavy.jsonl') // true
 */
export const BUNDLED_SESSION = resolve(dirname(fileURLToPath(import.meta.url)), '../../../sessions/claude-code-tool-heavy.jsonl')

/**
 * Claude Code sessions replay against Claude's window unless a budget is given (tokens; with the
 * default `output_reserve_fraction` 0.5 the budget is 200000 − 32000 − 4096 = 163904, SPEC 4).
 *
 * @example
 * CLAUDE_CODE_WINDOW.contextWindow // 200000
 */
export const CLAUDE_CODE_WINDOW = { contextWindow: 200_000, maxOutputTokens: 64_000 }

/**
 * Where the CLI writes: injectable for tests. `isTty` enables the progress bar (on stderr).
 *
 * @example
 * const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), isTty: false }
 */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly isTty: boolean
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stderr.isTTY === true,
}

interface ReplayFlags {
  readonly format: InputFormatChoice
  readonly preset?: string
  readonly config?: string
  readonly set: ReadonlyArray<string>
  readonly window?: string
  readonly maxOutput?: string
  readonly budget?: string
  readonly json?: boolean
  readonly summarizer: 'recorded' | 'none' | 'extractive'
  readonly progress: boolean
  readonly viewFormat?: ProviderFormat
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

const readConfigFile = (path: string): Record<string, unknown> => {
  let text: string
  try {
    text = readTextFile(path)
  } catch (error) {
    throw new UsageError(`--config ${path}: cannot read the file (${(error as Error).message})`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--config ${path}: not valid JSON (${(error as Error).message})`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--config ${path}: expected a JSON object of configuration keys`)
  return value as Record<string, unknown>
}

const toBudgetOverride = (flags: ReplayFlags): BudgetOverride | null => {
  if (flags.budget !== undefined && (flags.window !== undefined || flags.maxOutput !== undefined)) {
    throw new UsageError('--budget cannot be combined with --window/--max-output: give one or the other')
  }
  if (flags.budget !== undefined) return { kind: 'budget', tokens: parseTokenCount('--budget', flags.budget) }
  if ((flags.window === undefined) !== (flags.maxOutput === undefined)) throw new UsageError('--window and --max-output go together, e.g. --window 200000 --max-output 64000')
  if (flags.window !== undefined && flags.maxOutput !== undefined) {
    return { kind: 'window', contextWindow: parseTokenCount('--window', flags.window), maxOutputTokens: parseTokenCount('--max-output', flags.maxOutput) }
  }
  return null
}

const extractiveSummarizer: ReplaySummarizer = (request, history) => {
  const wanted = new Set(request.seqs)
  return { text: toExtractiveSummary(history.filter((message) => wanted.has(seqOf(message) ?? -1))) }
}

/** The local stand-in is a summarizer provider: mark every request as passing one (SPEC 2.3 step 2). */
const withSummarizerProvider = (recording: Recording): Recording => ({
  ...recording,
  ops: recording.ops.map((op) => (op.op === 'get_messages_for_request' && (op.provider === undefined || op.provider === null) ? { ...op, provider: {} } : op)),
})

const withoutSummaryResults = (recording: Recording): Recording => ({ ...recording, ops: recording.ops.filter((op) => op.op !== 'summary_result') })

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
  const override = toBudgetOverride(flags)
  const path = file ?? BUNDLED_SESSION
  let text: string
  try {
    text = readTextFile(path)
  } catch (error) {
    throw new UsageError(`${path}: cannot read the file (${(error as Error).message})`)
  }
  let loaded = loadRecordings(text, path, flags.format)
  const preset = flags.preset === undefined ? null : toPreset(flags.preset)
  // A Claude Code session viewed as anthropic is imported natively (thinking, images, result blocks).
  const nativeFormat = flags.viewFormat === 'anthropic' && loaded.format === 'claude-code' ? 'anthropic' : undefined
  if (nativeFormat !== undefined) loaded = { ...loaded, recordings: [importClaudeCodeSession(text, path, { native: true })] }
  const fileConfig = flags.config === undefined ? null : readConfigFile(flags.config)
  const settings = flags.set.map(parseSetting)
  const budget = override ?? (loaded.format === 'claude-code' ? { kind: 'window' as const, ...CLAUDE_CODE_WINDOW } : null)

  const prepared = loaded.recordings.map((recording) => {
    const decoded = decodeConfig(mergeConfig(recording.config, preset, fileConfig, settings))
    if (isLeft(decoded)) throw new UsageError(decoded.left.message)
    let ready = applyBudgetOverride(recording, budget)
    if (flags.summarizer !== 'recorded') ready = withoutSummaryResults(ready)
    if (flags.summarizer === 'extractive') ready = withSummarizerProvider(ready)
    return { recording: ready, config: decoded.right.config, warnings: decoded.right.warnings }
  })
  for (const warning of prepared[0]?.warnings ?? []) io.stderr(`warning: ${warning.message}\n`)

  const totalOps = prepared.reduce((sum, item) => sum + item.recording.ops.length, 0)
  const bar = !flags.json && flags.progress && io.isTty ? new SingleBar({ format: 'replaying [{bar}] {percentage}% | {value}/{total} ops', stream: process.stderr }, Presets.shades_classic) : null
  bar?.start(totalOps, 0)
  const results: ReplayResult[] = []
  let done = 0
  for (const item of prepared) {
    const iterator = iterateReplay(item.recording, { config: item.config, estimate: makeCachedEstimator(), ...(nativeFormat !== undefined ? { format: nativeFormat } : {}) }, {
      summarizer: flags.summarizer === 'extractive' ? extractiveSummarizer : undefined,
    })
    let next = iterator.next()
    while (next.done !== true) {
      done += 1
      if (bar !== null && done % 50 === 0) bar.update(done)
      next = iterator.next()
    }
    results.push(next.value)
  }
  bar?.update(totalOps)
  bar?.stop()

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

  // Warnings the core logged while replaying (an unparseable compact_clear_at_least, a notice
  // reserve that swallows the budget, ...), each distinct message once, with its count.
  const warnings = new Map<string, number>()
  for (const result of results) for (const log of result.logs) if (log.type === 'log' && log.level === 'warning') warnings.set(log.message, (warnings.get(log.message) ?? 0) + 1)
  const shown = [...warnings].slice(0, 10)
  for (const [message, count] of shown) io.stderr(`warning: ${message}${count > 1 ? ` (${count} times)` : ''}\n`)
  if (warnings.size > shown.length) io.stderr(`warning: … and ${warnings.size - shown.length} more distinct warnings\n`)

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
    io.stdout(`${path} (${loaded.format}, ${results.length} session${results.length === 1 ? '' : 's'})\n`)
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
  program
    .command('replay')
    .description('Replay a recording, a Claude Code session or OpenAI chat trajectories and print the request timeline.')
    .argument('[file]', 'input file (default: the bundled Claude Code session)')
    .addOption(new Option('--format <format>', 'input format').choices(['auto', 'recording', 'claude-code', 'openai-chat']).default('auto'))
    .option('--preset <name>', 'named configuration: reference, recommended, recommended-summary (over the recording header)')
    .option('--config <file>', 'JSON file of configuration keys (over the recording header and --preset)')
    .option('--set <key=value>', 'one configuration key (repeatable; value parsed as JSON when it parses)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--window <tokens>', "model context window for every request (with --max-output)")
    .option('--max-output <tokens>', "model max output tokens for every request (with --window)")
    .option('--budget <tokens>', 'explicit token budget for every request')
    .option('--json', 'print exactly the replay-output JSON lines on stdout')
    .addOption(new Option('--summarizer <mode>', 'summary answers: recorded lines, none, or a local extractive stand-in').choices(['recorded', 'none', 'extractive']).default('recorded'))
    .option('--no-progress', 'no progress bar')
    .addOption(new Option('--view-format <format>', 'print views as a provider request wants them (default: the contract shape)').choices(['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']))
    .action(async (file: string | undefined, flags: ReplayFlags) => {
      exitCode = await runReplay(file, flags, io)
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
