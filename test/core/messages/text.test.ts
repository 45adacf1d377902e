// Unit tests for src/core/messages/text.ts: code points, Python strip, number formats and Python repr.
import { describe, expect, it } from 'vitest'
import {
  codePointLength,
  codePointSlice,
  fmtInt,
  fmtPct,
  isPrintableCodePoint,
  pyFloatRepr,
  pyNumberRepr,
  pyStrip,
  pyrepr,
} from '../../../src/core/messages/text.js'

const EMOJI = '😀' // U+1F600, two UTF-16 units
const HIGH = '\ud83d' // lone high surrogate
const LOW = '\ude00' // lone low surrogate

describe('codePointLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 1],
    [EMOJI, 1],
    [`a${EMOJI}b`, 3],
    [EMOJI + EMOJI, 2],
    [HIGH, 1],
    [LOW, 1],
    [LOW + HIGH, 2], // reversed pair is two lone surrogates
    [HIGH + 'x', 2],
    ['x' + HIGH, 2],
    [HIGH + HIGH + LOW, 2], // lone high, then a valid pair
    ['\u{10ffff}', 1],
  ])('%j has %i code points', (s, n) => {
    expect(codePointLength(s)).toBe(n)
  })

  it('counts a long ASCII string by its UTF-16 length', () => {
    expect(codePointLength('x'.repeat(10_000))).toBe(10_000)
  })
})

describe('codePointSlice', () => {
  const s = `a${EMOJI}bc${EMOJI}d` // code points: a 😀 b c 😀 d

  it('behaves like Python slicing on ASCII strings', () => {
    expect(codePointSlice('hello', 0, 2)).toBe('he')
    expect(codePointSlice('hello', 2)).toBe('llo')
    expect(codePointSlice('hello', 0, -3)).toBe('he')
    expect(codePointSlice('hello', -3)).toBe('llo')
    expect(codePointSlice('hello', -2, -1)).toBe('l')
    expect(codePointSlice('hello', 0, 100)).toBe('hello')
    expect(codePointSlice('hello', 100)).toBe('')
    expect(codePointSlice('hello', 3, 1)).toBe('')
    expect(codePointSlice('hello', -100, 2)).toBe('he')
    expect(codePointSlice('hello', 0, -100)).toBe('')
    expect(codePointSlice('hello', 0, 0)).toBe('')
    expect(codePointSlice('', 0, 5)).toBe('')
  })

  it('counts astral characters as one position', () => {
    expect(codePointSlice(s, 0, 2)).toBe(`a${EMOJI}`)
    expect(codePointSlice(s, 1, 2)).toBe(EMOJI)
    expect(codePointSlice(s, 2)).toBe(`bc${EMOJI}d`)
    expect(codePointSlice(s, 2, 4)).toBe('bc')
    expect(codePointSlice(s, 4, 5)).toBe(EMOJI)
    expect(codePointSlice(s, 0, 6)).toBe(s)
    expect(codePointSlice(s, 0, 99)).toBe(s)
    expect(codePointSlice(s, 6)).toBe('')
    expect(codePointSlice(s, 5, 3)).toBe('')
  })

  it('supports negative indices on astral strings (Python s[:-n], s[-n:])', () => {
    expect(codePointSlice(s, 0, -1)).toBe(`a${EMOJI}bc${EMOJI}`)
    expect(codePointSlice(s, 0, -2)).toBe(`a${EMOJI}bc`)
    expect(codePointSlice(s, 0, -5)).toBe('a')
    expect(codePointSlice(s, 0, -6)).toBe('')
    expect(codePointSlice(s, 0, -60)).toBe('')
    expect(codePointSlice(s, -2)).toBe(`${EMOJI}d`)
    expect(codePointSlice(s, -5, -3)).toBe(`${EMOJI}b`)
    expect(codePointSlice(s, -60, 2)).toBe(`a${EMOJI}`)
  })

  it('treats lone surrogates as single code points', () => {
    const t = `${HIGH}a${LOW}${EMOJI}`
    expect(codePointSlice(t, 0, 1)).toBe(HIGH)
    expect(codePointSlice(t, 1, 3)).toBe(`a${LOW}`)
    expect(codePointSlice(t, 3)).toBe(EMOJI)
    expect(codePointSlice(t, -1)).toBe(EMOJI)
    expect(codePointSlice(t, 0, -1)).toBe(`${HIGH}a${LOW}`)
  })

  it('agrees with slicing an array of code points', () => {
    const samples = [s, `${EMOJI}${EMOJI}x${HIGH}`, 'plain text', `é${EMOJI}ü`]
    for (const sample of samples) {
      const points = Array.from(sample)
      for (let a = -8; a <= 8; a++) {
        expect(codePointSlice(sample, a)).toBe(points.slice(a).join(''))
        for (let b = -8; b <= 8; b++) expect(codePointSlice(sample, a, b)).toBe(points.slice(a, b).join(''))
      }
    }
  })
})

