// replay of several inputs (a directory, or several files) ends with a total: the summary lines over
// every request (text), or one last {"total": {...}} JSON line (--json); one input has none.
import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'
import { fixturePath } from '../../support/fixtures.js'

const twoInputs = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-replay-total-'))
  copyFileSync(fixturePath('sessions/claude-code/short.jsonl'), join(dir, 'a-short.jsonl'))
  copyFileSync(fixturePath('sessions/claude-code/tool_heavy.jsonl'), join(dir, 'b-tool_heavy.jsonl'))
  return dir
}

const figure = (text: string, name: string): number[] => [...text.matchAll(new RegExp(`^${name}: (\\d+)`, 'gm'))].map((match) => Number(match[1]))

describe('replay DIR: a total', () => {
  const dir = twoInputs()

  it('text: TOTAL with the summary lines over both inputs, each figure the sum (highest level the max)', async () => {
    const { code, stdout } = await runCli(['replay', dir, '--budget', '3000', '--no-progress'])
    expect(code).toBe(0)
    const [, total] = stdout.split('\nTOTAL (2 inputs)\n')
    expect(total).toBeDefined()
    for (const name of ['sessions', 'requests', 'compaction boundaries', 'skipped compactions', 'failed requests']) {
      const [first, second, sum] = figure(stdout, name)
      expect(sum, name).toBe(first + second)
    }
    const [first, second, sum] = figure(stdout, 'requests over the budget')
    expect(sum).toBe(first + second)
    const [a, b, highest] = figure(stdout, 'highest level')
    expect(highest).toBe(Math.max(a, b))
    expect(figure(stdout, 'requests')[2]).toBeGreaterThan(2)
  })

  it('--json: the last line is {"total": ...} with the same figures; the request lines before it are unchanged', async () => {
    const { stdout } = await runCli(['replay', dir, '--budget', '3000', '--no-progress', '--json', '--no-views', '--usage', 'recorded'])
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    const total = lines[lines.length - 1].total as Record<string, number>
    const requests = lines.slice(0, -1)
    expect(requests.every((line) => typeof line.op_index === 'number' && typeof line.file === 'string')).toBe(true)
    expect(total).toMatchObject({ inputs: 2, sessions: 2, requests: requests.length })
    expect(total.over_budget).toBe(requests.filter((line) => line.over_budget === true).length)
    expect(total.over_budget_unknown).toBe(requests.filter((line) => line.over_budget === 'unknown').length)
    expect(total.compaction_boundaries).toBe(requests.filter((line) => (line.events as Array<{ name: string }>).some((event) => event.name === 'context:compaction')).length)
  })

  it('one input: no total', async () => {
    const single = await runCli(['replay', fixturePath('sessions/claude-code/short.jsonl'), '--no-progress'])
    expect(single.stdout).not.toContain('TOTAL')
    const json = await runCli(['replay', fixturePath('sessions/claude-code/short.jsonl'), '--no-progress', '--json', '--no-views'])
    expect(json.stdout).not.toContain('"total"')
  })
})
