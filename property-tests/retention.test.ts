// The retention keys (src/core/compaction/retention.ts) keep the view's structural promises: the
// recent zone by tokens is the longest suffix within its limit (at least the last message), and
// with observation masking and the zone by tokens every view still passes the pairing rules
// R1-R3 (SPEC 17.3) and keeps the last user message verbatim (SPEC 6.4).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { selectRecentStart } from '../src/core/compaction/retention.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import type { Message } from '../src/core/messages/message.js'
import { describeConfig, foldScenario, isEphemeral, makeScenario, runProperty, scenarioArb, stripSeq, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

describe('recent zone by tokens', () => {
  it('is the longest suffix whose estimate is within tokens x scale, at least the last message; null keeps the share', () => {
    runProperty(
      'retention: recent zone',
      fc.property(
        fc.array(fc.nat({ max: 500 }), { maxLength: 30 }),
        fc.option(fc.nat({ max: 3000 }), { nil: null }),
        fc.constantFrom(1, 0.6, 0.3),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sizes, tokens, scale, share) => {
          const working: Message[] = sizes.map((size, index) => ({ role: 'user', content: String(index), size }))
          const estimate = (message: Message): number => message.size as number
          const start = selectRecentStart(working, share, scale, tokens, estimate)
          if (tokens === null) {
            expect(start).toBe(Math.trunc(sizes.length * (1 - share * scale)))
            return
          }
          const zone = sizes.slice(start).reduce((sum, size) => sum + size, 0)
          // at least the last message; more only while the zone stays within the limit
          expect(start).toBe(sizes.length === 0 ? 0 : Math.min(start, sizes.length - 1))
          if (start < sizes.length - 1) expect(zone).toBeLessThanOrEqual(tokens * scale)
          // and no longer suffix fits
          if (start > 0) expect(zone + sizes[start - 1]).toBeGreaterThan(tokens * scale)
        },
      ),
      numRuns * 5,
    )
  })
})

const retentionScenarios = fc
  .tuple(
    scenarioArb({ strategies: ['progressive'] }),
    fc.constantFrom('head', 'stub', 'mask'),
    fc.constantFrom(null, 1, 60, 500),
    fc.constantFrom('budget', 'compactable'),
    fc.constantFrom('oldest', 'least_referenced', 'least_referenced_per_token'),
  )
  .map(([scenario, truncation, tokens, basis, order]): Scenario => {
    const made = makeScenario({ ...scenario.rawConfig, tool_result_truncation: truncation, protected_recent_tokens: tokens, target_basis: basis, compaction_order: order }, scenario.ops)
    return { ...made, baseBudget: scenario.baseBudget }
  })

const lastUser = (history: ReadonlyArray<Message>): Message | undefined => [...history].reverse().find((message) => message.role === 'user' && message.tool_call_id === undefined)

describe('observation masking and the recent zone by tokens', () => {
  it('every view passes the pairing rules and holds the last user message verbatim', () => {
    runProperty(
      'retention: views',
      fc.property(retentionScenarios, (scenario) => {
        for (const request of foldScenario(scenario).requests) {
          if (request.view === null) continue
          const where = `op ${request.index} with ${describeConfig(scenario)}`
          expect(findPairingViolations(request.view), where).toEqual([])
          const last = lastUser(request.after.history)
          if (last === undefined || typeof last.content !== 'string') continue
          const wanted = JSON.stringify(stripSeq(last))
          expect(request.view.filter((message) => !isEphemeral(message)).some((message) => JSON.stringify(message) === wanted), where).toBe(true)
        }
      }),
      numRuns,
    )
  })
})
