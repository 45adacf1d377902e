/**
 * The effect runner: interprets the core's effects (hooks, logs, spill writes, summaries) and
 * feeds their answers back as events through `dispatch`. Logs go to a `Logger` (logger.ts).
 */
import type { Effect } from '../core/effects.js'
import type { Event } from '../core/events.js'
import type { HookBus } from './hooks.js'
import type { Provider } from './provider.js'
import type { SpillWriter } from './spill-fs.js'
import type { Summarizer } from './summarizer.js'
import { describeValue } from '../core/messages/json-value.js'
import { DEFAULT_CALL_TIMEOUT_MS, withTimeLimit } from './time-limit.js'
import { consoleLogger, describeError, type Logger } from './logger.js'

/**
 * Hands an answer event back to the manager. It enqueues the event (never applies it reentrantly);
 * the manager's dispatch returns a promise that resolves once the event has been applied and its
 * effects have run. A runner must never await it from inside `run` (the manager is waiting for
 * `run` to finish before it applies queued events); background work may await it.
 *
 * @example
 * const events: Array<Event> = []
 * const dispatch: Dispatch = (event) => { events.push(event) }
 * await dispatch({ type: 'spill_written', path: '/tmp/spill/tool-result-000001-0123456789abcdef.txt' })
 * events.length // => 1
 */
export type Dispatch = (event: Event) => void | Promise<void>

/**
 * Interprets effects. The manager calls `run` for every effect of a step, in order, awaiting each;
 * answers (`spill_written`/`spill_failed`, `summary_call_started`/`summary_completed`/
 * `summary_failed`) go back through `dispatch`. `run` should not reject (the manager logs a
 * rejection and goes on). `setProvider`, when present, receives the provider the summary strategy
 * caches (SPEC 2.3 step 2), or null when `clear`/`setMessages` forget it.
 *
 * @example
 * const runner: EffectRunner = { run: async (effect) => { console.log(effect.type) } }
 */
export interface EffectRunner {
  readonly run: (effect: Effect, dispatch: Dispatch) => Promise<void>
  readonly setProvider?: (provider: Provider | null) => void
}

/**
 * What the default runner uses; every member is optional (see `makeDefaultRunner`).
 *
 * @example
 * makeDefaultRunner({ hooks: makeMittHooks(), logger: silentLogger, spill: makeMemorySpillWriter() })
 */
export interface DefaultRunnerOptions {
  readonly hooks?: HookBus
  readonly logger?: Logger
  readonly spill?: SpillWriter
  readonly summarizer?: Summarizer
  /** Time limit of each hook emit in milliseconds (default 30,000; SPEC 17.9 `callTimeoutMs`). */
  readonly callTimeoutMs?: number
}

/**
 * The default runner, with the provider cache and a way to wait for background summaries.
 * `idle()` resolves when no summarization started by this runner is still running.
 *
 * @example
 * const runner: DefaultRunner = makeDefaultRunner({})
 * runner.setProvider({ getModelInfo: () => ({ context_window: 200_000 }) })
 * await runner.idle()
 */
export interface DefaultRunner extends EffectRunner {
  readonly setProvider: (provider: Provider | null) => void
  readonly idle: () => Promise<void>
}

/**
 * The default effect interpreter:
 * - `emit_hook` → `await hooks.emit(name, data)`; nothing when there is no bus; any exception or
 *   rejection (including a bus without `emit`), or an emit that has not settled within
 *   `callTimeoutMs`, is logged as a warning and swallowed (SPEC 9, 17.9);
 * - `log` → the logger at the effect's level (default logger: `consoleLogger`);
 * - `write_spill` → `await spill.write(directory, path, content)` (bounded by `callTimeoutMs`),
 *   then dispatch `spill_written` (written or already there) or `spill_failed` with the error
 *   text (also when no writer is configured); awaited, so the call that spills waits for its
 *   writes (SPEC 17.9);
 * - `request_summary` → starts the summarization in the background and returns at once (never
 *   blocks a request): with no provider it dispatches `summary_failed`; otherwise it dispatches
 *   `summary_call_started`, waits for the manager to apply it (the core emits
 *   `context:pre_summarize` then), calls `summarizer.summarize(request, provider, signal)` and
 *   dispatches `summary_completed` with the text or `summary_failed` with the error (also when no
 *   summarizer is configured, when it does not settle within `summarization_timeout_s`, or when
 *   its answer is not a non-empty string, SPEC 17.9);
 * - `cancel_summary` → aborts that id's signal and forgets it: nothing more is dispatched for it;
 * - `raise_error` → nothing (the manager throws it as a typed error).
 *
 * @example
 * const runner = makeDefaultRunner({ hooks: makeMittHooks(), spill: makeMemorySpillWriter() })
 * await runner.run({ type: 'log', level: 'info', message: 'hello' }, () => {})
 */
