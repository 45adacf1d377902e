// The inputs the HTML report is checked on: every real session under fixtures/sessions (Claude Code at a budget
// where the long one compacts, and at Claude's window; tau-bench at --budget 4500, all sessions
// and one picked with --session).
import { fixturePath } from './fixtures.js'

export interface ReportInput {
  readonly name: string
  readonly file: string
  readonly flags: ReadonlyArray<string>
}

export const REPORT_INPUTS: ReadonlyArray<ReportInput> = [
  { name: 'cc-short', file: fixturePath('sessions/claude-code/short.jsonl'), flags: [] },
  { name: 'cc-tool-heavy', file: fixturePath('sessions/claude-code/tool_heavy.jsonl'), flags: ['--budget', '8000'] },
  { name: 'cc-acompact', file: fixturePath('sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl'), flags: ['--budget', '8000'] },
  { name: 'cc-4d5611e5', file: fixturePath('sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), flags: ['--budget', '60000', '--preset', 'recommended'] },
  { name: 'tau-bench-all', file: fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'), flags: ['--budget', '4500'] },
  { name: 'tau-bench-one', file: fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'), flags: ['--budget', '4500', '--session', '12-t0', '--model', 'gpt-4o'] },
]
