#!/usr/bin/env node
// `npm run bench`'s first two session lines (bench/run.mjs: the bundled 17-message Claude Code
// session sessions/claude-code-tool-heavy.jsonl, best of 20 folds, then the 3 MB Claude Code
// session, best of 5), builds compared in turn (docs/performance.md, "npm run bench"). Two modes:
//
//   node bench/small-session.mjs [--procs 12] [--cpu] [--big] DIR_A DIR_B ...
//     cold, as bench/run.mjs measures: each sample is a fresh Node process that loads one build's
//     dist and folds the session 20 times exactly as run.mjs's runOps does (a fresh makeStep +
//     makeCachedEstimator per fold), and reports the request median and add median of its best
//     fold (lowest request median), the median of every request and of every add of folds 10-19
//     ("late", steadier), and the CPU time of the 20 folds; with --big it then folds the
//     3 MB session 5 times and reports its best fold's medians too. Processes alternate builds
//     ABBA...; prints the median over the processes and its ratio to the first build. Most of
//     those 20 folds run before the engine optimizes the code (docs/performance.md), so what is
//     measured is mostly interpreted and baseline code. --cpu times each step in CPU time
//     (process.cpuUsage, µs) in a --single-threaded child (no compiler or GC thread adds to the
//     process's CPU time; optimizing compiles then happen on the main thread, inside a step):
//     steadier than wall time when other processes share the cores.
//   node bench/small-session.mjs --requests 1000,2000 [--procs 12] [--cpu] DIR_A DIR_B ...
//     bench/manager.mjs's *requests* section, cold: each sample a fresh Node process (--expose-gc,
//     as manager.mjs runs it) that loads one build's ContextManager and runs the *requests* rounds
//     (bench/workloads.mjs: setMessages, one request, 300 rounds of a turn and a request) at each
//     count in turn in that one process, as manager.mjs does (1,000 then 2,000 ...); reports per
//     count the median compacting request (wall and CPU time), quiet request and add of the
//     process (only ~16 compacting requests per count, most of them run before the engine has
//     optimized the pass). With --cpu the children run --single-threaded (compiles and GC on the
//     main thread, so in the CPU time of the request that causes them).
//     Processes alternate builds ABBA...; prints the median over the processes per figure and its
//     ratio to the first build.
//   node bench/small-session.mjs --warm [--batches 20] DIR_A DIR_B ...
//     warm: every build in this one process; each batch folds the small session (fresh step each
//     time) 200 times, timed in CPU time, then 50 times more timing each step for the folds'
//     request and add medians, builds in turn (ABBA...); prints the medians over the batches.
//
// DIR is a checkout with `npm run build` done; give each build a node_modules of its own (see
// bench/fixed-cost.mjs). Prints figures; asserts nothing.
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { primeManager, requestRounds, takeOption } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => takeOption(args, name, fallback)
const flag = (name) => {
  const at = args.indexOf(name)
  if (at >= 0) args.splice(at, 1)
  return at >= 0
}
const child = option('--child', null)
const procs = Number(option('--procs', '12'))
const batches = Number(option('--batches', '20'))
const warm = flag('--warm')
const cpuTimed = flag('--cpu')
const big = flag('--big')
const requestCounts = option('--requests', null)?.split(',').map(Number) ?? null
const dirs = args.map((dir) => resolve(dir))
const SMALL = resolve(import.meta.dirname, '../sessions/claude-code-tool-heavy.jsonl')
const BIG = resolve(import.meta.dirname, '../fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz')
const now = '2026-01-01T00:00:00.000+00:00'
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]
// bench/run.mjs's quantile(values, 0.5)
const runMedian = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(0.5 * (values.length - 1) + 0.5))]
const cpuMs = (used) => (used.user + used.system) / 1000

const loadBuild = async (dir) => {
  const load = async (path, name) => (await import(pathToFileURL(resolve(dir, 'dist', path)).href))[name]
  const decodeConfig = await load('core/codecs.js', 'decodeConfig')
  const loadRecordings = await load('shell/importers/detect.js', 'loadRecordings')
  const readTextFile = await load('shell/read-text.js', 'readTextFile')
  const session = (path) => {
    const { recordings } = loadRecordings(readTextFile(path), path, 'auto')
    return { ops: recordings[0].ops, config: decodeConfig(recordings[0].config).right.config }
  }
  return {
    dir,
    makeStep: await load('core/reducer.js', 'makeStep'),
    makeCachedEstimator: await load('core/meter/estimate.js', 'makeCachedEstimator'),
    makeInitialState: await load('core/state.js', 'makeInitialState'),
    small: session(SMALL),
    // loaded after the small session's folds, as bench/run.mjs does
    loadBig: () => session(BIG),
  }
}

