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

/** Objects and arrays `freezeJson` froze deeply: the shell's own, immutable JSON values. */
const owned = new WeakSet<object>()

/**
 * True for an object or array the shell owns: frozen deeply by `freezeJson` (a stored message, a
 * view message), so it can be shared instead of copied or validated again. An object the caller
 * froze is not owned (its nested values may still change).
 *
 * @example
 * const manager = new ContextManager()
 * await manager.addMessage({ role: 'user', content: 'hi' })
 * const [stored] = await manager.getMessages()
 * isOwnedJson(stored) // => true
 * isOwnedJson(Object.freeze({ role: 'user', content: 'hi' })) // => false
 */
export const isOwnedJson = (value: object): boolean => owned.has(value)

/**
 * Deep copy of JSON-like data: plain objects and arrays copied, other values shared. A subtree the
 * shell owns (`isOwnedJson`) is shared as it is: it is frozen deeply, so it cannot change.
 *
 * @example
 * const own = copyJson({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
 */
export const copyJson = <T>(value: T): T => {
  if (!isPlainData(value) || owned.has(value)) return value
  if (Array.isArray(value)) return (hasOnlyScalars(value) ? value.slice() : value.map(copyJson)) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    // A key named __proto__ (as JSON.parse makes it) stays an ordinary key.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copyJson(value[key]), enumerable: true, writable: true, configurable: true })
    else out[key] = copyJson(value[key])
  }
  return out as T
}

/** True when no item of `items` is an object or array (copyJson keeps such items as they are): a copy is then `slice()`, holes kept as `map` keeps them. */
const hasOnlyScalars = (items: ReadonlyArray<unknown>): boolean => {
  for (let i = 0; i < items.length; i += 1) if (typeof items[i] === 'object' && items[i] !== null) return false
  return true
}

/**
 * Freezes one object or array whose members are owned or not objects (a decoder's fresh copy,
 * sealed children first: `JsonValueOptions.seal`) and makes it owned, as `freezeJson` would,
 * without walking its members again.
 *
 * @example
 * const copy = { role: 'user', content: 'hi' }
 * ownFrozen(copy)
 * Object.isFrozen(copy) // => true
 */
export const ownFrozen = (copy: object): void => {
  Object.freeze(copy)
  owned.add(copy)
}

/**
 * Freezes plain objects and arrays of `value` deeply, in place, and returns it. Stops at frozen
 * subtrees the shell already owns, so freezing a message whose parts are owned costs O(its new
 * objects). Everything it froze is owned afterwards (`isOwnedJson`).
 *
 * @example
 * Object.isFrozen(freezeJson({ role: 'user', content: 'hi' })) // => true
 */
export const freezeJson = <T>(value: T): T => {
  if (!isPlainData(value) || owned.has(value)) return value
  Object.freeze(value)
  owned.add(value)
  if (Array.isArray(value)) for (const item of value) freezeJson(item)
  else for (const key of Object.keys(value)) freezeJson(value[key])
  return value
}
