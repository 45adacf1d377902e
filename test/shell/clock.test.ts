/** Tests of the shell clock: the module timestamp format and the fixed clock. */
import { describe, expect, it } from 'vitest'
import { fixedClock, formatTimestamp, systemClock } from '../../src/shell/clock.js'

describe('formatTimestamp', () => {
  it('prints UTC with milliseconds and a literal +00:00', () => {
    expect(formatTimestamp(Date.UTC(2026, 1, 6, 10, 0, 0, 123))).toBe('2026-02-06T10:00:00.123+00:00')
  })

  it('pads milliseconds and truncates fractional milliseconds', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 1, 0, 0, 0, 5) + 0.9)).toBe('2026-01-01T00:00:00.005+00:00')
  })

  it('throws a RangeError for an unrepresentable time', () => {
    expect(() => formatTimestamp(Number.NaN)).toThrow(RangeError)
  })
})

describe('fixedClock', () => {
  it('returns the parsed time every call and round-trips through the module format', () => {
    const clock = fixedClock('2026-01-01T00:00:00.000+00:00')
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1))
    expect(clock.now()).toBe(clock.now())
    expect(formatTimestamp(clock.now())).toBe('2026-01-01T00:00:00.000+00:00')
  })

  it('rejects an unparseable time', () => {
    expect(() => fixedClock('not a time')).toThrow(RangeError)
  })
})

describe('systemClock', () => {
  it('reads the current time', () => {
    const before = Date.now()
    const now = systemClock.now()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
  })
})