// One fold as bench/run.mjs's runOps times it (events made per op, a provider object per request,
// the compaction effect looked for, the heap read every 25 ops), each step timed with
// performance.now() or, with `cpu`, process.cpuUsage().
const timedFold = (build, session, cpu) => {
  const step = build.makeStep({ config: session.config, estimate: build.makeCachedEstimator() })
  let state = build.makeInitialState()
  const requests = []
  const adds = []
  session.ops.forEach((op, index) => {
    let event
    if (op.op === 'add_message') event = { type: 'message_added', message: op.message, timestamp: now }
    else if (op.op === 'llm_response') event = { type: 'usage_observed', data: { usage: op.usage } }
    else if (op.op === 'get_messages_for_request') {
      const provider = { context_window: 200000, max_output_tokens: 64000 }
      event = { type: 'request_received', tokenBudget: null, provider, providerGiven: true, systemPrompt: null, now }
    } else return
    const start = cpu ? process.cpuUsage() : performance.now()
    const result = step(state, event)
    const elapsed = cpu ? cpuMs(process.cpuUsage(start)) : performance.now() - start
    state = result.state
    if (event.type === 'request_received') {
      requests.push(elapsed)
      result.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')
    } else if (event.type === 'message_added') adds.push(elapsed)
    if (index % 25 === 0) process.memoryUsage()
  })
  return { request: runMedian(requests) * 1000, add: runMedian(adds) * 1000, requests, adds }
}
// run.mjs's figure (the medians of the fold with the lowest request median) and, steadier, the
// median of every request and every add of the second half of the folds.
const bestOf = (build, session, runs) => {
  let best = null
  const late = { requests: [], adds: [] }
  for (let run = 0; run < runs; run += 1) {
    const result = timedFold(build, session, cpuTimed)
    if (best === null || result.request < best.request) best = result
    if (run >= runs / 2) {
      late.requests.push(...result.requests)
      late.adds.push(...result.adds)
    }
  }
  return { request: best.request, add: best.add, lateRequest: median(late.requests) * 1000, lateAdd: median(late.adds) * 1000 }
}

// bench/manager.mjs's *requests* rounds at each count in turn, in this process (as manager.mjs runs them).
const requestsSample = async (dir, counts) => {
  const load = async (paths, name) => {
    for (const path of paths) {
      const module = await import(pathToFileURL(resolve(dir, 'dist', path)).href).catch(() => ({}))
      if (name in module) return module[name]
    }
    throw new Error(`${dir}: ${name} not found in ${paths.join(', ')}`)
  }
  const ContextManager = await load(['shell/context-manager.js'], 'ContextManager')
  const silentLogger = await load(['shell/logger.js', 'shell/runner.js'], 'silentLogger')
  const makeMemorySpillWriter = await load(['shell/spill-fs.js'], 'makeMemorySpillWriter')
  const sample = {}
  for (const count of counts) {
    const manager = await primeManager(ContextManager, { logger: silentLogger, spillWriter: makeMemorySpillWriter() }, count)
    const result = await requestRounds(manager, count, 100_000, count >= 100_000 ? 150 : 300)
    sample[`${count} compacting`] = runMedian(result.compacting) * 1000
    sample[`${count} quiet`] = runMedian(result.quiet) * 1000
    sample[`${count} add`] = runMedian(result.adds) * 1000
    sample[`${count} compacting CPU`] = runMedian(result.cpu.compacting) * 1000
  }
  return sample
}

