#!/usr/bin/env node --expose-gc
// In-process interleaved A/B of two or more builds (docs/performance.md, "Comparing two builds").
// Loads each build's dist/ into this one process and runs bench/manager.mjs's request workloads
// on them in turn (ABBA order), so that the machine's moment weighs on every build alike.
// Prints, per workload and build, the median over the runs of each run's median, and each build's
// ratio to the first. Prints figures; asserts nothing.
//
//   node --expose-gc bench/ab.mjs [--runs N] [--only manager-2000,core-100000,...] DIR_A DIR_B ...
//
// DIR is a checkout with `npm run build` done (e.g. `git worktree add /work/bench-d45b1be d45b1be`,
// node_modules symlinked, `npm run build` there). Workloads: manager-1000/2000/10000/100000 (quiet
// and compacting requests through ContextManager, 100,000-token budget, 300 rounds, 150 at 100,000),
// core-2000/100000 (quiet requests folded through makeStep), responses-2000 (openai-responses
// format through ContextManager, 150 rounds), session (the 3 MB Claude Code session's requests),
// core-session (the same requests folded through makeStep alone), anthropic-session (the session's
// requests through ContextManager with the view asked for in the anthropic format under
// anthropic_cache_breakpoints: true), add-2000 (bench/manager.mjs's `add median` at 2,000 stored:
// each addMessage of 300 turns timed, a request after each turn, wall time and CPU time per add),
// snapshot-10000 (bench/manager.mjs's `snapshot()` of 10,000 messages after one compacting request,
// median of 5 per run, wall time and CPU time), restore-10000 (ContextManager.restore of that
// snapshot after JSON.stringify / JSON.parse, median of 5 per run, wall time and CPU time).
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { primeManager, replayOpsThroughManager, requestRounds, responsesTurn, syntheticHistory, syntheticTurn, takeOption } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => takeOption(args, name, fallback)
const runs = Number(option('--runs', '5'))
const ALL = ['manager-1000', 'manager-2000', 'manager-10000', 'manager-100000', 'core-2000', 'core-100000', 'responses-2000', 'session', 'core-session', 'anthropic-session', 'add-2000', 'snapshot-10000', 'restore-10000']
const only = option('--only', ALL.join(',')).split(',')
const dirs = args.map((dir) => resolve(dir))
if (dirs.length < 1) {
  console.error('usage: node --expose-gc bench/ab.mjs [--runs N] [--only w1,w2] DIR_A DIR_B ...')
  process.exit(2)
}

const median = (values) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const gc = () => globalThis.gc?.()
const importFrom = async (dir, paths, name) => {
  for (const path of paths) {
    try {
      const module = await import(pathToFileURL(resolve(dir, 'dist', path)).href)
      if (name in module) return module[name]
    } catch {
      // older builds keep some names elsewhere: try the next path
    }
  }
  throw new Error(`${dir}: ${name} not found in ${paths.join(', ')}`)
}
const loadBuild = async (dir) => ({
  dir,
  ContextManager: await importFrom(dir, ['shell/context-manager.js'], 'ContextManager'),
  silentLogger: await importFrom(dir, ['shell/logger.js', 'shell/runner.js'], 'silentLogger'),
  makeMemorySpillWriter: await importFrom(dir, ['shell/spill-fs.js'], 'makeMemorySpillWriter'),
  DEFAULT_CONFIG: await importFrom(dir, ['core/config.js'], 'DEFAULT_CONFIG'),
  makeCachedEstimator: await importFrom(dir, ['core/meter/estimate.js'], 'makeCachedEstimator'),
  makeStep: await importFrom(dir, ['core/reducer.js'], 'makeStep'),
  makeInitialState: await importFrom(dir, ['core/state.js'], 'makeInitialState'),
  loadRecordings: await importFrom(dir, ['shell/importers/detect.js'], 'loadRecordings'),
  readTextFile: await importFrom(dir, ['shell/read-text.js'], 'readTextFile'),
})

const primedManager = (build, count, options = { logger: build.silentLogger, spillWriter: build.makeMemorySpillWriter() }) => primeManager(build.ContextManager, options, count)

