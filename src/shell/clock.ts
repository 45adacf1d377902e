/**
 * Time for the shell: an injectable clock (epoch milliseconds) and the module's timestamp format
 * `YYYY-MM-DDTHH:MM:SS.mmm+00:00` (SPEC 1.4). The core never reads a clock; events carry time.
 */

/**
 * A source of the current time, in epoch milliseconds (UTC). Inject a fixed or fake clock to make
 * sessions replay byte-identically.
 *
 * @example
 * const clock: Clock = { now: () => Date.UTC(2026, 0, 1) }
 * clock.now() // => 1767225600000
 */
export interface Clock {
  /** The current time in milliseconds since 1970-01-01T00:00:00Z. */
  readonly now: () => number
}

/**
 * The real clock: `Date.now()`.
 *
 * @example
 * typeof systemClock.now() // => 'number'
 */
export const systemClock: Clock = { now: () => Date.now() }

/**
 * A clock frozen at `iso` (any string `Date.parse` accepts, e.g. the module format or `...Z`).
 * Throws a `RangeError` when `iso` does not parse.
 *
 * @example
 * fixedClock('2026-01-01T00:00:00.000+00:00').now() // => 1767225600000
 */
export const fixedClock = (iso: string): Clock => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new RangeError(`fixedClock: cannot parse time ${JSON.stringify(iso)}`)
  return { now: () => ms }
}

/** The largest time a `Date` holds, in ms from the epoch either way (ECMA-262, "Time Values and Time Range"). */
const MAX_DATE_MS = 8.64e15
/** The second `formatTimestamp` formatted last (epoch seconds, floored) and its text up to the milliseconds. */
let lastSecond = Number.NaN
let lastPrefix = ''

/**
 * Formats epoch milliseconds in the module's timestamp format (SPEC 1.4): UTC,
 * `YYYY-MM-DDTHH:MM:SS.mmm+00:00`, milliseconds truncated, a literal `+00:00` (never `Z`).
 * Fractional milliseconds are truncated. Throws a `RangeError` for a time `Date` cannot represent.
 *
 * @example
 * formatTimestamp(Date.UTC(2026, 1, 6, 10, 0, 0, 123)) // => '2026-02-06T10:00:00.123+00:00'
 */
export const formatTimestamp = (ms: number): string => {
  const whole = Math.trunc(ms)
  // Within Date's range, the text up to the milliseconds is the same for a whole second: it is
  // formatted once per second and reused (an add stamps every message; `toISOString` was 8 % of
  // an add, docs/performance.md). Outside the range (and NaN) `toISOString` throws as before.
  if (whole >= -MAX_DATE_MS && whole <= MAX_DATE_MS) {
    const second = Math.floor(whole / 1000)
    const milli = whole - second * 1000
    if (second !== lastSecond) {
      lastPrefix = new Date(second * 1000).toISOString().slice(0, -4) // YYYY-MM-DDTHH:MM:SS.
      lastSecond = second
    }
    return `${lastPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}+00:00`
  }
  const iso = new Date(whole).toISOString() // YYYY-MM-DDTHH:MM:SS.mmmZ (throws RangeError)
  return iso.slice(0, -1) + '+00:00'
}