if (child !== null && requestCounts !== null) {
  console.log(JSON.stringify(await requestsSample(child, requestCounts)))
  process.exit(0)
}
if (child !== null) {
  const build = await loadBuild(child)
  const start = process.cpuUsage()
  const small = bestOf(build, build.small, 20)
  const cpu = cpuMs(process.cpuUsage(start)) * 1000
  const sample = { request: small.request, add: small.add, 'late request': small.lateRequest, 'late add': small.lateAdd, cpu: cpu / 20 }
  if (big) {
    const result = bestOf(build, build.loadBig(), 5)
    sample['3 MB request'] = result.request
    sample['3 MB add'] = result.add
  }
  console.log(JSON.stringify(sample))
  process.exit(0)
}
if (dirs.length < 1) {
  console.error('usage: node bench/small-session.mjs [--procs N] [--cpu] [--big] | --requests N,N [--procs N] | --warm [--batches N]  DIR_A DIR_B ...')
  process.exit(2)
}
const ratioLine = (label, values, first) => `${label} ${median(values).toFixed(1).padStart(7)} µs ${(median(values) / first).toFixed(2)}x`
const load0 = loadavg()[0]
if (requestCounts !== null) {
  const keys = requestCounts.flatMap((count) => [`${count} compacting`, `${count} compacting CPU`, `${count} quiet`, `${count} add`])
  const samples = dirs.map(() => Object.fromEntries(keys.map((key) => [key, []])))
  for (let p = 0; p < procs; p += 1) {
    for (const i of p % 2 === 0 ? dirs.map((_, i) => i) : dirs.map((_, i) => dirs.length - 1 - i)) {
      const flags = cpuTimed ? ['--expose-gc', '--single-threaded'] : ['--expose-gc']
      const run = spawnSync(process.execPath, [...flags, import.meta.filename, '--requests', requestCounts.join(','), '--child', dirs[i]], { encoding: 'utf8' })
      if (run.status !== 0) throw new Error(`${dirs[i]}: ${run.stderr}`)
      const result = JSON.parse(run.stdout)
      for (const key of keys) samples[i][key].push(result[key])
    }
  }
  const mode = cpuTimed ? 'children --single-threaded' : 'children as manager.mjs runs them'
  console.log(`# bench/manager.mjs's requests rounds, cold: median over ${procs} processes per build (wall time, and CPU time of the compacting requests, µs; ${mode}); load ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`)
  for (const [i, dir] of dirs.entries()) {
    const line = keys.map((key) => ratioLine(key, samples[i][key], median(samples[0][key])))
    console.log(`${dir.padEnd(28)} ${line.join(' | ')}`)
  }
} else if (!warm) {
  const keys = ['request', 'add', 'late request', 'late add', 'cpu', ...(big ? ['3 MB request', '3 MB add'] : [])]
  const samples = dirs.map(() => Object.fromEntries(keys.map((key) => [key, []])))
  for (let p = 0; p < procs; p += 1) {
    const order = p % 2 === 0 ? dirs.map((_, i) => i) : dirs.map((_, i) => dirs.length - 1 - i)
    for (const i of order) {
      const flags = cpuTimed ? ['--single-threaded', import.meta.filename, '--cpu'] : [import.meta.filename]
      const run = spawnSync(process.execPath, [...flags, ...(big ? ['--big'] : []), '--child', dirs[i]], { encoding: 'utf8' })
      if (run.status !== 0) throw new Error(`${dirs[i]}: ${run.stderr}`)
      const result = JSON.parse(run.stdout)
      for (const key of keys) samples[i][key].push(result[key])
    }
  }
  const timing = cpuTimed ? 'CPU time per step, --single-threaded' : 'wall time per step'
  console.log(`# bench/run.mjs's session lines, cold: median over ${procs} processes per build (${timing}); load ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`)
  for (const [i, dir] of dirs.entries()) {
    const line = keys.map((key) => ratioLine(key === 'cpu' ? 'CPU per fold' : `${key} median`, samples[i][key], median(samples[0][key])))
    console.log(`${dir.padEnd(28)} ${line.join(' | ')}`)
  }
} else {
  const builds = []
  for (const dir of dirs) builds.push({ ...(await loadBuild(dir)), times: [], request: [], add: [] })
  const FOLDS = 200
  for (let batch = 0; batch < batches; batch += 1) {
    for (const build of batch % 2 === 0 ? builds : [...builds].reverse()) {
      const events = build.small.ops.flatMap((op) => {
        if (op.op === 'add_message') return [{ type: 'message_added', message: op.message, timestamp: now }]
        if (op.op === 'llm_response') return [{ type: 'usage_observed', data: { usage: op.usage } }]
        if (op.op === 'get_messages_for_request') return [{ type: 'request_received', tokenBudget: null, provider: { context_window: 200000, max_output_tokens: 64000 }, providerGiven: true, systemPrompt: null, now }]
        return []
      })
      const start = process.cpuUsage()
      for (let call = 0; call < FOLDS; call += 1) {
        const step = build.makeStep({ config: build.small.config, estimate: build.makeCachedEstimator() })
        let state = build.makeInitialState()
        for (const event of events) state = step(state, event).state
      }
      build.times.push(cpuMs(process.cpuUsage(start)) * 1000 / FOLDS)
      const split = { request: [], add: [] }
      for (let call = 0; call < FOLDS / 4; call += 1) {
        const { request, add } = timedFold(build, build.small, false)
        split.request.push(request)
        split.add.push(add)
      }
      build.request.push(median(split.request))
      build.add.push(median(split.add))
    }
  }
  console.log(`# small session warm: median of ${batches} batches of ${FOLDS} folds (fresh makeStep each, CPU time) and of their request / add medians; load ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`)
  for (const build of builds) {
    const line = [['CPU per fold', 'times'], ['request median', 'request'], ['add median', 'add']].map(([label, key]) => ratioLine(label, build[key], median(builds[0][key])))
    console.log(`${build.dir.padEnd(28)} ${line.join(' | ')}`)
  }
}
