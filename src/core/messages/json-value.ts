/**
 * Stored messages are JSON values owned by the library (SPEC 17.9): the one validator that turns
 * a caller's value into the library's own copy, or names the first place that is not JSON.
 * Per-format rules (provider formats) are layered on top of `decodeMessage`.
 */
import * as E from 'fp-ts/lib/Either.js'
import type { JsonValue, Message } from './message.js'
import { setOwn } from './values.js'

/**
 * The deepest nesting a stored message may have: the message object is depth 1, each object or
 * array inside it one more. Deeper values are rejected (`too_deep`) so that no later request,
 * estimate, snapshot or recording can run out of stack. Real messages nest under 20.
 *
 * @example
 * MAX_JSON_DEPTH // => 100
 */
export const MAX_JSON_DEPTH = 100

/**
 * Why a value is not a JSON value the library can own (SPEC 17.9):
 * - `not_object`: a message (or its `metadata`) that must be a JSON object is not one;
 * - `function`, `symbol`, `bigint`: a value of that JavaScript type;
 * - `undefined`: `undefined` inside an array (an object member that is `undefined` is absent, as
 *   in `JSON.stringify`, and is dropped);
 * - `non_finite_number`: NaN or ±Infinity (JSON has no such number);
 * - `non_plain_object`: an object whose prototype is neither `Object.prototype` nor null (a class
 *   instance, `Date`, `Map`, a boxed primitive, a typed array);
 * - `cycle`: an object or array that contains itself;
 * - `sparse_array`: an array with holes;
 * - `unreadable`: reading it threw (a throwing getter, a Proxy trap, a revoked Proxy);
 * - `too_deep`: nested deeper than `MAX_JSON_DEPTH`.
 *
 * @example
 * const kind: JsonValueProblemKind = 'cycle'
 */
export type JsonValueProblemKind =
  | 'not_object'
  | 'function'
  | 'symbol'
  | 'bigint'
  | 'undefined'
  | 'non_finite_number'
  | 'non_plain_object'
  | 'cycle'
  | 'sparse_array'
  | 'unreadable'
  | 'too_deep'

/**
 * One problem: `path` is where it is, starting with the name of the argument checked
 * (`message.content[1]`, `messages[3].metadata.trace`, `message["a b"]`), `detail` says what is
 * wrong and what to pass instead. `InvalidMessageError` carries `path` as its `field`.
 *
 * @example
 * const problem: JsonValueProblem = { kind: 'non_plain_object', path: 'message.content[1]', detail: 'expected a JSON value, got a Date (class instances are not stored; pass plain data, e.g. date.toISOString())' }
 */
export interface JsonValueProblem {
  readonly kind: JsonValueProblemKind
  readonly path: string
  readonly detail: string
}

/**
 * The path of member `key` below `path`: `.key` for identifier-like keys, `["key"]` (JSON quoted)
 * for others, `[3]` for array indices.
 *
 * @example
 * toMemberPath('message', 'content') // => 'message.content'
 * toMemberPath('message.content', 1) // => 'message.content[1]'
 * toMemberPath('message', 'a b') // => 'message["a b"]'
 */
export const toMemberPath = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/**
 * A short rendering of any value for error and log messages, never throwing: JSON where it can
 * (at most 60 characters, longer ones end in `...`), NaN and ±Infinity printed as such (also
 * inside objects and arrays), `undefined` as `nothing`, functions, symbols, BigInts and class
 * instances by kind.
 *
 * @example
 * describeValue(Number.NaN) // => 'NaN'
 * describeValue({ a: Infinity }) // => '{"a":Infinity}'
 * describeValue(undefined) // => 'nothing'
 * describeValue(new Map()) // => 'a Map'
 */
