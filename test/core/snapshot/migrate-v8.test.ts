// The 8 -> 9 migration (src/core/snapshot/migrations.ts): a version-8 snapshot held no cache
// breakpoint positions, so it restores with the `cacheBreakpoints` slice empty; the slice's codec
// rejects a malformed value naming its path.
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { decodeSnapshot, SNAPSHOT_VERSION, toSnapshot } from '../../../src/core/snapshot/codec.js'
import { migrateSnapshot } from '../../../src/core/snapshot/migrations.js'
import { makeInitialState } from '../../../src/core/state.js'
import { FIXTURES } from '../../support/fixtures.js'

const DIRECTORY = resolve(FIXTURES, 'snapshots/v8')
const first = readdirSync(DIRECTORY).filter((name) => name.endsWith('.json.gz')).sort()[0]
const fixture = JSON.parse(gunzipSync(readFileSync(resolve(DIRECTORY, first))).toString('utf8')) as { snapshot: { version: number; state: Record<string, unknown> } }
const PREFIX = 'a'.repeat(64)

describe('the 8 -> 9 migration', () => {
  it('a version-8 snapshot restores with no held breakpoint, every other slice as it was', () => {
    expect(fixture.snapshot.version).toBe(8)
    expect('cacheBreakpoints' in fixture.snapshot.state).toBe(false)
    const migrated = migrateSnapshot(fixture.snapshot, 9)
    expect(migrated?.state).toEqual({ ...fixture.snapshot.state, cacheBreakpoints: { marks: [] } })
    const decoded = decodeSnapshot(structuredClone(fixture.snapshot))
    if (E.isLeft(decoded)) throw decoded.left
    expect(decoded.right.state.cacheBreakpoints).toEqual({ marks: [] })
  })

  it('the slice round-trips, and a malformed one is a SnapshotError naming its path', () => {
    const state = { ...makeInitialState(), cacheBreakpoints: { marks: [{ index: 2, prefix: PREFIX }, { index: 5, prefix: 'b'.repeat(64) }] } }
    const snapshot = JSON.parse(JSON.stringify(toSnapshot(DEFAULT_CONFIG, state)))
    expect(snapshot.version).toBe(SNAPSHOT_VERSION)
    const back = decodeSnapshot(snapshot)
    if (E.isLeft(back)) throw back.left
    expect(back.right.state.cacheBreakpoints).toEqual(state.cacheBreakpoints)
    const withMarks = (marks: unknown) => decodeSnapshot({ ...snapshot, state: { ...snapshot.state, cacheBreakpoints: { marks } } })
    const short = withMarks([{ index: 2, prefix: 'abc' }])
    expect(E.isLeft(short) && short.left.field).toBe('snapshot.state.cacheBreakpoints.marks.0.prefix')
    const unordered = withMarks([{ index: 5, prefix: PREFIX }, { index: 2, prefix: PREFIX }])
    expect(E.isLeft(unordered) && unordered.left.field).toBe('snapshot.state.cacheBreakpoints.marks')
    const missing = decodeSnapshot({ ...snapshot, state: { ...snapshot.state, cacheBreakpoints: undefined } })
    expect(E.isLeft(missing) && missing.left.field).toBe('snapshot.state.cacheBreakpoints')
  })
})
