#!/usr/bin/env node
// How much of a session's tool output is superseded: a tool result whose call (tool name and
// arguments, JSON compared parsed) is made again later (the agent re-read the same file, re-ran
// the same command, re-fetched the same order), or whose text a later tool result repeats (the
// same text, or a later result containing it; results of 40+ characters). Per input file, over
// its sessions: tool results and their tokens (the reference estimator, estimateOne), the share of
// each kind, and the request-weighted share: over every request, the tokens of tool results in
// the history before it, and of those the superseded ones whose newer copy is already in that
// history (the most a policy removing superseded copies first could act on). docs/evaluation.md,
// "Cost-aware least recently referenced, and superseded results (not taken)".
// Usage: npm run build && node scripts/measure-superseded.mjs INPUT... (files or directories)
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { loadRecordings } from '../dist/shell/importers/detect.js'
import { estimateOne } from '../dist/core/meter/estimate.js'

const MIN_CHARS = 40
const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((block) => (typeof block === 'string' ? block : block.text ?? block.output ?? JSON.stringify(block))).join('\n') : JSON.stringify(content ?? '')
const argsKey = (raw) => {
  if (typeof raw !== 'string') return JSON.stringify(raw ?? null)
  try {
    return JSON.stringify(JSON.parse(raw))
  } catch {
    return raw
  }
}

/** The tool results of a session in order, with the key of their call and the request count before them. */
const toResults = (ops) => {
  const calls = new Map()
  const results = []
  let requests = 0
  for (const op of ops) {
    if (op.op === 'get_messages_for_request') requests += 1
    if (op.op !== 'add_message') continue
    const m = op.message
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) for (const c of m.tool_calls) calls.set(c.id, JSON.stringify([c.function?.name ?? c.name, argsKey(c.function?.arguments ?? c.arguments ?? c.input)]))
    if (m.type === 'function_call' || m.type === 'custom_tool_call') calls.set(m.call_id, JSON.stringify([m.name, argsKey(m.arguments ?? m.input)]))
    const output = m.role === 'tool' ? { id: m.tool_call_id, content: m.content } : m.type === 'function_call_output' || m.type === 'custom_tool_call_output' ? { id: m.call_id, content: m.output } : null
    if (output === null) continue
    const text = textOf(output.content)
    results.push({ key: calls.get(output.id) ?? `?${output.id}`, text, tokens: estimateOne({ role: 'tool', content: text }), at: requests })
  }
  return { results, requests }
}

const measure = (ops) => {
  const { results, requests } = toResults(ops)
  const out = { results: results.length, tokens: 0, sameCall: 0, sameCallTokens: 0, repeated: 0, repeatedTokens: 0, both: 0, bothTokens: 0, weighted: 0, weightedSuperseded: 0 }
  results.forEach((result, i) => {
    out.tokens += result.tokens
    out.weighted += result.tokens * (requests - result.at)
    const later = results.slice(i + 1)
    const sameCall = later.findIndex((next) => next.key === result.key)
    const repeats = (next) => result.text.length >= MIN_CHARS && next.text.includes(result.text)
    const repeated = later.findIndex(repeats)
    const both = later.findIndex((next) => next.key === result.key && (next.text === result.text || next.text.includes(result.text)))
    if (sameCall >= 0) [out.sameCall, out.sameCallTokens] = [out.sameCall + 1, out.sameCallTokens + result.tokens]
    if (repeated >= 0) [out.repeated, out.repeatedTokens] = [out.repeated + 1, out.repeatedTokens + result.tokens]
    if (both >= 0) [out.both, out.bothTokens] = [out.both + 1, out.bothTokens + result.tokens]
    const firstNewer = [sameCall, repeated].filter((k) => k >= 0).map((k) => later[k].at)
    if (firstNewer.length > 0) out.weightedSuperseded += result.tokens * (requests - Math.min(...firstNewer))
  })
  return out
}

const files = (path) => (statSync(path).isDirectory() ? readdirSync(path).filter((name) => /\.jsonl?$/.test(name)).map((name) => join(path, name)) : [path])
const pct = (part, whole) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`)
console.log('| input | sessions | tool results (tokens) | same call later | text repeated later | same call, same or containing text | superseded, request-weighted |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const input of process.argv.slice(2)) {
  for (const file of files(input)) {
    const { recordings } = loadRecordings(readFileSync(file, 'utf8'), file, 'auto')
    const total = {}
    for (const recording of recordings) for (const [key, value] of Object.entries(measure(recording.ops))) total[key] = (total[key] ?? 0) + value
    const cell = (count, tokens) => `${count} (${tokens.toLocaleString('en')}, ${pct(tokens, total.tokens)})`
    console.log(`| ${file.split('/').slice(-2).join('/')} | ${recordings.length} | ${total.results} (${total.tokens.toLocaleString('en')}) | ${cell(total.sameCall, total.sameCallTokens)} | ${cell(total.repeated, total.repeatedTokens)} | ${cell(total.both, total.bothTokens)} | ${pct(total.weightedSuperseded, total.weighted)} |`)
  }
}
