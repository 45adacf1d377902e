// The replay command end to end, in-process: JSON output, table and summary, exit codes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expandInputs } from '../../../src/shell/cli/evaluate.js'
import { runCli } from '../../support/cli.js'
import { firstDifference } from '../../support/conformance.js'
import { fixturePath, readFixture } from '../../support/fixtures.js'

const run = runCli

const parseLines = (text: string): unknown[] => text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line))

describe('context-simple replay --json', () => {
  it('prints exactly the expected replay-output lines of a conformance case', async () => {
    const recording = fixturePath('conformance/generated/progressive-00.recording.jsonl')
    const { code, stdout, stderr } = await run(['replay', recording, '--format', 'recording', '--json'])
    // stdout holds only the output lines; anything on stderr is a logged warning.
    expect(stderr.split('\n').filter((line) => line !== '').every((line) => line.startsWith('warning: '))).toBe(true)
    expect(code).toBe(0)
    const expected = parseLines(readFixture('conformance/generated/progressive-00.expected.jsonl'))
    expect(firstDifference(parseLines(stdout), expected)).toBeNull()
  })

  it('writes an error line and exits 1 when a request hits the fail-loud error, and goes on', async () => {
    const recording = fixturePath('conformance/generated/cal-extra-s2-06.recording.jsonl')
    const { code, stdout } = await run(['replay', recording, '--json'])
    const lines = parseLines(stdout) as Array<{ view: unknown; error?: { message: string } }>
    const failed = lines.filter((line) => line.error !== undefined)
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.every((line) => line.view === null && line.error!.message.startsWith('context-simple: compact_clear_at_least='))).toBe(true)
    expect(lines.length).toBeGreaterThan(failed.length)
    expect(code).toBe(1)
  })

  it('tags each line with its session for a multi-session file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-cli-'))
    const file = join(dir, 'two.json')
    const traj = [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]
    writeFileSync(file, JSON.stringify([{ task_id: 3, trial: 0, reward: 1, info: {}, traj }, { task_id: 4, trial: 1, reward: 0, info: {}, traj }]))
    const { code, stdout } = await run(['replay', file, '--budget', '1000', '--json'])
    expect(code).toBe(0)
    const sessions = (parseLines(stdout) as Array<{ session: string }>).map((line) => line.session)
    expect(sessions).toEqual(['3-t0', '3-t0', '4-t1', '4-t1'])
  })
})

describe('context-simple replay (human output)', () => {
  it('prints the table and a summary with 0 broken views and the drift on the bundled session', async () => {
    const { code, stdout } = await run(['replay', '--no-progress'])
    expect(code).toBe(0)
    expect(stdout).toContain('history msgs')
    expect(stdout).toContain('views that break tool pairing (R1-R3): 0')
    expect(stdout).toMatch(/estimator drift \(reading \/ estimate of the request it describes, \d+ requests\): median \d+\.\d{3}, p90 \d+\.\d{3}/)
  })

  it('reports 0 broken views on the tau-bench trajectories at a 4,500-token budget', async () => {
    const file = fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json')
    const { code, stdout } = await run(['replay', file, '--budget', '4500', '--no-progress'])
    expect(code).toBe(0)
    expect(stdout).toContain('views that break tool pairing (R1-R3): 0')
    expect(stdout).toMatch(/compaction boundaries: [1-9]\d*/)
  })

  it('takes --set over --config over the header', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-cli-'))
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ token_meter: 'actual' }))
    const recording = fixturePath('conformance/sessions/cc-short.recording.jsonl')
    const fromFile = parseLines((await run(['replay', recording, '--config', config, '--json'])).stdout) as Array<{ token_meter_stats: { mode: string } }>
    expect(fromFile[0].token_meter_stats.mode).toBe('actual')
    const fromSet = parseLines((await run(['replay', recording, '--config', config, '--set', 'token_meter=hybrid', '--json'])).stdout) as Array<{ token_meter_stats: { mode: string } }>
    expect(fromSet[0].token_meter_stats.mode).toBe('hybrid')
  })

  it('takes the last --set of a key given twice, with a warning naming the one overridden (replay and report read --set alike)', async () => {
    const recording = fixturePath('conformance/sessions/cc-short.recording.jsonl')
    const { code, stdout, stderr } = await run(['replay', recording, '--set', 'token_meter=actual', '--set', 'token_meter=hybrid', '--json', '--no-views'])
    expect(code).toBe(0)
    expect((parseLines(stdout) as Array<{ token_meter_stats: { mode: string } }>)[0].token_meter_stats.mode).toBe('hybrid')
    expect(stderr).toContain('warning: --set token_meter=actual is overridden by --set token_meter=hybrid (the last --set of a key wins)\n')
  })
})

