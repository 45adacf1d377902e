/**
 * Appendable lists (docs/architecture.md): immutable arrays that grow in O(items appended) and change their
 * last item in O(1), instead of a copy of every reference. The stored history is one, so
 * `add_message` costs O(message size) at any history length while every state keeps an array
 * whose contents never change.
 *
 * How: versions of one lineage share an append-only buffer. A version of length n is the first
 * n − 1 items of its buffer followed by its own last item, seen through a read-only array view
 * (`Array.isArray` is true; indexing, `length`, iteration, the array methods and `JSON.stringify`
 * work as on an array; writes throw a `TypeError`). Appending to a version whose first n − 1
 * items end the buffer pushes its last item and the new items but the last onto the buffer;
 * appending to any other version (a branch: another state folded from the same past) copies its
 * items first. Replacing the last item makes a version on the same buffer. Buffer items are never
 * overwritten and a version reads only the ones before its own last, so no version ever changes:
 * the buffer is an implementation detail no reader, replay or snapshot can observe.
 *
 * Not supported on a view: `structuredClone`, `postMessage` and `Object.freeze` (no proxy can be
 * cloned, and this one cannot be frozen; use `toPlainArray` first, as `snapshot()` and the
 * manager's `state` getter do).
 */

/** A version: `buffer[0 .. length − 2]` then `last` (nothing when `length` is 0). */
interface Version<T> {
  readonly buffer: T[]
  readonly length: number
  readonly last: T | undefined
}

/** Item `index` (0 ≤ index < length) of a version. */
const itemOf = <T>(version: Version<T>, index: number): T => (index === version.length - 1 ? (version.last as T) : version.buffer[index])

