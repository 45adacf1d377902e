// The report command end to end, in-process: the page it writes, one section per session or the
// one --session picks, and the usage errors.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'
import { fixturePath } from '../../support/fixtures.js'
import { REPORT_INPUTS } from '../../support/report-inputs.js'

const run = runCli

const input = (name: string): string => REPORT_INPUTS.find((candidate) => candidate.name === name)?.file as string
const sectionsOf = (html: string): Array<{ title: string; requests: number }> =>
  JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] as string).sections

describe('context-simple report', () => {
  const folder = mkdtempSync(join(tmpdir(), 'context-simple-report-'))

  it('writes one section per session of a multi-session input and prints the path', async () => {
    const out = join(folder, 'nested', 'all.html')
    const { code, stdout } = await run(['report', input('tau-bench-all'), '--budget', '4500', '--html', out])
    expect(code).toBe(0)
    const sections = sectionsOf(readFileSync(out, 'utf8'))
    expect(sections.length).toBeGreaterThan(10)
    expect(sections[0].title).toBe('0-t0')
    expect(stdout).toBe(`wrote ${out} (${sections.length} sessions, ${sections.reduce((sum, section) => sum + section.requests, 0)} requests)\n`)
  })

  it('keeps only the session --session names', async () => {
    const out = join(folder, 'one.html')
    const { code } = await run(['report', input('tau-bench-all'), '--budget', '4500', '--session', '12-t0', '--html', out])
    expect(code).toBe(0)
    expect(sectionsOf(readFileSync(out, 'utf8')).map((section) => section.title)).toEqual(['12-t0'])
  })

  it('warns on stderr, as compare does, when a session has no price, and the page then has no input cost', async () => {
    // tau-bench trajectories name no model: without --model the page had no cost and no word why
    const bare = join(folder, 'unpriced.html')
    const unpriced = await run(['report', input('tau-bench-all'), '--budget', '4500', '--session', '12-t0', '--html', bare])
    expect(unpriced.code).toBe(0)
    expect(unpriced.stderr).toBe(`warning: no price for model (none named) in ${input('tau-bench-all')} (1 session): the page shows no input cost; give --model NAME or --prices FILE\n`)
    expect(readFileSync(bare, 'utf8')).not.toContain('input cost (USD)')
    const priced = join(folder, 'priced.html')
    const withModel = await run(['report', input('tau-bench-all'), '--budget', '4500', '--session', '12-t0', '--model', 'gpt-4o', '--html', priced])
    expect(withModel.code).toBe(0)
    expect(withModel.stderr).toBe('')
    expect(readFileSync(priced, 'utf8')).toContain('input cost (USD)')
  })

  it('names on the page only the value of a key --set twice that the replay used, and warns about the one overridden', async () => {
    const out = join(folder, 'twice.html')
    const { code, stderr } = await run(['report', input('tau-bench-all'), '--budget', '4500', '--session', '12-t0', '--model', 'gpt-4o', '--preset', 'recommended', '--set', 'target_usage=0.3', '--set', 'target_usage=0.35', '--html', out])
    expect(code).toBe(0)
    expect(stderr).toBe('warning: --set target_usage=0.3 is overridden by --set target_usage=0.35 (the last --set of a key wins)\n')
    expect(readFileSync(out, 'utf8')).toContain('configuration <b>recommended + target_usage=0.35</b>')
  })

  it.each([
    ['a Codex rollout (openai-responses pieces)', fixturePath('sessions/codex/codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl.gz'), []],
    ['a Codex rollout with token counts', fixturePath('sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl.gz'), []],
  ])('counts the view sent as the history is counted, on %s', async (_name, file) => {
    // until the first compaction the view is the whole history: both lines are the same count (the
    // format's estimator counts a piece by its provider-ready form). The page counted each piece with
    // its metadata.native carrier: 16,597 against 5,510 at request 0 of the first rollout, above the
    // budget before any compaction
    const out = join(folder, 'estimates.html')
    const { code } = await run(['report', file, '--budget', '60000', '--html', out])
    expect(code).toBe(0)
    const [section] = JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(readFileSync(out, 'utf8'))?.[1] as string).sections as Array<{ historyTokens: number[]; viewTokens: number[]; boundaryLevel: Array<number | null> }>
    const first = section.boundaryLevel.findIndex((level) => level !== null)
    const before = first === -1 ? section.historyTokens.length : first
    expect(before).toBeGreaterThan(1)
    expect(section.viewTokens.slice(0, before)).toEqual(section.historyTokens.slice(0, before))
  })

  it('rejects a session the input does not hold, and a missing --html, with exit code 2', async () => {
    const unknown = await run(['report', input('tau-bench-all'), '--session', '999-t9', '--html', join(folder, 'x.html')])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^context-simple: --session 999-t9: not in .* \(sessions: 0-t0, /)
    const single = await run(['report', input('cc-short'), '--session', '1-t0', '--html', join(folder, 'x.html')])
    expect(single.stderr).toContain('it holds a single unnamed session')
    const missing = await run(['report', input('cc-short')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("required option '--html <file>' not specified")
    const directory = await run(['report', folder, '--html', join(folder, 'x.html')])
    expect(directory.code).toBe(2)
    expect(directory.stderr).toContain(`${folder}: is a directory; give one of its session files`)
  })
})
