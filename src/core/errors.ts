/**
 * The project's typed errors. Messages name the field and the fix, formatted like
 * `config.compact_threshold: expected a number, got "high"`.
 */

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
 * A value passed as a message that is not a message: `addMessage` and `setMessages` take JSON
 * objects (SPEC 1.1; their shape is otherwise never validated). Raised before anything is stored,
 * so the history is unchanged. `field` names the argument, e.g. `messages[3]`.
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
  ) {
    super(`${field}: ${detail}`)
  }
}

/**
 * An invalid argument of `getMessagesForRequest`: `tokenBudget` must be a finite number of tokens
 * (or absent/null), `provider` an object. Raised before the request is applied; state unchanged.
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
 * `snapshot.state.sticky.removed`. Nothing is restored when it is raised.
 *
 * @example
 * new SnapshotError('snapshot.version', 'expected 1, got 2').message // 'snapshot.version: expected 1, got 2'
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