export const describeValue = (value: unknown): string => {
  const text = renderValue(value, 0, new Set())
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

const kindOf = (value: object): string => {
  try {
    const prototype: unknown = Object.getPrototypeOf(value)
    const constructor = prototype !== null && typeof prototype === 'object' ? (prototype as { constructor?: unknown }).constructor : undefined
    const name = typeof constructor === 'function' && constructor.name !== '' ? constructor.name : 'object'
    // 'an Attachment', 'a Date', 'a URL' (an acronym is read letter by letter)
    return `${/^[AEIOU][a-z]/.test(name) ? 'an' : 'a'} ${name}`
  } catch {
    return 'an unreadable object'
  }
}

const renderValue = (value: unknown, depth: number, seen: Set<object>): string => {
  switch (typeof value) {
    case 'undefined':
      return 'nothing'
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : String(value)
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return String(value)
    case 'bigint':
      return `${value.toString()}n`
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
  }
  if (value === null) return 'null'
  const object = value as object
  if (seen.has(object)) return '(cycle)'
  if (depth > 3) return '...'
  try {
    if (Array.isArray(object)) {
      seen.add(object)
      const items = object.slice(0, 8).map((item) => renderValue(item, depth + 1, seen))
      seen.delete(object)
      return `[${items.join(',')}${object.length > 8 ? ',...' : ''}]`
    }
    if (!isPlainPrototype(object)) return kindOf(object)
    seen.add(object)
    const keys = Object.keys(object)
    const members = keys.slice(0, 8).map((key) => `${JSON.stringify(key)}:${renderValue((object as Record<string, unknown>)[key], depth + 1, seen)}`)
    seen.delete(object)
    return `{${members.join(',')}${keys.length > 8 ? ',...' : ''}}`
  } catch {
    return 'an unreadable object'
  }
}

/** Object.prototype or null, or the Object.prototype of another realm. */
const isPlainPrototype = (object: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(object)
  if (prototype === Object.prototype || prototype === null) return true
  return typeof prototype === 'object' && Object.getPrototypeOf(prototype) === null && Object.prototype.toString.call(object) === '[object Object]' && (prototype as { constructor?: { name?: string } }).constructor?.name === 'Object'
}

/** At most this many problems are collected; the first is the one an error reports. */
const MAX_PROBLEMS = 20

interface Walk {
  readonly problems: JsonValueProblem[]
  readonly ancestors: Set<object>
  readonly share: (value: object) => boolean
  readonly seal: (copy: object) => void
}

/**
 * Where a value sits: a path text, or a member of a place. The walk names each member this way
 * and spells the text (`toMemberPath`, the same text) only for a problem it reports: a copy
 * without problems builds no path strings.
 */
type Place = string | { readonly parent: Place; readonly key: string | number }

const placeText = (place: Place): string => (typeof place === 'string' ? place : toMemberPath(placeText(place.parent), place.key))

const report = (walk: Walk, kind: JsonValueProblemKind, place: Place, detail: string): undefined => {
  if (walk.problems.length < MAX_PROBLEMS) walk.problems.push({ kind, path: placeText(place), detail })
  return undefined
}

/** Copy `value` as a JSON value, or report why it is not one (returns undefined then). */
const copyValue = (walk: Walk, value: unknown, path: Place, depth: number): unknown => {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : report(walk, 'non_finite_number', path, `expected a JSON value, got ${String(value)} (JSON numbers are finite; pass null or a string)`)
    case 'undefined':
      return report(walk, 'undefined', path, 'expected a JSON value, got undefined in an array (pass null, or leave the item out)')
    case 'function':
      return report(walk, 'function', path, 'expected a JSON value, got a function (messages hold data only)')
    case 'symbol':
      return report(walk, 'symbol', path, 'expected a JSON value, got a symbol (pass a string)')
    case 'bigint':
      return report(walk, 'bigint', path, `expected a JSON value, got the BigInt ${value.toString()}n (pass a number or a string)`)
  }
  if (value === null) return null
  const object = value as object
  if (walk.share(object)) return object
  if (walk.ancestors.has(object)) return report(walk, 'cycle', path, 'expected a JSON value, got a cycle (this object contains itself; JSON cannot hold it)')
  if (depth > MAX_JSON_DEPTH) return report(walk, 'too_deep', path, `expected at most ${MAX_JSON_DEPTH} levels of nested objects and arrays in a message (pass deep data as a JSON string)`)
  let isArray: boolean
  let keys: string[]
  try {
    isArray = Array.isArray(object)
    if (!isArray && !isPlainPrototype(object)) {
      return report(walk, 'non_plain_object', path, `expected a JSON value, got ${kindOf(object)} (class instances, Date, Map and Set are not stored; pass plain objects, arrays, strings, numbers, booleans or null)`)
    }
    keys = isArray ? [] : Object.keys(object)
  } catch (error) {
    return report(walk, 'unreadable', path, `could not be read: ${errorText(error)} (pass plain data)`)
  }
  walk.ancestors.add(object)
  try {
    if (isArray) {
      const array = object as unknown[]
      const out: unknown[] = new Array<unknown>(array.length)
      for (let index = 0; index < array.length; index += 1) {
        const itemPath: Place = { parent: path, key: index }
        if (!(index in array)) {
          report(walk, 'sparse_array', itemPath, 'expected an array without holes, got a missing item (fill it with null)')
          continue
        }
        const item = readMember(walk, array, index, itemPath)
        if (item !== UNREADABLE) out[index] = copyValue(walk, item, itemPath, depth + 1)
      }
      walk.seal(out)
      return out
    }
    const out: Record<string, unknown> = {}
    for (const key of keys) {
      const memberPath: Place = { parent: path, key }
      const member = readMember(walk, object, key, memberPath)
      if (member === undefined || member === UNREADABLE) continue
      // A key named __proto__ (as JSON.parse makes it) stays an ordinary own key.
      setOwn(out, key, copyValue(walk, member, memberPath, depth + 1))
    }
    walk.seal(out)
    return out
  } finally {
    walk.ancestors.delete(object)
  }
}

