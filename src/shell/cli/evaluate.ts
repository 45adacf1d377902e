/**
 * What `replay` and `compare` share: expanding input paths, reading inputs into recordings,
 * layering the configuration, the budget and summarizer choices, the model (prices, window,
 * cache rules), and running one session through the replay fold with the provider model.
 */
import { makeEstimatorFor, makeProviderCounter } from '../estimators.js'
import { readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { isLeft, isRight } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../core/codecs.js'
import type { Config } from '../../core/config.js'
import type { CoreDeps } from '../../core/deps.js'
import type { CacheProvider } from '../../core/economics/cache.js'
import { toSessionMetrics, type OverflowLimit, type SessionMetrics } from '../../core/economics/metrics.js'
import type { ModelPrice, ModelTable, ModelWindow } from '../../core/economics/prices.js'
import type { UsageMode } from '../../core/economics/simulation.js'
import type { ViewShape } from '../../core/events.js'
import { makeCachedEstimator, type TokenEstimator } from '../../core/meter/estimate.js'
import { toExtractiveSummary } from '../../core/summary/extractive-summary.js'
import type { Log } from '../../core/effects.js'
import { seqOf } from '../../core/messages/message.js'
import type { Recording } from '../../core/replay/recording.js'
import { iterateReplay, type ReplayPeer, type ReplayResult, type ReplaySummarizer } from '../../core/replay/replay.js'
import { lookupModel, toCacheProvider } from '../economics-data.js'
import { loadRecordings, type InputFormat, type InputFormatChoice } from '../importers/detect.js'
import { readTextFile } from '../read-text.js'
import { applyBudgetOverride, mergeConfig, UsageError, type BudgetOverride } from './options.js'
import { countWarningLogs } from './core-warnings.js'

/**
 * Claude Code sessions replay against Claude's window unless a budget is given (tokens; with the
 * default `output_reserve_fraction` 0.5 the budget is 200000 − 32000 − 4096 = 163904, SPEC 4).
 *
 * @example
 * CLAUDE_CODE_WINDOW.contextWindow // => 200000
 */
export const CLAUDE_CODE_WINDOW = { contextWindow: 200_000, maxOutputTokens: 64_000 }

const INPUT_FILE = /\.(jsonl|json)(\.gz)?$/

/** Whether `path` is a directory (through a link too); an unreadable entry is not, so reading it reports why. */
const isFolder = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * The input files named by `paths`: a file as given; a directory contributes its `*.jsonl` and
 * `*.json` files (also gzipped, `.gz`), not recursively (a subfolder is skipped whatever its
 * name, `x.jsonl` too), sorted by name. Throws `UsageError` for a path that does not exist or a
 * directory without such files.
 *
 * @example
 * expandInputs(['fixtures/sessions/claude-code']) // ['fixtures/sessions/claude-code/4d5611e5-….jsonl.gz', …]
 */
export const expandInputs = (paths: ReadonlyArray<string>): ReadonlyArray<string> =>
  paths.flatMap((path) => {
    let isDirectory: boolean
    try {
      isDirectory = statSync(path).isDirectory()
    } catch (error) {
      throw new UsageError(`${path}: cannot read the file (${(error as Error).message})`)
    }
    if (!isDirectory) return [path]
    // By what stat says, not the name: a folder named x.jsonl is a folder (not read: not recursive).
    const files = readdirSync(path)
      .filter((name) => INPUT_FILE.test(name) && !isFolder(join(path, name)))
      .sort()
      .map((name) => join(path, name))
    if (files.length === 0) throw new UsageError(`${path}: the directory holds no *.jsonl or *.json input files`)
    return files
  })

/**
 * Reads one input file into recordings (format detected unless given; `options` as
 * `loadRecordings` takes them: the model and window table of a Codex rollout). Throws `UsageError` for
 * an unreadable file and `RecordingFormatError` for one that is not a known format.
 *
 * @example
 * readInput('fixtures/sessions/claude-code/short.jsonl', 'auto').format // => 'claude-code'
 */
export const readInput = (
  path: string,
  format: InputFormatChoice,
  options: { readonly model?: string | null; readonly windows?: ModelTable<ModelWindow> } = {},
): { readonly format: InputFormat; readonly recordings: ReadonlyArray<Recording> } => loadRecordings(readInputText(path), path, format, options)

/**
 * The text of one input file (gunzipped when compressed). Throws `UsageError` naming the path: for
 * a directory (give one of its files; `replay` and `compare` also take directories), or for a file
 * that cannot be read (with the system's reason).
 *
 * @example
 * const text = readInputText('fixtures/sessions/claude-code/short.jsonl')
 */
export const readInputText = (path: string): string => {
  try {
    return readTextFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EISDIR') throw new UsageError(`${path}: is a directory; give one of its session files (replay and compare also take a directory)`)
    throw new UsageError(`${path}: cannot read the file (${(error as Error).message})`)
  }
}

/**
 * The configuration layers above the recording header: a preset, a `--config` object, the
 * `--set` pairs (applied in that order).
 *
 * @example
 * const layers: ConfigLayers = { preset: { compaction_strategy: 'summary' }, file: null, settings: [['target_usage', 0.4]] }
 */
export interface ConfigLayers {
  readonly preset: Readonly<Record<string, unknown>> | null
  readonly file: Readonly<Record<string, unknown>> | null
  readonly settings: ReadonlyArray<readonly [string, unknown]>
}

/**
 * How a run replays: input format, budget override, summary answers, provider model (`usage`
 * null = none: the contract's replay), `--model`, and the model tables.
 *
 * @example
 * const options: RunOptions = { format: 'auto', budget: null, summarizer: 'recorded', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }
 */
export interface RunOptions {
  readonly format: InputFormatChoice
  readonly budget: BudgetOverride | null
  readonly summarizer: 'recorded' | 'none' | 'extractive'
  readonly usage: UsageMode | null
  readonly model: string | null
  readonly prices: ModelTable<ModelPrice>
  readonly windows: ModelTable<ModelWindow>
}

/**
 * One session ready to replay: the recording with the budget and summarizer choices applied, its
 * decoded configuration and warnings, its name (`basename` or `basename#<session>`), the model and
 * what follows from it (cache rules, prices, the overflow limit), and whether a recorded reading bills
 * the stored history (`ReplayUsage.readingsBillHistory`: an imported session's readings do; a
 * recording's bill its own manager's views, the stored history only while this replay reproduces that
 * manager: the recording's own configuration and budgets).
 *
 * @example
 * const options: RunOptions = { format: 'auto', budget: null, summarizer: 'recorded', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }
 * const prepared = prepareSessions('fixtures/sessions/claude-code/short.jsonl', readInput('fixtures/sessions/claude-code/short.jsonl', 'auto'), { preset: null, file: null, settings: [] }, options)[0]
 * prepared.name // => 'short.jsonl'
 * prepared.limit // => { kind: 'window', tokens: 200000 }
 * prepared.readingsBillHistory // => true
 */
export interface PreparedSession {
  readonly recording: Recording
  readonly original: Recording
  readonly readingsBillHistory: boolean
  readonly config: Config
  readonly warnings: ReadonlyArray<Log>
  readonly name: string
  readonly model: string | null
  readonly provider: CacheProvider
  readonly price: ModelPrice | null
  readonly limit: OverflowLimit
}

/**
 * `--summarizer extractive`: answers each summary request at once with `toExtractiveSummary` of
 * the messages it absorbs.
 *
 * @example
 * const history: Messages = [{ role: 'user', content: 'book a flight', metadata: { _seq: 0 } }, { role: 'assistant', content: 'done', metadata: { _seq: 1 } }]
 * const request: RequestSummary = { type: 'request_summary', id: 'summary-1', seqs: [0, 1], messageCount: 2, transcript: '', prompt: 'Summarize.', promptPath: null, model: null, timeoutSeconds: 30 }
 * extractiveSummarizer(request, history) // => { text: '[user] book a flight\n[assistant] done' }
 */
export const extractiveSummarizer: ReplaySummarizer = (request, history) => {
  const wanted = new Set(request.seqs)
  return { text: toExtractiveSummary(history.filter((message) => wanted.has(seqOf(message) ?? -1))) }
}

/**
 * The local stand-in is a summarizer provider: every request is marked as passing one (SPEC 2.3
 * step 2).
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request' }, { op: 'summary_result', text: 'a summary' }] }
 * withSummarizerProvider(recording).ops[1] // => { op: 'get_messages_for_request', provider: {} }
 */
export const withSummarizerProvider = (recording: Recording): Recording => ({
  ...recording,
  ops: recording.ops.map((op) => (op.op === 'get_messages_for_request' && (op.provider === undefined || op.provider === null) ? { ...op, provider: {} } : op)),
})

/**
 * The recording without its `summary_result` lines (`--summarizer none|extractive`).
 *
 * @example
 * const recording: Recording = { config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request' }, { op: 'summary_result', text: 'a summary' }] }
 * withoutSummaryResults(recording).ops.some((op) => op.op === 'summary_result') // => false
 */
export const withoutSummaryResults = (recording: Recording): Recording => ({ ...recording, ops: recording.ops.filter((op) => op.op !== 'summary_result') })

/** The `context_window` of the recording's first request that carries one (tokens), or null. */
const recordedWindow = (recording: Recording): number | null => {
  for (const op of recording.ops) {
    if (op.op === 'get_messages_for_request' && typeof op.provider?.context_window === 'number') return op.provider.context_window
  }
  return null
}

/** Session file names are shown without a storage `.gz`. */
const displayName = (path: string): string => basename(path).replace(/\.gz$/, '')

/**
 * Prepares every session of one input: configuration layers over its header (a wrongly typed
 * value throws `UsageError` naming the key), the budget (Claude Code sessions default to
 * `CLAUDE_CODE_WINDOW`), the summarizer choice, and the model: `--model`, else the session's own,
 * resolved in the tables (unknown: no prices; cache rules by name, else by input format).
 * Overflows count against E when `--budget` is given, else the model window (`--window`, Claude
 * Code's default window, a Codex rollout's recorded window, the window table), else E.
 *
 * @example
 * const options: RunOptions = { format: 'auto', budget: null, summarizer: 'recorded', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }
 * const path = 'fixtures/sessions/claude-code/short.jsonl'
 * prepareSessions(path, readInput(path, 'auto'), { preset: null, file: null, settings: [] }, options).length // => 1
 */
export const prepareSessions = (
  path: string,
  loaded: { readonly format: InputFormat; readonly recordings: ReadonlyArray<Recording> },
  layers: ConfigLayers,
  options: RunOptions,
): ReadonlyArray<PreparedSession> => {
  const budget = options.budget ?? (loaded.format === 'claude-code' ? { kind: 'window' as const, ...CLAUDE_CODE_WINDOW } : null)
  return loaded.recordings.map((recording) => {
    const decoded = decodeConfig(mergeConfig(recording.config, layers.preset, layers.file, layers.settings))
    if (isLeft(decoded)) throw new UsageError(decoded.left.message)
    let ready = applyBudgetOverride(recording, budget)
    if (options.summarizer !== 'recorded') ready = withoutSummaryResults(ready)
    if (options.summarizer === 'extractive') ready = withSummarizerProvider(ready)
    const model = options.model ?? recording.model ?? null
    const window = lookupModel(options.windows, model)
    // A Codex rollout's requests carry the window Codex used (its model_context_window).
    const recorded = loaded.format === 'codex' ? recordedWindow(recording) : null
    const limit: OverflowLimit =
      budget?.kind === 'budget'
        ? { kind: 'budget' }
        : budget?.kind === 'window'
          ? { kind: 'window', tokens: budget.contextWindow }
          : recorded !== null
            ? { kind: 'window', tokens: recorded }
            : window !== null
              ? { kind: 'window', tokens: window.context_window }
            : { kind: 'budget' }
    return {
      recording: ready,
      original: recording,
      readingsBillHistory: loaded.format !== 'recording' || reproducesRecording(recording, ready, decoded.right.config),
      config: decoded.right.config,
      // a misspelled key in --set, --config or the header warns here as it does in the constructor
      warnings: [...decoded.right.warnings, ...decoded.right.unknownKeys.map((unknown): Log => ({ type: 'log', level: 'warning', message: unknown.message }))],
      name: recording.session === undefined ? displayName(path) : `${displayName(path)}#${recording.session}`,
      model,
      provider: toCacheProvider(model, loaded.format === 'claude-code' ? 'anthropic' : 'openai'),
      price: lookupModel(options.prices, model),
      limit,
    }
  })
}

/**
 * Whether `ready` (the recording with the budget and summarizer choices applied) replayed under
 * `config` is the recording's own manager again: the same operations, and the configuration its header
 * decodes to. Only then does a view equal to the stored history mean that manager sent that history,
 * so that its reading bills it (docs/recording-format.md: a recording's readings are its manager's).
 */
const reproducesRecording = (recording: Recording, ready: Recording, config: Config): boolean => {
  const own = decodeConfig(recording.config)
  return isRight(own) && isDeepStrictEqual(own.right.config, config) && isDeepStrictEqual(recording.ops, ready.ops)
}

/**
 * The provider model's counter (`makeProviderCounter`) for `mode`. Under `simulated` the bills are
 * made from this count, so a missing optional gpt-tokenizer package is a `UsageError` naming the
 * fix (the provider model must not count with the meter's own estimators: docs/evaluation.md,
 * "The provider model"). Under `recorded` the bills are the recorded readings, so without the
 * package it is `undefined` and the replay counts the rest (views without a reading, the cache
 * split) with the configuration's estimator: `replay`, whose default is `recorded`, runs with
 * nothing else installed. `load` gives the tokenizer (default: the package).
 *
 * @example
 * toProviderCount('recorded', () => { throw new Error('Cannot find module gpt-tokenizer') }) // => undefined
 */
export const toProviderCount = (mode: UsageMode, load?: () => (text: string) => number): TokenEstimator | undefined => {
  try {
    return makeProviderCounter(load).count
  } catch (error) {
    if (mode === 'recorded') return undefined
    // the loader's cause, not loadTokenizer's ConfigError: no configuration key is at fault here
    const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error)
    throw new UsageError(
      `compare, report, demo and replay --usage simulated bill every view with the provider model, which counts with the optional package gpt-tokenizer (never with the meter's own estimator): npm install gpt-tokenizer (${cause.message.split('\n')[0]})`,
    )
  }
}

