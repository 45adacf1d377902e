#!/usr/bin/env node --expose-gc
// Benchmarks of the public API (docs/performance.md; run `npm run bench`): requests and adds through
// ContextManager (queue included) at 1,000 to 100,000 stored messages, the 3 MB Claude Code
// session (also with its views in the anthropic format under anthropic_cache_breakpoints), heap per
// stored byte, snapshot / restore, and 1,000 sessions in one process.
// Prints figures; asserts nothing. Needs `--expose-gc` for the heap figures.
import { execFileSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DEFAULT_CONFIG } from '../dist/core/config.js'
import { makeCachedEstimator } from '../dist/core/meter/estimate.js'
import { makeStep } from '../dist/core/reducer.js'
import { makeInitialState } from '../dist/core/state.js'
import { ContextManager } from '../dist/shell/context-manager.js'
import { silentLogger } from '../dist/shell/logger.js'
import { makeMemorySpillWriter } from '../dist/shell/spill-fs.js'
import { loadRecordings } from '../dist/shell/importers/detect.js'
import { readTextFile } from '../dist/shell/read-text.js'
import { primeManager, replayOpsThroughManager, requestRounds, responsesTurn, syntheticHistory, syntheticTurn } from './workloads.mjs'

const root = resolve(import.meta.dirname, '..')
const SECTIONS = ['requests', 'core', 'responses', 'session', 'anthropic', 'snapshot', 'sessions']
const only = process.argv.slice(2)
const wanted = (name) => only.includes(name)

const quantile = (values, q) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]
}
const time = (value) => (Number.isNaN(value) ? '-' : value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(2)} ms`)
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`
const gc = () => {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc()
    globalThis.gc()
  }
}
const heap = () => {
  gc()
  return process.memoryUsage().heapUsed
}
const options = () => ({ logger: silentLogger, spillWriter: makeMemorySpillWriter() })

/**
 * `count` stored messages (loaded with setMessages and compacted once), then `rounds` rounds of:
 * add one turn message by message (each add timed), one request (timed); bench/workloads.mjs.
 */
const requestBench = async (count, budget, rounds) => requestRounds(await primeManager(ContextManager, options(), count, budget), count, budget, rounds)

const printRequestBench = (label, result) =>
  console.log(
    `${label.padEnd(34)} | request (no compaction) median ${time(quantile(result.quiet, 0.5)).padStart(9)} p95 ${time(quantile(result.quiet, 0.95)).padStart(9)} n=${String(result.quiet.length).padStart(3)}` +
      ` | request (compacting) median ${time(quantile(result.compacting, 0.5)).padStart(9)} p95 ${time(quantile(result.compacting, 0.95)).padStart(9)} n=${String(result.compacting.length).padStart(3)}` +
      ` | add median ${time(quantile(result.adds, 0.5)).padStart(8)} p95 ${time(quantile(result.adds, 0.95)).padStart(8)}` +
      ` | view median ${quantile(result.viewSizes, 0.5)} msgs`,
  )

const claudeSession = () => {
  const path = resolve(root, 'fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz')
  return loadRecordings(readTextFile(path), path, 'auto').recordings[0]
}

/** Replays a recording's ops through a ContextManager; returns the time of each request (ms). */
const replayThroughManager = (recording, provider, format) => replayOpsThroughManager(new ContextManager(recording.config, options()), recording.ops, provider, format)

if (only.length === 0) {
  // Each section in a process of its own, so one section's garbage never shows in another's heap figures.
  console.log(
    `machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, ${mib(totalmem())} RAM; node ${process.version}, ${process.platform}/${process.arch}`,
  )
  for (const section of SECTIONS) execFileSync(process.execPath, ['--expose-gc', import.meta.filename, section], { stdio: 'inherit' })
  process.exit(0)
}
if (typeof globalThis.gc !== 'function') console.log('(gc not exposed: run with node --expose-gc; heap figures are approximate)')

if (wanted('requests')) {
  console.log('\n# requests and adds through ContextManager, 100,000-token budget, after setMessages(history) and one compacting request')
  const medians = {}
  for (const [count, rounds] of [
    [1000, 300],
    [2000, 300],
    [10000, 300],
    [100000, 150],
  ]) {
    const result = await requestBench(count, 100_000, rounds)
    medians[count] = quantile(result.quiet, 0.5)
    printRequestBench(`${count.toLocaleString('en')} stored messages`, result)
  }
  console.log(`ratio: median request (no compaction) at 100,000 / at 2,000 stored messages = ${(medians[100000] / medians[2000]).toFixed(2)} (goal <= 1.5)`)
}