const UNREADABLE = Symbol('unreadable')

const readMember = (walk: Walk, object: object, key: string | number, path: Place): unknown => {
  try {
    return (object as Record<string | number, unknown>)[key]
  } catch (error) {
    report(walk, 'unreadable', path, `could not be read: ${errorText(error)} (a getter or Proxy threw; pass plain data)`)
    return UNREADABLE
  }
}

const errorText = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable error'
  }
}

/**
 * Options of the decoders. `share(value)` is asked before an object or array is copied: true
 * means it is already a JSON value the caller owns deeply and immutably (say, a message the
 * library stored and froze), so it is kept as it is without being walked. Default: copy all.
 *
 * @example
 * const ownedValues = new WeakSet<object>()
 * const options: JsonValueOptions = { share: (value) => ownedValues.has(value) }
 */
export interface JsonValueOptions {
  readonly share?: (value: object) => boolean
  /**
   * Called with each object and array of the copy once its members are in place (children before
   * their parent), and never again with it: the shell freezes its copy here instead of walking it
   * a second time. Default: nothing.
   */
  readonly seal?: (copy: object) => void
}

const never = (): boolean => false
const keep = (): void => undefined

const run = <T>(value: unknown, path: string, options: JsonValueOptions, check: (walk: Walk) => T): E.Either<ReadonlyArray<JsonValueProblem>, T> => {
  const walk: Walk = { problems: [], ancestors: new Set(), share: options.share ?? never, seal: options.seal ?? keep }
  const result = check(walk)
  return walk.problems.length > 0 ? E.left(walk.problems) : E.right(result)
}

/**
 * Decode any value as a JSON value the library owns (SPEC 17.9): a deep copy made of own
 * enumerable string-keyed members (read as `JSON.stringify` reads them, getters included; a key
 * named `__proto__` kept as an ordinary key; members whose value is `undefined` dropped), or the
 * problems found, each with its path below `path` (in walk order, at most 20). Never throws.
 *
 * @example
 * decodeJsonValue({ a: [1, 'x'] }, 'value') // Right({ a: [1, 'x'] }) (a copy)
 * decodeJsonValue([1, , 3], 'value') // Left([{ kind: 'sparse_array', path: 'value[1]', … }])
 */
export const decodeJsonValue = (value: unknown, path = 'value', options: JsonValueOptions = {}): E.Either<ReadonlyArray<JsonValueProblem>, JsonValue> =>
  run(value, path, options, (walk) => copyValue(walk, value, path, 1) as JsonValue)

