#!/usr/bin/env node
// Quiet-request median of one build under one preset (docs/performance.md, "The calibrated meter
// on a long history"): the bench's synthetic history of N stored messages (bench/workloads.mjs)
// through ContextManager, a 100,000-token budget, 150 rounds of one synthetic turn then one
// request; the median over the requests that did not compact. Prints a figure; asserts nothing.
//
//   node --expose-gc bench/quiet.mjs DIR PRESET N ['{"config_key": value}']
//
// DIR is a checkout with `npm run build` done (`.` for this one).
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'
import { syntheticHistory, syntheticTurn } from './workloads.mjs'

const [dir, preset, n] = [resolve(process.argv[2] ?? '.'), process.argv[3] ?? 'recommended', Number(process.argv[4] ?? 2000)]
const load = (path) => import(pathToFileURL(`${dir}/dist/${path}`).href)
const { presets } = await load('core/presets.js')
const { ContextManager } = await load('shell/context-manager.js')
const { silentLogger } = await load('shell/logger.js')
const { makeMemorySpillWriter } = await load('shell/spill-fs.js')
const extra = JSON.parse(process.argv[5] ?? '{}')
const manager = new ContextManager({ ...presets[preset], ...extra }, { logger: silentLogger, spillWriter: makeMemorySpillWriter() })
await manager.setMessages(syntheticHistory(n))
await manager.getMessagesForRequest({ tokenBudget: 100000 })
const quiet = []
let call = 1e6
for (let round = 0; round < 150; round += 1) {
  const turn = syntheticTurn(n + round, call)
  call += turn.length - 2
  for (const message of turn) await manager.addMessage(message)
  const stats = JSON.stringify(manager.lastCompactionStats)
  const start = performance.now()
  await manager.getMessagesForRequest({ tokenBudget: 100000 })
  const elapsed = performance.now() - start
  if (stats === JSON.stringify(manager.lastCompactionStats)) quiet.push(elapsed)
}
quiet.sort((a, b) => a - b)
console.log(`${preset} ${n} stored: quiet request median ${quiet[quiet.length >> 1].toFixed(3)} ms over ${quiet.length}`)
