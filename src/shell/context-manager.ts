/**
 * The context manager embedders use: an async class around the pure core. It holds the only
 * mutable cell (the core `State`), applies one event at a time from a FIFO queue, and runs effects.
 */
import { isLeft, type Either } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../core/codecs.js'
import type { Config, ContextConfig } from '../core/config.js'
import type { CoreDeps, TokenEstimator } from '../core/deps.js'
import type { Effect, RaiseError } from '../core/effects.js'
import { CompactionSkipLimitError, ConfigError, ContextLengthError, InvalidMessageError, InvalidRequestError, SnapshotError, TimeoutError } from '../core/errors.js'
import { makeCachedEstimator } from '../core/meter/estimate.js'
import type { Event, SpillFailed, SpillWritten } from '../core/events.js'
import type { Message, MessageInput } from '../core/messages/message.js'
import type { LlmResponsePayload } from '../core/meter/usage.js'
import { toRecordedUsage } from '../core/meter/usage.js'
import type { RecordingOp } from '../core/replay/recording.js'
import { makeStep } from '../core/reducer.js'
import type { MessageFormat } from '../core/formats/carrier.js'
import { isProviderFormat, PROVIDER_FORMATS } from '../core/formats/carrier.js'
import { toNativeHistory, validateFormatMessage, type FormatView } from '../core/formats/dispatch.js'
import { findMessageRefusals, resolveProviderRules } from '../core/formats/input-rules.js'
import { decodeSnapshot, toSnapshot, type Snapshot } from '../core/snapshot/codec.js'
import { selectResumeEffects } from '../core/snapshot/resume.js'
import type { State } from '../core/state.js'
import { makeInitialState } from '../core/state.js'
import type { CompactionStats, TokenMeterStats } from '../core/stats.js'
import type { Step } from '../core/step.js'
import { isPlainObject, isPresent, isTruthy } from '../core/messages/values.js'
import type { Clock } from './clock.js'
import { formatTimestamp, systemClock } from './clock.js'
import { describeValue } from '../core/messages/json-value.js'
import { DEFAULT_CALL_TIMEOUT_MS, withTimeLimit } from './time-limit.js'
import { copyJson as copy, freezeJson, isOwnedJson, ownFrozen } from './json-values.js'
import { JOB_CONTEXT } from './job-context.js'
import { decodeMessage, decodeMessages, toProblemText, type JsonValueProblem } from '../core/messages/json-value.js'
import type { HookBus } from './hooks.js'
import type { Provider } from './provider.js'
import { readProviderWindow } from './provider.js'
import type { Recorder } from './recorder.js'
import type { Dispatch, EffectRunner } from './runner.js'
import type { Logger } from './logger.js'
import { makeDefaultRunner } from './runner.js'
import { consoleLogger, describeError } from './logger.js'
import type { SpillWriter } from './spill-fs.js'
import { makeRuntimeSpillWriter } from './spill-fs.js'
import type { Summarizer } from './summarizer.js'
import { makeProviderSummarizer } from './summarizer.js'
import { makeEstimatorFor } from './estimators.js'
import { toRaisedError } from './raised-errors.js'
import { isAppendable, sliceFrom, toPlainArray } from '../core/messages/appendable.js'

/**
 * The worth-the-rebuild fail-loud error (SPEC 14.4), thrown by `getMessagesForRequest` when the
 * core raises it (a `raise_error` effect); `message` is the core's message and `name` is
 * `'CompactionSkipLimitError'`. It is the class of `src/core/errors.ts`, re-exported here. The
 * manager stays usable afterwards. `InvalidMessageError` (a message that is not a JSON object)
 * and `InvalidRequestError` (a bad `tokenBudget` or `provider`) reject the call they concern
 * before anything is stored or applied; their `field` names the argument. `SnapshotError`
 * rejects `ContextManager.restore` for a snapshot it cannot restore; nothing is restored then.
 *
 * @example
 * const manager = new ContextManager()
 * try { await manager.getMessagesForRequest() } catch (e) { if (e instanceof CompactionSkipLimitError) console.error(e.message) }
 */
export { CompactionSkipLimitError, ContextLengthError, InvalidMessageError, InvalidRequestError, SnapshotError }

/**
 * The system prompt factory (SPEC 2.6): returns the system prompt text, possibly asynchronously.
 *
 * @example
 * const factory: SystemPromptFactory = async () => 'You are a careful assistant.'
 * await new ContextManager().setSystemPromptFactory(factory)
 */
export type SystemPromptFactory = () => string | Promise<string>

/**
 * A reducer: the pure core step (`makeStep(deps)` from `src/core/reducer.ts`).
 *
 * @example
 * const step: StepFunction = makeStep({ config: DEFAULT_CONFIG, estimate: makeCachedEstimator() })
 */
export type StepFunction = (state: State, event: Event) => Step

