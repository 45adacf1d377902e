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