/**
 * Decode one message (SPEC 1.1 with 17.9): a JSON object, every value inside it a JSON value
 * (`decodeJsonValue`), and `metadata`, when present and not null, a JSON object. Right: the
 * library's own deep copy (nothing the caller does afterwards reaches it). Left: the problems,
 * with paths starting at `path` (`message.content[1]` for `addMessage`, `messages[3].content[1]`
 * for `setMessages`). Any role and any other shape is accepted: per-format rules are separate.
 * Never throws.
 *
 * @example
 * decodeMessage({ role: 'user', content: 'hi' }) // Right({ role: 'user', content: 'hi' })
 * decodeMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }, new Map()] }) // Left([{ kind: 'non_plain_object', path: 'message.content[1]', … }])
 * decodeMessage({ role: 'user', metadata: 'note' }) // Left([{ kind: 'not_object', path: 'message.metadata', … }])
 */
export const decodeMessage = (value: unknown, path = 'message', options: JsonValueOptions = {}): E.Either<ReadonlyArray<JsonValueProblem>, Message> =>
  run(value, path, options, (walk) => decodeMessageIn(walk, value, path))

const decodeMessageIn = (walk: Walk, value: unknown, path: Place): Message => {
  let isObject = false
  try {
    isObject = typeof value === 'object' && value !== null && !Array.isArray(value) && isPlainPrototype(value)
  } catch {
    isObject = false
  }
  if (!isObject) {
    report(walk, 'not_object', path, `expected a message object such as {"role": "user", "content": "hi"}, got ${describeValue(value)}`)
    return {} as Message
  }
  const copied = copyValue(walk, value, path, 1) as Message | undefined
  if (copied === undefined) return {} as Message
  const metadata = (copied as Record<string, unknown>).metadata
  if (Object.prototype.hasOwnProperty.call(copied, 'metadata') && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    report(walk, 'not_object', { parent: path, key: 'metadata' }, `expected an object (or null) of metadata, got ${describeValue(metadata)} (put the value under a key, e.g. {"note": ...})`)
  }
  return copied
}

/**
 * Decode a message list (`setMessages`, SPEC 2.4 with 17.9): an array without holes whose items
 * each pass `decodeMessage` at `messages[i]`. Right: the copies; Left: the problems of every item
 * (at most 20). Never throws.
 *
 * @example
 * decodeMessages([{ role: 'user', content: 'hi' }]) // Right([{ role: 'user', content: 'hi' }])
 * decodeMessages([{ role: 'user' }, 'hi']) // Left([{ kind: 'not_object', path: 'messages[1]', … }])
 */
export const decodeMessages = (value: unknown, path = 'messages', options: JsonValueOptions = {}): E.Either<ReadonlyArray<JsonValueProblem>, Message[]> =>
  run(value, path, options, (walk) => {
    let length: number
    try {
      if (!Array.isArray(value)) {
        report(walk, 'not_object', path, `expected an array of message objects, got ${describeValue(value)}`)
        return []
      }
      length = value.length
    } catch (error) {
      report(walk, 'unreadable', path, `could not be read: ${errorText(error)}`)
      return []
    }
    const out: Message[] = []
    for (let index = 0; index < length; index += 1) {
      const itemPath: Place = { parent: path, key: index }
      if (!(index in value)) {
        report(walk, 'sparse_array', itemPath, 'expected a message, got a hole in the array (remove it)')
        continue
      }
      const item = readMember(walk, value, index, itemPath)
      if (item !== UNREADABLE) out.push(decodeMessageIn(walk, item, itemPath))
    }
    return out
  })

/**
 * The text an error reports for a list of problems: the first one's detail, plus how many more
 * there are.
 *
 * @example
 * toProblemText([{ kind: 'cycle', path: 'message.a', detail: 'expected a JSON value, got a cycle' }]) // => 'expected a JSON value, got a cycle'
 */
export const toProblemText = (problems: ReadonlyArray<JsonValueProblem>): string => {
  const first = problems[0]
  if (first === undefined) return 'no problem'
  const more = problems.length - 1
  return more > 0 ? `${first.detail} (and ${more} more problem${more === 1 ? '' : 's'}${problems.length >= MAX_PROBLEMS ? ' at least' : ''})` : first.detail
}