// Awaits `call`, pushing its wall time to `wall` and its CPU time (process.cpuUsage: a process
// waiting for a core is not charged) to `cpu`, both in ms.
const timeCall = async (call, wall, cpu) => {
  const startCpu = process.cpuUsage()
  const start = performance.now()
  await call()
  wall.push(performance.now() - start)
  const used = process.cpuUsage(startCpu)
  cpu.push((used.user + used.system) / 1000)
}

// bench/manager.mjs's *requests* rounds (bench/workloads.mjs): quiet and compacting request medians.
const managerRun = async (build, count) => {
  const { quiet, compacting } = await requestRounds(await primedManager(build, count), count, 100_000, count >= 100_000 ? 150 : 300)
  return { quiet: median(quiet), compacting: median(compacting) }
}

// bench/manager.mjs's adds at 2,000 stored messages: each addMessage timed (wall clock and CPU time,
// process.cpuUsage: a process waiting for a core is not charged), a request after each turn.
const addRun = async (build, count) => {
  const cpu = []
  const { adds } = await requestRounds(await primedManager(build, count), count, 100_000, 300, (call, wall) => timeCall(call, wall, cpu))
  return { add: median(adds), 'add cpu': median(cpu) }
}

// bench/manager.mjs's snapshot(): 10,000 synthetic messages, one compacting request, 5 snapshots.
const snapshotRun = async (build, count) => {
  const manager = await primedManager(build, count)
  const wall = []
  const cpu = []
  for (let i = 0; i < 5; i += 1) {
    await timeCall(() => manager.snapshot(), wall, cpu)
  }
  return { snapshot: median(wall), 'snapshot cpu': median(cpu) }
}

// bench/manager.mjs's restore(): the snapshot of 10,000 synthetic messages through JSON, restored 5 times.
const restoreRun = async (build, count) => {
  const options = () => ({ logger: build.silentLogger, spillWriter: build.makeMemorySpillWriter() })
  const manager = await primedManager(build, count, options())
  const text = JSON.stringify(await manager.snapshot())
  const wall = []
  const cpu = []
  for (let i = 0; i < 5; i += 1) {
    const parsed = JSON.parse(text)
    await timeCall(() => build.ContextManager.restore(parsed, options()), wall, cpu)
  }
  return { restore: median(wall), 'restore cpu': median(cpu) }
}

