/**
 * Text helpers in the contract's units (SPEC 0, 5.2): code-point lengths and slices, Python
 * whitespace stripping, thousands and percent formats, and Python `repr` of JSON values.
 */

// ---------------------------------------------------------------------------------------------
// Code points
// ---------------------------------------------------------------------------------------------

/** Matches any UTF-16 surrogate unit; a string without one has one code point per unit. */
const SURROGATE = /[\ud800-\udfff]/

/**
 * The number of Unicode code points in `s` (SPEC 0: every length in the contract is in code
 * points). A valid surrogate pair counts once; a lone surrogate counts as one code point.
 *
 * @example
 * codePointLength('a😀b') // 3 (UTF-16 length is 4)
 * codePointLength('\ud800x') // 2 (lone high surrogate + 'x')
 */
export const codePointLength = (s: string): number => {
  const n = s.length
  let pairs = 0
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++
        i++
      }
    }
  }
  return n - pairs
}

/** Python's slice-bound normalisation for a sequence of length `length`. */
const normalizeBound = (index: number, length: number): number => {
  if (index < 0) {
    const shifted = length + index
    return shifted < 0 ? 0 : shifted
  }
  return index > length ? length : index
}

/** UTF-16 offset of the code point with index `target` (0..codePointLength), scanning from `from`. */
const unitOffset = (s: string, target: number, fromUnit: number, fromPoint: number): number => {
  const n = s.length
  let i = fromUnit
  let point = fromPoint
  while (point < target && i < n) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      i += d >= 0xdc00 && d <= 0xdfff ? 2 : 1
    } else {
      i += 1
    }
    point++
  }
  return i
}

/**
 * Python `s[start:end]` on code points: negative indices count from the end, out-of-range bounds
 * are clamped, and `start >= end` gives `""`. `end` defaults to the end of the string. Indices
 * are integers (code points); a valid surrogate pair is never split. Strings without surrogates
 * take a plain `String.prototype.slice`, whose semantics are the same for integer bounds.
 *
 * @example
 * codePointSlice('a😀bc', 0, 2) // => 'a😀'
 * codePointSlice('hello', 0, -3) // 'he' (Python s[:-3]: all but the last 3)
 * codePointSlice('a😀bc', -2) // => 'bc'
 */
export const codePointSlice = (s: string, start: number, end?: number): string => {
  if (!SURROGATE.test(s)) return s.slice(start, end)
  const length = codePointLength(s)
  const from = normalizeBound(start, length)
  const to = end === undefined ? length : normalizeBound(end, length)
  if (from >= to) return ''
  const fromUnit = unitOffset(s, from, 0, 0)
  const toUnit = to === length ? s.length : unitOffset(s, to, fromUnit, from)
  return s.slice(fromUnit, toUnit)
}

// ---------------------------------------------------------------------------------------------
// Whitespace
// ---------------------------------------------------------------------------------------------

/** True for the UTF-16 units Python's `str.isspace()` accepts (all of them are in the BMP). */
const isPyWhitespace = (c: number): boolean =>
  (c >= 0x09 && c <= 0x0d) ||
  (c >= 0x1c && c <= 0x20) ||
  c === 0x85 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000

/**
 * Python `str.strip()` with no argument (SPEC 0): removes leading and trailing characters that
 * `str.isspace()` accepts — `\t \n \v \f \r`, space, `\x1c`–`\x1f`, `\x85`, `\xa0`, `\u1680`,
 * `\u2000`–`\u200a`, `\u2028`, `\u2029`, `\u202f`, `\u205f`, `\u3000`. Unlike JavaScript's `trim`
 * it keeps `\ufeff` and strips `\x1c`–`\x1f` and `\x85`.
 *
 * @example
 * pyStrip('\x1c hi \x85') // => 'hi'
 * pyStrip('\ufeffhi ') // => '\ufeffhi'
 */