describe('pyStrip', () => {
  // Every code point Python 3.11's str.isspace() accepts.
  const PY_WHITESPACE = [
    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
    0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
    0x205f, 0x3000,
  ]

  it('strips each Python whitespace character at both ends', () => {
    for (const cp of PY_WHITESPACE) {
      const w = String.fromCharCode(cp)
      expect(pyStrip(`${w}x${w}`)).toBe('x')
      expect(pyStrip(w)).toBe('')
    }
  })

  it('strips exactly the Python whitespace set among the first 0x3001 code points and U+FEFF', () => {
    const set = new Set(PY_WHITESPACE)
    for (let cp = 0; cp <= 0x3000; cp++) {
      const c = String.fromCharCode(cp)
      expect(pyStrip(c) === '').toBe(set.has(cp))
    }
    expect(pyStrip('\ufeff')).toBe('\ufeff')
    expect(pyStrip('\u180e')).toBe('\u180e')
    expect(pyStrip('\u200b')).toBe('\u200b')
  })

  it('differs from JavaScript trim where Python does', () => {
    expect(pyStrip('\ufeff hi \ufeff')).toBe('\ufeff hi \ufeff')
    expect(pyStrip('\x1c\x1d\x1e\x1f hi \x85')).toBe('hi')
    expect(pyStrip('  a b  ')).toBe('a b')
    expect(pyStrip('')).toBe('')
    expect(pyStrip('no-space')).toBe('no-space')
    expect(pyStrip(` ${EMOJI} `)).toBe(EMOJI)
  })
})

describe('fmtInt', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [800, '800'],
    [999, '999'],
    [1000, '1,000'],
    [1250, '1,250'],
    [12345, '12,345'],
    [123456, '123,456'],
    [1234567, '1,234,567'],
    [-1234, '-1,234'],
    [-999, '-999'],
    [-1000000, '-1,000,000'],
    [-0, '0'],
    [3882, '3,882'],
    [20000, '20,000'],
    [1e21, '1,000,000,000,000,000,000,000'],
  ])('fmtInt(%d) = %s', (n, text) => {
    expect(fmtInt(n)).toBe(text)
  })

  it('groups the integer part of a non-integral value like Python', () => {
    expect(fmtInt(1234.5)).toBe('1,234.5')
    expect(fmtInt(-1234567.25)).toBe('-1,234,567.25')
    expect(fmtInt(0.5)).toBe('0.5')
  })
})

