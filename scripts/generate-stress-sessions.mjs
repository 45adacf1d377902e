#!/usr/bin/env node
// Deterministic stress sessions for the storm goals (docs/evaluation.md, "Screenshots and the
// storm shapes"); the data is not committed, this script is:
//   node scripts/generate-stress-sessions.mjs [OUT_DIR]     (default /tmp/context-simple-stress)
// - screenshots.jsonl: a recording (contract format) of 24 turns, each a `screenshot` tool call
//   whose result holds one base64 PNG of 180,044 characters (1280 x 800 in its IHDR; pseudo-random
//   bytes after the header, from a fixed seed), then a short answer. Every request has a Claude
//   window (200,000, 64,000 output) and a reading as Anthropic bills it: a fixed 14,000-token
//   system prompt and tools, the text, and each image at width x height / 750 = 1,365 tokens (not
//   45,000 tokens of base64 text each).
// - floor.jsonl, breaker.jsonl (and 30-turn -long variants): the storm shapes of
//   docs/configuration.md, "The irreducible floor" (a 3,500-token system prompt, the floor above
//   the target and under E = 4,000) and "The breaker" (5,000 tokens, above E), at budget 4,000.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

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

// The screenshot session, as a recording (the Claude Code importer keeps a tool result's image as an
// `[image]` placeholder, so a recording holds them as the agent sent them): each request carries
// the window of a Claude model (200,000 with 64,000 output) and is followed by the reading a
// provider returns for it.
const SYSTEM_AND_TOOLS = 14_000
const IMAGE_TOKENS = Math.round((1280 * 800) / 750)
const shots = [{ type: 'recording', version: 1, config: {} }]
let textTokens = 0
let images = 0
const say = (message) => {
  shots.push({ op: 'add_message', message })
  if (typeof message.content === 'string') textTokens += Math.ceil(message.content.length / 4) + 4
}
const request = () => {
  shots.push({ op: 'get_messages_for_request', provider: { context_window: 200_000, max_output_tokens: 64_000 } })
  shots.push({ op: 'llm_response', usage: { input_tokens: SYSTEM_AND_TOOLS + textTokens + images * IMAGE_TOKENS, output_tokens: 60 } })
}
say({ role: 'user', content: 'Walk through the signup flow of the staging site and tell me which step looks broken; take a screenshot after every step.' })
for (let turn = 0; turn < 24; turn += 1) {
  request()
  const id = `call_shot_${String(turn).padStart(2, '0')}`
  say({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'screenshot', arguments: `{"step":${turn + 1}}` } }] })
  textTokens += 30
  shots.push({ op: 'add_message', message: { role: 'tool', tool_call_id: id, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(1280, 800, 135_000) } }] } })
  images += 1
  request()
  say({ role: 'assistant', content: `Step ${turn + 1}: the page rendered; ${turn % 5 === 3 ? 'the submit button is greyed out.' : 'nothing looks wrong yet.'}` })
  if (turn < 23) say({ role: 'user', content: `Go on with step ${turn + 2}.` })
}
writeFileSync(join(out, 'screenshots.jsonl'), shots.map((line) => JSON.stringify(line)).join('\n') + '\n')

// The storm shapes exactly as docs/configuration.md and test/core/compaction/floor.test.ts build
// them: a system prompt of 14,000 characters (3,500 tokens by the reference
// estimate; floor) or 20,000 (5,000; breaker), in prose, then 4 or 6 turns of a short question and a 200-character answer,
// a request after each question, the notice off (the shape's own setting, in the header). The
// `-long` variants run 30 turns.
// Prose, not the tests' dot padding: a provider's tokenizer packs runs of dots many to a token,
// so the billed size (what the calibrated meter learns) would be far below the estimate.
const PROSE = 'Follow the booking policy for every change, cite the rule you apply, check the fare class, and never guess a fee or a date. '
const text = (tag, length) => `${tag} ${PROSE.repeat(Math.ceil(length / PROSE.length))}`.slice(0, length)
const chat = (systemChars, turns) => {
  const ops = [{ op: 'add_message', message: { role: 'system', content: text('policy', systemChars) } }]
  for (let i = 0; i < turns; i += 1) {
    ops.push({ op: 'add_message', message: { role: 'user', content: `question ${i}` } })
    ops.push({ op: 'get_messages_for_request', token_budget: 4000 })
    ops.push({ op: 'add_message', message: { role: 'assistant', content: text(`answer ${i}`, 200) } })
  }
  return [{ type: 'recording', version: 1, config: { compaction_notice_enabled: false, max_tokens: 4000 } }, ...ops].map((line) => JSON.stringify(line)).join('\n') + '\n'
}
writeFileSync(join(out, 'floor.jsonl'), chat(14_000, 4))
writeFileSync(join(out, 'breaker.jsonl'), chat(20_000, 6))
writeFileSync(join(out, 'floor-long.jsonl'), chat(14_000, 30))
writeFileSync(join(out, 'breaker-long.jsonl'), chat(20_000, 30))
console.log(`wrote ${out}/screenshots.jsonl (24 screenshots, each ${pngBase64(1280, 800, 135_000).length.toLocaleString("en-US")} base64 characters), floor.jsonl, breaker.jsonl, floor-long.jsonl, breaker-long.jsonl`)
