/**
 * Consistency of a decoded snapshot state: the checks that span fields (sticky decisions and
 * summary spans name stored messages, `_seq`s ascend below `nextSeq`, ...). Each check is pure.
 */
import { seqOf } from '../messages/message.js'
import type { State } from '../state.js'
import { toPlainArray } from '../messages/appendable.js'

/**
 * What is wrong with a state: `field` is the path under `snapshot.state`, `detail` the problem
 * and how it arises.
 *
 * @example
 * const problem: Inconsistency = { field: 'sticky.removed', detail: '_seq 12 is not a stored message' }
 */
export interface Inconsistency {
  readonly field: string
  readonly detail: string
}

/** The stored `_seq`s, or the first inconsistency of their order. */
const storedSeqs = (state: State): ReadonlySet<number> | Inconsistency => {
  const seqs = new Set<number>()
  let previous = -1
  const history = toPlainArray(state.history)
  for (let index = 0; index < history.length; index += 1) {
    const seq = seqOf(history[index]) ?? -1
    if (seq <= previous) return { field: `history.${index}.metadata._seq`, detail: `expected a _seq above ${previous} (stored _seqs ascend), got ${seq}` }
    if (seq >= state.nextSeq) return { field: `history.${index}.metadata._seq`, detail: `expected a _seq below nextSeq ${state.nextSeq}, got ${seq}` }
    seqs.add(seq)
    previous = seq
  }
  return seqs
}

/** The first `_seq` of `seqs` that is not stored, as an inconsistency at `field`. */
const missing = (field: string, seqs: Iterable<number>, stored: ReadonlySet<number>, what: string): Inconsistency | null => {
  for (const seq of seqs) {
    if (!stored.has(seq)) return { field, detail: `_seq ${seq} is not a stored message (the history and the ${what} disagree)` }
  }
  return null
}

/**
 * The cross-field checks, in order; the first problem found is reported. A new state field with
 * invariants across fields adds its check here.
 */
const CHECKS: ReadonlyArray<(state: State, stored: ReadonlySet<number>) => Inconsistency | null> = [
  (state, stored) => missing('compaction.sticky.removed', state.compaction.sticky.removed, stored, 'sticky decisions'),
  (state, stored) => missing('compaction.sticky.truncated', state.compaction.sticky.truncated, stored, 'sticky decisions'),
  (state, stored) => missing('compaction.sticky.stubbed', state.compaction.sticky.stubbed, stored, 'sticky decisions'),
  (state) => {
    // A recorded head (src/core/compaction/sticky.ts, `StickySets.heads`) is the form of a truncated result.
    for (const seq of state.compaction.sticky.heads?.keys() ?? []) {
      if (!state.compaction.sticky.truncated.has(seq)) return { field: 'compaction.sticky.heads', detail: `_seq ${seq} has a head but is not in compaction.sticky.truncated` }
    }
    return null
  },
  (state, stored) => missing('summary.inFlightSeqs', state.summary.inFlightSeqs, stored, 'summary in flight'),
  (state, stored) => (state.summary.pending === null ? null : missing('summary.pending.seqs', state.summary.pending.seqs, stored, 'pending summary')),
  (state) =>
    (state.summary.inFlight === null) === (state.summary.inFlightSeqs.length === 0)
      ? null
      : { field: 'summary.inFlightSeqs', detail: `expected ${state.summary.inFlight === null ? 'no _seqs when no summary is in flight' : `the _seqs of ${state.summary.inFlight}`}, got ${state.summary.inFlightSeqs.length}` },
  (state) =>
    state.meter.anchorSeq === null || state.meter.anchorSeq <= state.nextSeq
      ? null
      : { field: 'meter.anchorSeq', detail: `expected at most nextSeq ${state.nextSeq}, got ${state.meter.anchorSeq}` },
]

/**
 * The first inconsistency of `state` (already decoded field by field), or null when its fields
 * agree. Linear in the history length plus the sticky and summary sets.
 *
 * @example
 * findInconsistency(makeInitialState()) // => null
 */
export const findInconsistency = (state: State): Inconsistency | null => {
  const stored = storedSeqs(state)
  if (!(stored instanceof Set)) return stored as Inconsistency
  for (const check of CHECKS) {
    const problem = check(state, stored)
    if (problem !== null) return problem
  }
  return null
}