const coreRun = (build, count) => {
  const step = build.makeStep({ config: build.DEFAULT_CONFIG, estimate: build.makeCachedEstimator() })
  const now = '2026-01-01T00:00:00.000+00:00'
  const request = { type: 'request_received', tokenBudget: 100_000, provider: null, providerGiven: false, systemPrompt: null, now }
  let state = step(build.makeInitialState(), { type: 'messages_replaced', messages: syntheticHistory(count) }).state
  state = step(state, request).state
  const quiet = []
  let call = 1_000_000
  for (let i = 0; i < 300; i += 1) {
    const turn = syntheticTurn(count + i, call)
    call += turn.length - 2
    for (const message of turn) state = step(state, { type: 'message_added', message, timestamp: now }).state
    const start = performance.now()
    const result = step(state, request)
    const elapsed = performance.now() - start
    state = result.state
    if (!result.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')) quiet.push(elapsed)
  }
  return { quiet: median(quiet) }
}

const responsesRun = async (build, count) => {
  const history = [{ role: 'user', content: 'start the task' }]
  for (let i = 0; history.length < count; i += 1) history.push(...responsesTurn(i))
  const manager = new build.ContextManager({}, { logger: build.silentLogger, spillWriter: build.makeMemorySpillWriter(), format: 'openai-responses' })
  await manager.setMessages(history)
  await manager.getMessagesForRequest({ tokenBudget: 100_000 })
  const quiet = []
  for (let round = 0; round < 150; round += 1) {
    for (const item of responsesTurn(count + round)) await manager.addMessage(item)
    const before = JSON.stringify(manager.lastCompactionStats)
    const start = performance.now()
    await manager.getMessagesForRequest({ tokenBudget: 100_000 })
    const elapsed = performance.now() - start
    if (before === JSON.stringify(manager.lastCompactionStats)) quiet.push(elapsed)
  }
  return { quiet: median(quiet) }
}

// The 3 MB Claude Code session through ContextManager, as bench/manager.mjs's "session" (default
// configuration, window 200,000, max output 64,000), imported by each build's own importer.
const SESSION = resolve(import.meta.dirname, '../fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz')
const sessionRun = async (build) => {
  build.session ??= build.loadRecordings(build.readTextFile(SESSION), SESSION, 'auto').recordings[0]
  const manager = new build.ContextManager({}, { logger: build.silentLogger, spillWriter: build.makeMemorySpillWriter() })
  const provider = { getModelInfo: () => ({ context_window: 200000, max_output_tokens: 64000 }) }
  // Fresh message objects every run, as a host has: a build that keeps the caller's objects would
  // otherwise find the previous run's derivations cached on them.
  const times = await replayOpsThroughManager(manager, structuredClone(build.session.ops), provider)
  return { request: median(times) }
}

// The session through ContextManager with anthropic_cache_breakpoints on, each view asked for in
// the anthropic format (as replay --view-format anthropic --set anthropic_cache_breakpoints=true).
const anthropicSessionRun = async (build) => {
  build.session ??= build.loadRecordings(build.readTextFile(SESSION), SESSION, 'auto').recordings[0]
  const manager = new build.ContextManager({ anthropic_cache_breakpoints: true }, { logger: build.silentLogger, spillWriter: build.makeMemorySpillWriter() })
  const provider = { getModelInfo: () => ({ context_window: 200000, max_output_tokens: 64000 }) }
  const times = await replayOpsThroughManager(manager, structuredClone(build.session.ops), provider, 'anthropic')
  return { request: median(times) }
}

// The same session's requests folded through makeStep alone (as bench/run.mjs: window 200,000, max output 64,000).
const coreSessionRun = (build) => {
  build.session ??= build.loadRecordings(build.readTextFile(SESSION), SESSION, 'auto').recordings[0]
  const step = build.makeStep({ config: build.DEFAULT_CONFIG, estimate: build.makeCachedEstimator() })
  const now = '2026-01-01T00:00:00.000+00:00'
  const request = { type: 'request_received', tokenBudget: null, provider: { context_window: 200000, max_output_tokens: 64000 }, providerGiven: true, systemPrompt: null, now }
  let state = build.makeInitialState()
  const times = []
  for (const op of structuredClone(build.session.ops)) {
    if (op.op === 'add_message') state = step(state, { type: 'message_added', message: op.message, timestamp: now }).state
    else if (op.op === 'llm_response') state = step(state, { type: 'usage_observed', data: { usage: op.usage } }).state
    else if (op.op === 'get_messages_for_request') {
      const start = performance.now()
      state = step(state, request).state
      times.push(performance.now() - start)
    }
  }
  return { request: median(times) }
}

const WORKLOADS = {
  session: sessionRun,
  'core-session': coreSessionRun,
  'anthropic-session': anthropicSessionRun,
  'manager-1000': (build) => managerRun(build, 1000),
  'manager-2000': (build) => managerRun(build, 2000),
  'manager-10000': (build) => managerRun(build, 10000),
  'manager-100000': (build) => managerRun(build, 100000),
  'core-2000': (build) => coreRun(build, 2000),
  'core-100000': (build) => coreRun(build, 100000),
  'responses-2000': (build) => responsesRun(build, 2000),
  'add-2000': (build) => addRun(build, 2000),
  'snapshot-10000': (build) => snapshotRun(build, 10000),
  'restore-10000': (build) => restoreRun(build, 10000),
}

const builds = []
for (const dir of dirs) builds.push(await loadBuild(dir))
const fmt = (ms) => (Number.isNaN(ms) ? '-' : ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)
console.log(`# ${runs} interleaved runs per workload; builds: ${dirs.join(' | ')}`)
for (const name of only) {
  const figures = builds.map(() => ({}))
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i)
    for (const index of order) {
      gc()
      const result = await WORKLOADS[name](builds[index])
      for (const [kind, value] of Object.entries(result)) (figures[index][kind] ??= []).push(value)
    }
  }
  for (const kind of Object.keys(figures[0])) {
    const medians = figures.map((f) => median(f[kind]))
    const cells = medians.map((m, i) => `${fmt(m)}${i === 0 ? '' : ` (${(m / medians[0]).toFixed(2)}x)`}`)
    console.log(`${`${name} ${kind}`.padEnd(30)} ${cells.join('  |  ')}`)
  }
}
