/**
 * Token estimation (SPEC 5): a quarter of the code-point length of a message's Python `repr`,
 * measured without building the string, plus a per-message memoizing wrapper.
 */

import type { Message } from '../messages/message.js'
import { isAbsentValue, isPrintableCodePoint, pyNumberRepr } from '../messages/text.js'

/** Length of a Python `\x`, `\u` or `\U` escape for a non-printable non-ASCII code point. */
const escapeLength = (cp: number): number => (cp <= 0xff ? 4 : cp <= 0xffff ? 6 : 10)

/**
 * Code-point length of the Python `repr` of a string, in one pass over its UTF-16 units with no
 * allocation. Counts `'` and `"` on the way and picks the quote at the end: with `"` (string has
 * `'` and no `"`) nothing needs a quote escape; with `'` every `'` costs one extra backslash.
 */
const stringReprLength = (s: string): number => {
  const n = s.length
  let length = 2
  let singleQuotes = 0
  let doubleQuotes = 0
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x7f) {
      if (c >= 0x20) {
        if (c === 0x5c) length += 2
        else {
          length += 1
          if (c === 0x27) singleQuotes++
          else if (c === 0x22) doubleQuotes++
        }
      } else {
        length += c === 0x09 || c === 0x0a || c === 0x0d ? 2 : 4
      }
      continue
    }
    if (c < 0xa0) {
      // 0x7f and the C1 controls 0x80-0x9f are never printable.
      length += 4
      continue
    }
    let cp = c
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000
        i++
      }
    }
    length += isPrintableCodePoint(cp) ? 1 : escapeLength(cp)
  }
  return singleQuotes > 0 && doubleQuotes === 0 ? length : length + singleQuotes
}

/**
 * The code-point length of `pyrepr(value)` (SPEC 5.2), computed by walking the value and summing
 * lengths instead of building the string. Object members whose value is `undefined` (or a
 * function or symbol) are skipped, exactly as `pyrepr` skips them.
 *
 * @example
 * pyreprLength({ role: 'system', content: 'You are helpful.' }) // => 49
 * pyreprLength("it's") // 6, rendered "it's" with double quotes
 */
export const pyreprLength = (value: unknown): number => {
  // One `typeof` and indexed loops: a short-lived process measures most messages before the engine
  // optimizes this function (docs/performance.md, "npm run bench"), where a call or an iterator per
  // member is what a member costs.
  switch (typeof value) {
    case 'string':
      return stringReprLength(value)
    case 'number':
      return pyNumberRepr(value).length
    case 'boolean':
      return value ? 4 : 5
    case 'bigint':
      return value.toString().length
    case 'object':
      break
    default:
      return 4 // undefined, a function or a symbol: None (isAbsentValue)
  }
  if (value === null) return 4 // None
  if (Array.isArray(value)) {
    const n = value.length
    if (n === 0) return 2
    let length = 2 * n // brackets plus (n - 1) separators ", "
    for (let i = 0; i < n; i++) length += pyreprLength(value[i])
    return length
  }
  const record = value as Readonly<Record<string, unknown>>
  const keys = Object.keys(record)
  let length = 2
  let members = 0
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const member = record[key]
    const kind = typeof member
    if (kind === 'undefined' || kind === 'function' || kind === 'symbol') continue // isAbsentValue
    members++
    length += stringReprLength(key) + 2 + pyreprLength(member) // key ": " value
  }
  return members === 0 ? length : length + 2 * (members - 1)
}

/**
 * Estimated tokens of one message (SPEC 5.1): `floor(codePointLength(pyrepr(message)) / 4)`.
 * Every field counts, metadata and view-only flags included.
 *
 * @example
 * estimateOne({ role: 'system', content: 'You are helpful.' }) // 12 (49 code points)
 */
export const estimateOne = (message: unknown): number => Math.floor(pyreprLength(message) / 4)

/**
 * A token estimator: estimated tokens (a non-negative integer) of one message. It must be pure:
 * the value may depend only on the message, which is never mutated. The default is
 * `estimateOne`; an embedder may supply any other pure estimator (a real tokenizer, say), which
 * the core then uses everywhere SPEC 5 counts tokens.
 *
 * @example
 * const estimator: TokenEstimator = (message) => estimateOne(message)
 */
export type TokenEstimator = (message: Message) => number

