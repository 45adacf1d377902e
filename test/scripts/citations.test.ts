// The citation check (scripts/check-citations.mjs): clean on the repository, and on a folder of its
// own it names each kind of citation a clone cannot follow. The offending texts are assembled at run
// time so that this file does not cite anything itself.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runScript } from '../support/run-script.js'

const check = (...args: string[]): { code: number; output: string } => runScript('scripts/check-citations.mjs', ...args)

const withFile = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'citations-'))
  writeFileSync(join(dir, 'a.ts'), `export const x = 1\n${text}\n`)
  return dir
}

const word = 'iss' + 'ue'

describe('citation check', () => {
  it('passes on src/, test/, property-tests/, scripts/, bench/, README.md and docs/', () => {
    expect(check()).toMatchObject({ code: 0 })
  })

  it.each([
    [`// the guard of ${word} 12`, /a\.ts:2: cites the tracker's iss/],
    [`/** ${word.replace(/^i/, 'I')} 8: short messages */`, /a\.ts:2: cites the tracker's Iss/],
    [`// ${word}s 11 and 14`, new RegExp(`cites the tracker's ${word}s 11 and 14`)],
    [`it('keeps the prefix (${word} 14)', () => {})`, /cites the tracker's/],
    ['// fixed in #' + '42', new RegExp("cites the tracker's #" + '42')],
    ['// see ' + 'RECORDING' + '.md', /holds it as docs\/recording-format\.md/],
    ['// (' + 'STYLE' + '.md, Tests)', /holds it as docs\/style\.md/],
    ['// docs/' + 'no-such-page.md', /docs\/no-such-page\.md, which the repository does not hold/],
  ])('rejects %s', (line, pattern) => {
    const { code, output } = check(withFile(line))
    expect(code).toBe(1)
    expect(output).toMatch(pattern)
    expect(output).toMatch(/npm run check:citations/)
  })

  it('reads Markdown pages too (README.md, docs/*.md): a tracker number there is rejected, a shared name in backticks is accepted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'citations-'))
    writeFileSync(join(dir, 'page.md'), `# Guards (${word} 12)\n`)
    const { code, output } = check(dir)
    expect(code).toBe(1)
    expect(output).toMatch(/page\.md:1: cites the tracker's iss/)
    const named = mkdtempSync(join(tmpdir(), 'citations-'))
    writeFileSync(join(named, 'page.md'), '`' + 'SPEC' + '.md` is [docs/contract.md](contract.md)\n')
    expect(check(named)).toMatchObject({ code: 0 })
  })

  // The commit rule needs the history (the script skips it in a shallow clone or without git).
  const fullHistory = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--is-shallow-repository'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'false'
    } catch {
      return false
    }
  })()
  it.skipIf(!fullHistory)('rejects a commit a Markdown page cites that is not in the history of HEAD, and accepts one that is and a session id', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
    // HEAD's full hash with its last digit changed: no commit can have it
    const absent = head.slice(0, 39) + (head.endsWith('0') ? '1' : '0')
    const dir = mkdtempSync(join(tmpdir(), 'citations-'))
    // the shortest prefix (7+ digits) the check reads as a commit: letters and digits both (a hash such as 4007506… is all digits up to 7)
    const cited = head.slice(0, [...Array(34).keys()].map((i) => i + 7).find((n) => /[a-f]/.test(head.slice(0, n)) && /[0-9]/.test(head.slice(0, n))) ?? 40)
    const page = `measured on main ${cited}; the session 4d5611e5 at 60,000`
    writeFileSync(join(dir, 'page.md'), `${page}\n`)
    expect(check(dir)).toMatchObject({ code: 0 })
    writeFileSync(join(dir, 'page.md'), `${page}\nthe build at ${absent}\n`)
    const { code, output } = check(dir)
    expect(code).toBe(1)
    expect(output).toContain(`page.md:2: cites commit ${absent}, which is not in the history of HEAD`)
    // the same hash in a source file is not read as a commit (hex digests are data there)
    expect(check(withFile(`const digest = '${absent}'`))).toMatchObject({ code: 0 })
  })

  it.each([
    '// SPEC 17.9; docs/recording-format.md; docs/configuration.md "Strict fit"',
    "const id = 'tau.json#7-t0'",
    "const color = 'x#12'",
    '// a guard of the issue: the view is over budget',
  ])('accepts %s', (line) => {
    expect(check(withFile(line))).toMatchObject({ code: 0 })
  })
})
