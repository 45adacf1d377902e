// The inputs the HTML report is checked on: every real session under fixtures/sessions (Claude Code at a budget
// where the long one compacts, and at Claude's window; tau-bench at --budget 4500, all sessions
// and one picked with --session; the second Claude Code session and the Codex rollouts at 60,000).
import { fixturePath } from './fixtures.js'

export interface ReportInput {
  readonly name: string
  readonly file: string
  readonly flags: ReadonlyArray<string>
  /** The session's model (its own, or --model) has a price: the page draws the cumulative cost. */
  readonly priced: boolean
}

export const REPORT_INPUTS: ReadonlyArray<ReportInput> = [
  { name: 'cc-short', file: fixturePath('sessions/claude-code/short.jsonl'), flags: [], priced: true },
  { name: 'cc-tool-heavy', file: fixturePath('sessions/claude-code/tool_heavy.jsonl'), flags: ['--budget', '8000'], priced: true },
  { name: 'cc-acompact', file: fixturePath('sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl'), flags: ['--budget', '8000'], priced: true },
  { name: 'cc-4d5611e5', file: fixturePath('sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), flags: ['--budget', '60000', '--preset', 'recommended'], priced: true },
  { name: 'tau-bench-all', file: fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'), flags: ['--budget', '4500'], priced: false },
  { name: 'tau-bench-one', file: fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'), flags: ['--budget', '4500', '--session', '12-t0', '--model', 'gpt-4o'], priced: true },
  { name: 'cc2-codemie', file: fixturePath('sessions/claude-code-2/codemie-196820da.jsonl'), flags: ['--budget', '60000'], priced: true },
  { name: 'codex-guideai', file: fixturePath('sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl'), flags: ['--budget', '60000'], priced: true },
  { name: 'codex-codemie-desktop', file: fixturePath('sessions/codex/codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl'), flags: ['--budget', '60000'], priced: false },
]