describe('context-simple replay --preset', () => {
  it('layers header < --preset < --config < --set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-cli-'))
    const recording = fixturePath('conformance/sessions/tau-003-t0.recording.jsonl')
    const summaries = async (argv: string[]): Promise<number> => {
      const { code, stdout } = await run(['replay', recording, '--budget', '3000', '--summarizer', 'extractive', ...argv, '--json'])
      expect(code).toBe(0)
      const lines = parseLines(stdout) as Array<{ view: Array<{ metadata?: { type?: string } }> }>
      return lines.filter((line) => line.view.some((message) => message.metadata?.type === 'context_summary')).length
    }
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ compaction_strategy: 'progressive' }))
    expect(await summaries([])).toBe(0)
    expect(await summaries(['--preset', 'recommended-summary'])).toBeGreaterThan(0)
    expect(await summaries(['--preset', 'recommended-summary', '--config', config])).toBe(0)
    expect(await summaries(['--preset', 'recommended-summary', '--config', config, '--set', 'compaction_strategy=summary'])).toBeGreaterThan(0)
  })

  it('rejects an unknown preset naming the known ones', async () => {
    const { code, stderr } = await run(['replay', '--preset', 'fast'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--preset fast: unknown preset, expected one of reference, recommended, recommended-summary, recommended-retention/)
  })
})

describe('context-simple replay errors', () => {
  it.each([
    [['replay', '--budget', 'lots'], /--budget lots: expected a whole number/],
    [['replay', '--budget', '10', '--window', '100', '--max-output', '10'], /--budget cannot be combined/],
    [['replay', '--window', '100'], /--window and --max-output go together/],
    [['replay', 'no-such-file.jsonl'], /no-such-file.jsonl: cannot read the file/],
    [['replay', '--set', 'compact_threshold="high"'], /config.compact_threshold: expected a number/],
    [['replay', '--format', 'yaml'], /argument 'yaml' is invalid/],
    [['compare', 'fixtures/sessions/claude-code/short.jsonl'], /needs at least one configuration/],
    [['compare', 'fixtures/sessions/claude-code/short.jsonl', '--preset', 'fast'], /--preset fast: unknown preset/],
    [['compare', 'no-such-dir', '--preset', 'reference'], /no-such-dir: cannot read the file/],
    [['compare', 'fixtures/sessions/claude-code/short.jsonl', '--preset', 'reference', '--prices', 'package.json'], /package.json: models: expected/],
  ])('%j exits 2 with one line on stderr', async (argv, pattern) => {
    const { code, stdout, stderr } = await run(argv as string[])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(pattern)
  })

  it('names the line of a bad recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-cli-'))
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, '{"op": "add_message", "message": {"role": "user", "content": "x"}}\n{"op": "nope"}\n')
    const { code, stderr } = await run(['replay', file])
    expect(code).toBe(2)
    expect(stderr).toMatch(/bad.jsonl:2: unknown op "nope"/)
  })
})

describe('context-simple replay --summarizer extractive', () => {
  it('absorbs spans into summary messages offline and keeps tool pairing', async () => {
    const recording = fixturePath('conformance/sessions/tau-003-t0.recording.jsonl')
    const { code, stdout } = await run(['replay', recording, '--budget', '3000', '--set', 'compaction_strategy=summary', '--summarizer', 'extractive', '--json'])
    expect(code).toBe(0)
    const lines = parseLines(stdout) as Array<{ view: Array<{ role: string; content: unknown; metadata?: { type?: string } }>; events: Array<{ name: string }> }>
    const summaries = lines.flatMap((line) => line.view.filter((message) => message.metadata?.type === 'context_summary'))
    expect(summaries.length).toBeGreaterThan(0)
    expect(summaries.every((message) => message.role === 'user' && String(message.content).startsWith('<system-reminder source="context-summary">'))).toBe(true)
    expect(lines.some((line) => line.events.some((event) => event.name === 'context:post_summarize'))).toBe(true)
  })
})

describe('context-simple replay warnings', () => {
  it('prints the warnings the core logged while replaying on stderr, once each with a count', async () => {
    const { code, stderr } = await run(['replay', '--budget', '500', '--no-progress'])
    expect(code).toBe(0)
    expect(stderr).toMatch(/warning: context-simple: compaction_notice_token_reserve=800 leaves no room in a budget of 500 tokens; using the full budget \(lower compaction_notice_token_reserve, or compaction_notice_enabled: false reserves nothing\) \(\d+ times\)/)
  })

  it('names the closest known key for a misspelled key: an error in --set (typed by hand), a warning in --config, as the constructor does', async () => {
    const fromSet = await run(['replay', '--set', 'compact_treshold=0.5', '--no-progress'])
    expect(fromSet.code).toBe(2)
    expect(fromSet.stdout).toBe('')
    expect(fromSet.stderr).toContain('--set compact_treshold=0.5: unknown configuration key compact_treshold, did you mean compact_threshold?')
    const dir = mkdtempSync(join(tmpdir(), 'cs-cli-'))
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ tokenMeter: 'hybrid' }))
    const fromFile = await run(['compare', fixturePath('sessions/claude-code/short.jsonl'), '--config', config, '--json'])
    expect(fromFile.code).toBe(0)
    expect(fromFile.stderr).toContain('config.tokenMeter: unknown key, ignored; did you mean token_meter?')
  })
})

