// A hand-edited version-7 snapshot with a non-default value in every field the 7 -> 8 migration
// moves (src/core/snapshot/migrations.ts): each lands in its version-8 slice.
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeSnapshot } from '../../../src/core/snapshot/codec.js'
import { FIXTURES } from '../../support/fixtures.js'

const DIRECTORY = resolve(FIXTURES, 'snapshots/v7')
const first = readdirSync(DIRECTORY).filter((name) => name.endsWith('.json.gz')).sort()[0]
const fixture = JSON.parse(gunzipSync(readFileSync(resolve(DIRECTORY, first))).toString('utf8')) as { snapshot: { version: number; state: Record<string, unknown> } }

describe('the 7 -> 8 migration of hand-edited values', () => {
  it('every moved field lands in its version-8 field', () => {
    const lastBudget = { source: 'provider', context_window: 200_000, output_reserve: 8000, cap: null, effective_budget: 192_000 }
    const v7 = structuredClone(fixture.snapshot)
    v7.state = {
      ...v7.state,
      replayMarker: 'replay-17',
      skipStreak: 2,
      spillFailed: ['/tmp/spill/a.txt'],
      guards: {
        infeasible: true,
        overBudgetPasses: 3,
        breakerTripped: true,
        breakerBudget: 150_000,
        lastBudget,
        noticeSent: false,
        summaryCooldown: 4,
        usageStale: true,
        usageObservedOnly: 5,
        ingressPending: { call_1: 2 },
      },
    }
    expect(v7.version).toBe(7)
    const decoded = decodeSnapshot(v7)
    if (E.isLeft(decoded)) throw decoded.left
    const state = decoded.right.state
    expect(state.budget.lastBudget).toEqual(lastBudget)
    expect(state.compaction.breaker).toEqual({ overBudgetPasses: 3, tripped: true, budget: 150_000 })
    expect(state.compaction.infeasible).toBe(true)
    expect(state.compaction.noticeSent).toBe(false)
    expect(state.compaction.replayMarker).toBe('replay-17')
    expect(state.compaction.skipStreak).toBe(2)
    expect(state.summary.cooldown).toBe(4)
    expect(state.meter.usageStale).toBe(true)
    expect(state.meter.usageObservedOnly).toBe(5)
    expect(state.toolResults.ingressPending).toEqual({ call_1: 2 })
    expect([...state.toolResults.spillFailed]).toEqual(['/tmp/spill/a.txt'])
  })
})
