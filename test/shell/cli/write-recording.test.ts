// replay --write-recording: the written recording replays with no flags to the same output lines
// as the imported session did with its flags (Codex rollout, Claude Code session natively, a
// budget flag), and inputs holding several sessions need --session.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'
import { fixturePath } from '../../support/fixtures.js'

const dir = mkdtempSync(join(tmpdir(), 'cs-write-'))

const replayBoth = async (input: string, flags: string[], replayFlags: string[] = []): Promise<{ original: string; again: string; written: string }> => {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.recording.jsonl`)
  const first = await runCli(['replay', input, ...flags, '--json', '--no-views', '--write-recording', out])
  expect(first.code).toBe(0)
  const second = await runCli(['replay', out, ...replayFlags, '--json', '--no-views'])
  expect(second.code).toBe(0)
  return { original: first.stdout, again: second.stdout, written: readFileSync(out, 'utf8') }
}

describe('replay --write-recording', () => {
  it('a Codex rollout: an openai-responses recording that replays to the same lines', async () => {
    const { original, again, written } = await replayBoth(fixturePath('sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl'), [])
    expect(JSON.parse(written.split('\n')[0])).toMatchObject({ type: 'recording', version: 1, format: 'openai-responses', session: '0199bb2a-4c23-76b1-bfb0-2d78295c0f29' })
    expect(written.split('\n').filter((line) => line.includes('"op":"llm_response"'))).toHaveLength(169)
    expect(again).toBe(original)
  })

  it('a Claude Code session with a budget and a preset: the budget and merged configuration are in the file', async () => {
    const { original, again, written } = await replayBoth(fixturePath('sessions/claude-code/tool_heavy.jsonl'), ['--budget', '6000', '--preset', 'recommended', '--set', 'token_meter=hybrid'])
    const header = JSON.parse(written.split('\n')[0]) as { config: Record<string, unknown> }
    expect(header.config.token_meter).toBe('hybrid')
    expect(written).toContain('"token_budget":6000')
    expect(again).toBe(original)
  })

  it('a Claude Code session imported natively (--view-format anthropic) is written in the anthropic format with its clear op', async () => {
    const { original, again, written } = await replayBoth(fixturePath('sessions/claude-code-2/codemie-196820da.jsonl'), ['--view-format', 'anthropic'], ['--view-format', 'anthropic'])
    expect(JSON.parse(written.split('\n')[0])).toMatchObject({ format: 'anthropic' })
    expect(written).toContain('{"op":"clear"}')
    expect(again).toBe(original)
  })

  it('several sessions need --session; several inputs are refused', async () => {
    const tau = fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json')
    const several = await runCli(['replay', tau, '--budget', '3000', '--json', '--no-views', '--write-recording', join(dir, 'x.jsonl')])
    expect(several.code).toBe(2)
    expect(several.stderr).toMatch(/pick one with --session/)
    const two = await runCli(['replay', fixturePath('sessions/claude-code/short.jsonl'), fixturePath('sessions/claude-code/tool_heavy.jsonl'), '--write-recording', join(dir, 'y.jsonl')])
    expect(two.code).toBe(2)
    expect(two.stderr).toMatch(/give one input file/)
  })
})