/**
 * Collaborators of a manager; all optional.
 * - `hooks`: the hook bus events are emitted on (none: nothing is emitted);
 * - `clock`: time source (default `systemClock`);
 * - `runner`: effect interpreter; when given, `hooks`, `spillWriter` and `summarizer` are not used
 *   (the runner does that work). Default: `makeDefaultRunner` with these options;
 * - `logger`: for log effects, configuration warnings and runner failures (default `consoleLogger`);
 * - `estimator`: pure token estimator (default: the one `token_estimator` names, `makeEstimatorFor`; SPEC 5);
 * - `spillWriter`: default `makeRuntimeSpillWriter()` (files on Node, Deno and Bun; docs/runtimes.md); `summarizer`: default `makeProviderSummarizer`;
 * - `recorder`: receives every input as a recording op, in the order applied (a `makeRecorder` recorder
 *   made for another format than this manager's is refused: `InvalidRequestError`, field `recorder`);
 * - `makeStep`: builds the reducer from the core dependencies (default: the core's `makeStep`);
 *   for tests and alternative cores;
 * - `callTimeoutMs`: time limit, in milliseconds, of each call into caller code (SPEC 17.9;
 *   default 30,000, `DEFAULT_CALL_TIMEOUT_MS`; `Infinity` for none; not a configuration key). A
 *   provider read that times out counts as one that threw (the next budget source, with a
 *   warning); a system prompt factory that times out rejects the request with `TimeoutError` and
 *   applies nothing; a hook emit that times out is abandoned with a warning. Later calls proceed.
 *
 * @example
 * new ContextManager({}, { clock: fixedClock('2026-01-01T00:00:00.000+00:00'), logger: silentLogger, spillWriter: makeMemorySpillWriter() })
 */
export interface ContextManagerOptions<F extends MessageFormat = MessageFormat> {
  /**
   * The format of the messages this manager is given and of the views it returns by default
   * (docs/formats.md): `contract` (default; the contract shape, behaviour unchanged),
   * `anthropic`, `openai-chat`, `openai-responses` or `ai-sdk`.
   */
  readonly format?: F
  /**
   * Opt-in pairing repair of provider-format views (`repairToolPairing`): a call that will never
   * be answered gets a synthesized `[no result recorded]` result, an orphan result is dropped.
   * Default false. Not applied to contract-format views.
   */
  readonly repair?: boolean
  readonly hooks?: HookBus | null
  readonly clock?: Clock
  readonly runner?: EffectRunner
  readonly logger?: Logger
  readonly estimator?: TokenEstimator
  readonly spillWriter?: SpillWriter
  readonly summarizer?: Summarizer
  readonly recorder?: Recorder
  readonly makeStep?: (deps: CoreDeps) => StepFunction
  readonly callTimeoutMs?: number
}

/**
 * Arguments of `getMessagesForRequest`: `tokenBudget` in tokens (null/absent: from the provider or
 * `max_tokens`, SPEC 4), `provider` the provider of this request (its window is read; the summary
 * strategy caches it for summarization).
 *
 * @example
 * const options: RequestOptions = { tokenBudget: 50_000 }
 * await new ContextManager().getMessagesForRequest({ tokenBudget: options.tokenBudget }) // => []
 */
export interface RequestOptions<V extends MessageFormat = MessageFormat> {
  readonly tokenBudget?: number | null
  readonly provider?: Provider | null
  /**
   * The shape of this view (docs/formats.md); default: the manager's format. Any format may be
   * asked for whatever the manager's input format (thinking blocks exist only in their own
   * format).
   */
  readonly format?: V
}

/**
 * What a hook handler returns to the host: the `llm:response` listener always continues.
 *
 * @example
 * const result: HookResult = await new ContextManager().onLlmResponse({ usage: { input_tokens: 10 } })
 * result // => { action: 'continue' }
 */
export interface HookResult {
  readonly action: 'continue'
}

/**
 * The message as a recording should carry it: with the timestamp `add_message` stamps (SPEC 1.4)
 * already in its metadata, so a replay on a fixed clock stores exactly what the live session stored.
 */
const stampedForRecording = (message: Message, timestamp: string): Message => {
  if (!isPlainObject(message)) return message
  const meta = isTruthy(message.metadata) && isPlainObject(message.metadata) ? message.metadata : {}
  if (isPresent(meta, 'timestamp')) return message
  return { ...message, metadata: { ...meta, timestamp } }
}

/** How the shell decodes a caller's message: what it owns already is shared, each copied object is frozen and owned as it is made (one walk). */
const DECODE_OWN = { share: isOwnedJson, seal: ownFrozen } as const

/**
 * The library's own, frozen copy of a message or message list (SPEC 17.9), or the typed error
 * naming the first problem (before anything is stored). Messages the shell already owns (stored
 * and frozen) are shared, not walked again.
 */
const ownOrThrow = <T>(decoded: Either<ReadonlyArray<JsonValueProblem>, T>): T => {
  if (isLeft(decoded)) throw new InvalidMessageError(decoded.left[0]?.path ?? 'message', toProblemText(decoded.left), decoded.left)
  return freezeJson(decoded.right)
}

/** A queued unit of work; jobs run strictly one after another. */
type Job = () => Promise<void>

/** The description of the token of a job that applies an answer of background work. */
const ANSWER_JOB = 'answer'

/**
 * Freezes the messages the last step stored: the core appends to the history (or replaces it),
 * so the unfrozen ones are a tail; walking back stops at the first frozen message. O(new messages).
 */
const freezeStoredTail = (history: ReadonlyArray<Message>): void => {
  for (let index = history.length - 1; index >= 0 && !Object.isFrozen(history[index]); index -= 1) freezeJson(history[index])
}

