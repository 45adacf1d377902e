/**
 * Time limits on calls into caller code (SPEC 17.9 "No hangs"): a call that does not settle
 * within `callTimeoutMs` rejects with `TimeoutError`, so the queue moves on.
 */
import { TimeoutError } from '../core/errors.js'

/**
 * The default limit on each call into caller code, in milliseconds (`callTimeoutMs`).
 *
 * @example
 * DEFAULT_CALL_TIMEOUT_MS // => 30000
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000

/**
 * Runs `run` (sync or async) and resolves with its result, or rejects with its error, or with
 * `TimeoutError(operation, timeoutMs)` when it has not settled after `timeoutMs` milliseconds. The
 * late result of a timed-out call is ignored. A `timeoutMs` that is undefined, not finite or not
 * positive means no limit. The timer never keeps the process alive.
 *
 * @example
 * const provider = { getModelInfo: async () => ({ context_window: 200_000 }) }
 * await withTimeLimit(() => provider.getModelInfo(), 30_000, 'provider.getModelInfo()') // => { context_window: 200_000 }
 */
export const withTimeLimit = <T>(run: () => T | PromiseLike<T>, timeoutMs: number | undefined, operation: string): Promise<T> => {
  let result: Promise<T>
  try {
    result = Promise.resolve(run())
  } catch (error) {
    return Promise.reject(error)
  }
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return result
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(operation, timeoutMs)), timeoutMs)
    timer.unref?.()
    result.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
