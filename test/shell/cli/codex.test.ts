// Codex rollouts through the CLI, in-process: replay of the shared rollouts (a directory, auto
// format) in their own view format with 0 invalid views, the no-usage notice, and compare.
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'
import { FIXTURES } from '../../support/fixtures.js'
import { join } from 'node:path'

const DIR = join(FIXTURES, 'sessions/codex')
const parseLines = (text: string): Array<Record<string, unknown>> => text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>)

describe('context-simple replay of Codex rollouts', () => {
  it('replays the directory in openai-responses views at the rollout window with 0 invalid views, and notes the file without usage', async () => {
    const { code, stdout, stderr } = await runCli(['replay', DIR, '--view-format', 'openai-responses', '--no-progress'])
    expect(code).toBe(0)
    expect(stdout).toContain('(codex, 1 session)')
    const broken = [...stdout.matchAll(/views that break openai-responses rules O1, O2, O4: (\d+)/g)].map((match) => Number(match[1]))
    // one per rollout, then the total over both
    expect(broken).toEqual([0, 0, 0])
    // the 0.45 rollout: its 169 readings, at 272000 - 64000 (half the 128000 max output) - 4096 - 800 = 203104
    expect(stdout).toMatch(/estimator drift \(reading \/ estimate of the request it describes, 169 requests\)/)
    expect(stdout).toContain('203,104')
    expect(stderr).toMatch(/note: .*codemie-desktop-0\.128.*no token_count events/)
  })

  it('--json lines carry the rollout id as the session; the views are Responses items with encrypted reasoning and namespace intact at a tight budget', async () => {
    const file = join(DIR, 'codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl.gz')
    const { code, stdout } = await runCli(['replay', file, '--format', 'codex', '--json', '--view-format', 'openai-responses', '--budget', '20000'])
    expect(code).toBe(0)
    const lines = parseLines(stdout)
    expect(lines).toHaveLength(21)
    expect(new Set(lines.map((line) => line.session))).toEqual(new Set(['019e1695-0522-7c83-8b39-0dd379793f80']))
    const last = lines.at(-1)!.view as Array<Record<string, unknown>>
    expect(last[0]).toMatchObject({ role: 'system' })
    expect(last.filter((item) => item.type === 'reasoning').every((item) => typeof item.encrypted_content === 'string')).toBe(true)
    expect(lines.some((line) => line.compaction_stats !== null)).toBe(true)
  })

  it('compare lists each rollout as a session', async () => {
    const { code, stdout } = await runCli(['compare', DIR, '--preset', 'reference', '--model', 'gpt-5-codex', '--json', '--no-progress'])
    expect(code).toBe(0)
    const rows = parseLines(stdout)
    expect(rows.map((row) => row.session)).toEqual([
      'codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl#019e1695-0522-7c83-8b39-0dd379793f80',
      'guideai-cli-0.45-rollout-2025-10-06.jsonl#0199bb2a-4c23-76b1-bfb0-2d78295c0f29',
    ])
    expect(rows.every((row) => row.invalid_views === 0)).toBe(true)
  })
})