export const pyStrip = (s: string): string => {
  let start = 0
  let end = s.length
  while (start < end && isPyWhitespace(s.charCodeAt(start))) start++
  while (end > start && isPyWhitespace(s.charCodeAt(end - 1))) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/** Inserts a comma every three digits from the right of a string of decimal digits. */
const groupDigits = (digits: string): string => {
  const first = digits.length % 3 || 3
  let out = digits.slice(0, first)
  for (let i = first; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3)
  return out
}

/**
 * All decimal digits of an integral double, without exponent notation (`-0` gives `"0"`). Below
 * 10^21 this is `String(x)` (the digits `JSON.stringify` writes, most likely the JSON literal the
 * value came from); from 10^21 on, the exact value. Both have the same length.
 */
const integerDigits = (x: number): string => (Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString())

/**
 * The thousands format (SPEC 0, Python `f"{n:,}"`): decimal digits with a comma every three
 * digits from the right, leading `-` when negative, never exponent notation. Non-integral input
 * (not produced by the contract) groups the integer part of its Python float repr.
 *
 * @example
 * fmtInt(1250) // => '1,250'
 * fmtInt(-1234) // => '-1,234'
 * fmtInt(800) // => '800'
 */
export const fmtInt = (n: number): string => {
  const text = Number.isInteger(n) ? integerDigits(n) : pyFloatRepr(n)
  const match = /^(-?)(\d+)(.*)$/.exec(text)
  if (match === null) return text
  return match[1] + groupDigits(match[2]) + match[3]
}

/**
 * Round half to even of a non-negative double, on its exact binary value. `v - floor(v)` is exact
 * here (Sterbenz for `v >= 1`; `floor(v) = 0` below), so a tie is detected only when the double
 * is exactly `k + 0.5`.
 */
const roundHalfEvenNonNegative = (v: number): number => {
  const floor = Math.floor(v)
  const fraction = v - floor
  if (fraction < 0.5) return floor
  if (fraction > 0.5) return floor + 1
  return floor % 2 === 0 ? floor : floor + 1
}

/**
 * The percent format (SPEC 0, Python `f"{x:.0%}"`): `x × 100` computed in double precision, then
 * rounded to an integer with ties to the even neighbour on the exact binary value, then `%`.
 * As in Python, a negative value that rounds to zero keeps its sign (`-0%`), and non-finite values
 * print `nan%`, `inf%`, `-inf%`.
 *
 * @example
 * fmtPct(0.3) // => '30%'
 * fmtPct(0.125) // '12%' (12.5 is a tie, 12 is even)
 * fmtPct(0.015) // '2%' (0.015 * 100 = 1.5 exactly in double, a tie, 2 is even)
 */
export const fmtPct = (x: number): string => {
  const v = x * 100
  if (Number.isNaN(v)) return 'nan%'
  if (v === Infinity) return 'inf%'
  if (v === -Infinity) return '-inf%'
  const negative = v < 0 || Object.is(v, -0)
  const rounded = roundHalfEvenNonNegative(Math.abs(v))
  // Python prints the exact value of the rounded double; String() would round big ones to 17 digits.
  const digits = rounded <= Number.MAX_SAFE_INTEGER ? String(rounded) : BigInt(rounded).toString()
  return (negative ? '-' : '') + digits + '%'
}

/**
 * Python's float `repr` (SPEC 5.2): the shortest digit string that round-trips; with the
 * scientific exponent E (value = d.ddd × 10^E) positional when −4 ≤ E < 16, otherwise
 * `<mantissa>e<sign><at least two exponent digits>` (`1e-05`, `1e+16`, `1.5e+300`); `nan`,
 * `inf`, `-inf`. A TS port cannot tell `2.0` from `2`, so an integral value in the positional range
 * prints without the `.0` (`2`, `-0`); use `pyNumberRepr` for JSON numbers.
 *
 * @example
 * pyFloatRepr(2.5) // => '2.5'
 * pyFloatRepr(0.0001) // => '0.0001'
 * pyFloatRepr(0.00001) // => '1e-05'
 * pyFloatRepr(1.5e300) // => '1.5e+300'
 */
export const pyFloatRepr = (x: number): string => {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  const sign = x < 0 || Object.is(x, -0) ? '-' : ''
  // toExponential() without an argument gives the shortest round-trip digits: "d.ddde±E".
  const [mantissa, exponentText] = Math.abs(x).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const exponent = Number(exponentText)
  if (exponent < -4 || exponent >= 16) {
    const absExponent = String(Math.abs(exponent)).padStart(2, '0')
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${absExponent}`
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`
  if (exponent >= digits.length - 1) return sign + digits + '0'.repeat(exponent - digits.length + 1)
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`
}

/**
 * Python `repr` of a JSON number (SPEC 5.2): integral values print all their decimal digits with
 * no exponent (even from 10^21 on, where `String()` would switch to `1e+21`); other values print
 * as `pyFloatRepr`.
 *
 * @example
 * pyNumberRepr(1e21) // => '1000000000000000000000'
 * pyNumberRepr(-0.5) // => '-0.5'
 */
export const pyNumberRepr = (x: number): string => (Number.isInteger(x) ? integerDigits(x) : pyFloatRepr(x))

// ---------------------------------------------------------------------------------------------
// Printability and string repr
// ---------------------------------------------------------------------------------------------

/** General categories Python's `repr` escapes (SPEC 5.2). */
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u

/**
 * Lazily filled printability cache, one 256-entry page per block of code points:
 * 0 = not yet known, 1 = printable, 2 = not printable. Deterministic (a memo of a pure function).
 */
const printablePages: Array<Uint8Array | undefined> = []

/**
 * True when Python's `repr` emits the code point as itself: its general category is not one of
 * Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs (SPEC 5.2). Printable ASCII is 0x20–0x7e. Results for non-ASCII
 * code points come from the runtime's Unicode tables and are cached.
 *
 * @example
 * isPrintableCodePoint(0xe9) // true ('é')
 * isPrintableCodePoint(0x200b) // false (zero-width space, Cf)
 */
export const isPrintableCodePoint = (cp: number): boolean => {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f
  const pageIndex = cp >>> 8
  let page = printablePages[pageIndex]
  if (page === undefined) {
    page = new Uint8Array(256)
    printablePages[pageIndex] = page
  }
  const slot = cp & 0xff
  let known = page[slot]
  if (known === 0) {
    known = NON_PRINTABLE.test(String.fromCodePoint(cp)) ? 2 : 1
    page[slot] = known
  }
  return known === 1
}

/** Lowercase hex of `cp`, left-padded with zeros to `width`. */
const hex = (cp: number, width: number): string => cp.toString(16).padStart(width, '0')

/** The escape Python's `repr` uses for a non-printable code point (other than `\t \n \r`). */
const escapeCodePoint = (cp: number): string =>
  cp <= 0xff ? '\\x' + hex(cp, 2) : cp <= 0xffff ? '\\u' + hex(cp, 4) : '\\U' + hex(cp, 8)

/**
 * Python `repr` of a string (SPEC 5.2): quoted with `"` when it contains `'` and no `"`, else `'`;
 * `\\`, the chosen quote, `\t`, `\n`, `\r` escaped with a backslash; other control characters,
 * 0x7f and non-printable non-ASCII code points as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
 */
const pyStringRepr = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  const quoteCode = quote.charCodeAt(0)
  const n = s.length
  let out = quote
  let runStart = 0
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x5c && c !== quoteCode) continue
    let cp = c
    let width = 1
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000
        width = 2
      }
    }
    if (cp >= 0x80 && isPrintableCodePoint(cp)) {
      i += width - 1
      continue
    }
    out += s.slice(runStart, i)
    if (c === 0x5c) out += '\\\\'
    else if (c === quoteCode) out += '\\' + quote
    else if (c === 0x09) out += '\\t'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else out += escapeCodePoint(cp)
    i += width - 1
    runStart = i + 1
  }
  return out + s.slice(runStart) + quote
}