/** A frozen view in fresh containers: a new array of the frozen messages (Anthropic: a new object with a new `messages` array and, when blocks, `system`). */
const toFreshContainers = (view: unknown): unknown => {
  if (Array.isArray(view)) return [...view]
  if (view !== null && typeof view === 'object') {
    const { system, messages, ...rest } = view as { system?: unknown; messages?: unknown }
    return { ...rest, ...(system === undefined ? {} : { system: Array.isArray(system) ? [...system] : system }), messages: Array.isArray(messages) ? [...messages] : messages }
  }
  return view
}

/**
 * The context manager (SPEC 2): stores the conversation, builds the view for each model request,
 * meters tokens, compacts, spills and summarizes, emitting the contract's hook events.
 *
 * Every public call is queued: calls are applied one at a time in call order (the order applied is
 * the order recorded), each step's effects run in order before the next queued item starts, and
 * answers from background work (spill results, summaries) are queued the same way. The core state is
 * replaced, never mutated, so `state` is a consistent value. `snapshot()` saves the whole session
 * as JSON and `ContextManager.restore` builds a manager from it (in another process, say).
 *
 * Construction decodes `config` (the contract's snake_case keys, SPEC 3; typed `ContextConfig`, so
 * a misspelled key fails `tsc`) and throws the decoder's `ConfigError` when a value has the wrong
 * type. Each unknown key logs one warning through `options.logger.warning`, synchronously, naming
 * the closest known key (`strict: true` makes the first one a `ConfigError` with its `key`);
 * fallback warnings are logged as the first queued work.
 *
 * @example
 * const manager = new ContextManager({ max_tokens: 100_000 }, { hooks: makeMittHooks() })
 * await manager.addMessage({ role: 'user', content: 'hello' })
 * const view = await manager.getMessagesForRequest({ tokenBudget: 50_000 })
 * manager.lastTokenMeterStats?.used_tokens
 */
export class ContextManager<F extends MessageFormat = 'contract'> {
  #state: State = makeInitialState()
  /** The last `state` getter answer (the core state with a plain history) and the state it was made of. */
  #publicState: { readonly core: State; readonly state: State } | null = null
  /** The last contract view `#freezeView` froze (its messages are frozen). */
  #lastFrozenView: ReadonlyArray<Message> | null = null
  readonly #format: F
  readonly #repair: boolean
  readonly #warned = new Set<string>()
  readonly #config: Config
  readonly #step: StepFunction
  readonly #runner: EffectRunner
  readonly #logger: Logger
  readonly #clock: Clock
  readonly #recorder: Recorder | null
  readonly #queue: Array<Job> = []
  #draining = false
  #currentJob: symbol | null = null
  readonly #jobContext = JOB_CONTEXT
  readonly #callTimeoutMs: number
  /** Spill answers dispatched by the running call, applied at its end as one `spills_answered` event (SPEC 17.9). */
  readonly #spillAnswers: Array<SpillWritten | SpillFailed> = []
  #pending = 0
  #factory: SystemPromptFactory | null = null
  #lastRecordedPrompt: string | null = null
  /** Set by `restore`: outstanding work of the snapshot (a summary in flight) is requested again. */
  #resumePending = false
  readonly #customRunner: boolean
  readonly #hasHooks: boolean

