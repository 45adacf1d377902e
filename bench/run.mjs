#!/usr/bin/env node
// Benchmarks of the pure core (run `npm run bench`): replays the bundled session, the 3 MB Claude
// Code session of fixtures/sessions and a synthetic 10,000-message history in-process, and prints
// median / p95 time per request, time per added message, and peak heap. Prints figures; asserts nothing.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DEFAULT_CONFIG } from '../dist/core/config.js'
import { decodeConfig } from '../dist/core/codecs.js'
import { makeCachedEstimator } from '../dist/core/meter/estimate.js'
import { makeStep } from '../dist/core/reducer.js'
import { makeInitialState } from '../dist/core/state.js'
import { loadRecordings } from '../dist/shell/importers/detect.js'
import { readTextFile } from '../dist/shell/read-text.js'

const quantile = (values, q) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]
}
const ms = (value) => (Number.isNaN(value) ? '-' : value < 0.1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(3)} ms`)

/** Fold recorded ops through the core, timing each request and each add. */
const runOps = (label, ops, config, budgetOf) => {
  const step = makeStep({ config, estimate: makeCachedEstimator() })
  let state = makeInitialState()
  const requestTimes = []
  const addTimes = []
  let peakHeap = process.memoryUsage().heapUsed
  let compactions = 0
  ops.forEach((op, index) => {
    let event
    if (op.op === 'add_message') event = { type: 'message_added', message: op.message, timestamp: '2026-01-01T00:00:00.000+00:00' }
    else if (op.op === 'llm_response') event = { type: 'usage_observed', data: { usage: op.usage } }
    else if (op.op === 'get_messages_for_request') {
      const budget = budgetOf(op)
      event = { type: 'request_received', tokenBudget: budget.tokenBudget, provider: budget.provider, providerGiven: budget.provider !== null, systemPrompt: null, now: '2026-01-01T00:00:00.000+00:00' }
    } else return
    const start = performance.now()
    const result = step(state, event)
    const elapsed = performance.now() - start
    state = result.state
    if (event.type === 'request_received') {
      requestTimes.push(elapsed)
      if (result.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')) compactions += 1
    } else if (event.type === 'message_added') addTimes.push(elapsed)
    if (index % 25 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
  })
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
  return { label, messages: state.history.length, requests: requestTimes.length, compactions, requestTimes, addTimes, peakHeap }
}

const print = (result) => {
  console.log(
    `${result.label.padEnd(42)} ${String(result.messages).padStart(6)} msgs ${String(result.requests).padStart(5)} requests ${String(result.compactions).padStart(4)} compactions | ` +
      `request median ${ms(quantile(result.requestTimes, 0.5)).padStart(9)} p95 ${ms(quantile(result.requestTimes, 0.95)).padStart(9)} | ` +
      `add median ${ms(quantile(result.addTimes, 0.5)).padStart(8)} p95 ${ms(quantile(result.addTimes, 0.95)).padStart(8)} | ` +
      `peak heap ${(result.peakHeap / 1048576).toFixed(1)} MiB`,
  )
}

const claudeWindow = () => ({ tokenBudget: null, provider: { context_window: 200000, max_output_tokens: 64000 } })
const sessionBench = (label, path, budgetOf, repeat = 5) => {
  if (!existsSync(path)) {
    console.log(`${label}: ${path} not found, skipped`)
    return
  }
  const { recordings } = loadRecordings(readTextFile(path), path, 'auto')
  const config = decodeConfig(recordings[0].config).right.config
  let best = null
  for (let i = 0; i < repeat; i += 1) {
    const result = runOps(label, recordings[0].ops, config, budgetOf)
    if (best === null || quantile(result.requestTimes, 0.5) < quantile(best.requestTimes, 0.5)) best = result
  }
  print(best)
}

const synthetic = (count) => {
  const ops = []
  let call = 0
  for (let i = 0; ops.filter((op) => op.op === 'add_message').length < count; i += 1) {
    ops.push({ op: 'get_messages_for_request' })
    ops.push({ op: 'add_message', message: { role: 'user', content: `turn ${i}: please look at module ${i % 17} and fix the failing test ` + 'x'.repeat(i % 300) } })
    const calls = 1 + (i % 4)
    const ids = Array.from({ length: calls }, () => `call_${call++}`)
    ops.push({ op: 'add_message', message: { role: 'assistant', content: '', tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: i % 2 ? 'grep' : 'read_file', arguments: `{"path": "src/m${i}.ts"}` } })) } })
    for (const id of ids) ops.push({ op: 'add_message', message: { role: 'tool', tool_call_id: id, content: `result of ${id}\n` + 'line of output é\n'.repeat(20 + ((i * 7) % 400)) } })
  }
  ops.push({ op: 'get_messages_for_request' })
  return ops
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}; times are per core step (pure reducer), best of repeated runs`)
const root = resolve(import.meta.dirname, '..')
sessionBench('bundled Claude Code session (tool_heavy)', resolve(root, 'sessions/claude-code-tool-heavy.jsonl'), claudeWindow, 20)
sessionBench('3 MB Claude Code session (4d5611e5)', resolve(root, 'fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz'), claudeWindow, 5)
const ops = synthetic(10000)
print(runOps('synthetic 10,000 messages, window 200k', ops, DEFAULT_CONFIG, claudeWindow))
print(runOps('synthetic 10,000 messages, budget 60k (compacting)', ops, DEFAULT_CONFIG, () => ({ tokenBudget: 60000, provider: null })))

// `compare` over every shared session with three configurations (docs/evaluation.md: under 60 s here), as a
// user runs it: the compiled CLI in a child process, worker threads on.
const compareRun = (label, args) => {
  const start = performance.now()
  const child = spawnSync(process.execPath, [resolve(root, 'bin/context-simple.js'), 'compare', ...args, '--preset', 'reference', '--preset', 'recommended', '--preset', 'recommended-summary', '--summarizer', 'extractive', '--json', '--no-progress'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })
  const seconds = (performance.now() - start) / 1000
  if (child.status !== 0) {
    console.log(`${label}: compare exited ${child.status}: ${child.stderr.trim().split('\n')[0]}`)
    return
  }
  const lines = child.stdout.trim().split('\n').length
  console.log(`${label.padEnd(64)} ${seconds.toFixed(2).padStart(6)} s wall, ${lines} (configuration, session) rows; load average ${loadavg()[0].toFixed(1)}`)
}
console.log(`compare, 3 configurations (reference, recommended, recommended-summary), --summarizer extractive, ${availableParallelism()} cores:`)
compareRun('claude-code + openai-chat sessions, default budgets', ['fixtures/sessions/claude-code', 'fixtures/sessions/openai-chat'])
compareRun('the same with --jobs 2 (two worker threads)', ['fixtures/sessions/claude-code', 'fixtures/sessions/openai-chat', '--jobs', '2'])
compareRun('claude-code sessions, --budget 60000', ['fixtures/sessions/claude-code', '--budget', '60000'])
compareRun('tau-bench sessions, --budget 4500 --model gpt-4o', ['fixtures/sessions/openai-chat', '--budget', '4500', '--model', 'gpt-4o'])