/**
 * True for values a JSON serialisation would drop as an object member (`undefined`, functions,
 * symbols); SPEC 0 treats an `undefined` property as absent. `pyrepr` and `pyreprLength` skip such
 * members.
 *
 * @example
 * isAbsentValue(undefined) // => true
 * isAbsentValue(null) // false (null is present and prints None)
 */
export const isAbsentValue = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol'

/**
 * Python `repr` of a JSON value (SPEC 5.2), the serialisation the token estimator measures:
 * `None`/`True`/`False`, numbers as `pyNumberRepr`, strings quoted and escaped as Python does,
 * arrays `[a, b]`, objects `{'k': v, ...}` in key order. Object members whose value is
 * `undefined` (or a function or symbol) are skipped; such values elsewhere print `None`, as
 * `JSON.stringify` would print `null`. Bigints print their digits.
 *
 * @example
 * pyrepr({ role: 'user', content: "it's", x: null, y: 2.5 })
 * // `{'role': 'user', 'content': "it's", 'x': None, 'y': 2.5}`
 */
export const pyrepr = (value: unknown): string => {
  if (value === null || isAbsentValue(value)) return 'None'
  switch (typeof value) {
    case 'string':
      return pyStringRepr(value)
    case 'number':
      return pyNumberRepr(value)
    case 'boolean':
      return value ? 'True' : 'False'
    case 'bigint':
      return value.toString()
    default:
      break
  }
  if (Array.isArray(value)) return '[' + value.map(pyrepr).join(', ') + ']'
  const record = value as Readonly<Record<string, unknown>>
  const parts: Array<string> = []
  for (const key of Object.keys(record)) {
    const member = record[key]
    if (isAbsentValue(member)) continue
    parts.push(pyStringRepr(key) + ': ' + pyrepr(member))
  }
  return '{' + parts.join(', ') + '}'
}
