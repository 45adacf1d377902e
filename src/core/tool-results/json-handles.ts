/**
 * JSON tool results by their handles (`tool_result_json_projection: "handles"`,
 * docs/configuration.md "JSON tool results by named fields"): when the compaction ladder shortens
 * a JSON tool result that is a *record* (an object or array whose string values are all short),
 * it keeps the string fields that hold a handle (an id, a path, a date, a code: a run of letters,
 * digits, `_` and the joiners `. / - :` holding a digit, an `_`, a `/` or an inner dot, as
 * `compaction_order: "least_referenced"` reads them, src/core/compaction/reference-order.ts),
 * with the keys, objects and arrays that lead to them, and drops prose, numbers, booleans and
 * nulls. Handles are what an agent passes back to its tools; the rest of a record it read can be
 * read again. A result holding a long string (a file, a command's output wrapped in JSON) is not
 * a record and keeps the contract's truncation.
 *
 * The form is a function of the result alone (no history, no learning), so it never changes once
 * made. Kept values are copied from the result's text character for character (escapes, number
 * formats and key spelling as written): the form is a sub-document of the original.
 *
 * Pure functions over strings; no state.
 */
import { holdsHandle } from '../compaction/reference-order.js'
import { codePointLength } from '../messages/text.js'

/**
 * Longest string value (code points) a record may hold; a longer one is text, not a field (the
 * longest handle `compaction_order: "least_referenced"` reads, src/core/compaction/reference-order.ts).
 *
 * @example
 * RECORD_STRING_MAX // => 160
 */
export const RECORD_STRING_MAX = 160

/** Deepest nesting read; a deeper result is left to the contract's truncation. */
const MAX_DEPTH = 64

/**
 * What a projection of a JSON text keeps (`projectJsonText`): whole subtrees under the key names
 * `keepsKey` accepts, the other strings `keepsString` accepts, and no string longer than
 * `maxString` code points anywhere outside a kept subtree (else the text is not projected).
 *
 * @example
 * const rule: ProjectionRule = { keepsKey: (key) => key === 'id', keepsString: () => false, maxString: Number.POSITIVE_INFINITY }
 */
export interface ProjectionRule {
  readonly keepsKey: (key: string) => boolean
  readonly keepsString: (value: string) => boolean
  readonly maxString: number
}

/** The scan over one JSON text: position, the rule, and whether the text turned out not to be projectable. */
interface Scan {
  readonly text: string
  readonly rule: ProjectionRule
  at: number
  failed: boolean
}

const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13

const skipSpace = (scan: Scan): void => {
  while (scan.at < scan.text.length && isSpace(scan.text.charCodeAt(scan.at))) scan.at += 1
}

/** The raw text of the JSON string starting at `scan.at` (quotes included); moves past it. */
const readString = (scan: Scan): string => {
  const start = scan.at
  let i = start + 1
  while (i < scan.text.length && scan.text.charCodeAt(i) !== 34) i += scan.text.charCodeAt(i) === 92 ? 2 : 1
  scan.at = i + 1
  return scan.text.slice(start, i + 1)
}

/** Moves past a number, `true`, `false` or `null`. */
const skipLiteral = (scan: Scan): void => {
  while (scan.at < scan.text.length) {
    const code = scan.text.charCodeAt(scan.at)
    if (code === 44 || code === 93 || code === 125 || isSpace(code)) return
    scan.at += 1
  }
}

/** The kept form of the string at `scan.at`: its raw text when the rule keeps it; marks a string over the rule's limit. */
const projectString = (scan: Scan): string | undefined => {
  const raw = readString(scan)
  const value = JSON.parse(raw) as string
  if (codePointLength(value) > scan.rule.maxString) {
    scan.failed = true
    return undefined
  }
  return scan.rule.keepsString(value) ? raw : undefined
}

/** The value at `scan.at` as written, without the whitespace between its tokens (a kept subtree). */
const copyValue = (scan: Scan, depth: number): string => {
  skipSpace(scan)
  const code = scan.text.charCodeAt(scan.at)
  if (code === 34) return readString(scan)
  if (code !== 123 && code !== 91) {
    const start = scan.at
    skipLiteral(scan)
    return scan.text.slice(start, scan.at)
  }
  if (depth > MAX_DEPTH) scan.failed = true
  const close = code === 123 ? 125 : 93
  const parts: string[] = []
  scan.at += 1
  skipSpace(scan)
  if (scan.text.charCodeAt(scan.at) === close) scan.at += 1
  else {
    while (!scan.failed && scan.at < scan.text.length) {
      skipSpace(scan)
      let key = ''
      if (close === 125) {
        key = `${readString(scan)}:`
        skipSpace(scan)
        scan.at += 1 // the colon
      }
      parts.push(key + copyValue(scan, depth + 1))
      skipSpace(scan)
      const next = scan.text.charCodeAt(scan.at)
      scan.at += 1
      if (next === close) break
    }
  }
  return close === 125 ? `{${parts.join(',')}}` : `[${parts.join(',')}]`
}

