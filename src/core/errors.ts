/**
 * The project's typed errors. Messages name the field and the fix, formatted like
 * `config.compact_threshold: expected a number, got "high"`.
 */
import type { JsonValueProblem } from './messages/json-value.js'

/**
 * Invalid configuration, raised at construction (SPEC 3, 17.6). `key` is the config key.
 *
 * @example
 * new ConfigError('compact_threshold', 'expected a number, got "high"').message
 * // 'config.compact_threshold: expected a number, got "high"'
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`config.${key}: ${detail}`)
  }
}

/**
 * The worth-the-rebuild fail-loud error (SPEC 14.4): `compact_max_consecutive_skips` refusals in
 * a row. The message is the contract's exact text; the manager stays usable.
 *
 * @example
 * new CompactionSkipLimitError('context-simple: compact_clear_at_least=20000 could not be satisfied …')
 */
export class CompactionSkipLimitError extends Error {
  override readonly name = 'CompactionSkipLimitError'
}

/**
 * The breakdown a `ContextLengthError` carries, in estimator tokens: the view that could not be
 * returned, the request budget, the effective budget E and the irreducible floor (system,
 * protected messages, open tool group), so the caller can tell what to cut. Under
 * `token_meter: "calibrated"` (docs/contract.md 17.13) `view_tokens` is the view's billed count,
 * the one compared with the budget, and three keys say how it was made: `estimated_view_tokens`
 * (the estimate), `scale` and `overhead_tokens` (the model); the floor stays in estimator tokens.
 *
 * @example
 * const details: ContextLengthDetails = { view_tokens: 500367, budget: 100000, effective_budget: 99200, floor_tokens: 498000, system_tokens: 3000, protected_tokens: 495000, open_group_tokens: 0 }
 */
export interface ContextLengthDetails {
  readonly view_tokens: number
  readonly budget: number
  readonly effective_budget: number
  readonly floor_tokens: number
  readonly system_tokens: number
  readonly protected_tokens: number
  readonly open_group_tokens: number
  readonly estimated_view_tokens?: number
  readonly scale?: number
  readonly overhead_tokens?: number
}

/**
 * Raised by `getMessagesForRequest` under `strict_fit` (SPEC 17.11) when the view, after every
 * compaction the configuration allows, is still over the request budget. `details` holds the
 * breakdown. The failed call changes neither the history nor the sticky decisions; the manager
 * stays usable (add less, raise the budget, or lower `protected_recent` /
 * `protected_tool_results`).
 *
 * @example
 * const manager = new ContextManager({ strict_fit: true })
 * await manager.addMessage({ role: 'user', content: 'a question far longer than fifty tokens '.repeat(20) })
 * const floor = await manager.getMessagesForRequest({ tokenBudget: 50 }).then(() => null, (e) => (e instanceof ContextLengthError ? e.details.floor_tokens : null))
 * typeof floor // => 'number'
 */
export class ContextLengthError extends Error {
  override readonly name = 'ContextLengthError'
  constructor(
    message: string,
    readonly details: ContextLengthDetails,
  ) {
    super(message)
  }
}

/**
 * A value passed as a message that the library cannot store (SPEC 1.1, 17.9): not a JSON object,
 * or holding a value that is not JSON (function, symbol, BigInt, NaN or ±Infinity, `undefined` in
 * an array, a class instance, `Date` or `Map`, a cycle, a sparse array, a getter or Proxy that
 * throws, nesting deeper than `MAX_JSON_DEPTH`), or with a `metadata` that is not an object.
 * Raised before anything is stored, so the history is unchanged. `field` is the path of the first
 * problem (`message.content[1]` for `addMessage`, `messages[3].content[1]` for `setMessages`);
 * `problems` lists every problem found (at most 20), each with its `kind`, `path` and `detail`.
 *
 * @example
 * new InvalidMessageError('message', 'expected a message object such as {"role": "user", "content": "hi"}, got "hi"').message
 * // 'message: expected a message object such as {"role": "user", "content": "hi"}, got "hi"'
 */
export class InvalidMessageError extends Error {
  override readonly name = 'InvalidMessageError'
  constructor(
    readonly field: string,
    detail: string,
    readonly problems: ReadonlyArray<JsonValueProblem> = [],
  ) {
    super(`${field}: ${detail}`)
  }
}

/**
 * An invalid argument of a call: for `getMessagesForRequest`, the options must be an object (or
 * absent), `tokenBudget` a finite number of tokens (or absent/null), `provider` an object; for
 * `mount`, the coordinator an object with `mount` and its hooks a bus with `register`. Raised
 * before anything is applied; state unchanged. `field` names the argument.
 *
 * @example
 * new InvalidRequestError('tokenBudget', 'expected a finite number of tokens or null, got "lots"').message
 * // 'tokenBudget: expected a finite number of tokens or null, got "lots"'
 */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError'
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`)
  }
}

/**
 * A snapshot that cannot be restored (`ContextManager.restore`, `decodeSnapshot`): not a snapshot
 * object, of another `version`, a configuration or state field of the wrong shape, or fields that
 * disagree (e.g. a sticky decision naming a `_seq` that is not stored). `field` is the path, e.g.
 * `snapshot.state.compaction.sticky.removed`. Nothing is restored when it is raised.
 *
 * @example
 * new SnapshotError('snapshot.version', 'expected 1, got 2').message // => 'snapshot.version: expected 1, got 2'
 */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError'
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`)
  }
}

/**
 * A call into caller code that did not settle within its time limit (SPEC 17.9): a provider
 * read, the system prompt factory or a hook listener (`callTimeoutMs`), or a summarization
 * (`summarization_timeout_s`). `operation` names the call, `timeoutMs` is the limit in
 * milliseconds (`timeoutSeconds` the same in seconds). A prompt factory that times out rejects the
 * request with it (nothing is applied); provider reads and hook listeners that time out are logged
 * and abandoned; a summarization that times out is a failed summary.
 *
 * @example
 * new TimeoutError('the system prompt factory', 30000).message
 * // 'the system prompt factory did not settle within 30000 ms (callTimeoutMs)'
 */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError'
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    message = `${operation} did not settle within ${timeoutMs} ms (callTimeoutMs)`,
  ) {
    super(message)
  }

  /** The limit in seconds. */
  get timeoutSeconds(): number {
    return this.timeoutMs / 1000
  }
}
