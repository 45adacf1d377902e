// The over-budget judgement under recorded usage (judgeOverBudget, src/core/economics/metrics.ts):
// a recorded reading bills the request the agent sent, so it judges a request only while the view
// the replay sent is that request; after the replay's first compaction, and on a request without a
// reading, the judgement is 'unknown' (never the meter's own count). Under simulated usage every
// view has a bill. Checked on a hand-made recording through replay (text and --json), compare and
// report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'

/**
 * Four requests at token_budget 3000 (E 2200), default configuration (estimate meter):
 * 0: view = history, reading 1200 (within); 1: view = history, reading 3500 (over);
 * 2: view = history, no reading; 3: compacted (a large tool result), reading 5000.
 */
const writeRecording = (): string => {
  const ops: unknown[] = [{ type: 'recording', version: 1, config: {} }]
  const add = (message: unknown) => ops.push({ op: 'add_message', message })
  const request = () => ops.push({ op: 'get_messages_for_request', token_budget: 3000 })
  const reading = (input: number) => ops.push({ op: 'llm_response', usage: { input_tokens: input, output_tokens: 10 } })
  const call = (id: string, result: string) => {
    add({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: '{}' } }] })
    add({ role: 'tool', tool_call_id: id, content: result })
  }
  add({ role: 'user', content: `start ${'word '.repeat(200)}` })
  request()
  reading(1200)
  call('c1', 'result '.repeat(300))
  request()
  reading(3500)
  call('c2', 'more '.repeat(200))
  request()
  call('c3', 'big '.repeat(1500))
  request()
  reading(5000)
  const path = join(mkdtempSync(join(tmpdir(), 'cs-over-budget-')), 'recording.jsonl')
  writeFileSync(path, ops.map((op) => JSON.stringify(op)).join('\n') + '\n')
  return path
}

const jsonLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('over budget under recorded usage: true, false or unknown', () => {
  const file = writeRecording()

  it('replay --json --usage recorded: over_budget is judged on the reading while the view is what the agent sent, else "unknown"', async () => {
    const { code, stdout } = await runCli(['replay', file, '--json', '--no-views', '--no-progress', '--usage', 'recorded'])
    expect(code).toBe(0)
    const lines = jsonLines(stdout)
    expect(lines.map((line) => line.over_budget)).toEqual([false, true, 'unknown', 'unknown'])
    // request 3 compacted: its reading (5000, over E) bills the request the agent sent, not this view
    expect((lines[3].compaction_stats as { strategy_level: number } | null)?.strategy_level).toBeGreaterThan(0)
  })

  it('a native recording replayed under another budget or configuration: its readings bill views the replay does not reproduce, so all are "unknown"', async () => {
    // The recording's readings bill its own manager's views (llm:response of that manager, docs/recording-format.md).
    // At --budget 100000 the replay does not compact request 3, so its view is the whole history, but the reading
    // (5000) billed the view the recording's manager sent at 3000; the same holds for any --set.
    for (const extra of [['--budget', '100000'], ['--set', 'compact_threshold=0.99']]) {
      const { code, stdout } = await runCli(['replay', file, '--json', '--no-views', '--no-progress', '--usage', 'recorded', ...extra])
      expect(code).toBe(0)
      expect(jsonLines(stdout).map((line) => line.over_budget)).toEqual(['unknown', 'unknown', 'unknown', 'unknown'])
    }
    // the recorded budget given again reproduces the recording's manager: judged as without it
    const same = await runCli(['replay', file, '--json', '--no-views', '--no-progress', '--usage', 'recorded', '--budget', '3000', '--preset', 'reference'])
    expect(jsonLines(same.stdout).map((line) => line.over_budget)).toEqual([false, true, 'unknown', 'unknown'])
  })

  it('replay --json without --usage: exactly the replay-output lines, no over_budget', async () => {
    const { stdout } = await runCli(['replay', file, '--json', '--no-views', '--no-progress'])
    const lines = jsonLines(stdout)
    expect(lines).toHaveLength(4)
    for (const line of lines) expect(line).not.toHaveProperty('over_budget')
  })

  it('replay --usage simulated: every view has a bill, nothing is unknown', async () => {
    const { stdout } = await runCli(['replay', file, '--json', '--no-views', '--no-progress', '--usage', 'simulated'])
    const judged = jsonLines(stdout).map((line) => line.over_budget)
    expect(judged).toHaveLength(4)
    for (const value of judged) expect(typeof value).toBe('boolean')
    const text = await runCli(['replay', file, '--no-progress', '--usage', 'simulated'])
    expect(text.stdout).toMatch(/requests over the budget: \d+\n/)
    expect(text.stdout).not.toContain('unknown')
  })

  it('replay text: the input (rec) column shows ? where no reading bills the view, and the summary counts unknowns apart', async () => {
    const { stdout } = await runCli(['replay', file, '--no-progress'])
    expect(stdout).toContain('input (rec)')
    const rows = stdout.split('\n').filter((line) => /^│\s+\d+ │/.test(line))
    expect(rows).toHaveLength(4)
    expect(rows[1]).toContain('3,500 !')
    expect(rows[1]).toContain('OVER BUDGET')
    for (const row of [rows[2], rows[3]]) {
      expect(row).toMatch(/│\s+\? │/)
      expect(row).not.toContain('OVER BUDGET')
    }
    expect(stdout).toContain('requests over the budget: 1 (unknown on 2:')
  })

  it('compare --usage recorded: overflows count billed views only, overflows_unknown the rest; simulated has none unknown', async () => {
    const recorded = await runCli(['compare', file, '--budget', '3000', '--preset', 'reference', '--usage', 'recorded', '--json', '--jobs', '1', '--no-progress'])
    expect(recorded.code).toBe(0)
    const [row] = jsonLines(recorded.stdout)
    expect(row).toMatchObject({ requests: 4, overflows: 1, overflows_unknown: 2 })
    const table = await runCli(['compare', file, '--budget', '3000', '--preset', 'reference', '--usage', 'recorded', '--jobs', '1', '--no-progress'])
    expect(table.stdout).toContain('1 (2 unknown)')
    const simulated = await runCli(['compare', file, '--budget', '3000', '--preset', 'reference', '--json', '--jobs', '1', '--no-progress'])
    expect(jsonLines(simulated.stdout)[0]).toMatchObject({ overflows_unknown: 0 })
  })

  it('report --usage recorded: the page counts the requests over the budget and the unknown ones', async () => {
    const html = join(mkdtempSync(join(tmpdir(), 'cs-over-budget-report-')), 'report.html')
    const { code } = await runCli(['report', file, '--usage', 'recorded', '--html', html, '--no-progress'])
    expect(code).toBe(0)
    expect(readFileSync(html, 'utf8')).toContain('<dt>requests over E</dt><dd>1 (unknown on 2: no recorded reading bills the view sent)')
  })
})