/** The kept members of the object or array at `scan.at` (`close` is `}` or `]`), as raw text. */
const projectContainer = (scan: Scan, depth: number, close: number): string | undefined => {
  const isObject = close === 125
  const kept: string[] = []
  scan.at += 1
  skipSpace(scan)
  if (scan.text.charCodeAt(scan.at) === close) {
    scan.at += 1
    return undefined
  }
  while (!scan.failed && scan.at < scan.text.length) {
    skipSpace(scan)
    let key = ''
    let whole = false
    if (isObject) {
      key = readString(scan)
      whole = scan.rule.keepsKey(JSON.parse(key) as string)
      skipSpace(scan)
      scan.at += 1 // the colon
    }
    const member = whole ? copyValue(scan, depth + 1) : projectValue(scan, depth + 1)
    if (member !== undefined) kept.push(isObject ? `${key}:${member}` : member)
    skipSpace(scan)
    const next = scan.text.charCodeAt(scan.at)
    scan.at += 1
    if (next === close) break
  }
  if (kept.length === 0) return undefined
  return isObject ? `{${kept.join(',')}}` : `[${kept.join(',')}]`
}

/** The kept form of the JSON value at `scan.at`, or undefined when nothing of it is kept. */
const projectValue = (scan: Scan, depth: number): string | undefined => {
  skipSpace(scan)
  if (depth > MAX_DEPTH) {
    scan.failed = true
    return undefined
  }
  const code = scan.text.charCodeAt(scan.at)
  if (code === 123) return projectContainer(scan, depth, 125)
  if (code === 91) return projectContainer(scan, depth, 93)
  if (code === 34) return projectString(scan)
  skipLiteral(scan)
  return undefined
}

/**
 * `content` (a JSON object or array) reduced by `rule` (`ProjectionRule`): compact JSON of the
 * subtrees under kept key names and of the kept strings, with the keys, objects and arrays that
 * lead to them, every kept token copied from `content` as written (escapes, number formats and
 * key spelling; only the whitespace between tokens dropped). Null when `content` is not a JSON
 * object or array, holds a string over the rule's limit outside a kept subtree or nesting deeper
 * than 64, keeps nothing, or the form is not shorter than `content`.
 *
 * @example
 * projectJsonText('{"id": "X1", "price": 1.50, "note": "n"}', { keepsKey: (key) => key === 'price', keepsString: () => false, maxString: Number.POSITIVE_INFINITY }) // => '{"price":1.50}'
 */
export const projectJsonText = (content: string, rule: ProjectionRule): string | null => {
  const trimmed = content.trimStart()
  if (trimmed[0] !== '{' && trimmed[0] !== '[') return null
  try {
    JSON.parse(trimmed)
  } catch {
    return null
  }
  const scan: Scan = { text: trimmed, rule, at: 0, failed: false }
  const kept = projectValue(scan, 0)
  if (scan.failed || kept === undefined) return null
  return codePointLength(kept) < codePointLength(content) ? kept : null
}

const HANDLES_RULE: ProjectionRule = { keepsKey: () => false, keepsString: holdsHandle, maxString: RECORD_STRING_MAX }

/**
 * The handles form of a JSON record (module comment): compact JSON of the string fields of
 * `content` that hold a handle, with the keys, objects and arrays that lead to them, each kept
 * value and key copied from `content` as written. Null when `content` is not a JSON object or
 * array, holds a string longer than `RECORD_STRING_MAX` code points (not a record) or nesting
 * deeper than 64, keeps nothing, or the form is not shorter than `content`.
 *
 * @example
 * toJsonHandlesText('{"reservation_id":"ZFA04Y","cabin":"economy","flights":[{"flight_number":"HAT001","price":1.50}]}') // => '{"reservation_id":"ZFA04Y","flights":[{"flight_number":"HAT001"}]}'
 * toJsonHandlesText('{"output":"' + 'x'.repeat(200) + '"}') // => null
 */
export const toJsonHandlesText = (content: string): string | null => projectJsonText(content, HANDLES_RULE)

/**
 * The raw JSON strings of a compact JSON text that are values, not keys (a string followed by
 * `:` is a key), in order, each once: the first occurrence of each raw text.
 */
const distinctValueStrings = (compact: string): string[] => {
  const seen = new Set<string>()
  const scan: Scan = { text: compact, rule: HANDLES_RULE, at: 0, failed: false }
  while (scan.at < compact.length) {
    if (compact.charCodeAt(scan.at) !== 34) {
      scan.at += 1
      continue
    }
    const raw = readString(scan)
    if (compact.charCodeAt(scan.at) !== 58) seen.add(raw)
  }
  return [...seen]
}

/**
 * The values-only handles form of a JSON record (`tool_result_json_projection: "handle_values"`):
 * the distinct strings the handles form (`toJsonHandlesText`) keeps, in order of first
 * occurrence, as one flat JSON array, without key names, objects or nesting; each string copied
 * from `content` as written. Null when the handles form is (not a record, nothing kept).
 *
 * @example
 * toJsonHandleValuesText('{"reservation_id":"ZFA04Y","cabin":"economy","flights":[{"flight_number":"HAT001","date":"2024-05-01"},{"flight_number":"HAT002","date":"2024-05-01"}]}') // => '["ZFA04Y","HAT001","2024-05-01","HAT002"]'
 * toJsonHandleValuesText('{"note":"economy"}') // => null
 */
export const toJsonHandleValuesText = (content: string): string | null => {
  const form = toJsonHandlesText(content)
  return form === null ? null : `[${distinctValueStrings(form).join(',')}]`
}