/** The version's items as a new plain array. */
const copyOf = <T>(version: Version<T>, start = 0): T[] => {
  if (start >= version.length) return []
  const copy = version.buffer.slice(start, version.length - 1)
  copy.push(version.last as T)
  return copy
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
 * The prototype of a view's target: the array prototype plus an inspect hook. `util.inspect`
 * (and so Node's console output) formats a proxy's target instead of going through its traps
 * (calling the hook with the view itself), so without it a view would print as `[]`.
 */
const VIEW_PROTOTYPE: object = Object.create(Array.prototype, {
  [INSPECT]: {
    value: function (this: unknown, depth: number, options: { readonly depth?: number | null }, inspect: (value: unknown, options: object) => string): string {
      if (depth < 0) return '[Array]'
      const version = typeof this === 'object' && this !== null ? versions.get(this) : undefined
      // The items print at the depth the view itself had left (a nested view counts its levels).
      return inspect(version === undefined ? [] : copyOf(version), { ...options, depth })
    },
  },
})

const makeView = <T>(version: Version<T>): ReadonlyArray<T> => {
  const { length } = version
  // The target is a never-touched array: it gives the view Array.isArray and the array
  // prototype; the traps answer every own property from the version.
  const target = Object.setPrototypeOf([], VIEW_PROTOTYPE) as T[]
  const view = new Proxy(target, {
    get: (object, key, receiver) => {
      if (key === 'length') return length
      const index = toIndex(key)
      if (index >= 0) return index < length ? itemOf(version, index) : undefined
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
      if (index >= 0) return index < length ? { value: itemOf(version, index), writable: false, enumerable: true, configurable: true } : undefined
      return Reflect.getOwnPropertyDescriptor(object, key)
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
    setPrototypeOf: readOnly,
    preventExtensions: readOnly,
  })
  versions.set(view, version as Version<unknown>)
  return view
}

const versionOf = <T>(list: ReadonlyArray<T>): Version<T> | undefined => versions.get(list) as Version<T> | undefined

/**
 * `list` followed by `items`, as an appendable list: O(items) when `list` is the newest version of
 * its lineage (or that version with its last item replaced), otherwise (a plain array, or an
 * older version) one copy of `list` first, after which appends are O(items) again. `list` itself
 * never changes. Returns `list` for no items.
 *
 * @example
 * const one = appendTo([], [{ role: 'user', content: 'hi' }])
 * const two = appendTo(one, [{ role: 'assistant', content: 'hello' }])
 * one.length // => 1
 * two.length // => 2
 * Array.isArray(two) // => true
 */
export const appendTo = <T>(list: ReadonlyArray<T>, items: ReadonlyArray<T>): ReadonlyArray<T> => {
  if (items.length === 0) return list
  const version = versionOf(list)
  let buffer: T[]
  if (version !== undefined && version.buffer.length === Math.max(0, version.length - 1)) {
    buffer = version.buffer
    if (version.length > 0) buffer.push(version.last as T)
  } else buffer = version !== undefined ? copyOf(version) : list.slice()
  for (let index = 0; index < items.length - 1; index += 1) buffer.push(items[index])
  return makeView({ buffer, length: buffer.length + 1, last: items[items.length - 1] })
}

/**
 * True when `list` is a view made by `appendTo` (not cloneable; `toPlainArray` gives a plain one).
 *
 * @example
 * isAppendable(appendTo([], [1])) // => true
 * isAppendable([1]) // => false
 */
export const isAppendable = (list: ReadonlyArray<unknown>): boolean => versions.has(list)

const plain = new WeakMap<object, ReadonlyArray<unknown>>()

/**
 * A plain array with the items of `list`: `list` itself when it is plain, otherwise one frozen
 * copy of its references, made once per version and shared. O(n) the first time, O(1) after.
 *
 * @example
 * structuredClone(toPlainArray(appendTo([], [1, 2]))) // => [1, 2]
 */
export const toPlainArray = <T>(list: ReadonlyArray<T>): ReadonlyArray<T> => {
  const version = versionOf(list)
  if (version === undefined) return list
  let copy = plain.get(list) as ReadonlyArray<T> | undefined
  if (copy === undefined) {
    copy = Object.freeze(copyOf(version))
    plain.set(list, copy)
  }
  return copy
}

/**
 * The items of `list` from index `start` on (negative: from the end, as `slice`), as a new plain
 * array: O(items returned), without going through the view's traps.
 *
 * @example
 * sliceFrom(appendTo([1, 2], [3]), 1) // => [2, 3]
 */
export const sliceFrom = <T>(list: ReadonlyArray<T>, start: number): T[] => {
  const version = versionOf(list)
  if (version === undefined) return list.slice(start)
  // As Array.prototype.slice: a negative start counts from the version's end, not the buffer's.
  const from = Math.trunc(start) || 0
  return copyOf(version, from < 0 ? Math.max(0, version.length + from) : from)
}

/**
 * Random access to `list` without the appendable view's traps: `length`, and `at(index)` for
 * 0 ≤ index < length (O(1) each). Reading a stored history through the view costs a proxy trap
 * and a parse of the index key per item; a reader looks the version up once
 * (docs/performance.md, "The 3 MB session"). For a list that is not appendable, the list itself.
 *
 * @example
 * const reader = toItemReader(appendTo([1], [2]))
 * reader.at(reader.length - 1) // => 2
 */
export interface ItemReader<T> {
  readonly length: number
  readonly at: (index: number) => T
}

/**
 * The `ItemReader` of `list` (see there).
 *
 * @example
 * toItemReader(appendTo(['a'], ['b'])).at(0) // => 'a'
 */
export const toItemReader = <T>(list: ReadonlyArray<T>): ItemReader<T> => {
  const version = versionOf(list)
  if (version === undefined) return { length: list.length, at: (index) => list[index] }
  return { length: version.length, at: (index) => itemOf(version, index) }
}

/**
 * The length of `list`, read from its version when it is appendable instead of through the
 * view's trap: O(1). The add path reads the history's length and items a few times per message,
 * mostly before the engine optimizes anything, where each trap is a call into the handler
 * (docs/performance.md, "npm run bench").
 *
 * @example
 * lengthOf(appendTo([1], [2])) // => 2
 */
export const lengthOf = (list: ReadonlyArray<unknown>): number => {
  const version = versions.get(list)
  return version === undefined ? list.length : version.length
}

/**
 * `list[index]` (undefined outside 0 ≤ index < length), read from the version when `list` is
 * appendable instead of through the view's trap: O(1) (see `lengthOf`).
 *
 * @example
 * itemAt(appendTo([1], [2]), 0) // => 1
 * itemAt(appendTo([1], [2]), 2) // => undefined
 */
export const itemAt = <T>(list: ReadonlyArray<T>, index: number): T | undefined => {
  const version = versions.get(list) as Version<T> | undefined
  if (version === undefined) return list[index]
  return index >= 0 && index < version.length ? itemOf(version, index) : undefined
}

/**
 * The last item of `list`, or undefined when it is empty: O(1).
 *
 * @example
 * lastOf(appendTo([1], [2])) // => 2
 */
export const lastOf = <T>(list: ReadonlyArray<T>): T | undefined => {
  const version = versionOf(list)
  return version === undefined ? list[list.length - 1] : version.last
}

/**
 * `list` with its last item replaced by `item` (`item` alone when `list` is empty), as an
 * appendable list: O(1) for a version (it shares the buffer; only the last item is its own), one
 * copy of the references for a plain array. `list` never changes.
 *
 * @example
 * replaceLast(appendTo([1], [2]), 3) // => [1, 3]
 */
export const replaceLast = <T>(list: ReadonlyArray<T>, item: T): ReadonlyArray<T> => {
  const version = versionOf(list)
  if (version !== undefined && version.length > 0) return makeView({ buffer: version.buffer, length: version.length, last: item })
  const buffer = list.slice(0, -1)
  return makeView({ buffer, length: buffer.length + 1, last: item })
}
