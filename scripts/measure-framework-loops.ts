// The framework loops of test/framework-loops.test.ts with and without the drop-ins, one table row
// each (requests, refused requests, compaction passes, the meter against the fake provider usage):
//   npx tsx scripts/measure-framework-loops.ts
// Every figure comes from the local fake provider (127.0.0.1), which counts ~4 characters a token.
import { startFakeProvider } from '../test/support/fake-provider-server.js'
import { run as lc } from '../examples/langchain-agent-loop.js'
import { run as ag } from '../examples/openai-agents-loop.js'
/** What a loop's report holds that the table prints. */
interface LoopReport {
  readonly compactions: number
  readonly lastMeasuredTokens: number | null
  readonly cacheAggregates: unknown
  readonly finalText: string | null
  readonly outputs?: ReadonlyArray<string | null>
}

const row = async (label: string, rounds: number, f: (url: string) => Promise<LoopReport>): Promise<void> => {
  const server = await startFakeProvider({ toolRounds: rounds, parallelCalls: 2, tool: 'read_file' })
  try {
    const r = await f(server.url)
    const u = server.usages
    const prompts = u.map(x => x.promptTokens)
    const viol = server.requests.filter(q => q.violations.length > 0).length
    console.log([label, server.requests.length, viol, r.compactions, r.lastMeasuredTokens, prompts.at(-1), Math.max(...prompts), u.reduce((a, x) => a + x.cacheRead, 0), u.reduce((a, x) => a + x.cacheWrite, 0), JSON.stringify(r.cacheAggregates), JSON.stringify(r.outputs ?? r.finalText).slice(0, 90)].join(' | '))
  } finally { await server.close() }
}
console.log('label | requests | refused | compaction passes | meter measured_tokens | last prompt (provider) | max prompt | provider cache read | provider cache write | meter cache aggregates | outputs')
await row('langchain middleware 12r@6000', 12, (url) => lc({ baseURL: url, tokenBudget: 6000 }))
await row('langchain none', 12, (url) => lc({ baseURL: url, tokenBudget: 6000, middleware: 'none' }))
await row('langchain trimMessages', 12, (url) => lc({ baseURL: url, tokenBudget: 6000, middleware: 'trim' }))
{
  const summarizer = await startFakeProvider({ toolRounds: 0, parallelCalls: 1, tool: 'read_file' })
  await row('langchain summarizationMiddleware', 12, (url) => lc({ baseURL: url, summarizerBaseURL: summarizer.url, tokenBudget: 6000, middleware: 'summarization' }))
  console.log(`  (summarizer: ${summarizer.requests.length} calls, prompts ${summarizer.usages.map((usage) => usage.promptTokens).join(', ')} tokens)`)
  await summarizer.close()
}
await row('agents filter chat 2x10r@8000', 10, (url) => ag({ baseURL: url, tokenBudget: 8000 }))
await row('agents none chat', 10, (url) => ag({ baseURL: url, tokenBudget: 8000, filter: 'none' }))
await row('agents filter responses 1x10r@8000', 10, (url) => ag({ baseURL: url, tokenBudget: 8000, api: 'responses', followUp: false }))
await row('agents none responses 1x', 10, (url) => ag({ baseURL: url, tokenBudget: 8000, api: 'responses', followUp: false, filter: 'none' }))
await row('agents filter responses 2x', 10, (url) => ag({ baseURL: url, tokenBudget: 8000, api: 'responses' }))
await row('agents none responses 2x', 10, (url) => ag({ baseURL: url, tokenBudget: 8000, api: 'responses', filter: 'none' }))
