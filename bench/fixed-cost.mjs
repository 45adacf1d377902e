#!/usr/bin/env node
// The fixed cost of a request (docs/performance.md, "The 3 MB session"): each build's makeStep
// folds the 3 MB Claude Code session up to its 100th request, then repeats that request on that
// one state (every derivation memoised, so only the request's own work is left) in batches of
// 4,000 calls, timed in CPU time (process.cpuUsage: a process that waits for a core is not
// charged), builds in turn (ABBA...), and prints the median batch per call and its ratio to the
// first build. The request event is core-session's of bench/ab.mjs; `--shape` adds the contract
// shape the manager asks for (the finish stage's provider_rules walk). Prints figures; asserts nothing.
//
//   node bench/fixed-cost.mjs [--batches 30] [--shape] DIR_A DIR_B ...
//
// DIR is a checkout with `npm run build` done. Builds whose node_modules resolve to one directory
// share its modules (immer, fp-ts, io-ts) in this process, and that moved one build's figure by up
// to 40 % here: give each build a node_modules of its own (a copy, not a symlink) to compare them.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { takeOption } from './workloads.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => takeOption(args, name, fallback)
const batches = Number(option('--batches', '30'))
const shapeAt = args.indexOf('--shape')
if (shapeAt >= 0) args.splice(shapeAt, 1)
const shape = shapeAt >= 0 ? { format: 'contract', repair: false } : undefined
const dirs = args.map((dir) => resolve(dir))
if (dirs.length < 1) {
  console.error('usage: node bench/fixed-cost.mjs [--batches N] [--shape] DIR_A DIR_B ...')
  process.exit(2)
}
const SESSION = resolve(import.meta.dirname, '../fixtures/sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz')
const now = '2026-01-01T00:00:00.000+00:00'
const request = { type: 'request_received', tokenBudget: null, provider: { context_window: 200000, max_output_tokens: 64000 }, providerGiven: true, systemPrompt: null, now, ...(shape === undefined ? {} : { shape }) }
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

const builds = []
for (const dir of dirs) {
  const load = async (path, name) => (await import(pathToFileURL(resolve(dir, 'dist', path)).href))[name]
  const makeStep = await load('core/reducer.js', 'makeStep')
  const config = await load('core/config.js', 'DEFAULT_CONFIG')
  const makeCachedEstimator = await load('core/meter/estimate.js', 'makeCachedEstimator')
  const makeInitialState = await load('core/state.js', 'makeInitialState')
  const loadRecordings = await load('shell/importers/detect.js', 'loadRecordings')
  const readTextFile = await load('shell/read-text.js', 'readTextFile')
  const session = loadRecordings(readTextFile(SESSION), SESSION, 'auto').recordings[0]
  const step = makeStep({ config, estimate: makeCachedEstimator() })
  let state = makeInitialState()
  let requests = 0
  for (const op of structuredClone(session.ops)) {
    if (op.op === 'add_message') state = step(state, { type: 'message_added', message: op.message, timestamp: now }).state
    else if (op.op === 'llm_response') state = step(state, { type: 'usage_observed', data: { usage: op.usage } }).state
    else if (op.op === 'get_messages_for_request') {
      state = step(state, request).state
      requests += 1
      if (requests === 100) break
    }
  }
  builds.push({ dir, step, state, times: [] })
}
const CALLS = 4000
for (let batch = 0; batch < batches; batch += 1) {
  for (const build of batch % 2 === 0 ? builds : [...builds].reverse()) {
    const start = process.cpuUsage()
    for (let call = 0; call < CALLS; call += 1) build.step(build.state, request)
    const used = process.cpuUsage(start)
    build.times.push((used.user + used.system) / CALLS)
  }
}
console.log(`# fixed cost of a request, 3 MB session after its 100th request${shape === undefined ? '' : ', contract shape'}: median of ${batches} batches of ${CALLS} calls (CPU time)`)
const first = median(builds[0].times)
for (const build of builds) console.log(`${build.dir.padEnd(40)} ${median(build.times).toFixed(2)} µs  ${(median(build.times) / first).toFixed(2)}x`)
