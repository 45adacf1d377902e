// The runnable examples of examples/*.ts: each exports `run()`, whose result is checked here so
// that `npm test` keeps the examples (and the docs that link to them) honest.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { run as runCustomRunner } from '../examples/custom-runner.js'
import { run as runEmbedding } from '../examples/embedding.js'
import { run as runFormats } from '../examples/formats.js'
import { run as runGuards } from '../examples/guards.js'
import { run as runRecordHeavy } from '../examples/record-heavy.js'
import { run as runReplay } from '../examples/replay.js'
import { run as runSummarizer } from '../examples/summarizer.js'
import { run as runWorkerThreads } from '../examples/worker-threads.js'

describe('examples', () => {
  it('guards.ts: strict fit throws ContextLengthError and changes nothing; the cap and its provenance; foreground usage', async () => {
    const result = await runGuards()
    expect(result.errorName).toBe('ContextLengthError')
    expect(result.errorFloorTokens).toBeGreaterThan(20_000)
    expect(result.historyAfterError).toBe(3)
    expect(result.viewAfterRetry).toBe(3)
    expect(result.budgetEvents).toEqual([
      { source: 'token_budget', context_window: null, output_reserve: null, cap: 150_000, effective_budget: 19_200 },
      { source: 'cap', context_window: 1_000_000, output_reserve: 32_000, cap: 150_000, effective_budget: 149_200 },
    ])
    expect(result.measuredTokens).toBe(46_000)
    expect(result.observedOnly).toBe(1)
  })

  it('record-heavy.ts: under recommended the early pass compacts from half the room and the shortened records keep their ids', async () => {
    const { recommended, withoutEarlyPass } = await runRecordHeavy()
    // the early pass fires well under compact_threshold (0.92); without its keys the first compaction waits for it
    expect(recommended.firstCompactionRatio).toBeLessThan(0.7)
    expect(withoutEarlyPass.firstCompactionRatio).toBeGreaterThanOrEqual(0.92)
    // the first record's ids survive as a handle-and-value form; without the keys its group was removed
    expect(recommended.firstFlightInLastView).toBe(true)
    expect(recommended.idsInLastView).toContain('RES101')
    expect(recommended.shortenedResults).toBeGreaterThan(0)
    expect(withoutEarlyPass.firstFlightInLastView).toBe(false)
    expect(recommended.idsInLastView.length).toBeGreaterThan(withoutEarlyPass.idsInLastView.length)
  })

  it('formats.ts: each provider format gives a valid, compacted view in its own shape', async () => {
    const { anthropic, responses, aiSdk, chat } = await runFormats()
    expect([anthropic.problems, responses.problems, aiSdk.problems, chat.problems]).toEqual([[], [], [], []])
    expect(anthropic.compacted).toBe(true)
    expect(anthropic.view.system).toBe('You are a careful coding agent.')
    const blocks = anthropic.view.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    expect(blocks.filter((block) => block.type === 'thinking').length).toBeGreaterThan(0)
    expect(JSON.stringify(anthropic.view)).toContain('[truncated:')
    expect(JSON.stringify(anthropic.view)).not.toContain('metadata')
    const reasoning = responses.view.findIndex((item) => item.type === 'reasoning')
    expect(responses.view[reasoning + 1]).toMatchObject({ type: 'function_call' })
    expect(responses.view[0]).toEqual({ role: 'developer', content: 'Answer briefly.' })
    expect(aiSdk.view[0]).toEqual({ role: 'system', content: 'You are a careful coding agent.' })
    expect(aiSdk.view.length).toBeLessThan(10) // older groups removed whole (the approval chain with its call)
    expect(chat.view[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'What does src/0.ts export?' }] })
    expect(chat.asAiSdk.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  // The workers load the built package (npm ci builds it through the prepare script).
  it.skipIf(!existsSync('dist/index.js'))('worker-threads.ts: a session moved between two worker threads through its snapshot continues exactly', async () => {
    const result = await runWorkerThreads()
    expect(new Set(result.threads).size).toBe(2)
    expect(result.requests).toBe(12)
    expect(result.viewsEqualUninterrupted).toBe(true)
    expect(result.compactionsBeforeMove).toBeGreaterThan(0)
    expect(result.compactionsAfterMove).toBeGreaterThan(0)
    expect(result.snapshotBytes).toBeGreaterThan(10_000)
  })

  it('embedding.ts: compaction fires under a small budget, stats and usage are readable', async () => {
    const result = await runEmbedding()
    expect(result.historyMessages).toBe(12)
    expect(result.viewMessages).toBe(13) // the history plus the compaction notice
    expect(result.viewRoles.slice(0, 2)).toEqual(['system', 'user'])
    expect(result.noticeAtTail).toBe(true)
    expect(result.truncatedInView).toBe(2)
    expect(result.firstTruncatedContent).toMatch(/^\[truncated: ~\d+ tokens - call tool again if needed\] /)
    expect(result.firstTruncatedContent).toContain('chars omitted]...')
    expect(result.strategyLevel).toBe(2)
    expect(result.secondViewSameAsFirst).toBe(true)
    expect(result.hookEvents).toEqual(['context:token_meter', 'context:compaction', 'context:token_meter'])
    expect(result.usedTokensBeforeUsage).toBeGreaterThanOrEqual(0.92 * 2_600)
    expect(result.measuredTokensAfterUsage).toBe(3_000)
    expect(result.budget).toBe(2_600)
  })

  it('custom-runner.ts: the runner sees every effect and answers the spill in memory', async () => {
    const result = await runCustomRunner()
    expect(result.effectTypes).toEqual(['emit_hook', 'write_spill'])
    expect(result.spillPaths).toHaveLength(1)
    expect(result.spillPaths[0]).toMatch(/^\/virtual\/spill\/tool-result-000002-[0-9a-f]{16}\.txt$/)
    expect(result.spilledContentIsOriginal).toBe(true)
    expect(result.viewPointsAtSpill).toBe(true)
    expect(result.spillsKnownToCore).toEqual(result.spillPaths)
    expect(result.writesOnSecondRequest).toBe(0)
    expect(result.hookNames).toEqual(['context:token_meter', 'context:compaction', 'context:token_meter'])
  })

  it('summarizer.ts: the summary is requested, answered in the background, then swapped in', async () => {
    const result = await runSummarizer()
    expect(result.summaryRequestedOnFirstRequest).toBe(true)
    expect(result.firstViewHasSummary).toBe(false)
    expect(result.providerCalls).toBe(1)
    expect(result.requestRoles).toEqual(['system', 'user'])
    expect(result.transcriptStart).toBe('[user]: Migrate billing job 0 ')
    expect(result.pendingAfterIdle).toBe(true)
    expect(result.secondViewHasSummary).toBe(true)
    expect(result.absorbed).toBe(6)
    expect(result.secondViewMessages).toBe(12 - 6 + 1)
    expect(result.summaryStored).toBe(true)
    expect(result.hookEvents.map((event) => event.split(' ')[0])).toEqual(['context:pre_summarize', 'context:post_summarize', 'context:compaction'])
  })

  it('replay.ts: a recording built in code replays deterministically, and so does a live session', async () => {
    const result = await runReplay()
    expect(result.outputLines).toBe(3)
    expect(result.opIndexes).toEqual([2, 10, 13])
    expect(result.eventsPerLine).toEqual([['context:token_meter'], ['context:token_meter'], ['context:token_meter', 'context:compaction']])
    expect(result.viewSizes).toEqual([2, 8, 4])
    expect(result.levelAfterLastRequest).toBe(5)
    expect(result.measuredOnLastLine).toBe(650)
    expect(result.jsonLinesRoundTripSame).toBe(true)
    expect(result.liveCompactionLevel).toBe(3)
    expect(result.liveViewsReplayed).toBe(true)
  })
})

describe('npm run example -- NAME (scripts/run-example.ts through tsx)', () => {
  it('runs an example and prints its result as JSON', () => {
    const stdout = execFileSync('npx', ['--no-install', 'tsx', 'scripts/run-example.ts', 'embedding'], { encoding: 'utf8' })
    expect(JSON.parse(stdout)).toMatchObject({ historyMessages: expect.any(Number), viewMessages: expect.any(Number) })
  })
})