if (wanted('core')) {
  console.log('\n# the same workload through the pure core alone (makeStep, no manager, no queue, no copies)')
  const medians = {}
  for (const count of [2000, 100000]) {
    const step = makeStep({ config: DEFAULT_CONFIG, estimate: makeCachedEstimator() })
    const request = { type: 'request_received', tokenBudget: 100_000, provider: null, providerGiven: false, systemPrompt: null, now: '2026-01-01T00:00:00.000+00:00' }
    let state = step(makeInitialState(), { type: 'messages_replaced', messages: syntheticHistory(count) }).state
    state = step(state, request).state
    const quiet = []
    const adds = []
    let call = 1_000_000
    for (let i = 0; i < 300; i += 1) {
      const turn = syntheticTurn(count + i, call)
      call += turn.length - 2
      for (const message of turn) {
        const start = performance.now()
        state = step(state, { type: 'message_added', message, timestamp: '2026-01-01T00:00:00.000+00:00' }).state
        adds.push(performance.now() - start)
      }
      const start = performance.now()
      const result = step(state, request)
      const elapsed = performance.now() - start
      state = result.state
      if (!result.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')) quiet.push(elapsed)
    }
    medians[count] = quantile(quiet, 0.5)
    console.log(`${count.toLocaleString('en').padStart(7)} stored messages | request (no compaction) median ${time(quantile(quiet, 0.5))} n=${quiet.length} | add median ${time(quantile(adds, 0.5))}`)
  }
  console.log(`ratio: core median request (no compaction) at 100,000 / at 2,000 = ${(medians[100000] / medians[2000]).toFixed(2)}`)
}

if (wanted('responses')) {
  console.log('\n# openai-responses format through ContextManager, 100,000-token budget: 150 rounds of one turn (reasoning, function call merged into it, output) and a request')
  for (const count of [2000, 20000]) {
    const history = [{ role: 'user', content: 'start the task' }]
    for (let i = 0; history.length < count; i += 1) history.push(...responsesTurn(i))
    const manager = new ContextManager({}, { ...options(), format: 'openai-responses' })
    await manager.setMessages(history)
    await manager.getMessagesForRequest({ tokenBudget: 100_000 })
    const quiet = []
    const adds = []
    const views = []
    for (let round = 0; round < 150; round += 1) {
      for (const item of responsesTurn(count + round)) {
        const start = performance.now()
        await manager.addMessage(item)
        adds.push(performance.now() - start)
      }
      const before = manager.lastCompactionStats
      const start = performance.now()
      const view = await manager.getMessagesForRequest({ tokenBudget: 100_000 })
      const elapsed = performance.now() - start
      views.push(view.length)
      if (JSON.stringify(before) === JSON.stringify(manager.lastCompactionStats)) quiet.push(elapsed)
    }
    console.log(
      `${count.toLocaleString('en').padStart(6)} stored items | request (no compaction) median ${time(quantile(quiet, 0.5)).padStart(9)} p95 ${time(quantile(quiet, 0.95)).padStart(9)} n=${quiet.length}` +
        ` | add median ${time(quantile(adds, 0.5))} | view median ${quantile(views, 0.5)} items`,
    )
  }
}

if (wanted('anthropic')) {
  console.log('\n# 3 MB Claude Code session (4d5611e5) through ContextManager, each view in the anthropic format, anthropic_cache_breakpoints: true, --window 200000 --max-output 64000')
  const recording = { ...claudeSession(), config: { anthropic_cache_breakpoints: true } }
  const provider = { getModelInfo: () => ({ context_window: 200000, max_output_tokens: 64000 }) }
  let best = null
  for (let i = 0; i < 7; i += 1) {
    const times = await replayThroughManager(recording, provider, 'anthropic')
    if (best === null || quantile(times, 0.5) < quantile(best, 0.5)) best = times
  }
  console.log(`request median ${time(quantile(best, 0.5))} p95 ${time(quantile(best, 0.95))} over ${best.length} requests (best of 7 runs)`)
}

if (wanted('session')) {
  console.log('\n# 3 MB Claude Code session (4d5611e5) through ContextManager, --window 200000 --max-output 64000, default config')
  const recording = { ...claudeSession(), config: {} }
  const provider = { getModelInfo: () => ({ context_window: 200000, max_output_tokens: 64000 }) }
  let best = null
  for (let i = 0; i < 7; i += 1) {
    const times = await replayThroughManager(recording, provider)
    if (best === null || quantile(times, 0.5) < quantile(best, 0.5)) best = times
  }
  console.log(`request median ${time(quantile(best, 0.5))} p95 ${time(quantile(best, 0.95))} over ${best.length} requests (best of 7 runs; goal median <= 28 µs)`)

  const lines = recording.ops.filter((op) => op.op === 'add_message').map((op) => JSON.stringify(op.message))
  const messages = lines.length
  const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0)
  // Growth from before the messages exist (parsed one by one from their JSON, as a host receives
  // them) until they are all stored and nothing else holds them; 20 copies of the session (20
  // managers) so that the figure stands well above the collector's noise.
  const copies = 20
  const managers = Array.from({ length: copies }, () => new ContextManager({}, options()))
  for (const manager of managers) await manager.getMessages()
  const before = heap()
  for (const manager of managers) for (const line of lines) await manager.addMessage(JSON.parse(line))
  const after = heap()
  const manager = managers[0]
  console.log(
    `heap growth after storing its ${messages} messages in ${copies} managers: ${mib(after - before)} for ${mib(copies * bytes)} of message JSON = ${((after - before) / (copies * bytes)).toFixed(2)} bytes per JSON byte (goal <= 2)` +
      ` [${(await manager.getMessages()).length} stored]`,
  )
}