describe('context-simple replay: provider model and output options', () => {
  it('--no-views leaves view out of --json; several inputs tag each line with its file first', async () => {
    const short = fixturePath('sessions/claude-code/short.jsonl')
    const heavy = fixturePath('sessions/claude-code/tool_heavy.jsonl')
    const withViews = parseLines((await run(['replay', short, '--json'])).stdout) as Array<Record<string, unknown>>
    const without = parseLines((await run(['replay', short, '--json', '--no-views'])).stdout) as Array<Record<string, unknown>>
    expect(without).toEqual(withViews.map(({ view: _view, ...rest }) => rest))
    const { code, stdout } = await run(['replay', short, heavy, '--json', '--no-views'])
    expect(code).toBe(0)
    // the request lines, then the total of several inputs
    const lines = stdout.trim().split('\n').slice(0, -1)
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^\{"total":\{"inputs":2,/)
    expect(lines.every((line) => line.startsWith('{"file":'))).toBe(true)
    expect(new Set(lines.map((line) => (JSON.parse(line) as { file: string }).file))).toEqual(new Set([short, heavy]))
  })

  it('--usage simulated prints no drift line, reports clamping, and feeds the hybrid meter simulated readings', async () => {
    const heavy = fixturePath('sessions/claude-code/tool_heavy.jsonl')
    const human = await run(['replay', heavy, '--usage', 'simulated', '--budget', '20000', '--no-progress'])
    expect(human.code).toBe(0)
    expect(human.stdout).not.toContain('estimator drift')
    expect(human.stdout).toMatch(/usage: simulated \(provider model fitted on 4 readings: reading ~ \d\.\d{3} x count \+ [\d,]+; hidden overhead clamped at 0 on \d+ requests\)/)
    expect(human.stdout).toContain('input (sim)')
    expect(human.stdout).toContain('legend:')
    const lines = parseLines((await run(['replay', heavy, '--usage', 'simulated', '--set', 'token_meter=hybrid', '--json', '--no-views'])).stdout) as Array<{ simulated_usage: Record<string, number>; token_meter_stats: { measured_tokens: number | null } }>
    // the meter's reading at request i+1 is the simulated reading of request i
    for (let index = 1; index < lines.length; index += 1) {
      const previous = lines[index - 1].simulated_usage
      expect(lines[index].token_meter_stats.measured_tokens).toBe(previous.input_tokens + previous.cache_write_tokens)
    }
  })

  it('--version prints the package version', async () => {
    const { code, stdout } = await run(['--version'])
    expect(code).toBe(0)
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('marks requests over the budget', async () => {
    const { stdout } = await run(['replay', fixturePath('sessions/claude-code/tool_heavy.jsonl'), '--usage', 'simulated', '--budget', '20000', '--no-progress'])
    expect(stdout).toContain('OVER BUDGET')
    expect(stdout).toMatch(/requests over the budget: [1-9]/)
  })
})

describe('context-simple --help of the commands that take inputs', () => {
  const helpOf = async (command: string): Promise<string> => {
    const { code, stdout } = await run([command, '--help'])
    expect(code).toBe(0)
    return stdout.replace(/\s+/g, ' ')
  }

  it('says what a directory contributes as expandInputs reads it: gzipped files included, other files and subfolders not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-help-'))
    for (const name of ['a.jsonl.gz', 'b.json', 'c.json.gz', 'd.jsonl', 'notes.txt', 'e.gz']) writeFileSync(join(dir, name), '')
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'sub', 'f.jsonl'), '')
    // a folder is a folder by what stat says, not by its name
    mkdirSync(join(dir, 'g.jsonl'))
    writeFileSync(join(dir, 'g.jsonl', 'h.jsonl'), '')
    expect(expandInputs([dir]).map((path) => path.slice(dir.length + 1))).toEqual(['a.jsonl.gz', 'b.json', 'c.json.gz', 'd.jsonl'])
    for (const command of ['replay', 'compare']) {
      expect(await helpOf(command)).toContain('a directory contributes its *.jsonl and *.json files, gzipped or not, not recursively')
    }
  })

  it('takes a folder named like a session file, given inside a directory, for a folder: skipped, not read as a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-dirname-'))
    mkdirSync(join(dir, 'x.jsonl'))
    expect(() => expandInputs([dir])).toThrow(`${dir}: the directory holds no *.jsonl or *.json input files`)
    writeFileSync(join(dir, 'y.jsonl'), readFixture('sessions/claude-code/short.jsonl'))
    const { code, stderr } = await run(['compare', dir, '--preset', 'reference', '--json'])
    expect(stderr).not.toContain('x.jsonl')
    expect(code).toBe(0)
  })

  it('names the request count of the bundled session replay and report read by default', async () => {
    const { code, stdout } = await run(['replay', '--json', '--no-views'])
    expect(code).toBe(0)
    const requests = parseLines(stdout).length
    for (const command of ['replay', 'report']) {
      expect(await helpOf(command)).toContain(`default: the bundled ${requests}-request Claude Code session`)
    }
    expect(await helpOf('replay')).toContain('Codex CLI rollouts')
  })
})
