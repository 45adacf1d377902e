#!/usr/bin/env node
// Measures hybrid_rejected_anchor_override: an agent loop whose provider counts fewer tokens than
// the estimator (each reading is `ratio` × the estimate of the view sent, as a tokenizer more
// efficient than chars/4 would report). Under the contract the first reading below the estimate
// is rejected and G-METER-PROVENANCE then refuses every pass, so the view grows past the budget.
//   npm run build && node scripts/measure-hybrid-override.mjs [ratio=0.7] [turns=60] [budget=3200]
import { ContextManager, estimateMessages, makeCachedEstimator, memoryLogger } from '../dist/index.js'

const [ratio = 0.7, turns = 60, budget = 3200] = process.argv.slice(2).map(Number)
const estimate = makeCachedEstimator()

const run = async (config) => {
  const context = new ContextManager(config, { logger: memoryLogger() })
  await context.addMessage({ role: 'system', content: 'You are a careful coding agent.' })
  await context.addMessage({ role: 'user', content: 'Read every parser file and summarise them.' })
  let over = 0
  let largest = 0
  for (let turn = 0; turn < turns; turn += 1) {
    const view = await context.getMessagesForRequest({ tokenBudget: budget })
    const sent = estimateMessages(view, estimate)
    largest = Math.max(largest, sent)
    if (sent > budget) over += 1
    await context.onLlmResponse({ usage: { input_tokens: Math.round(sent * ratio), output_tokens: 40 } })
    const id = `call_${turn}`
    await context.addMessage({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/p${turn}.ts"}` } }] })
    await context.addMessage({ role: 'tool', tool_call_id: id, content: `export const p${turn} = 1\n`.repeat(40) })
  }
  const stats = context.lastTokenMeterStats
  return { over, largest, refusals: stats?.provenance_refusals ?? 0, overrides: stats?.provenance_overrides ?? 0 }
}

console.log(`hybrid meter, readings = ${ratio} × the view's estimate, ${turns} turns, budget ${budget} tokens`)
for (const [label, config] of [
  ['contract (key off)', { token_meter: 'hybrid' }],
  ['hybrid_rejected_anchor_override: true', { token_meter: 'hybrid', hybrid_rejected_anchor_override: true }],
]) {
  const result = await run(config)
  console.log(`${label.padEnd(40)} views over budget: ${result.over}/${turns}, largest view ${result.largest} tokens, provenance refusals ${result.refusals}, overrides ${result.overrides}`)
}
