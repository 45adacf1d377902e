// replay --view-format: views printed as each provider's request wants them, checked by the
// format's rules; a Claude Code session viewed as anthropic is imported natively.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../../src/core/formats/anthropic.js'
import { findFormatViolations } from '../../../src/core/formats/dispatch.js'
import { runCli } from '../../support/cli.js'

const TOOL_HEAVY = 'fixtures/sessions/claude-code/tool_heavy.jsonl'
const TAU = 'fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz'

const views = (stdout: string): unknown[] => stdout.trim().split('\n').map((line) => JSON.parse(line).view)

describe('replay --view-format', () => {
  it('anthropic: native import keeps thinking blocks verbatim; every view passes A1-A7', async () => {
    const thinking = new Set<string>()
    for (const line of readFileSync(TOOL_HEAVY, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const content = JSON.parse(line).message?.content
      if (Array.isArray(content)) for (const block of content) if (block.type === 'thinking' || block.type === 'redacted_thinking') thinking.add(canonicalJson(block))
    }
    expect(thinking.size).toBeGreaterThan(0)
    const { code, stdout } = await runCli(['replay', TOOL_HEAVY, '--view-format', 'anthropic', '--budget', '3000', '--json'])
    expect(code).toBe(0)
    const all = views(stdout) as Array<{ messages: Array<{ content: unknown }> }>
    for (const view of all) expect(findFormatViolations('anthropic', view, { thinkingSource: thinking })).toEqual([])
    expect(all.some((view) => JSON.stringify(view).includes('"type":"thinking"'))).toBe(true)
    expect(all.some((view) => JSON.stringify(view).includes('metadata'))).toBe(false)
  })

  it('every other format on the tau-bench trajectories at 4500 tokens: rules hold (repeated input ids aside)', async () => {
    for (const format of ['openai-chat', 'openai-responses', 'ai-sdk'] as const) {
      const { code, stdout } = await runCli(['replay', TAU, '--session', '0-t0', '--view-format', format, '--budget', '4500', '--json'])
      expect(code).toBe(0)
      const problems = views(stdout).flatMap((view) => findFormatViolations(format, view)).filter((problem) => !/^(R4|O3|S4) /.test(problem))
      expect(problems, format).toEqual([])
    }
  })

  it('the summary line names the format and counts views breaking it; without the flag the output is unchanged', async () => {
    const viewed = await runCli(['replay', TOOL_HEAVY, '--view-format', 'ai-sdk', '--budget', '3000'])
    expect(viewed.stdout).toContain('views that break ai-sdk rules S1-S3, S5: 0')
    const plain = await runCli(['replay', TOOL_HEAVY, '--budget', '3000', '--json'])
    const again = await runCli(['replay', TOOL_HEAVY, '--budget', '3000', '--json'])
    expect(plain.stdout).toBe(again.stdout)
    expect(views(plain.stdout).every((view) => Array.isArray(view))).toBe(true)
  })
})