export const makeDefaultRunner = (options: DefaultRunnerOptions = {}): DefaultRunner => {
  const logger = options.logger ?? consoleLogger
  const inFlight = new Map<string, AbortController>()
  const tasks = new Set<Promise<void>>()
  let provider: Provider | null = null

  const summarize = async (
    effect: Extract<Effect, { type: 'request_summary' }>,
    dispatch: Dispatch,
    signal: AbortSignal,
  ): Promise<void> => {
    const { id } = effect
    const cached = provider
    if (cached === null) {
      dispatch({ type: 'summary_failed', id, error: 'no provider is cached for summarization' })
      return
    }
    await dispatch({ type: 'summary_call_started', id })
    if (signal.aborted) return
    try {
      if (options.summarizer === undefined) throw new Error('no summarizer is configured')
      const summarizer = options.summarizer
      // The summarizer is caller code too: bounded by summarization_timeout_s (SPEC 12.3, 17.9).
      const text: unknown = await withTimeLimit(
        () =>
          summarizer.summarize(
            {
              id,
              prompt: effect.prompt,
              promptPath: effect.promptPath,
              transcript: effect.transcript,
              model: effect.model,
              timeoutSeconds: effect.timeoutSeconds,
            },
            cached,
            signal,
          ),
        effect.timeoutSeconds * 1000,
        `summarizer.summarize() for ${id}`,
      )
      // SPEC 17.9: an answer that is not a non-empty string is a failed summary (12.7).
      if (typeof text !== 'string' || text === '') throw new Error(`the summarizer answered ${describeValue(text)}, not a non-empty string`)
      if (!signal.aborted) dispatch({ type: 'summary_completed', id, text })
    } catch (error) {
      if (!signal.aborted) dispatch({ type: 'summary_failed', id, error: describeError(error) })
    }
  }

  const run = async (effect: Effect, dispatch: Dispatch): Promise<void> => {
    switch (effect.type) {
      case 'emit_hook': {
        const hooks = options.hooks
        if (hooks === undefined || hooks === null) return
        try {
          if (typeof hooks.emit !== 'function') throw new TypeError('the hook bus has no emit')
          await withTimeLimit(() => hooks.emit(effect.name, effect.data), options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, `hook ${effect.name}`)
        } catch (error) {
          logger.warning(`context-simple: hook ${effect.name} failed: ${describeError(error)}; the request goes on (callTimeoutMs bounds each listener)`)
        }
        return
      }
      case 'log':
        logger[effect.level](effect.message)
        return
      case 'write_spill': {
        // Awaited (SPEC 17.9): the call that spills waits for its own writes, so its view never
        // points at a file that is not there yet or was refused; a write that does not finish
        // within callTimeoutMs counts as failed.
        const spill = options.spill
        let answer: Event
        try {
          if (spill === undefined) throw new Error('no spill writer is configured')
          await withTimeLimit(() => spill.write(effect.directory, effect.path, effect.content), options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, `the spill write of ${effect.path}`)
          answer = { type: 'spill_written', path: effect.path }
        } catch (error) {
          answer = { type: 'spill_failed', path: effect.path, error: describeError(error) }
        }
        await dispatch(answer)
        return
      }
      case 'request_summary': {
        inFlight.get(effect.id)?.abort()
        const controller = new AbortController()
        inFlight.set(effect.id, controller)
        const task: Promise<void> = summarize(effect, dispatch, controller.signal)
          .catch((error: unknown) => logger.warning(`context-simple: summarization ${effect.id} failed: ${describeError(error)}; the next pass compacts progressively (compaction_strategy "summary", summarization_timeout_s)`))
          .finally(() => {
            if (inFlight.get(effect.id) === controller) inFlight.delete(effect.id)
            tasks.delete(task)
          })
        tasks.add(task)
        return
      }
      case 'cancel_summary': {
        const controller = inFlight.get(effect.id)
        inFlight.delete(effect.id)
        controller?.abort()
        return
      }
      case 'raise_error':
        return
      default: {
        const unknownEffect: never = effect
        logger.warning(`context-simple: unknown effect ${JSON.stringify(unknownEffect)}`)
      }
    }
  }

  const idle = async (): Promise<void> => {
    while (tasks.size > 0) await Promise.allSettled([...tasks])
  }

  return {
    run,
    setProvider: (next) => {
      provider = next
    },
    idle,
  }
}
