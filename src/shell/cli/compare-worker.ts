/**
 * Worker thread of `compare`: runs the units it is sent, answering each with its result or its
 * error (name and message).
 */
import { parentPort } from 'node:worker_threads'
import { runCompareUnit, type CompareUnit } from './compare-unit.js'

parentPort?.on('message', (unit: CompareUnit) => {
  try {
    parentPort?.postMessage({ ok: true, result: runCompareUnit(unit) })
  } catch (error) {
    parentPort?.postMessage({ ok: false, name: (error as Error).name, message: (error as Error).message })
  }
})
