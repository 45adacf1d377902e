/**
 * JSON-like values the shell hands out or keeps: deep copies that stop at frozen subtrees, and
 * deep freezing, so stored messages are frozen once and then shared instead of copied.
 */

/** True for an object the shell copies and freezes: a plain object or an array. */
const isPlainData = (value: unknown): value is Record<string, unknown> | Array<unknown> => {
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) return true
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * Deep copy of JSON-like data: plain objects and arrays copied, other values shared. A frozen
 * subtree is shared as it is (the shell freezes only what it owns, deeply, so it cannot change).
 *
 * @example
 * const own = copyJson({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
 */
export const copyJson = <T>(value: T): T => {
  if (!isPlainData(value) || Object.isFrozen(value)) return value
  if (Array.isArray(value)) return value.map(copyJson) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    // A key named __proto__ (as JSON.parse makes it) stays an ordinary key.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copyJson(value[key]), enumerable: true, writable: true, configurable: true })
    else out[key] = copyJson(value[key])
  }
  return out as T
}

/**
 * Freezes plain objects and arrays of `value` deeply, in place, and returns it. Stops at frozen
 * subtrees, so freezing a message whose parts are already frozen costs O(its new objects).
 *
 * @example
 * Object.isFrozen(freezeJson({ role: 'user', content: 'hi' })) // true
 */
export const freezeJson = <T>(value: T): T => {
  if (!isPlainData(value) || Object.isFrozen(value)) return value
  Object.freeze(value)
  if (Array.isArray(value)) for (const item of value) freezeJson(item)
  else for (const key of Object.keys(value)) freezeJson(value[key])
  return value
}
