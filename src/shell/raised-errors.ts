/**
 * The table from the core's typed error effects to the error classes the shell throws
 * (docs/architecture.md, "The shell"): one entry per `RaiseError` name, checked by the compiler,
 * so a new typed error is a compile error here until it has its class.
 */
import type { RaiseError } from '../core/effects.js'
import { CompactionSkipLimitError, ContextLengthError, InvalidMessageError } from '../core/errors.js'

/**
 * The error of each `raise_error` effect, by its `name`: `CompactionSkipLimitError` (SPEC 14.4)
 * with the core's message, `ContextLengthError` (docs/contract.md 17.11) with its message and
 * `details` (tokens), `InvalidMessageError` (`provider_rules: "refuse"`) with its `field`.
 *
 * @example
 * RAISED_ERRORS.CompactionSkipLimitError({ type: 'raise_error', name: 'CompactionSkipLimitError', message: 'cap' }).name // => 'CompactionSkipLimitError'
 */
export const RAISED_ERRORS: { readonly [N in RaiseError['name']]: (effect: Extract<RaiseError, { readonly name: N }>) => Error } = {
  CompactionSkipLimitError: (effect) => new CompactionSkipLimitError(effect.message),
  ContextLengthError: (effect) => new ContextLengthError(effect.message, effect.details),
  InvalidMessageError: (effect) => new InvalidMessageError(effect.field, effect.message),
}

/**
 * The error `effect` stands for, through `RAISED_ERRORS`.
 *
 * @example
 * toRaisedError({ type: 'raise_error', name: 'CompactionSkipLimitError', message: 'cap' }) instanceof CompactionSkipLimitError // => true
 */
export const toRaisedError = (effect: RaiseError): Error => (RAISED_ERRORS[effect.name] as (effect: RaiseError) => Error)(effect)