if (wanted('snapshot')) {
  console.log('\n# snapshot and restore (synthetic history, 100,000-token budget, after one compacting request)')
  for (const count of [10000, 100000]) {
    const manager = new ContextManager({}, options())
    await manager.setMessages(syntheticHistory(count))
    await manager.getMessagesForRequest({ tokenBudget: 100_000 })
    const figures = { snapshot: [], stringify: [], parse: [], restore: [] }
    let size = 0
    for (let i = 0; i < 5; i += 1) {
      let start = performance.now()
      const snapshot = await manager.snapshot()
      figures.snapshot.push(performance.now() - start)
      start = performance.now()
      const text = JSON.stringify(snapshot)
      figures.stringify.push(performance.now() - start)
      size = text.length
      start = performance.now()
      const parsed = JSON.parse(text)
      figures.parse.push(performance.now() - start)
      start = performance.now()
      await ContextManager.restore(parsed, options())
      figures.restore.push(performance.now() - start)
    }
    console.log(
      `${count.toLocaleString('en').padStart(7)} messages (${mib(size)} JSON): snapshot() ${time(quantile(figures.snapshot, 0.5))}, JSON.stringify ${time(quantile(figures.stringify, 0.5))}, ` +
        `JSON.parse ${time(quantile(figures.parse, 0.5))}, restore() ${time(quantile(figures.restore, 0.5))} (medians of 5)`,
    )
  }
}

if (wanted('sessions')) {
  console.log('\n# 1,000 concurrent sessions of 200 messages in one process (100,000-token budget)')
  const before = heap()
  const managers = []
  for (let s = 0; s < 1000; s += 1) {
    const manager = new ContextManager({}, options())
    await manager.setMessages(syntheticHistory(200).map((message) => JSON.parse(JSON.stringify(message))))
    managers.push(manager)
  }
  const stored = heap()
  const rounds = 5
  const start = performance.now()
  let firstRound = 0
  for (let round = 0; round < rounds; round += 1) {
    if (round === 1) firstRound = performance.now() - start
    await Promise.all(
      managers.map(async (manager, s) => {
        await manager.addMessage({ role: 'user', content: `session ${s} round ${round}: next step?` })
        await manager.getMessagesForRequest({ tokenBudget: 100_000 })
      }),
    )
  }
  const elapsed = (performance.now() - start) / 1000
  const after = heap()
  console.log(
    `${rounds * managers.length} requests (each after an add) in ${elapsed.toFixed(2)} s = ${Math.round((rounds * managers.length) / elapsed)} requests/s ` +
      `(first round, every session compacting: ${Math.round(managers.length / (firstRound / 1000))}/s; later rounds: ${Math.round(((rounds - 1) * managers.length) / (elapsed - firstRound / 1000))}/s); ` +
      `heap per session ${((after - before) / managers.length / 1024).toFixed(0)} KiB (${((stored - before) / managers.length / 1024).toFixed(0)} KiB after loading, before requests)`,
  )
}
