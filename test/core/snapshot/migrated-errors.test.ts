// A restore error about a migrated snapshot names the field as the snapshot holds it: a version-7
// snapshot has `guards.breakerTripped`, not version 9's `compaction.breaker.tripped`
// (src/core/snapshot/codec.ts toGivenFieldError, src/core/snapshot/migrations.ts toSnapshotPath);
// a nullable field's path carries no union member index (`meterStats`, not `meterStats.0`).
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeSnapshot, SNAPSHOT_VERSION } from '../../../src/core/snapshot/codec.js'
import type { SnapshotError } from '../../../src/core/errors.js'
import { FIXTURES } from '../../support/fixtures.js'

type Snapshot = { version: number; state: Record<string, unknown> }

const load = (version: 'v7' | 'v8'): Snapshot => {
  const directory = resolve(FIXTURES, 'snapshots', version)
  const first = readdirSync(directory).filter((name) => name.endsWith('.json.gz')).sort()[0]
  return (JSON.parse(gunzipSync(readFileSync(resolve(directory, first))).toString('utf8')) as { snapshot: Snapshot }).snapshot
}

const errorOf = (snapshot: Snapshot): SnapshotError => {
  const decoded = decodeSnapshot(snapshot)
  if (E.isRight(decoded)) throw new Error('expected the snapshot to be refused')
  return decoded.left
}

/** Sets `path` of `value` (a copy) to `bad`, creating objects on the way. */
const withValue = (snapshot: Snapshot, path: ReadonlyArray<string>, bad: unknown): Snapshot => {
  const copy = structuredClone(snapshot)
  let target = copy.state as Record<string, unknown>
  for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>
  target[path[path.length - 1]] = bad
  return copy
}

// Every field the 7 -> 8 migration moved, as version 7 holds it, and where version 9 holds it.
const MOVED: ReadonlyArray<readonly [string, string]> = [
  ['guards.lastBudget', 'budget.lastBudget'],
  ['meterStats', 'meter.stats'],
  ['guards.usageStale', 'meter.usageStale'],
  ['guards.usageObservedOnly', 'meter.usageObservedOnly'],
  ['calibration', 'meter.calibration'],
  ['guards.summaryCooldown', 'summary.cooldown'],
  ['sticky', 'compaction.sticky'],
  ['compactionStats', 'compaction.stats'],
  ['skipStreak', 'compaction.skipStreak'],
  ['replayMarker', 'compaction.replayMarker'],
  ['guards.infeasible', 'compaction.infeasible'],
  ['guards.noticeSent', 'compaction.noticeSent'],
  ['guards.overBudgetPasses', 'compaction.breaker.overBudgetPasses'],
  ['guards.breakerTripped', 'compaction.breaker.tripped'],
  ['guards.breakerBudget', 'compaction.breaker.budget'],
  ['spillWritten', 'toolResults.spillWritten'],
  ['spillFailed', 'toolResults.spillFailed'],
  ['guards.ingressPending', 'toolResults.ingressPending'],
]

describe('restore errors of migrated snapshots', () => {
  const v7 = load('v7')
  const v8 = load('v8')

  it('a version-7 snapshot: every moved field is named as version 7 holds it, with its version-9 place', () => {
    expect(v7.version).toBe(7)
    for (const [given, current] of MOVED) {
      // -1.5 is no count, flag, list, object or string; breakerBudget is any finite number or null
      const error = errorOf(withValue(v7, given.split('.'), given === 'guards.breakerBudget' ? 'x' : -1.5))
      expect(error.field, given).toBe(`snapshot.state.${given}`)
      expect(error.message, given).toContain(`(a version-7 snapshot; migrated to version ${SNAPSHOT_VERSION}, the field is snapshot.state.${current}`)
    }
  })

  it('a version-7 inconsistency names the version-7 field too', () => {
    const sticky = (v7.state.sticky ?? {}) as Record<string, unknown>
    const error = errorOf(withValue(v7, ['sticky'], { ...sticky, removed: [999_999] }))
    expect(error.field).toBe('snapshot.state.sticky.removed')
    expect(error.message).toContain('the field is snapshot.state.compaction.sticky.removed')
  })

  it('fields that kept their place, and version 8 (whose fields are version 9\'s), read as before', () => {
    const history = errorOf(withValue(v7, ['nextSeq'], -1.5))
    expect(history.field).toBe('snapshot.state.nextSeq')
    expect(history.message).not.toContain('migrated')
    expect(v8.version).toBe(8)
    const breaker = errorOf(withValue(v8, ['compaction', 'breaker', 'tripped'], 'yes'))
    expect(breaker.message).toBe('snapshot.state.compaction.breaker.tripped: expected boolean, got "yes"')
  })
})