describe('fmtPct', () => {
  it.each([
    [0.3, '30%'],
    [0.2, '20%'],
    [0.125, '12%'], // 12.5: tie to even
    [0.015, '2%'], // 1.5: tie to even
    [0.025, '2%'], // 2.5: tie to even
    [0.045, '4%'], // 4.5: tie to even
    [0.005, '0%'], // 0.5: tie to even
    [0.035, '4%'], // 3.5000000000000004: not a tie
    [0.145, '14%'], // 14.499999999999998
    [0.285, '28%'], // 28.499999999999996
    [1.005, '100%'], // 100.49999999999999
    [0.29, '29%'], // 28.999999999999996
    [0.18, '18%'],
    [0.09, '9%'],
    [1, '100%'],
    [0, '0%'],
    [0.0001, '0%'],
    [0.5, '50%'],
    [1.5, '150%'],
    [2, '200%'],
    [-0.3, '-30%'],
    [-0.125, '-12%'],
    [-0.003, '-0%'], // Python keeps the sign of a negative that rounds to zero
    [-0.005, '-0%'],
  ])('fmtPct(%d) = %s', (x, text) => {
    expect(fmtPct(x)).toBe(text)
  })

  it('prints non-finite values as Python does', () => {
    expect(fmtPct(NaN)).toBe('nan%')
    expect(fmtPct(Infinity)).toBe('inf%')
    expect(fmtPct(-Infinity)).toBe('-inf%')
  })

  it('prints the exact value of huge percentages', () => {
    expect(fmtPct(9265025926892338)).toBe('926502592689233792%')
  })
})

describe('pyFloatRepr', () => {
  it.each([
    [2.5, '2.5'],
    [-0.5, '-0.5'],
    [0.0001, '0.0001'],
    [0.00012, '0.00012'],
    [0.00001, '1e-05'],
    [0.000015, '1.5e-05'],
    [0.3, '0.3'],
    [0.1 + 0.2, '0.30000000000000004'],
    [123456789.123, '123456789.123'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [1.5e300, '1.5e+300'],
    [1e-300, '1e-300'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [1234567890123456.7, '1234567890123456.8'],
    [9999999999999998, '9999999999999998'],
    [1e15, '1000000000000000'],
    [2, '2'], // integral values print as integers in a TS port
    [-0, '-0'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
  ])('pyFloatRepr(%d) = %s', (x, text) => {
    expect(pyFloatRepr(x)).toBe(text)
  })
})

describe('pyNumberRepr', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-17, '-17'],
    [1e16, '10000000000000000'],
    [1e21, '1000000000000000000000'],
    [-1e21, '-1000000000000000000000'],
    [1e22, '10000000000000000000000'],
    [2.5, '2.5'],
    [-0.5, '-0.5'],
    [1e-5, '1e-05'],
    [123456789.123, '123456789.123'],
    [NaN, 'nan'],
  ])('pyNumberRepr(%d) = %s', (x, text) => {
    expect(pyNumberRepr(x)).toBe(text)
  })
})

describe('isPrintableCodePoint', () => {
  it('accepts printable ASCII only between space and tilde', () => {
    expect(isPrintableCodePoint(0x20)).toBe(true)
    expect(isPrintableCodePoint(0x7e)).toBe(true)
    expect(isPrintableCodePoint(0x1f)).toBe(false)
    expect(isPrintableCodePoint(0x7f)).toBe(false)
  })

  it.each([
    [0xe9, true], // é, Ll
    [0x1f600, true], // emoji, So
    [0x4e2d, true], // CJK, Lo
    [0x0301, true], // combining accent, Mn
    [0x85, false], // Cc
    [0xa0, false], // Zs
    [0xad, false], // soft hyphen, Cf
    [0x200b, false], // Cf
    [0xfeff, false], // Cf
    [0x2028, false], // Zl
    [0x2029, false], // Zp
    [0x3000, false], // Zs
    [0xd800, false], // Cs
    [0xdfff, false], // Cs
    [0xe000, false], // Co
    [0x10ffff, false], // Cn
    [0x0378, false], // Cn
  ])('code point %i printable: %s', (cp, printable) => {
    expect(isPrintableCodePoint(cp)).toBe(printable)
    expect(isPrintableCodePoint(cp)).toBe(printable) // cached answer agrees
  })
})