const toReplayUsage = (mode: UsageMode, provider: CacheProvider): { readonly mode: UsageMode; readonly provider: CacheProvider; readonly count?: TokenEstimator } => {
  const count = toProviderCount(mode)
  return count === undefined ? { mode, provider } : { mode, provider, count }
}

/**
 * Replays one prepared session (the provider model on when `options.usage` is set); `onOp` is
 * called after every operation (for progress); `deps` may replace the estimator or set the
 * manager's message format; `peer` measures another policy's views in place of the library's
 * (`ReplayPeer`, used by `npm run evaluation`); `options.shape` has the core make each request's
 * view in that shape (`ReplayResult.shaped`, as `replay --view-format` prints it).
 *
 * @example
 * const options: RunOptions = { format: 'auto', budget: null, summarizer: 'recorded', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }
 * const prepared = prepareSessions('fixtures/sessions/claude-code/short.jsonl', readInput('fixtures/sessions/claude-code/short.jsonl', 'auto'), { preset: null, file: null, settings: [] }, options)[0]
 * runSession(prepared, options).lines.length // => 2
 */
export const runSession = (
  session: PreparedSession,
  options: Pick<RunOptions, 'summarizer' | 'usage'> & { readonly shape?: ViewShape },
  onOp?: () => void,
  deps: Partial<Omit<CoreDeps, 'config'>> = {},
  peer?: ReplayPeer,
): ReplayResult => {
  const iterator = iterateReplay(session.recording, { estimate: makeEstimatorFor(session.config), ...deps, config: session.config }, {
    summarizer: options.summarizer === 'extractive' ? extractiveSummarizer : undefined,
    ...(peer !== undefined ? { peer } : {}),
    ...(options.shape !== undefined ? { shape: options.shape } : {}),
    ...(options.usage !== null ? { usage: { ...toReplayUsage(options.usage, session.provider), readingsBillHistory: session.readingsBillHistory } } : {}),
  })
  let next = iterator.next()
  while (next.done !== true) {
    onOp?.()
    next = iterator.next()
  }
  return next.value
}

/**
 * The compare figures of one session (`metrics`: `toSessionMetrics` of its replay under the
 * provider model) and the warnings the core logged in that replay (`warnings`: each distinct
 * message with its count, `countWarningLogs`).
 *
 * @example
 * const options: RunOptions = { format: 'auto', budget: null, summarizer: 'recorded', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }
 * const prepared = prepareSessions('fixtures/sessions/claude-code/short.jsonl', readInput('fixtures/sessions/claude-code/short.jsonl', 'auto'), { preset: null, file: null, settings: [] }, options)[0]
 * evaluateSession(prepared, options).metrics.requests // => 2
 * evaluateSession(prepared, options).warnings // => []
 */
export const evaluateSession = (
  session: PreparedSession,
  options: Pick<RunOptions, 'summarizer' | 'usage'>,
): { readonly metrics: SessionMetrics; readonly warnings: ReadonlyArray<readonly [string, number]> } => {
  const result = runSession(session, options)
  return { metrics: toSessionMetrics(result, session.original, session.limit, session.price), warnings: countWarningLogs(result.logs) }
}
