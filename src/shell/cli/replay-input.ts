/**
 * The replay pipeline shared by `replay`, `report` and `demo`: read an input file, decode it into
 * recordings, apply the configuration precedence and budget flags, and fold each session through
 * the pure core (with a progress bar on a terminal).
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SingleBar, Presets } from 'cli-progress'
import { Option, type Command } from 'commander'
import { isLeft } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../core/codecs.js'
import type { Config } from '../../core/config.js'
import { makeCachedEstimator, type TokenEstimator } from '../../core/estimate.js'
import { toExtractiveSummary } from '../../core/extractive-summary.js'
import { seqOf } from '../../core/message.js'
import type { Recording } from '../../core/recording.js'
import { iterateReplay, type ReplayResult, type ReplaySummarizer } from '../../core/replay.js'
import type { ProviderFormat } from '../../core/formats/carrier.js'
import { importClaudeCodeSession } from '../importers/claude-code.js'
import { loadRecordings, type InputFormatChoice } from '../importers/detect.js'
import { readTextFile } from '../read-text.js'
import { applyBudgetOverride, mergeConfig, parseSetting, parseTokenCount, toPreset, UsageError, type BudgetOverride } from './options.js'

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
 * The flags every replaying command takes (commander's camelCase names; values as typed).
 * `session` keeps only the session of that name (`<task_id>-t<trial>`) of a multi-session input;
 * `viewFormat` `anthropic` imports a Claude Code session natively (thinking, images, result blocks).
 *
 * @example
 * const flags: ReplayInputFlags = { format: 'auto', set: [], summarizer: 'recorded', progress: false, budget: '60000' }
 */
export interface ReplayInputFlags {
  readonly format: InputFormatChoice
  readonly preset?: string
  readonly config?: string
  readonly set: ReadonlyArray<string>
  readonly window?: string
  readonly maxOutput?: string
  readonly budget?: string
  readonly summarizer: 'recorded' | 'none' | 'extractive'
  readonly progress: boolean
  readonly session?: string
  readonly viewFormat?: ProviderFormat
}

/**
 * One replayed session: the recording as replayed (budget flags and summarizer choice applied),
 * its decoded configuration, the replay result, the estimator it used, and its name (null for a
 * single-session input).
 *
 * @example
 * replayed.sessions[0].result.lines.length // the number of requests
 */
export interface ReplayedSession {
  readonly session: string | null
  readonly recording: Recording
  readonly config: Config
  readonly result: ReplayResult
  readonly estimate: TokenEstimator
}

/**
 * A replayed input file: its path, detected format, the budget override in force (null: each
 * request's own budget), and its sessions in file order.
 *
 * @example
 * const replayed = await replayInput('short.jsonl', flags, io, false)
 * replayed.format // 'claude-code'
 */