describe('pyrepr', () => {
  it('renders scalars', () => {
    expect(pyrepr(null)).toBe('None')
    expect(pyrepr(true)).toBe('True')
    expect(pyrepr(false)).toBe('False')
    expect(pyrepr(0)).toBe('0')
    expect(pyrepr(-3)).toBe('-3')
    expect(pyrepr(2.5)).toBe('2.5')
    expect(pyrepr(1e21)).toBe('1000000000000000000000')
    expect(pyrepr(1e-7)).toBe('1e-07')
    expect(pyrepr(NaN)).toBe('nan')
    expect(pyrepr(12n)).toBe('12')
  })

  it('chooses the quote like Python', () => {
    expect(pyrepr('')).toBe("''")
    expect(pyrepr('abc')).toBe("'abc'")
    expect(pyrepr("it's")).toBe(`"it's"`)
    expect(pyrepr('say "hi"')).toBe(`'say "hi"'`)
    expect(pyrepr(`say "hi" it's`)).toBe(`'say "hi" it\\'s'`)
    expect(pyrepr("'")).toBe(`"'"`)
    expect(pyrepr('"')).toBe(`'"'`)
    expect(pyrepr(`'"`)).toBe(`'\\'"'`)
  })

  it('escapes backslashes, controls and non-printable code points', () => {
    expect(pyrepr('a\\b')).toBe("'a\\\\b'")
    expect(pyrepr('\t\n\r')).toBe("'\\t\\n\\r'")
    expect(pyrepr('\x00\x01\x0b\x0c\x1b\x1f')).toBe("'\\x00\\x01\\x0b\\x0c\\x1b\\x1f'")
    expect(pyrepr('\x7f')).toBe("'\\x7f'")
    expect(pyrepr('\x80\x85\x9f\xa0\xad')).toBe("'\\x80\\x85\\x9f\\xa0\\xad'")
    expect(pyrepr('\u200b\u2028\u2029\ufeff\u3000')).toBe("'\\u200b\\u2028\\u2029\\ufeff\\u3000'")
    expect(pyrepr('\ue000')).toBe("'\\ue000'")
    expect(pyrepr('\u{f0000}\u{10ffff}')).toBe("'\\U000f0000\\U0010ffff'")
    expect(pyrepr(`${HIGH}x${LOW}`)).toBe("'\\ud83dx\\ude00'")
    expect(pyrepr(`é ${EMOJI} 中 ü`)).toBe(`'é ${EMOJI} 中 ü'`)
    expect(pyrepr('a\tb\nc\\d é 😀 \x7f \u200b')).toBe("'a\\tb\\nc\\\\d é 😀 \\x7f \\u200b'")
  })

  it('renders arrays and objects in order with Python separators', () => {
    expect(pyrepr([])).toBe('[]')
    expect(pyrepr({})).toBe('{}')
    expect(pyrepr([1, 'a', null, [true]])).toBe("[1, 'a', None, [True]]")
    expect(pyrepr({ b: 1, a: [], "it's": { x: false } })).toBe(`{'b': 1, 'a': [], "it's": {'x': False}}`)
  })

  it('skips object members whose value is undefined and prints None elsewhere', () => {
    expect(pyrepr({ a: undefined, b: 1, c: undefined })).toBe("{'b': 1}")
    expect(pyrepr({ a: undefined })).toBe('{}')
    expect(pyrepr([undefined, 1])).toBe('[None, 1]')
    expect(pyrepr(undefined)).toBe('None')
  })

  it('renders the worked messages of SPEC 5.3', () => {
    expect(
      pyrepr({
        role: 'tool',
        tool_call_id: 'c1',
        content: 'ok',
        _truncated: true,
        _original_tokens: 1,
        x: null,
        y: 2.5,
      }),
    ).toBe("{'role': 'tool', 'tool_call_id': 'c1', 'content': 'ok', '_truncated': True, '_original_tokens': 1, 'x': None, 'y': 2.5}")
  })
})
