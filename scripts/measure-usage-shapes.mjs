#!/usr/bin/env node
// What the SPEC 17.10 usage intake changes on real sessions (`npm run build` first). Each shared
// Claude Code session is replayed in hybrid mode at a 60,000-token budget three ways:
//   contract - the importer's contract usage (the reference);
//   sdk      - the raw Anthropic `message.usage` an SDK user passes to onLlmResponse (read by 17.10);
//   before   - the same raw usage read the way the library read it before 17.10 (input_tokens only:
//              cache reads and writes dropped).
// Per variant it prints: requests, requests whose anchor was rejected, requests driven by provider
// usage (kind "usage"), compaction boundaries, and the median measured tokens.
// Usage: node scripts/measure-usage-shapes.mjs
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { decodeConfig, makeCachedEstimator, replayRecording } from '../dist/index.js'
import { loadRecordings } from '../dist/index.js'

const SESSIONS = [
  'fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
  'fixtures/sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl',
  'fixtures/sessions/claude-code/tool_heavy.jsonl',
  'fixtures/sessions/claude-code/short.jsonl',
]
const CONFIG = { token_meter: 'hybrid' }
const BUDGET = 60_000

/** The raw Anthropic usage behind a contract usage (input_tokens there = fresh + cache reads). */
const toAnthropic = (usage) => ({
  input_tokens: usage.input_tokens - (usage.cache_read_tokens ?? 0),
  output_tokens: usage.output_tokens ?? 0,
  cache_read_input_tokens: usage.cache_read_tokens ?? null,
  cache_creation_input_tokens: usage.cache_write_tokens ?? null,
})
const VARIANTS = {
  contract: (usage) => usage,
  sdk: (usage) => toAnthropic(usage),
  before: (usage) => ({ input_tokens: toAnthropic(usage).input_tokens, output_tokens: usage.output_tokens ?? 0 }),
}

const decoded = decodeConfig(CONFIG)
if (decoded._tag === 'Left') throw decoded.left
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)]
}
for (const file of SESSIONS) {
  const raw = readFileSync(file)
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8')
  const [recording] = loadRecordings(text, file, 'claude-code').recordings
  for (const [name, map] of Object.entries(VARIANTS)) {
    const ops = recording.ops.map((op) =>
      op.op === 'llm_response' && op.usage !== null && typeof op.usage === 'object' ? { ...op, usage: map(op.usage) } :
      op.op === 'get_messages_for_request' ? { ...op, token_budget: BUDGET } : op)
    const result = replayRecording({ ...recording, config: CONFIG, ops }, { config: decoded.right.config, estimate: makeCachedEstimator() })
    const stats = result.lines.map((line) => line.token_meter_stats).filter((s) => s !== null)
    const boundaries = result.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction')).length
    console.log(
      `${file.split('/').pop().slice(0, 34).padEnd(34)} ${name.padEnd(8)} requests ${String(stats.length).padStart(3)}` +
        ` anchor-rejected ${String(stats.filter((s) => s.anchor_rejected).length).padStart(3)}` +
        ` kind-usage ${String(stats.filter((s) => s.kind === 'usage').length).padStart(3)}` +
        ` boundaries ${String(boundaries).padStart(2)}` +
        ` median-measured ${median(stats.map((s) => s.measured_tokens).filter((v) => v !== null))}`,
    )
  }
}
