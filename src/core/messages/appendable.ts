/**
 * Appendable lists (issue 14): immutable arrays that grow in O(items appended) instead of a copy
 * of every reference. The stored history is one, so `add_message` costs O(message size) at any
 * history length while every state keeps an array whose contents never change.
 *
 * How: versions of one lineage share an append-only buffer. A version is the first `length`
 * items of its buffer, seen through a read-only array view (`Array.isArray` is true; indexing,
 * `length`, iteration, the array methods and `JSON.stringify` work as on an array; writes throw a
 * `TypeError`). Appending to the version that ends at the buffer's end pushes onto the buffer;
 * appending to an older version (a branch: another state folded from the same past) copies its
 * items first. Items past a version's length are invisible to it, so no version ever changes:
 * the buffer is an implementation detail no reader, replay or snapshot can observe.
 *
 * Not supported on a view: `structuredClone` and `postMessage` (no proxy can be cloned; use
 * `toPlainArray` first, as `snapshot()` and the manager's `state` getter do).
 */

interface Version<T> {
  readonly buffer: T[]
  readonly length: number
}

const versions = new WeakMap<object, Version<unknown>>()

const readOnly = (): never => {
  throw new TypeError('context-simple: a stored history is immutable; copy it (toPlainArray or [...list]) to change it')
}

/** The index a property key names, or -1 for a key that is not a canonical array index. */
const toIndex = (key: string | symbol): number => {
  if (typeof key !== 'string' || key.length === 0 || key.length > 10) return -1
  const first = key.charCodeAt(0)
  if (first < 48 || first > 57 || (first === 48 && key.length > 1)) return -1
  const index = Number(key)
  return Number.isInteger(index) && String(index) === key ? index : -1
}

/** Node's `util.inspect` hook (a registered symbol: no import of Node's `util`). */
const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/**
 * The prototype of a view's target: the array prototype plus an inspect hook. `util.inspect` and
 * `console.log` format a proxy's target instead of going through its traps (calling the hook with
 * the view itself), so without it a view would print as `[]`.
 */
const VIEW_PROTOTYPE: object = Object.create(Array.prototype, {
  [INSPECT]: {
    value: function (this: unknown, _depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
      const version = typeof this === 'object' && this !== null ? versions.get(this) : undefined
      return inspect(version === undefined ? [] : version.buffer.slice(0, version.length), options)
    },
  },
})

const makeView = <T>(buffer: T[], length: number): ReadonlyArray<T> => {
  // The target is a never-touched array: it gives the view Array.isArray and the array
  // prototype; the traps answer every own property from the buffer's first `length` items.
  const target = Object.setPrototypeOf([], VIEW_PROTOTYPE) as T[]
  const view = new Proxy(target, {
    get: (object, key, receiver) => {
      if (key === 'length') return length
      const index = toIndex(key)
      if (index >= 0) return index < length ? buffer[index] : undefined
      return Reflect.get(object, key, receiver)
    },
    has: (object, key) => {
      const index = toIndex(key)
      return index >= 0 ? index < length : Reflect.has(object, key)
    },
    ownKeys: () => {
      const keys: Array<string | symbol> = []
      for (let index = 0; index < length; index += 1) keys.push(String(index))
      keys.push('length')
      return keys
    },
    getOwnPropertyDescriptor: (object, key) => {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false }
      const index = toIndex(key)
      if (index >= 0) return index < length ? { value: buffer[index], writable: false, enumerable: true, configurable: true } : undefined
      return Reflect.getOwnPropertyDescriptor(object, key)
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
    setPrototypeOf: readOnly,
    preventExtensions: readOnly,
  })
  versions.set(view, { buffer, length } as Version<unknown>)
  return view
}

const versionOf = <T>(list: ReadonlyArray<T>): Version<T> | undefined => versions.get(list) as Version<T> | undefined

/**
 * `list` followed by `items`, as an appendable list: O(items) when `list` is the newest version of
 * its lineage, otherwise (a plain array, or an older version) one copy of `list` first, after
 * which appends are O(items) again. `list` itself never changes. Returns `list` for no items.
 *
 * @example
 * const one = appendTo([], [{ role: 'user', content: 'hi' }])
 * const two = appendTo(one, [{ role: 'assistant', content: 'hello' }])
 * one.length // 1; two.length // 2; Array.isArray(two) // true
 */
export const appendTo = <T>(list: ReadonlyArray<T>, items: ReadonlyArray<T>): ReadonlyArray<T> => {
  if (items.length === 0) return list
  const version = versionOf(list)
  let buffer: T[]
  if (version !== undefined && version.buffer.length === version.length) buffer = version.buffer
  else buffer = version !== undefined ? version.buffer.slice(0, version.length) : list.slice()
  for (const item of items) buffer.push(item)
  return makeView(buffer, buffer.length)
}

/**
 * True when `list` is a view made by `appendTo` (not cloneable; `toPlainArray` gives a plain one).
 *
 * @example
 * isAppendable(appendTo([], [1])) // true
 * isAppendable([1]) // false
 */
export const isAppendable = (list: ReadonlyArray<unknown>): boolean => versions.has(list)

const plain = new WeakMap<object, ReadonlyArray<unknown>>()

/**
 * A plain array with the items of `list`: `list` itself when it is plain, otherwise one frozen
 * copy of its references, made once per version and shared. O(n) the first time, O(1) after.
 *
 * @example
 * structuredClone(toPlainArray(appendTo([], [1, 2]))) // [1, 2]
 */
export const toPlainArray = <T>(list: ReadonlyArray<T>): ReadonlyArray<T> => {
  const version = versionOf(list)
  if (version === undefined) return list
  let copy = plain.get(list) as ReadonlyArray<T> | undefined
  if (copy === undefined) {
    copy = Object.freeze(version.buffer.slice(0, version.length))
    plain.set(list, copy)
  }
  return copy
}

/**
 * The items of `list` from index `start` on (negative: from the end, as `slice`), as a new plain
 * array: O(items returned), without going through the view's traps.
 *
 * @example
 * sliceFrom(appendTo([1, 2], [3]), 1) // [2, 3]
 */
export const sliceFrom = <T>(list: ReadonlyArray<T>, start: number): T[] => {
  const version = versionOf(list)
  if (version === undefined) return list.slice(start)
  // As Array.prototype.slice: a negative start counts from the version's end, not the buffer's.
  const from = start < 0 ? Math.max(0, version.length + start) : Math.min(start, version.length)
  return version.buffer.slice(from, version.length)
}

/**
 * The last item of `list`, or undefined when it is empty: O(1).
 *
 * @example
 * lastOf(appendTo([1], [2])) // 2
 */
export const lastOf = <T>(list: ReadonlyArray<T>): T | undefined => {
  const version = versionOf(list)
  return version === undefined ? list[list.length - 1] : version.length === 0 ? undefined : version.buffer[version.length - 1]
}

/**
 * `list` with its last item replaced by `item`, as an appendable list: one copy of the references
 * (O(n)), since the versions sharing the buffer still hold the old item. `list` never changes.
 *
 * @example
 * replaceLast(appendTo([1], [2]), 3) // [1, 3]
 */
export const replaceLast = <T>(list: ReadonlyArray<T>, item: T): ReadonlyArray<T> => {
  const version = versionOf(list)
  const buffer = version !== undefined ? version.buffer.slice(0, Math.max(0, version.length - 1)) : list.slice(0, -1)
  buffer.push(item)
  return makeView(buffer, buffer.length)
}