/**
 * Wraps an estimator with a per-message-object memo (a `WeakMap`, so entries die with their
 * messages). Sound because messages are immutable and the estimate depends only on the message
 * (SPEC 5.1 allows such caching). The default estimator is `estimateOne`; pass a custom pure
 * estimator to replace it.
 *
 * @example
 * const estimate = makeCachedEstimator()
 * const m = { role: 'user', content: 'hello' }
 * estimate(m) // 9, computed
 * estimate(m) // 9, from the cache
 */
export const makeCachedEstimator = (estimateFn: TokenEstimator = estimateOne): TokenEstimator => {
  if (estimateFn !== estimateOne) {
    const cache = new WeakMap<object, number>()
    return (message: Message): number => {
      if (typeof message !== 'object' || message === null) return estimateFn(message)
      const cached = cache.get(message)
      if (cached !== undefined) return cached
      const estimate = estimateFn(message)
      cache.set(message, estimate)
      return estimate
    }
  }
  // The reference estimator keeps each message's repr length instead (one memo, one write per
  // message), from which both its estimate and that of its copy without `_seq` follow
  // (`estimateWithoutSeq`).
  const lengths = new WeakMap<object, number>()
  const estimator = (message: Message): number => {
    if (typeof message !== 'object' || message === null) return estimateOne(message)
    let length = lengths.get(message)
    if (length === undefined) {
      length = pyreprLength(message)
      lengths.set(message, length)
    }
    return Math.floor(length / 4)
  }
  REFERENCE_LENGTHS.set(estimator, lengths)
  return estimator
}

/** The memo of each `makeCachedEstimator()` over `estimateOne`: the repr length per message object. */
const REFERENCE_LENGTHS = new WeakMap<TokenEstimator, WeakMap<object, number>>()

const isOwnEnumerable = (value: object, key: string): boolean => Object.prototype.propertyIsEnumerable.call(value, key)

/**
 * The repr length of `{ ...message, metadata: rest }`, `rest` being `metadata` without `_seq`,
 * from `length`, the repr length of `message` (`pyreprLength`): the `_seq` member and its
 * separator come out; null when the shape is not that one (the caller then measures).
 */
const lengthWithoutSeq = (message: Message, length: number): number | null => {
  if (Array.isArray(message) || !isOwnEnumerable(message, 'metadata')) return null
  const metadata = message.metadata
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata) || !isOwnEnumerable(metadata, '_seq')) return null
  const record = metadata as Readonly<Record<string, unknown>>
  const seq = record._seq
  if (isAbsentValue(seq)) return length
  // `'_seq': ` is 8 characters; with another member left, the `, ` between them goes too.
  let others = false
  const keys = Object.keys(record)
  for (let i = 0; i < keys.length && !others; i++) others = keys[i] !== '_seq' && !isAbsentValue(record[keys[i]])
  return length - 8 - pyreprLength(seq) - (others ? 2 : 0)
}

/**
 * The estimate of `stripped`, the copy of `original` a view carries (`metadata` without `_seq`,
 * SPEC 1.6: `stripMessage`), by `estimate`. For `makeCachedEstimator()` (the reference estimator,
 * `estimateOne`) that has measured `original`, it follows from `original`'s repr length (the
 * `_seq` member taken out) instead of measuring the copy again: the same number, and `stripped`
 * is then in the estimator's memo; any other estimator measures `stripped`.
 *
 * @example
 * const estimate = makeCachedEstimator()
 * const original = { role: 'user', content: 'hello', metadata: { _seq: 12 } }
 * estimate(original) // => 15
 * estimateWithoutSeq(estimate, { role: 'user', content: 'hello', metadata: {} }, original) // => 13
 */
export const estimateWithoutSeq = (estimate: TokenEstimator, stripped: Message, original: Message): number => {
  const lengths = REFERENCE_LENGTHS.get(estimate)
  if (lengths === undefined || stripped === original) return estimate(stripped)
  const cached = lengths.get(stripped)
  if (cached !== undefined) return Math.floor(cached / 4)
  const length = lengths.get(original)
  const derived = length === undefined ? null : lengthWithoutSeq(original, length)
  if (derived === null) return estimate(stripped)
  lengths.set(stripped, derived)
  return Math.floor(derived / 4)
}

/**
 * Estimated tokens of a list (SPEC 5.1): the sum of the per-message estimates (so the floor is
 * taken per message, and the estimate of a concatenation is the sum of the estimates).
 *
 * @example
 * estimateMessages([{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: "it's" }], estimateOne) // 12 + 8 = 20
 */
export const estimateMessages = (messages: ReadonlyArray<Message>, estimator: TokenEstimator): number => {
  let total = 0
  for (const message of messages) total += estimator(message)
  return total
}
