/**
 * The replay pipeline shared by `replay`, `report` and `demo`: read an input file, decode it into
 * recordings, apply the configuration precedence and budget flags, and fold each session through
 * the pure core (with a progress bar on a terminal).
 */
import { makeEstimatorFor } from '../estimators.js'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config } from '../../core/config.js'
import type { CacheProvider } from '../../core/economics/cache.js'
import type { ModelPrice } from '../../core/economics/prices.js'
import type { UsageMode } from '../../core/economics/simulation.js'
import { makeCachedEstimator, type TokenEstimator } from '../../core/meter/estimate.js'
import type { Recording } from '../../core/replay/recording.js'
import type { ReplayResult } from '../../core/replay/replay.js'
import type { ProviderFormat } from '../../core/formats/carrier.js'
import { toStepDeps } from '../../core/reducer.js'
import { loadPriceTable, loadWindowTable } from '../economics-data.js'
import { importClaudeCodeSessions } from '../importers/claude-code.js'
import { INPUT_FORMAT_CHOICES, loadRecordings, type InputFormatChoice } from '../importers/detect.js'
import { readTextFile } from '../read-text.js'
import { CLAUDE_CODE_WINDOW, prepareSessions, readInputText, runSession } from './evaluate.js'
import { Option, Presets, SingleBar, type Command } from './libraries.js'

export { CLAUDE_CODE_WINDOW }
import { configurationLabel, keptHeaderKeys, keptHeaderNote, mergeConfig, parseSettings, parseTokenCount, toPreset, UsageError, type BudgetOverride } from './options.js'
import { countNoun } from '../count-noun.js'
import { addWarning, countWarningLogs, warningTallyLines, type WarningTally } from './core-warnings.js'

/**
 * Where the CLI writes: injectable for tests. `isTty` enables the progress bar (on stderr).
 *
 * @example
 * const out: Array<string> = []
 * const err: Array<string> = []
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
 * BUNDLED_SESSION.endsWith('sessions/claude-code-tool-heavy.jsonl') // => true
 */
export const BUNDLED_SESSION = resolve(dirname(fileURLToPath(import.meta.url)), '../../../sessions/claude-code-tool-heavy.jsonl')

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
  /** With `viewFormat`: the views repaired before they are converted and checked, as the manager option `repair: true` does. */
  readonly repair?: boolean
  /** `recorded` (replay's default) or `simulated` (report's default): the provider model. */
  readonly usage?: UsageMode
  readonly model?: string
  readonly prices?: string
  readonly windows?: string
}

/**
 * One replayed session: the recording as replayed (budget flags and summarizer choice applied),
 * its decoded configuration, the replay result, the estimator it counted with (in a provider format
 * the format's, as `toStepDeps` makes it), and its name (null for a
 * single-session input).
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const replayed = await replayInput('fixtures/sessions/claude-code/short.jsonl', { format: 'auto', set: [], summarizer: 'recorded', progress: false }, io, false)
 * const session: ReplayedSession = replayed.sessions[0]
 * session.result.lines.length // => 2
 * session.session // => null
 */
export interface ReplayedSession {
  readonly session: string | null
  readonly recording: Recording
  readonly config: Config
  readonly result: ReplayResult
  readonly estimate: TokenEstimator
  /** The model (`--model`, else the session's own; null when unknown), its cache rules and prices (null: no price known). */
  readonly model: string | null
  readonly provider: CacheProvider
  readonly price: ModelPrice | null
  /**
   * The recording as this session was replayed, self-contained (`replay --write-recording`): the
   * ops as replayed (budget flags and summarizer choice applied), `config` the merged
   * configuration layers, `format` the message format it was stored in. Replaying it with no flags
   * gives the same output lines.
   */
  readonly replayable: Recording
}

/**
 * A replayed input file: its path, detected format, the budget override in force (null: each
 * request's own budget), and its sessions in file order.
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const flags: ReplayInputFlags = { format: 'auto', set: [], summarizer: 'recorded', progress: false, usage: 'simulated' }
 * const replayed: ReplayedInput = await replayInput('fixtures/sessions/claude-code/short.jsonl', flags, io, false)
 * replayed.format // => 'claude-code'
 * replayed.sessions.length // => 1
 */
export interface ReplayedInput {
  readonly path: string
  readonly format: string
  readonly budget: BudgetOverride | null
  readonly usage: UsageMode
  readonly sessions: ReadonlyArray<ReplayedSession>
}

/**
 * The JSON object of configuration keys in the `--config` file at `path`. Throws `UsageError`
 * for an unreadable file, invalid JSON or a non-object.
 *
 * @example
 * import { writeFileSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const path = join(tmpdir(), 'context-simple-config-example.json')
 * writeFileSync(path, '{ "compact_threshold": 0.85 }')
 * readConfigFile(path) // => { compact_threshold: 0.85 }
 */
