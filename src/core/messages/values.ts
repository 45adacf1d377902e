/**
 * Small value predicates shared by the core: the contract's truthiness (SPEC 0) and plain-object
 * tests. Pure, no dependencies.
 */

/**
 * The contract's truthiness (SPEC 0): falsy is absent, `null`, `false`, `0`, `""`, an empty
 * array or an empty object (members whose value is `undefined` count as absent); everything else,
 * `NaN` included (as in Python), is truthy.
 *
 * @example
 * isTruthy([]) // => false
 * isTruthy({ a: 1 }) // => true
 */
export const isTruthy = (value: unknown): boolean => {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'object') {
    for (const key in value) if ((value as Record<string, unknown>)[key] !== undefined) return true
    return false
  }
  return true
}

/**
 * True for a non-null, non-array object (a JSON object).
 *
 * @example
 * isPlainObject({}) // => true
 * isPlainObject([]) // => false
 */
export const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * True when the key is an own property whose value is not `undefined` (SPEC 0 "present").
 *
 * @example
 * isPresent({ a: null }, 'a') // => true
 */
export const isPresent = (object: Readonly<Record<string, unknown>>, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key) && object[key] !== undefined

/**
 * Sets `record[key] = value` as an own enumerable data property, also for the key `__proto__`
 * (which plain assignment would turn into a prototype change). Mutates `record`; use it on
 * objects being built, never on shared state.
 *
 * @example
 * const names: Record<string, string> = {}
 * setOwn(names, '__proto__', 'bash') // Object.keys(names) → ['__proto__']
 */
export const setOwn = <T>(record: Record<string, T>, key: string, value: T): void => {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  else record[key] = value
}