export interface ReplayedInput {
  readonly path: string
  readonly format: string
  readonly budget: BudgetOverride | null
  readonly sessions: ReadonlyArray<ReplayedSession>
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

const toBudgetOverride = (flags: ReplayInputFlags): BudgetOverride | null => {
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

/**
 * Read `file` (default: the bundled session), decode it, and replay each session with the flags'
 * configuration (header < `--preset` < `--config` < each `--set`) and budget. Configuration
 * warnings and the warnings the core logged go to stderr (each distinct message once, with its
 * count); `showProgress` allows the bar on a terminal. Throws `UsageError` for unreadable files,
 * bad flags or a `--session` the input does not hold, and the importers' typed errors for bad
 * input.
 *
 * @example
 * const replayed = await replayInput(undefined, { format: 'auto', set: [], summarizer: 'recorded', progress: false }, io, false)
 */
export const replayInput = async (file: string | undefined, flags: ReplayInputFlags, io: CliIo, showProgress: boolean): Promise<ReplayedInput> => {
  const override = toBudgetOverride(flags)
  const path = file ?? BUNDLED_SESSION
  let text: string
  try {
    text = readTextFile(path)
  } catch (error) {
    throw new UsageError(`${path}: cannot read the file (${(error as Error).message})`)
  }
  let loaded = loadRecordings(text, path, flags.format)
  // A Claude Code session viewed as anthropic is imported natively (thinking, images, result blocks).
  const nativeFormat = flags.viewFormat === 'anthropic' && loaded.format === 'claude-code' ? 'anthropic' : undefined
  if (nativeFormat !== undefined) loaded = { ...loaded, recordings: [importClaudeCodeSession(text, path, { native: true })] }
  let recordings = loaded.recordings
  if (flags.session !== undefined) {
    recordings = recordings.filter((recording) => recording.session === flags.session)
    if (recordings.length === 0) {
      const names = loaded.recordings.map((recording) => recording.session).filter((name) => name !== undefined)
      const known = names.length === 0 ? 'it holds a single unnamed session' : `sessions: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`
      throw new UsageError(`--session ${flags.session}: not in ${path} (${known})`)
    }
  }
  const preset = flags.preset === undefined ? null : toPreset(flags.preset)
  const fileConfig = flags.config === undefined ? null : readConfigFile(flags.config)
  const settings = flags.set.map(parseSetting)
  const budget = override ?? (loaded.format === 'claude-code' ? { kind: 'window' as const, ...CLAUDE_CODE_WINDOW } : null)

  const prepared = recordings.map((recording) => {
    const decoded = decodeConfig(mergeConfig(recording.config, preset, fileConfig, settings))
    if (isLeft(decoded)) throw new UsageError(decoded.left.message)
    let ready = applyBudgetOverride(recording, budget)
    if (flags.summarizer !== 'recorded') ready = withoutSummaryResults(ready)
    if (flags.summarizer === 'extractive') ready = withSummarizerProvider(ready)
    return { recording: ready, config: decoded.right.config, warnings: decoded.right.warnings }
  })
  for (const warning of prepared[0]?.warnings ?? []) io.stderr(`warning: ${warning.message}\n`)

  const totalOps = prepared.reduce((sum, item) => sum + item.recording.ops.length, 0)
  const bar = showProgress && flags.progress && io.isTty ? new SingleBar({ format: 'replaying [{bar}] {percentage}% | {value}/{total} ops', stream: process.stderr }, Presets.shades_classic) : null
  bar?.start(totalOps, 0)
  const sessions: ReplayedSession[] = []
  let done = 0
  for (const item of prepared) {
    const estimate = makeCachedEstimator()
    const iterator = iterateReplay(item.recording, { config: item.config, estimate, ...(nativeFormat !== undefined ? { format: nativeFormat } : {}) }, {
      summarizer: flags.summarizer === 'extractive' ? extractiveSummarizer : undefined,
    })
    let next = iterator.next()
    while (next.done !== true) {
      done += 1
      if (bar !== null && done % 50 === 0) bar.update(done)
      next = iterator.next()
    }
    sessions.push({ session: item.recording.session ?? null, recording: item.recording, config: item.config, result: next.value, estimate })
  }
  bar?.update(totalOps)
  bar?.stop()

  // Warnings the core logged while replaying (an unparseable compact_clear_at_least, a notice
  // reserve that swallows the budget, ...), each distinct message once, with its count.
  const warnings = new Map<string, number>()
  for (const { result } of sessions) for (const log of result.logs) if (log.type === 'log' && log.level === 'warning') warnings.set(log.message, (warnings.get(log.message) ?? 0) + 1)
  const shown = [...warnings].slice(0, 10)
  for (const [message, count] of shown) io.stderr(`warning: ${message}${count > 1 ? ` (${count} times)` : ''}\n`)
  if (warnings.size > shown.length) io.stderr(`warning: … and ${warnings.size - shown.length} more distinct warnings\n`)

  return { path, format: loaded.format, budget, sessions }
}

/**
 * Add the flags every replaying command shares to `command` (input format, configuration
 * precedence, budget, summarizer, progress bar) and return it.
 *
 * @example
 * addReplayOptions(program.command('report').argument('[file]')).requiredOption('--html <file>')
 */
export const addReplayOptions = (command: Command): Command =>
  command
    .addOption(new Option('--format <format>', 'input format').choices(['auto', 'recording', 'claude-code', 'openai-chat']).default('auto'))
    .option('--preset <name>', 'named configuration: reference, recommended, recommended-summary (over the recording header)')
    .option('--config <file>', 'JSON file of configuration keys (over the recording header and --preset)')
    .option('--set <key=value>', 'one configuration key (repeatable; value parsed as JSON when it parses)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--window <tokens>', 'model context window for every request (with --max-output)')
    .option('--max-output <tokens>', 'model max output tokens for every request (with --window)')
    .option('--budget <tokens>', 'explicit token budget for every request')
    .addOption(new Option('--summarizer <mode>', 'summary answers: recorded lines, none, or a local extractive stand-in').choices(['recorded', 'none', 'extractive']).default('recorded'))
    .option('--session <id>', 'only this session of a multi-session input (<task_id>-t<trial>)')
    .option('--no-progress', 'no progress bar')