export const readConfigFile = (path: string): Record<string, unknown> => {
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

/**
 * The budget flags as an override: `--budget N`, or `--window W --max-output M`, or null. Throws
 * `UsageError` for both forms at once, half a window, or a value that is not a whole number.
 *
 * @example
 * toBudgetOverride({ budget: '4500' }) // => { kind: 'budget', tokens: 4500 }
 */
export const toBudgetOverride = (flags: Pick<ReplayInputFlags, 'budget' | 'window' | 'maxOutput'>): BudgetOverride | null => {
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

/**
 * The note `replay` prints when a meter that reads provider usage (`token_meter` other than
 * `"estimate"`) is fed the recorded readings (`--usage recorded`, replay's default) and the replay
 * compacted: each reading bills the request the agent sent, not the smaller view this replay sent
 * after its first compaction, so from there the meter counts a size no view has (docs/evaluation.md,
 * "The provider model"). Null when the readings still describe the views (no compaction, no
 * readings, the estimate meter, or `--usage simulated`). `firstCompaction` is the 0-based request.
 *
 * @example
 * recordedUsageNote({ usage: 'recorded', meter: 'calibrated', readings: 169, firstCompaction: 72 })?.startsWith('token_meter "calibrated"') // => true
 * recordedUsageNote({ usage: 'simulated', meter: 'calibrated', readings: 169, firstCompaction: 72 }) // => null
 */
export const recordedUsageNote = (facts: { readonly usage: UsageMode; readonly meter: Config['token_meter']; readonly readings: number; readonly firstCompaction: number | null }): string | null => {
  if (facts.usage !== 'recorded' || facts.meter === 'estimate' || facts.readings === 0 || facts.firstCompaction === null) return null
  return (
    `token_meter "${facts.meter}" reads the ${countNoun(facts.readings, 'recorded reading')} (--usage recorded, replay's default); they bill the requests the agent sent, ` +
    `not the smaller views this replay sent from request ${facts.firstCompaction} on (its first compaction), so from there the meter counts a size no view has. ` +
    'To see how this configuration behaves with a provider billing the views it sends, add --usage simulated (docs/evaluation.md, "The provider model")'
  )
}

/**
 * Read `file` (default: the bundled session), decode it, and replay each session with the flags'
 * configuration (header < `--preset` < `--config` < each `--set`) and budget. Configuration
 * warnings and the warnings the core logged go to stderr (each distinct message once, with its
 * count); `showProgress` allows the bar on a terminal. Throws `UsageError` for unreadable files,
 * bad flags or a `--session` the input does not hold, and the importers' typed errors for bad
 * input.
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const replayed = await replayInput('fixtures/sessions/claude-code/short.jsonl', { format: 'auto', set: ['target_usage=0.5'], summarizer: 'recorded', progress: false }, io, false)
 * replayed.sessions[0].config.target_usage // => 0.5
 */
export const replayInput = async (file: string | undefined, flags: ReplayInputFlags, io: CliIo, showProgress: boolean): Promise<ReplayedInput> => {
  const override = toBudgetOverride(flags)
  const path = file ?? BUNDLED_SESSION
  const text = readInputText(path)
  const windows = loadWindowTable(flags.windows)
  let loaded = loadRecordings(text, path, flags.format, { model: flags.model ?? null, windows })
  // A Claude Code session viewed as anthropic is imported natively (thinking, images, result blocks).
  const nativeFormat = flags.viewFormat === 'anthropic' && loaded.format === 'claude-code' ? 'anthropic' : undefined
  if (nativeFormat !== undefined) loaded = { ...loaded, recordings: importClaudeCodeSessions(text, path, { native: true }) }
  let recordings = loaded.recordings
  if (flags.session !== undefined) {
    recordings = recordings.filter((recording) => recording.session === flags.session)
    if (recordings.length === 0) {
      const names = loaded.recordings.map((recording) => recording.session).filter((name) => name !== undefined)
      const known = names.length === 0 ? 'it holds a single unnamed session' : `sessions: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`
      throw new UsageError(`--session ${flags.session}: not in ${path} (${known})`)
    }
  }
  const set = parseSettings(flags.set)
  const layers = {
    preset: flags.preset === undefined ? null : toPreset(flags.preset),
    file: flags.config === undefined ? null : readConfigFile(flags.config),
    settings: set.settings,
  }
  const usage = flags.usage ?? 'recorded'
  const options = {
    format: flags.format,
    budget: override,
    summarizer: flags.summarizer,
    usage,
    model: flags.model ?? null,
    prices: loadPriceTable(flags.prices),
    windows,
  }
  const prepared = prepareSessions(path, { format: loaded.format, recordings }, layers, options)
  for (const recording of recordings) for (const notice of recording.notices ?? []) io.stderr(`note: ${path}${recording.session === undefined ? '' : `#${recording.session}`}: ${notice}\n`)
  for (const warning of set.warnings) io.stderr(`warning: ${warning}\n`)
  // a preset or --config laid over a recording header leaves the keys it does not set at the header's values
  const label = configurationLabel([flags.preset, flags.config], set.shown)
  const kept = new Set(recordings.map((recording) => keptHeaderNote(path, label, keptHeaderKeys(recording.config, layers))))
  for (const note of kept) if (note !== null) io.stderr(`note: ${note}\n`)
  for (const warning of prepared[0]?.warnings ?? []) io.stderr(`warning: ${warning.message}\n`)

  const totalOps = prepared.reduce((sum, item) => sum + item.recording.ops.length, 0)
  const bar = showProgress && flags.progress && io.isTty ? new SingleBar({ format: 'replaying [{bar}] {percentage}% | {value}/{total} ops', stream: process.stderr }, Presets.shades_classic) : null
  bar?.start(totalOps, 0)
  const sessions: ReplayedSession[] = []
  let done = 0
  const onOp = (): void => {
    done += 1
    if (bar !== null && done % 50 === 0) bar.update(done)
  }
  for (const item of prepared) {
    const estimate = makeEstimatorFor(item.config)
    // --view-format: the core makes each view in that shape (the finish stage, src/core/request/provider-view.ts).
    const shape = flags.viewFormat === undefined ? undefined : { format: flags.viewFormat, repair: flags.repair === true }
    const result = runSession(item, { ...options, ...(shape !== undefined ? { shape } : {}) }, onOp, { estimate, ...(nativeFormat !== undefined ? { format: nativeFormat } : {}) })
    const format = nativeFormat ?? item.recording.format
    const { notices: _notices, model: _model, ...ops } = item.recording
    const replayable: Recording = { ...ops, config: mergeConfig(item.original.config, layers.preset, layers.file, layers.settings), ...(format !== undefined ? { format } : {}) }
    // what the replay counted with: in a provider format (a Codex rollout, a recording with a format)
    // the format's estimator, which counts a piece by its provider-ready form, not its metadata.native carrier
    const counted = toStepDeps({ config: item.config, estimate, ...(format !== undefined ? { format } : {}) }).estimate
    sessions.push({ session: item.recording.session ?? null, recording: item.recording, config: item.config, result, estimate: counted, model: item.model, provider: item.provider, price: item.price, replayable })
  }
  bar?.update(totalOps)
  bar?.stop()
  for (const { session, recording, config, result } of sessions) {
    const first = result.lines.findIndex((line) => line.compaction_stats !== null)
    const readings = recording.ops.filter((op) => op.op === 'llm_response' && op.usage != null).length
    const note = recordedUsageNote({ usage, meter: config.token_meter, readings, firstCompaction: first === -1 ? null : first })
    if (note !== null) io.stderr(`note: ${path}${session === null ? '' : `#${session}`}: ${note}\n`)
  }

  // Warnings the core logged while replaying (an unparseable compact_clear_at_least, a notice
  // reserve that swallows the budget, ...), each distinct message once, with its count.
  const tally = new Map<string, WarningTally>()
  for (const { result } of sessions) for (const [message, count] of countWarningLogs(result.logs)) addWarning(tally, message, count, null)
  for (const line of warningTallyLines(tally)) io.stderr(line)

  return { path, format: loaded.format, budget: override ?? (loaded.format === 'claude-code' ? { kind: 'window', ...CLAUDE_CODE_WINDOW } : null), usage, sessions }
}

/**
 * Add the flags every replaying command shares to `command` (input format, configuration
 * precedence, budget, summarizer, session, provider model with `usageDefault`, model tables,
 * progress bar) and return it. Internal to the CLI (not exported by the package, so it carries no
 * compiled example); src/shell/cli/main.ts calls it as
 * `addReplayOptions(program.command('report').argument('[file]')).requiredOption('--html <file>')`.
 */
export const addReplayOptions = (command: Command, usageDefault: UsageMode = 'recorded'): Command =>
  command
    .addOption(new Option('--format <format>', 'input format').choices([...INPUT_FORMAT_CHOICES]).default('auto'))
    .option('--preset <name>', 'named configuration: reference, recommended, recommended-summary, recommended-retention (over the recording header)')
    .option('--config <file>', 'JSON file of configuration keys (over the recording header and --preset)')
    .option('--set <key=value>', 'one configuration key (repeatable; value parsed as JSON when it parses)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--window <tokens>', 'model context window for every request (with --max-output)')
    .option('--max-output <tokens>', 'model max output tokens for every request (with --window)')
    .option('--budget <tokens>', 'explicit token budget for every request')
    .addOption(new Option('--summarizer <mode>', 'summary answers: recorded lines, none, or a local extractive stand-in').choices(['recorded', 'none', 'extractive']).default('recorded'))
    .option('--session <id>', 'only this session of a multi-session input (<task_id>-t<trial>; Claude Code <sessionId> or <sessionId>/<agentId>; a Codex rollout id)')
    .addOption(new Option('--usage <mode>', 'provider usage the meters see: recorded readings, or simulated from the views sent').choices(['recorded', 'simulated']).default(usageDefault))
    .option('--model <name>', "model for prices, window and cache rules (default: the session's own)")
    .option('--prices <file>', 'JSON price table (default: the bundled data/prices.json)')
    .option('--windows <file>', 'JSON window table (default: the bundled data/windows.json)')
    .option('--no-progress', 'no progress bar')