  constructor(config: ContextConfig = {}, options: ContextManagerOptions<F> = {}) {
    const format = options.format ?? 'contract'
    if (format !== 'contract' && !isProviderFormat(format)) {
      throw new InvalidRequestError('format', `expected "contract" or one of ${PROVIDER_FORMATS.map((name) => JSON.stringify(name)).join(', ')}, got ${describeValue(format)}`)
    }
    if (options.recorder?.format !== undefined && options.recorder.format !== format) {
      // its header would name the recorder's format, and a replay would read this manager's messages as that format's
      throw new InvalidRequestError(
        'recorder',
        `the recorder writes a recording of ${JSON.stringify(options.recorder.format)} messages, this manager holds ${JSON.stringify(format)} messages; ` +
          `make it with makeRecorder(config, { format: ${JSON.stringify(format)} }) (docs/recording-and-replay.md)`,
      )
    }
    this.#format = format as F
    this.#repair = options.repair === true
    const decoded = decodeConfig(config)
    if (isLeft(decoded)) throw decoded.left
    const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    if (typeof callTimeoutMs !== 'number' || Number.isNaN(callTimeoutMs) || callTimeoutMs <= 0) {
      throw new ConfigError('callTimeoutMs', `expected a positive number of milliseconds (Infinity for no limit), got ${describeValue(callTimeoutMs)} (a constructor option, not a configuration key)`)
    }
    this.#callTimeoutMs = callTimeoutMs
    this.#config = decoded.right.config
    this.#logger = options.logger ?? consoleLogger
    // unknown keys are reported at once, during construction (one warning each)
    for (const unknown of decoded.right.unknownKeys) this.#logger.warning(unknown.message)
    this.#clock = options.clock ?? systemClock
    this.#recorder = options.recorder ?? null
    this.#customRunner = options.runner !== undefined
    this.#hasHooks = options.hooks !== undefined && options.hooks !== null
    this.#step = (options.makeStep ?? makeStep)({
      config: this.#config,
      estimate: options.estimator ?? makeEstimatorFor(this.#config),
      ...(format === 'contract' ? {} : { format }),
    })
    this.#runner =
      options.runner ??
      makeDefaultRunner({
        hooks: options.hooks ?? undefined,
        logger: this.#logger,
        spill: options.spillWriter ?? makeRuntimeSpillWriter(),
        summarizer: options.summarizer ?? makeProviderSummarizer({ logger: this.#logger }),
        callTimeoutMs,
      })
    const warnings = decoded.right.warnings
    if (warnings.length > 0) {
      void this.#enqueue(async () => {
        for (const warning of warnings) await this.#runEffect(warning)
      })
    }
  }

  /** The format of the messages this manager is given (docs/formats.md). */
  get format(): F {
    return this.#format
  }

  /** The resolved configuration (SPEC 3), every key with its default filled in. */
  get config(): Config {
    return this.#config
  }

  /**
   * The current core state (read-only: the core's immutable value, shared, not copied; mutate
   * nothing reachable from it). Replaced after every applied event. Not JSON (sets); use
   * `snapshot()` to save a session. `history` is a plain array here (the core keeps an appendable
   * view, which `structuredClone` cannot copy): O(n) references copied on the first read after
   * the history changed, O(1) after that.
   */
  get state(): State {
    const state = this.#state
    if (!isAppendable(state.history)) {
      this.#publicState = null
      return state
    }
    if (this.#publicState?.core !== state) this.#publicState = { core: state, state: { ...state, history: toPlainArray(state.history) } }
    return this.#publicState.state
  }

  /**
   * The whole session as a JSON value `{version, config, state}` (history, sticky decisions,
   * meter, summary state, stats, predicate and replay state): resolves after every call made
   * before it has been applied, like `getMessages`. Called from inside a running job (a hook
   * listener, the prompt factory) it does not wait for that job: it resolves at once with the
   * state as it is then. The value is the caller's (copied); `JSON.stringify` it to store it and
   * pass the parsed value to `ContextManager.restore`. Not carried: the system prompt factory,
   * the options (hooks, runner, clock, ...), the provider cached for summaries, background work
   * in progress (spill writes; a summary in flight is requested again after the restore).
   * Linear in the size of the history.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.addMessage({ role: 'user', content: 'hi' })
   * const saved = JSON.stringify(await manager.snapshot())
   * const again = await ContextManager.restore(JSON.parse(saved), { hooks: makeMittHooks() })
   * const restored = await again.getMessages()
   * restored.length // => 1
   */
  snapshot(): Promise<Snapshot> {
    return this.#enqueue(async () => {
      const snapshot = toSnapshot(this.#config, this.#state, this.#format)
      // Stored messages are frozen: shared. Everything else is copied (small).
      const state: Record<string, unknown> = {}
      // toSnapshot made the history a new plain array already.
      for (const [name, value] of Object.entries(snapshot.state)) state[name] = name === 'history' ? value : copy(value)
      return { version: snapshot.version, format: snapshot.format, config: copy(snapshot.config), state: state as Snapshot['state'] }
    })
  }

  /**
   * Builds a manager from a `snapshot()` value (after `JSON.parse`): the configuration comes from
   * the snapshot, `options` are the constructor's second argument (hooks, runner, clock, ...).
   * The snapshot is copied, never kept. Call `setSystemPromptFactory` again if the session used
   * one. A summary that was in flight when the snapshot was taken is requested again, with the
   * same id and span, by the first `getMessagesForRequest` that passes a provider (any request
   * when `options.runner` is given), just before that request is applied; until then no new
   * summary is triggered. Rejects with `SnapshotError` (its `field` names the problem) for a
   * value that is not a snapshot, of another `version`, with a field of the wrong shape, or whose
   * fields disagree, or when `options.format` names another format than the snapshot's (omit it
   * to take the snapshot's format); nothing is created then.
   *
   * @example
   * const text = JSON.stringify(await new ContextManager().snapshot())
   * const manager = await ContextManager.restore(JSON.parse(text), { hooks: makeMittHooks() })
   */
  static async restore<F extends MessageFormat = 'contract'>(snapshot: unknown, options: ContextManagerOptions<F> = {}): Promise<ContextManager<F>> {
    const decoded = decodeSnapshot(copy(snapshot))
    if (isLeft(decoded)) throw decoded.left
    const format = decoded.right.format
    if (options.format !== undefined && options.format !== format) {
      throw new SnapshotError('snapshot.format', `the snapshot holds "${format}" messages but options.format is "${options.format}"; pass format: "${format}" (or omit it)`)
    }
    const manager = new ContextManager<F>(decoded.right.config, { ...options, format: format as F })
    for (const message of decoded.right.state.history) freezeJson(message)
    manager.#state = decoded.right.state
    manager.#resumePending = decoded.right.state.summary.inFlight !== null
    return manager
  }

  /** The meter stats of the last request (SPEC 10.6), or null before the first one / after `clear`. */
  get lastTokenMeterStats(): TokenMeterStats | null {
    return copy(this.#state.meter.stats)
  }

  /** The stats of the last accepted compaction (SPEC 6.7), or null when none since the last reset. */
  get lastCompactionStats(): CompactionStats | null {
    return copy(this.#state.compaction.stats)
  }

  /**
   * Appends a message to the history (SPEC 1.4): stamped with `metadata.timestamp` (module format,
   * from the clock at call time) when it has none, numbered with `_seq`. The library stores its
   * own frozen copy of the message's JSON value, taken at call time (SPEC 17.9, `decodeMessage`);
   * the caller's object is never mutated. Resolves once the message is stored and the step's
   * effects have run. Rejects with `InvalidMessageError` (`field` is the path of the first
   * problem, e.g. `message` or `message.content[1]`) when the value is not a JSON object or holds
   * something that is not JSON (a function, a class instance, a cycle, nesting deeper than
   * `MAX_JSON_DEPTH`, …) or a `metadata` that is not an object; nothing is stored then.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.addMessage({ role: 'user', content: 'hi' })
   */
  async addMessage(message: MessageInput): Promise<void> {
    const own = ownOrThrow(decodeMessage(message, 'message', DECODE_OWN))
    this.#requireFormat(own, 'message')
    const timestamp = formatTimestamp(this.#clock.now())
    return this.#enqueue(async () => {
      this.#checkProviderRules(own, 'message', this.#state.history)
      // The recording op (a stamped copy of the message) is made only when something records it.
      await this.#apply({ type: 'message_added', message: own, timestamp }, this.#recorder === null ? [] : [{ op: 'add_message', message: stampedForRecording(own, timestamp) }])
    })
  }

  /**
   * Builds the view for the next model request (SPEC 2.3). When its turn comes in the queue, reads
   * the provider's window (SPEC 4, `readProviderWindow`), awaits the system prompt factory if one is
   * set (a non-string result is converted with `String`), caches the provider for summarization
   * (summary strategy), then applies the request and returns the view: a new array of deeply
   * frozen messages shared with the manager (no copies; structuredClone one to change it).
   *
   * Throws `CompactionSkipLimitError` (after running the step's other effects) when the
   * worth-the-rebuild predicate fails loud (SPEC 14.4); rejects with the factory's error if the
   * factory throws; rejects with `InvalidRequestError` (field `tokenBudget` or `provider`) before
   * anything is applied when `tokenBudget` is not a finite number of tokens or `provider` is not
   * an object. The manager stays usable either way.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.addMessage({ role: 'user', content: 'hi' })
   * const provider: Provider = { getModelInfo: () => ({ context_window: 200_000, max_output_tokens: 8_192 }) }
   * const view = await manager.getMessagesForRequest({ provider })
   * view.length // => 1
   */
  async getMessagesForRequest(): Promise<FormatView<F>>
  async getMessagesForRequest(options: RequestOptions<never> & { readonly format?: undefined }): Promise<FormatView<F>>
  async getMessagesForRequest<V extends MessageFormat>(options: RequestOptions<V> & { readonly format: V }): Promise<FormatView<V>>
  async getMessagesForRequest(options: RequestOptions = {}): Promise<unknown> {
    if (options === null || typeof options !== 'object') {
      throw new InvalidRequestError('options', `expected an options object such as { tokenBudget: 50000 } (or nothing), got ${describeValue(options)}`)
    }
    const viewFormat: MessageFormat = options.format ?? this.#format
    if (viewFormat !== 'contract' && !isProviderFormat(viewFormat)) {
      throw new InvalidRequestError('format', `expected "contract" or one of ${PROVIDER_FORMATS.map((name) => JSON.stringify(name)).join(', ')}, got ${describeValue(viewFormat)}`)
    }
    const tokenBudget = options.tokenBudget ?? null
    const provider = options.provider ?? null
    if (tokenBudget !== null && (typeof tokenBudget !== 'number' || !Number.isFinite(tokenBudget))) {
      throw new InvalidRequestError('tokenBudget', `expected a finite number of tokens or null, got ${describeValue(tokenBudget)}`)
    }
    if (provider !== null && typeof provider !== 'object') {
      throw new InvalidRequestError('provider', `expected a provider object (getModelInfo/getInfo/complete), got ${describeValue(provider)}`)
    }
    return this.#enqueue(async () => {
      // SPEC 4 step 1: an explicit token budget wins; the provider is then not consulted.
      const window =
        provider !== null && tokenBudget === null
          ? await this.#callOut(() => readProviderWindow(provider, { warn: (message) => this.#logger.warning(message), timeoutMs: this.#callTimeoutMs }))
          : null
      const factory = this.#factory
      let systemPrompt: string | null = null
      if (factory !== null) {
        const result = await this.#callOut(() => withTimeLimit(factory, this.#callTimeoutMs, 'the system prompt factory'))
        systemPrompt = typeof result === 'string' ? result : String(result)
      }
      if (provider !== null && this.#config.compaction_strategy === 'summary') this.#runner.setProvider?.(provider)
      if (this.#resumePending && (provider !== null || this.#customRunner)) {
        this.#resumePending = false
        for (const effect of selectResumeEffects(this.#config, this.#state)) await this.#runEffect(effect)
      }
      const ops: Array<RecordingOp> = []
      if (systemPrompt !== null && systemPrompt !== this.#lastRecordedPrompt) {
        ops.push({ op: 'set_system_prompt', content: systemPrompt })
        this.#lastRecordedPrompt = systemPrompt
      }
      ops.push({
        op: 'get_messages_for_request',
        ...(tokenBudget === null ? {} : { token_budget: tokenBudget }),
        ...(provider === null ? {} : { provider: window ?? {} }),
      })
      const step = await this.#apply(
        {
          type: 'request_received',
          tokenBudget,
          provider: window,
          providerGiven: provider !== null,
          systemPrompt,
          now: formatTimestamp(this.#clock.now()),
          shape: { format: viewFormat, repair: this.#repair },
        },
        ops,
      )
      // The core made the view in the shape asked for (the finish stage, src/core/request/provider-view.ts):
      // here it is only thrown, frozen and handed over.
      const raised = step.effects.find((effect): effect is RaiseError => effect.type === 'raise_error')
      if (raised !== undefined) throw toRaisedError(raised)
      // (An alternative core, `options.makeStep`, that makes no output hands over its view as it is.)
      const output = 'output' in step ? step.output : step.view
      if (viewFormat === 'contract') {
        const view = (output ?? []) as Array<Message>
        this.#freezeView(view)
        return step.view === undefined ? [] : [...view]
      }
      // Frozen messages in fresh containers: the messages are shared (typed Readonly), the array
      // (and the Anthropic object) is the caller's own, as the SDKs' mutable parameter types say.
      return toFreshContainers(freezeJson(output))
    })
  }

  /**
   * The stored history (SPEC 2.2): a new array of the stored messages themselves (deeply frozen,
   * shared, never copied; mutating one throws a `TypeError`), in order, with `metadata.timestamp` and
   * `metadata._seq`; never compacted. Resolves after every call made before it has been applied.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.addMessage({ role: 'user', content: 'hi' })
   * const history = await manager.getMessages()
   * history[0].content // => 'hi'
   */
  getMessages(): Promise<Array<Message>> {
    return this.#enqueue(async () => {
      const format = this.#format as MessageFormat
      if (format === 'contract') return sliceFrom(this.#state.history, 0)
      return freezeJson(toNativeHistory(format, this.#state.history)) as Array<Message>
    })
  }

  /**
   * Freezes the messages of a contract view. The core extends the previous view between
   * compactions, so the messages it shares with the last view frozen here (same objects, same
   * places) are skipped by identity: O(view) pointer compares plus the new messages' freezing.
   */
  #freezeView(view: ReadonlyArray<Message>): void {
    const last = this.#lastFrozenView
    let start = 0
    if (last !== null) for (const end = Math.min(last.length, view.length); start < end && view[start] === last[start]; ) start += 1
    for (let index = start; index < view.length; index += 1) freezeJson(view[index])
    this.#lastFrozenView = view
  }

  /**
   * `provider_rules` at `addMessage` / `setMessages`: what the message alone shows a provider
   * would refuse is a warning (`"warn"`) or an `InvalidMessageError` (`"refuse"`, `"repair"`).
   */
  #checkProviderRules(message: Message, field: string, history: ReadonlyArray<Message> | null): void {
    const found = findMessageRefusals(this.#format, message, history)
    if (found.length === 0) return
    const mode = resolveProviderRules(this.#config.provider_rules, this.#format)
    if (mode !== 'warn') throw new InvalidMessageError(`${field}${found[0].path}`, `${found[0].detail}; fix: ${found[0].fix} (provider_rules "${mode}" refuses such a message)`)
    for (const problem of found) {
      this.#warnOnce(`context-simple: ${field}${problem.path}: ${problem.detail}. The message is stored as given (provider_rules "warn"); fix: ${problem.fix}, or set provider_rules: "refuse" to reject such messages`)
    }
  }

  /** Logs a warning once per manager (the same problem is found by every later request). */
  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return
    this.#warned.add(message)
    this.#logger.warning(message)
  }

  /** Rejects a message that is invalid in the manager's format (a no-op for the contract shape). */
  #requireFormat(message: Message, field: string): void {
    const problem = validateFormatMessage(this.#format, message)
    if (problem !== null) throw new InvalidMessageError(`${field}${problem.path}`, problem.detail)
  }

  /**
   * Replaces the history for session resume (SPEC 2.4): `_seq` renumbered from 0, no timestamps
   * added, compaction, meter and summary state reset (in-flight summaries cancelled, cached
   * provider forgotten). The library stores its own frozen copies, taken at call time (SPEC 17.9,
   * `decodeMessages`). Rejects with `InvalidMessageError` (`field` is the path of the first
   * problem: `messages`, `messages[i]` or `messages[3].content[1]`) when it is not an array of
   * messages `addMessage` would accept (holes included); the history is then unchanged.
   *
   * @example
   * const manager = new ContextManager()
   * const savedHistory = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]
   * await manager.setMessages(savedHistory)
   * const history = await manager.getMessages()
   * history.length // => 2
   */
  async setMessages(messages: ReadonlyArray<MessageInput>): Promise<void> {
    const own = ownOrThrow(decodeMessages(messages, 'messages', DECODE_OWN))
    own.forEach((message, index) => this.#requireFormat(message, `messages[${index}]`))
    own.forEach((message, index) => this.#checkProviderRules(message, `messages[${index}]`, null))
    return this.#enqueue(async () => {
      await this.#apply({ type: 'messages_replaced', messages: own }, [{ op: 'set_messages', messages: own }])
      this.#runner.setProvider?.(null)
    })
  }

  /**
   * Empties the history and resets the session state (SPEC 2.5); the factory and configuration are
   * kept, spill files are not deleted.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.clear()
   */
  clear(): Promise<void> {
    return this.#enqueue(async () => {
      await this.#apply({ type: 'history_cleared' }, [{ op: 'clear' }])
      this.#runner.setProvider?.(null)
    })
  }

  /**
   * Sets the system prompt factory (SPEC 2.6), or returns to static mode with a falsy value. Takes
   * effect for requests queued after this call. (A recording captures each distinct prompt as a
   * `set_system_prompt` op; a return to static mode cannot be expressed in a recording.)
   *
   * @example
   * const manager = new ContextManager()
   * await manager.setSystemPromptFactory(async () => 'You are a careful assistant.')
   */
  setSystemPromptFactory(factory: SystemPromptFactory | null | undefined): Promise<void> {
    return this.#enqueue(async () => {
      this.#factory = factory ? factory : null
      if (this.#factory === null) this.#lastRecordedPrompt = null
    })
  }

  /**
   * Host protocol: always `false` (compaction happens inside `getMessagesForRequest`, SPEC 2.7).
   *
   * @example
   * await new ContextManager().shouldCompact() // => false
   */
  async shouldCompact(): Promise<boolean> {
    return false
  }

  /**
   * Host protocol: does nothing (SPEC 2.7).
   *
   * @example
   * await new ContextManager().compact()
   */
  async compact(): Promise<void> {
    return undefined
  }

  /**
   * The `llm:response` listener (SPEC 10.2, 17.6, 17.10): records the provider's usage from
   * `data.usage`, which may be the contract's shape or the usage object of the Anthropic, OpenAI
   * (Chat or Responses) or AI SDK (v6, `LanguageModelV3Usage`, v5) clients, passed as is. The
   * reading shows in the next request's `lastTokenMeterStats.measured_tokens` (for Anthropic:
   * `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`). A recorder receives
   * the usage normalised to the contract shape. A malformed payload is ignored with a warning.
   * With `usage_intake: "foreground"` (docs/configuration.md) only payloads marked `foreground: true` (the
   * agent loop's own calls) are recorded; the others are observed and counted.
   * Never throws to the dispatcher; resolves `{ action: 'continue' }` once the reading is applied.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.onLlmResponse({ usage: { input_tokens: 1200, cache_write_tokens: 300 } }) // => { action: 'continue' }
   * // the usage of an Anthropic Message, an OpenAI ChatCompletion or an AI SDK generateText result as it comes:
   * await manager.onLlmResponse({ usage: { input_tokens: 1200, output_tokens: 50, cache_read_input_tokens: 900 } }) // => { action: 'continue' }
   * await manager.onLlmResponse({ usage: { prompt_tokens: 1200, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 900 } } }) // => { action: 'continue' }
   */
  async onLlmResponse(data: LlmResponsePayload): Promise<HookResult> {
    try {
      const own = copy(data)
      await this.#enqueue(async () => {
        await this.#apply({ type: 'usage_observed', data: own }, [{ op: 'llm_response', usage: toRecordedUsage(own) }])
      })
    } catch (error) {
      this.#logger.warning(`context-simple: could not record llm:response usage: ${describeError(error)}; the meter keeps its last count and the call returns "continue" (token_meter decides what the readings are used for)`)
    }
    return { action: 'continue' }
  }

  /**
   * Resolves when the queue is empty and the runner (if it offers `idle()`, as the default runner
   * does) has no background work left — e.g. a summary has been applied. For tests and shutdown.
   * Called from inside a running job (a hook listener, the system prompt factory), it resolves at
   * once instead (SPEC 17.9): the work queued before that job is already done, and waiting for
   * the job itself would never end. `snapshot()` from inside a job likewise runs at once and
   * saves the state as it is at that point of the job.
   *
   * @example
   * const manager = new ContextManager()
   * await manager.idle()
   */
  async idle(): Promise<void> {
    // Called from inside a running job (a hook listener, the prompt factory): everything queued
    // before that job has already run, and waiting for the job itself (or for background work it
    // may start) would never end (SPEC 17.9). So it resolves at once.
    // Without AsyncLocalStorage (src/shell/job-context.ts) a call during a background answer's
    // hooks may be anyone's: idle() then waits, as outside calls do (a listener of those hooks that
    // awaits idle() is released by callTimeoutMs).
    if (this.#isInsideJob() && (this.#jobContext.followsAsyncCalls || this.#currentJob?.description !== ANSWER_JOB)) return
    const runner = this.#runner as EffectRunner & { readonly idle?: () => Promise<void> }
    for (;;) {
      await this.#enqueue(true, async () => undefined)
      if (typeof runner.idle === 'function') await runner.idle()
      if (this.#pending === 0) return
    }
  }

  /** Answers from the runner: queued like any call; applied in turn; never rejects. */
  readonly #dispatch: Dispatch = (event: Event): Promise<void> => {
    // SPEC 17.9: the answers to the spill writes of the running call are applied at the end of
    // that call (so its view never points at a file that was not written); see #apply.
    if ((event.type === 'spill_written' || event.type === 'spill_failed') && this.#isInsideJob()) {
      this.#spillAnswers.push(event)
      return Promise.resolve()
    }
    return this.#enqueueAnswer(event)
  }

  /** An answer from background work: queued like any call; applied in turn; never rejects. */
  #enqueueAnswer(event: Event): Promise<void> {
    return this.#enqueue(true, async () => {
      await this.#apply(event, this.#answerOps(event))
    }).catch((error: unknown) => {
      this.#logger.warning(`context-simple: could not apply ${event.type}: ${describeError(error)}; the answer is dropped and the history is unchanged`)
    })
  }

  /** The recording op of an answer event: a summary answer for the in-flight request, else none. */
  #answerOps(event: Event): ReadonlyArray<RecordingOp> {
    if (event.type === 'spill_failed') return [{ op: 'spill_result', path: event.path, ok: false, error: event.error }]
    if (event.type !== 'summary_completed' && event.type !== 'summary_failed') return []
    if (this.#state.summary.inFlight !== event.id) return []
    return [event.type === 'summary_completed' ? { op: 'summary_result', text: event.text } : { op: 'summary_result', error: event.error }]
  }

  /** True while called from inside the running job (a hook listener, the prompt factory, a provider read). */
  #isInsideJob(): boolean {
    return this.#jobContext.isInside(this.#currentJob)
  }

  /** Queues `task`; resolves or rejects with its outcome once it has run in turn. */
  #enqueue<T>(task: () => Promise<T>): Promise<T>
  #enqueue<T>(alwaysQueue: true, task: () => Promise<T>): Promise<T>
  #enqueue<T>(first: boolean | (() => Promise<T>), second?: () => Promise<T>): Promise<T> {
    const task = (typeof first === 'function' ? first : second) as () => Promise<T>
    const alwaysQueue = first === true
    // A call made from inside the running job (a hook listener, the system prompt factory, a
    // provider read during the request) runs at once: queueing it behind the job that awaits it
    // would deadlock. Answers of background work (`alwaysQueue`) are always queued.
    if (!alwaysQueue && this.#isInsideJob()) return task()
    this.#pending += 1
    return new Promise<T>((resolve, reject) => {
      this.#queue.push(async () => {
        const token = Symbol(alwaysQueue ? ANSWER_JOB : 'job')
        this.#currentJob = token
        try {
          resolve(await this.#jobContext.run(token, task))
        } catch (error) {
          reject(error)
        } finally {
          this.#currentJob = null
          this.#pending -= 1
        }
      })
      void this.#drain()
    })
  }

  async #drain(): Promise<void> {
    if (this.#draining) return
    this.#draining = true
    try {
      for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) await job()
    } finally {
      this.#draining = false
    }
  }

  /** Reduces one event, replaces the state, records the ops, then runs the effects in order. */
  async #apply(event: Event, ops: ReadonlyArray<RecordingOp>): Promise<Step> {
    const step = this.#step(this.#state, event)
    this.#state = step.state
    freezeStoredTail(step.state.history)
    if (this.#recorder !== null) for (const op of ops) this.#recorder.record(op)
    for (const effect of step.effects) await this.#runEffect(effect)
    // A request that asked for spill writes gets its view made by the event that answers them.
    const shape = event.type === 'request_received' && step.view !== undefined && step.effects.some((effect) => effect.type === 'write_spill') ? event.shape : undefined
    if (this.#spillAnswers.length === 0 && shape === undefined) return step
    // SPEC 17.9: the spill writes of this call have been answered (the default runner awaits
    // them): the answers go through the core as one more event of this call, which gives back
    // its view without a pointer to a path that failed (and that view in the shape asked for).
    const answers = this.#spillAnswers.splice(0)
    const answered = await this.#apply(
      { type: 'spills_answered', answers, view: step.view, ...(shape !== undefined ? { shape } : {}) },
      answers.flatMap((answer) => this.#answerOps(answer)),
    )
    return { ...step, view: answered.view, effects: [...step.effects, ...answered.effects], ...('output' in answered ? { output: answered.output } : {}) }
  }

  /** Awaits caller code for the running job (see src/shell/job-context.ts: without AsyncLocalStorage, calls made meanwhile count as that code's). */
  #callOut<T>(call: () => Promise<T>): Promise<T> {
    return this.#jobContext.callOut(this.#currentJob, call)
  }

  /** Runs one effect; a runner failure is logged and does not stop the queue. */
  async #runEffect(effect: Effect): Promise<void> {
    // A problem every later request finds again is logged once per manager.
    if (effect.type === 'log' && effect.once === true) return this.#warnOnce(effect.message)
    try {
      // Effects that reach caller code: hook listeners, spill writers, anything a custom runner does.
      const callsOut = this.#customRunner || effect.type === 'write_spill' || (effect.type === 'emit_hook' && this.#hasHooks)
      await (callsOut ? this.#callOut(() => this.#runner.run(effect, this.#dispatch)) : this.#runner.run(effect, this.#dispatch))
    } catch (error) {
      this.#logger.warning(`context-simple: effect ${effect.type} failed: ${describeError(error)}; the request goes on without it (callTimeoutMs bounds each call into your code)`)
    }
  }
}
