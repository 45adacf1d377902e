// Side chains of a Claude Code session file through the CLI, in-process: replay --json tags each
// line with its session, --session picks one, compare lists each as a row.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'

const line = (value: Record<string, unknown>): string => JSON.stringify({ sessionId: 'main-1', timestamp: '2026-01-08T20:53:23.000Z', ...value })
const SESSION_FILE = [
  line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'review the parser' } }),
  line({ type: 'assistant', uuid: 'a1', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'delegating' }], usage: { input_tokens: 50, output_tokens: 3 } } }),
  line({ type: 'user', uuid: 'u2', isSidechain: true, agentId: 'agent-7', message: { role: 'user', content: 'read parser.ts' } }),
  line({ type: 'assistant', uuid: 'a2', isSidechain: true, agentId: 'agent-7', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'read' }], usage: { input_tokens: 20, output_tokens: 1 } } }),
  line({ type: 'assistant', uuid: 'a3', message: { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'all good' }], usage: { input_tokens: 60, output_tokens: 3 } } }),
].join('\n')

const parseLines = (text: string): Array<Record<string, unknown>> => text.split('\n').filter((entry) => entry.trim() !== '').map((entry) => JSON.parse(entry) as Record<string, unknown>)

describe('side chains as sessions in the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-side-'))
  const file = join(dir, 'main-1.jsonl')
  writeFileSync(file, SESSION_FILE)

  it('replay --json lists both sessions; --session replays one', async () => {
    const all = await runCli(['replay', file, '--json', '--no-views'])
    expect(all.code).toBe(0)
    expect(parseLines(all.stdout).map((entry) => entry.session)).toEqual(['main-1', 'main-1', 'main-1', 'main-1/agent-7', 'main-1/agent-7'])
    const one = await runCli(['replay', file, '--json', '--no-views', '--session', 'main-1/agent-7', '--view-format', 'anthropic'])
    expect(one.code).toBe(0)
    expect(parseLines(one.stdout).map((entry) => entry.session)).toEqual(['main-1/agent-7', 'main-1/agent-7'])
    const unknown = await runCli(['replay', file, '--session', 'main-1/nobody'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('main-1, main-1/agent-7')
  })

  it('compare has one row per session', async () => {
    const { code, stdout } = await runCli(['compare', file, '--preset', 'reference', '--json', '--no-progress'])
    expect(code).toBe(0)
    expect(parseLines(stdout).map((row) => row.session)).toEqual(['main-1.jsonl#main-1', 'main-1.jsonl#main-1/agent-7'])
  })
})
