#!/usr/bin/env node
// Deterministic stress sessions for the storm goals (docs/evaluation.md, "Screenshots and the
// storm shapes"); the data is not committed, this script is:
//   node scripts/generate-stress-sessions.mjs [OUT_DIR]     (default /tmp/context-simple-stress)
// - screenshots.jsonl: a Claude Code session (the importer's format) of 24 turns, each a
//   `screenshot` tool call whose tool_result holds one base64 PNG of about 180 KB (1280 x 800 in
//   its IHDR; pseudo-random bytes after the header, from a fixed seed), then a short answer. Every
//   assistant line carries usage as Anthropic bills it: a fixed 14,000-token system prompt and
//   tools, the text, and each image at width x height / 750 = 1,365 tokens, so the readings are
//   what a provider returns for screenshots (not 45,000 tokens of base64 text each).
// - floor.jsonl: a recording (contract format) of the shape of docs/configuration.md, "The
//   irreducible floor": a system prompt of about 3,526 tokens (reference estimate) and 30 short
//   turns; replay it with --budget 4000 (the floor stays above the target, under E).
// - breaker.jsonl: the shape of "The breaker": a 5,000-token system prompt and 30 short turns;
//   replay it with --budget 4000 (E is below the system prompt alone).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { estimateOne } from '../dist/core/meter/estimate.js'

const out = process.argv[2] ?? '/tmp/context-simple-stress'
mkdirSync(out, { recursive: true })

// xorshift32 from a fixed seed: the same bytes on every run.
let seed = 0x9e3779b9
const nextByte = () => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  seed >>>= 0
  return seed & 0xff
}

/** A PNG signature and IHDR chunk for width x height, then `size` pseudo-random bytes, base64. */
const pngBase64 = (width, height, size) => {
  const header = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0)
  header.writeUInt32BE(13, 8)
  header.write('IHDR', 12, 'ascii')
  header.writeUInt32BE(width, 16)
  header.writeUInt32BE(height, 20)
  header.set([8, 6, 0, 0, 0], 24)
  header.writeUInt32BE(0, 29)
  const body = Buffer.alloc(size)
  for (let i = 0; i < size; i += 1) body[i] = nextByte()
  return Buffer.concat([header, body]).toString('base64')
}

const sessionId = '5c2e3d1a-0000-4000-8000-000000000024'
let clock = Date.parse('2026-03-01T10:00:00.000Z')
let counter = 0
const uuid = () => `00000000-0000-4000-8000-${String((counter += 1)).padStart(12, '0')}`
const stamp = () => new Date((clock += 4000)).toISOString()
const lines = []
let parent = null
const push = (fields) => {
  const id = uuid()
  lines.push({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/user/projects/app', sessionId, version: '2.1.38', gitBranch: 'main', ...fields, uuid: id, timestamp: stamp() })
  parent = id
}

const SYSTEM_AND_TOOLS = 14_000
const IMAGE_TOKENS = Math.round((1280 * 800) / 750)
let textTokens = 0
let images = 0
let previousTotal = 0
const usage = () => {
  const total = SYSTEM_AND_TOOLS + textTokens + images * IMAGE_TOKENS
  const read = previousTotal
  previousTotal = total
  return { input_tokens: 3, cache_creation_input_tokens: total - read - 3, cache_read_input_tokens: read, output_tokens: 60, service_tier: 'standard' }
}
const prompt = 'Walk through the signup flow of the staging site and tell me which step looks broken; take a screenshot after every step.'
push({ type: 'user', message: { role: 'user', content: prompt } })
textTokens += Math.ceil(prompt.length / 4)
for (let turn = 0; turn < 24; turn += 1) {
  const toolId = `toolu_shot_${String(turn).padStart(2, '0')}`
  push({ type: 'assistant', message: { model: 'claude-opus-4-6', id: `msg_shot_${turn}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: toolId, name: 'screenshot', input: { step: turn + 1 } }], stop_reason: 'tool_use', usage: usage() } })
  textTokens += 30
  const data = pngBase64(1280, 800, 135_000)
  push({ type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] }] }, toolUseResult: { type: 'image' } })
  images += 1
  const answer = `Step ${turn + 1}: the page rendered; ${turn % 5 === 3 ? 'the submit button is greyed out.' : 'nothing looks wrong yet.'}`
  push({ type: 'assistant', message: { model: 'claude-opus-4-6', id: `msg_text_${turn}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: answer }], stop_reason: 'end_turn', usage: usage() } })
  textTokens += Math.ceil(answer.length / 4)
  if (turn < 23) {
    const next = `Go on with step ${turn + 2}.`
    push({ type: 'user', message: { role: 'user', content: next } })
    textTokens += 8
  }
}
writeFileSync(join(out, 'screenshots.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n')

/** A system prompt whose reference estimate is about `tokens`. */
const systemOf = (tokens) => {
  const unit = 'Follow the policy for every booking change, cite the rule you apply, and never guess a fare. '
  let text = ''
  while (estimateOne({ role: 'system', content: text + unit }) <= tokens) text += unit
  return text
}
const recording = (system) => {
  const ops = [{ op: 'add_message', message: { role: 'system', content: system } }]
  for (let turn = 0; turn < 30; turn += 1) {
    ops.push({ op: 'add_message', message: { role: 'user', content: `Question ${turn + 1}: can I move my flight ${turn + 1} to the next day?` } })
    ops.push({ op: 'get_messages_for_request' })
    ops.push({ op: 'add_message', message: { role: 'assistant', content: `Yes for flight ${turn + 1}, under rule ${turn % 7}: the change fee applies once, and the fare difference is charged.` } })
  }
  return [{ type: 'recording', version: 1, config: {} }, ...ops].map((line) => JSON.stringify(line)).join('\n') + '\n'
}
writeFileSync(join(out, 'floor.jsonl'), recording(systemOf(3526)))
writeFileSync(join(out, 'breaker.jsonl'), recording(systemOf(5000)))
console.log(`wrote ${out}/screenshots.jsonl (24 screenshots, each ${pngBase64(1280, 800, 135_000).length.toLocaleString("en-US")} base64 characters), floor.jsonl, breaker.jsonl`)
