/** Tests of the snapshot codec (docs/embedding.md): encoding, decoding and the consistency checks. */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { SnapshotError } from '../../../src/core/errors.js'
import { decodeSnapshot, SNAPSHOT_VERSION, toSnapshot } from '../../../src/core/snapshot/codec.js'
import { findInconsistency } from '../../../src/core/snapshot/consistency.js'
import { selectResumeEffects } from '../../../src/core/snapshot/resume.js'
import { EMPTY_COMPACTION, EMPTY_TOOL_RESULTS, makeInitialState, type State } from '../../../src/core/state.js'

const stored = (seq: number, content: string) => ({ role: seq % 2 === 0 ? 'user' : 'assistant', content, metadata: { timestamp: 't', _seq: seq } })

const state: State = {
  ...makeInitialState(),
  history: [stored(0, 'a'), stored(1, 'b'), stored(3, 'c')],
  nextSeq: 4,
  compaction: { ...EMPTY_COMPACTION, sticky: { removed: new Set([3, 0]), truncated: new Set([1]), stubbed: new Set(), cumulativeLevel: 5 }, replayMarker: '5:0', skipStreak: 1 },
  toolResults: { ...EMPTY_TOOL_RESULTS, spillWritten: new Set(['b.txt', 'a.txt']) },
  toolNames: { c1: 'bash' },
}

const decoded = (value: unknown) => {
  const result = decodeSnapshot(value)
  if (E.isLeft(result)) throw result.left
  return result.right
}
const failure = (value: unknown): SnapshotError => {
  const result = decodeSnapshot(value)
  if (E.isRight(result)) throw new Error('expected a SnapshotError')
  return result.left
}

describe('toSnapshot / decodeSnapshot', () => {
  it('encodes sets as sorted arrays and round-trips through JSON to an equal state', () => {
    const snapshot = toSnapshot(DEFAULT_CONFIG, state)
    expect(snapshot.version).toBe(SNAPSHOT_VERSION)
    expect((snapshot.state.compaction as { sticky: unknown }).sticky).toStrictEqual({ removed: [0, 3], truncated: [1], stubbed: [], cumulativeLevel: 5 })
    expect((snapshot.state.toolResults as { spillWritten: unknown }).spillWritten).toStrictEqual(['a.txt', 'b.txt'])
    const back = decoded(JSON.parse(JSON.stringify(snapshot)))
    expect(back.config).toStrictEqual(DEFAULT_CONFIG)
    expect(back.state).toStrictEqual(state)
    expect(back.warnings).toStrictEqual([])
  })

  it('stores recorded heads (compaction_refill_head "fit") as [_seq, length] pairs by _seq, and only when there are some', () => {
    const withHeads: State = { ...state, compaction: { ...state.compaction, sticky: { ...state.compaction.sticky, truncated: new Set([1, 3]), removed: new Set([0]), heads: new Map([[3, 480], [1, 1200]]) } } }
    const snapshot = toSnapshot(DEFAULT_CONFIG, withHeads)
    expect((snapshot.state.compaction as { sticky: { heads: unknown } }).sticky.heads).toStrictEqual([[1, 1200], [3, 480]])
    expect(decoded(JSON.parse(JSON.stringify(snapshot))).state).toStrictEqual(withHeads)
    expect('heads' in (toSnapshot(DEFAULT_CONFIG, state).state.compaction as { sticky: object }).sticky).toBe(false)
    const bad = JSON.parse(JSON.stringify(snapshot))
    bad.state.compaction.sticky.heads = [[1, -2]]
    expect(failure(bad).field).toBe('snapshot.state.compaction.sticky.heads.0.1')
  })

  it('names the field of a malformed snapshot', () => {
    const good = JSON.parse(JSON.stringify(toSnapshot(DEFAULT_CONFIG, state)))
    expect(failure(null).field).toBe('snapshot')
    expect(failure({ nope: 1 }).message).toBe('snapshot: expected an object {version, format, config, state} from manager.snapshot(), got one with neither version nor state: {"nope":1}')
    expect(failure({ ...good, version: '1' }).message).toContain(`snapshot.version: expected ${SNAPSHOT_VERSION}, got "1"`)
    expect(failure({ ...good, config: 3 }).field).toBe('snapshot.config')
    expect(failure({ ...good, state: { ...good.state, meter: { ...good.state.meter, usageEvents: 1.5 } } }).message).toBe(
      'snapshot.state.meter.usageEvents: expected a whole number >= 0, got 1.5',
    )
    expect(failure({ ...good, state: { ...good.state, history: [{ role: 'user' }] } }).field).toBe('snapshot.state.history.0')
    const withoutSticky = { ...good.state, compaction: { ...good.state.compaction } }
    delete withoutSticky.compaction.sticky
    expect(failure({ ...good, state: withoutSticky }).message).toContain('snapshot.state.compaction.sticky: expected')
  })

  it('reports fields that disagree', () => {
    expect(findInconsistency(state)).toBeNull()
    expect(findInconsistency({ ...state, compaction: { ...state.compaction, sticky: { ...state.compaction.sticky, stubbed: new Set([2]) } } })).toStrictEqual({
      field: 'compaction.sticky.stubbed',
      detail: '_seq 2 is not a stored message (the history and the sticky decisions disagree)',
    })
    expect(findInconsistency({ ...state, compaction: { ...state.compaction, sticky: { ...state.compaction.sticky, heads: new Map([[3, 100]]) } } })).toStrictEqual({
      field: 'compaction.sticky.heads',
      detail: '_seq 3 has a head but is not in compaction.sticky.truncated',
    })
    expect(findInconsistency({ ...state, history: [stored(1, 'b'), stored(0, 'a')] })?.field).toBe('history.1.metadata._seq')
    expect(findInconsistency({ ...state, summary: { ...state.summary, inFlight: 'summary-1' } })?.field).toBe('summary.inFlightSeqs')
    expect(findInconsistency({ ...state, summary: { ...state.summary, pending: { seqs: [9], text: 'x' } } })?.field).toBe('summary.pending.seqs')
    expect(findInconsistency({ ...state, meter: { ...state.meter, anchorSeq: 5 } })?.field).toBe('meter.anchorSeq')
  })
})

describe('selectResumeEffects', () => {
  it('requests the in-flight summary again with its id and span, and nothing otherwise', () => {
    expect(selectResumeEffects(DEFAULT_CONFIG, state)).toStrictEqual([])
    const inFlight: State = { ...state, summary: { ...state.summary, inFlight: 'summary-4', inFlightSeqs: [0, 1], nextRequestNumber: 5 } }
    expect(selectResumeEffects(DEFAULT_CONFIG, inFlight)).toMatchObject([
      { type: 'request_summary', id: 'summary-4', seqs: [0, 1], messageCount: 2, transcript: '[user]: a\n\n[assistant]: b' },
    ])
  })
})
