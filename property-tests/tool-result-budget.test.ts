// Tool-result budget, spill, worth-the-rebuild refusals and the last-user replay (SPEC 11, 13,
// 14, 17.9): a spill pointer names a written file and its text is the same on every request; a
// path whose write failed is never pointed at; a refused pass (context:compaction-skipped, or the fail-loud error) leaves sticky
// state, level and compaction stats exactly as they were and returns the sticky baseline; a
// replay copy never sits between a call and its results.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { RequestRecord, Scenario } from './arbitraries.js'
import {
  describeConfig,
  foldScenario,
  hookNames,
  isEphemeral,
  modelStickyView,
  runProperty,
  scenarioArb,
  withoutEphemeralTail,
} from './arbitraries.js'
import { isPlainObject, isTruthy } from '../src/core/messages/values.js'
import { withoutSpillPointers } from '../src/core/tool-results/tool-result-budget.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const SPILL_POINTER = /^\[truncated: ~[\d,]+ tokens - read (.*tool-result-\d{6,}-[0-9a-f]{16}\.txt) for the full result\] /

const PLAIN_MARKER = /^\[truncated: ~[\d,]+ tokens - call tool again if needed\] /

/**
 * SPEC 11.5 with 17.9, per request: the view as the embedder gets it (pointers to the paths whose
 * write failed in this request dropped, as the shell and the replay do) points only at files that
 * are written; a pointer, once given, stays the same; a path whose write failed is never pointed
 * at again; a truncated result without a pointer is one whose write failed.
 */
const checkSpill = (spills: 'written' | 'failed' | 'alternate') => (scenario: Scenario): void => {
  const { requests } = foldScenario(scenario, { spills })
  const pointers = new Map<unknown, string>()
  for (const request of requests) {
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    // A path already known to be written, or known to have failed, is never requested again.
    for (const effect of request.effects) {
      if (effect.type === 'write_spill') {
        expect(request.before.toolResults.spillWritten.has(effect.path), `${where}: ${effect.path} re-requested`).toBe(false)
        expect(request.before.toolResults.spillFailed.has(effect.path), `${where}: failed ${effect.path} re-requested`).toBe(false)
      }
    }
    if (request.view === null) continue
    const failedNow = new Set([...request.after.toolResults.spillFailed].filter((path) => !request.before.toolResults.spillFailed.has(path)))
    for (const message of withoutSpillPointers(request.view, failedNow)) {
      if (message.role !== 'tool' || !isTruthy(message._truncated) || typeof message.content !== 'string') continue
      const match = SPILL_POINTER.exec(message.content)
      if (match === null) {
        expect(PLAIN_MARKER.test(message.content), `${where}: ${message.content.slice(0, 120)}`).toBe(true)
        expect(spills, `${where}: a pointer dropped although every write succeeded`).not.toBe('written')
        expect(pointers.get(message.uid), `${where}: pointer of ${String(message.uid)} dropped after it was given`).toBeUndefined()
        continue
      }
      const path = match[1]
      // Every pointer names a file that is written (SPEC 17.9: never one that is not there).
      expect(request.after.toolResults.spillWritten.has(path), `${where}: ${path} pointed at but not written`).toBe(true)
      expect(request.after.toolResults.spillFailed.has(path), `${where}: ${path} pointed at after its write failed`).toBe(false)
      const seen = pointers.get(message.uid)
      if (seen === undefined) pointers.set(message.uid, message.content)
      else expect(message.content, `${where}: pointer of ${String(message.uid)} changed`).toBe(seen)
    }
  }
}

const sameSticky = (request: RequestRecord): void => {
  const { before, after } = request
  expect([...after.compaction.sticky.removed].sort(), 'removed').toEqual([...before.compaction.sticky.removed].sort())
  expect([...after.compaction.sticky.truncated].sort(), 'truncated').toEqual([...before.compaction.sticky.truncated].sort())
  expect([...after.compaction.sticky.stubbed].sort(), 'stubbed').toEqual([...before.compaction.sticky.stubbed].sort())
  expect(after.compaction.sticky.cumulativeLevel, 'level').toBe(before.compaction.sticky.cumulativeLevel)
  expect(after.compaction.stats, 'compaction stats').toBe(before.compaction.stats)
}

const checkRefusals = (scenario: Scenario): void => {
  for (const request of foldScenario(scenario).requests) {
    const skipped = hookNames(request.effects).includes('context:compaction-skipped')
    const raised = request.effects.some((effect) => effect.type === 'raise_error')
    if (!skipped && !raised) continue
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    expect(hookNames(request.effects), where).not.toContain('context:compaction')
    expect(request.after.compaction.skipStreak, where).toBe(request.before.compaction.skipStreak + 1)
    // A summary swapped in during the same pass is not rolled back (SPEC 12.6); judge the rest.
    if (request.after.history.length !== request.before.history.length) continue
    try {
      sameSticky(request)
    } catch (error) {
      throw new Error(`${where}: ${(error as Error).message}`)
    }
    if (raised) {
      expect(request.view, where).toBeNull()
      continue
    }
    const view = request.view ?? []
    expect(withoutEphemeralTail(view), where).toStrictEqual(modelStickyView(scenario.config, request.after, request.before.compaction.sticky, request.systemPrompt))
    // No replay on a refusal; at most the notice of an earlier accepted pass.
    const tail = view.slice(withoutEphemeralTail(view).length)
    expect(tail.every((message) => isPlainObject(message.metadata) && message.metadata.source === 'context-compaction'), where).toBe(true)
    expect(tail.length <= 1 && (tail.length === 0 || request.before.compaction.stats !== null), where).toBe(true)
  }
}

const checkReplayPlacement = (scenario: Scenario): void => {
  for (const request of foldScenario(scenario).requests) {
    const view = request.view
    if (view === null) continue
    const where = `op ${request.index} with ${describeConfig(scenario)}`
    view.forEach((message, i) => {
      if (!isPlainObject(message.metadata) || message.metadata.source !== 'context-replay') return
      if (i > 0) expect(isTruthy(view[i - 1].tool_calls), `${where}: replay right after a call`).toBe(false)
      // Only ephemeral items (the notice) may follow it: never a tool result.
      for (const after of view.slice(i + 1)) expect(isEphemeral(after) && after.role !== 'tool', where).toBe(true)
      expect(message.role, where).toBe('user')
    })
  }
}

describe('tool-result budget, spill, refusals and replay', () => {
  it('a spill pointer names a written file and is the same on every request; a failed path is never pointed at (writes succeed, fail, or alternate)', () => {
    const scenarios = scenarioArb({ spill: true, pressure: true, predicate: false }, { resets: true, factory: 'changing' })
    for (const spills of ['written', 'failed', 'alternate'] as const) {
      runProperty(`spill pointer stable (${spills})`, fc.property(scenarios, checkSpill(spills)), numRuns)
    }
  })

  it('a refused pass leaves sticky state, level and stats as before and returns the sticky baseline', () => {
    runProperty(
      'refusal keeps sticky state',
      fc.property(scenarioArb({ predicate: 'always', pressure: true }, { factory: 'changing', summaries: true }), checkRefusals),
      numRuns,
    )
  })

  it('a replay copy never sits between a call and its results', () => {
    runProperty(
      'replay placement',
      fc.property(scenarioArb({ replay: true }, { factory: 'changing', summaries: true }), checkReplayPlacement),
      numRuns,
    )
  })
})
