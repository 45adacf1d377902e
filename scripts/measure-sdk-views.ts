// Views of real and synthetic sessions in each provider format through the real SDK code (the
// Anthropic and OpenAI clients against the fake provider on 127.0.0.1, the AI SDK's generateText
// with @ai-sdk/anthropic and @ai-sdk/openai on a capturing fetch), each body checked against the
// provider's rules: tried and failed views per kind of source, format and SDK, and examples.
// Usage: tsx scripts/measure-sdk-views.ts LABEL [--off] [--samples N] [--synthetic N] [--seed S]
// (--off: provider_rules "warn" and no repair, the contract shape's behaviour in every format).
import { startFakeProvider } from '../test/support/fake-provider-server.js'
import { makeViewSender } from '../test/support/sdk-senders.js'
import { formatSdkViewCounts, runSdkViews } from '../test/support/sdk-views-run.js'
import { contentKindSources, fixtureSources, refusableSources, sharedOnlySources, syntheticSources } from '../test/support/session-views.js'

const args = process.argv.slice(2)
const label = args[0] ?? 'run'
const flag = (name: string, fallback: number): number => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : Number(args[at + 1])
}
const off = args.includes('--off')
const server = await startFakeProvider({ toolRounds: 0, parallelCalls: 1, tool: 'read_file', idTag: 'fake' })
try {
  const sources = [...fixtureSources(flag('--per-file', 4)), ...sharedOnlySources(), ...syntheticSources(flag('--synthetic', 12), flag('--seed', 20261201)), ...contentKindSources(), ...refusableSources()]
  const run = await runSdkViews(sources, makeViewSender(server), { samples: flag('--samples', 8), config: off ? { provider_rules: 'warn' } : {}, examples: 3 })
  console.log(formatSdkViewCounts(run, label))
  for (const count of run.counts.values()) {
    for (const example of count.examples) console.log(`  ${count.kind} ${count.format} ${count.sdk}: ${example}`)
    for (const warning of count.warnings) console.log(`  ${count.kind} ${count.format} ${count.sdk} warning: ${warning.slice(0, 200)}`)
  }
  console.log(`${label}\trefused messages ${run.errors.refusedMessages.length}\tfailed requests ${run.errors.failedRequests.length}`)
  for (const line of [...run.errors.refusedMessages, ...run.errors.failedRequests].slice(0, 10)) console.log(`  ${line.slice(0, 300)}`)
} finally {
  await server.close()
}
