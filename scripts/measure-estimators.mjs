#!/usr/bin/env node
// Estimators against provider usage on the shared Claude Code sessions, as deltas (docs/configuration.md, "A typed estimator"):
// for consecutive requests k-1, k with no compact boundary between them, the provider's reading
// grew by reading[k] - reading[k-1]; each estimator estimates the messages added in between. Prints
// the median and p90 absolute relative error per estimator. Run `npm run build` first.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { estimateOne } from '../dist/core/meter/estimate.js'
import { estimateTyped } from '../dist/core/meter/typed-estimate.js'
import { importClaudeCodeSession } from '../dist/shell/importers/claude-code.js'
import { readTextFile } from '../dist/shell/read-text.js'
import { loadTokenizer, makeTokenizerEstimator } from '../dist/shell/estimators.js'

const dir = 'fixtures/sessions/claude-code'
const estimators = { reference: estimateOne, typed: estimateTyped, 'tokenizer (gpt-tokenizer o200k_base)': makeTokenizerEstimator(loadTokenizer()) }
const errors = Object.fromEntries(Object.keys(estimators).map((name) => [name, []]))
let pairs = 0
for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl') || name.endsWith('.jsonl.gz'))) {
  const recording = importClaudeCodeSession(readTextFile(join(dir, file)), file)
  let history = []
  let previous = null // { index, reading }
  let pendingIndex = null
  for (const op of recording.ops) {
    if (op.op === 'add_message') history.push(op.message)
    else if (op.op === 'set_messages') {
      history = [...op.messages]
      previous = null
    } else if (op.op === 'get_messages_for_request') pendingIndex = history.length
    else if (op.op === 'llm_response' && pendingIndex !== null) {
      const usage = op.usage ?? {}
      const reading = (usage.input_tokens ?? 0) + (usage.cache_write_tokens ?? 0)
      if (previous !== null && reading > previous.reading) {
        const added = history.slice(previous.index, pendingIndex)
        const delta = reading - previous.reading
        pairs += 1
        for (const [name, estimate] of Object.entries(estimators)) {
          const estimated = added.reduce((sum, message) => sum + estimate(message), 0)
          errors[name].push(Math.abs(estimated - delta) / delta)
        }
      }
      previous = { index: pendingIndex, reading }
      pendingIndex = null
    }
  }
}
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}
console.log(`pairs of consecutive requests: ${pairs}`)
for (const [name, values] of Object.entries(errors)) {
  console.log(`${name.padEnd(40)} median |rel error| ${quantile(values, 0.5).toFixed(3)}  p90 ${quantile(values, 0.9).toFixed(3)}`)
}
