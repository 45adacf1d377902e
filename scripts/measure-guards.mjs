#!/usr/bin/env node
// Replays the shared sessions through the built CLI (`npm run build` first) and prints, per
// session and configuration: compaction boundaries, messages removed (final stats), views over the
// request budget (E plus the 800-token notice reserve), and guard events. Usage: node scripts/measure-guards.mjs [--set k=v ...]
import { execFileSync } from 'node:child_process'
import { estimateOne } from '../dist/core/meter/estimate.js'

const extra = process.argv.slice(2)
const SESSIONS = [
  ['cc-big@60000', 'fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz', ['--budget', '60000']],
  ['cc-big@window', 'fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz', ['--window', '200000', '--max-output', '64000']],
  ['cc-agent@60000', 'fixtures/sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl', ['--budget', '60000']],
  ['cc-tool-heavy@60000', 'fixtures/sessions/claude-code/tool_heavy.jsonl', ['--budget', '60000']],
  ['tau@4500', 'fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz', ['--budget', '4500']],
]
for (const [name, file, budget] of SESSIONS) {
  let out
  try {
    out = execFileSync('node', ['bin/context-simple.js', 'replay', file, ...budget, '--json', ...extra], { encoding: 'utf8', maxBuffer: 1 << 30 })
  } catch (error) {
    out = error.stdout ?? ''
  }
  let requests = 0, boundaries = 0, removed = 0, over = 0, failed = 0, maxLevel = 0, noticeTokens = 0
  const guardEvents = {}
  // messages_removed is cumulative per session; a session ends where op_index starts again.
  let sessionRemoved = 0
  let lastOp = -1
  for (const text of out.split('\n')) {
    if (text === '') continue
    const line = JSON.parse(text)
    if (line.op_index <= lastOp) {
      removed += sessionRemoved
      sessionRemoved = 0
    }
    lastOp = line.op_index
    if (!('view' in line) && line.error === undefined) continue
    requests += 1
    if (line.error !== undefined) { failed += 1; continue }
    for (const event of line.events ?? []) {
      if (event.name === 'context:compaction') {
        boundaries += 1
        sessionRemoved = event.data.messages_removed
        maxLevel = Math.max(maxLevel, event.data.strategy_level)
      } else if (event.name !== 'context:token_meter') guardEvents[event.name] = (guardEvents[event.name] ?? 0) + 1
    }
    const budget = line.token_meter_stats?.budget
    if (line.view && budget > 0) {
      const tokens = line.view.reduce((sum, m) => sum + estimateOne(m), 0)
      for (const m of line.view) if (m.metadata?.source === 'context-compaction') noticeTokens += estimateOne(m)
      if (tokens > budget + 800) over += 1
    }
  }
  removed += sessionRemoved
  console.log(`${name.padEnd(22)} requests ${requests} boundaries ${boundaries} removed ${removed} over-budget ${over} notice-tokens ${noticeTokens} failed ${failed} level ${maxLevel} ${JSON.stringify(guardEvents)}`)
}
