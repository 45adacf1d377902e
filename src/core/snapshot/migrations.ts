/**
 * Snapshot migrations (docs/embedding.md, "Snapshots across versions"): every version bump ships a
 * migration from the version before it, so a snapshot of any version from 7 on restores. A
 * migration is a pure function of the raw JSON value (after `JSON.parse`), applied before the
 * current version's codecs decode it; they are chained, oldest first.
 */
import { isPlainObject } from '../messages/values.js'

/**
 * The oldest snapshot version that restores (the first written with a migration policy).
 *
 * @example
 * OLDEST_RESTORABLE_VERSION // => 7
 */
export const OLDEST_RESTORABLE_VERSION = 7

type Json = Readonly<Record<string, unknown>>

const objectOr = (value: unknown): Json => (isPlainObject(value) ? value : {})

/** Copies `value[key]` when present (a missing field stays missing, for the codec to name). */
const pick = (value: Json, key: string): Json => (key in value ? { [key]: value[key] } : {})

/**
 * Version 7 → 8: the flat state with its `guards` object becomes one slice per concern. `budget`:
 * `guards.lastBudget`; `meter`: the meter, `meterStats` as `stats`, `guards.usageStale`,
 * `guards.usageObservedOnly` and `calibration`; `summary`: the summary and `guards.summaryCooldown`
 * as `cooldown`; `compaction`: `sticky`, `compactionStats` as `stats`, `skipStreak`,
 * `replayMarker`, `guards.infeasible`, the breaker (`overBudgetPasses`, `breakerTripped` as
 * `tripped`, `breakerBudget` as `budget`) and `guards.noticeSent`; `toolResults`: `spillWritten`,
 * `spillFailed` and `guards.ingressPending`. `history`, `nextSeq` and `toolNames` are unchanged.
 *
 * @example
 * const v7 = { history: [], nextSeq: 0, sticky: { removed: [], truncated: [], stubbed: [], cumulativeLevel: 0 }, compactionStats: null, meterStats: null, meter: {}, toolNames: {}, spillWritten: [], spillFailed: [], replayMarker: null, skipStreak: 0, summary: {}, guards: { summaryCooldown: 2 } }
 * migrateState7To8(v7).summary // => { cooldown: 2 }
 */
export const migrateState7To8 = (state: Json): Json => {
  const guards = objectOr(state.guards)
  const renamed = (key: string, as: string): Json => (key in guards ? { [as]: guards[key] } : {})
  return {
    ...pick(state, 'history'),
    ...pick(state, 'nextSeq'),
    ...pick(state, 'toolNames'),
    budget: { ...pick(guards, 'lastBudget') },
    meter: { ...objectOr(state.meter), ...('meterStats' in state ? { stats: state.meterStats } : {}), ...pick(guards, 'usageStale'), ...pick(guards, 'usageObservedOnly'), ...pick(state, 'calibration') },
    summary: { ...objectOr(state.summary), ...renamed('summaryCooldown', 'cooldown') },
    compaction: {
      ...pick(state, 'sticky'),
      ...('compactionStats' in state ? { stats: state.compactionStats } : {}),
      ...pick(state, 'skipStreak'),
      ...pick(state, 'replayMarker'),
      ...pick(guards, 'infeasible'),
      breaker: { ...pick(guards, 'overBudgetPasses'), ...renamed('breakerTripped', 'tripped'), ...renamed('breakerBudget', 'budget') },
      ...pick(guards, 'noticeSent'),
    },
    toolResults: { ...pick(state, 'spillWritten'), ...pick(state, 'spillFailed'), ...pick(guards, 'ingressPending') },
  }
}

/**
 * Version 8 → 9: the Anthropic cache breakpoints' slice `cacheBreakpoints` (the positions of the
 * last view sent, src/core/formats/anthropic-cache.ts) is added, empty: version 8 held no
 * positions, so the restored session's next view places the system and tail marks only, as
 * version 8 placed them. The other slices are unchanged.
 *
 * @example
 * migrateState8To9({ nextSeq: 3 }) // => { nextSeq: 3, cacheBreakpoints: { marks: [] } }
 */
export const migrateState8To9 = (state: Json): Json => ({ ...state, cacheBreakpoints: { marks: [] } })

/**
 * The migration from each version to the next, by the version it starts from.
 *
 * @example
 * Object.keys(MIGRATIONS) // => ['7', '8']
 */
export const MIGRATIONS: Readonly<Record<number, (state: Json) => Json>> = {
  7: migrateState7To8,
  8: migrateState8To9,
}

/**
 * The raw snapshot `value` of `version` (≥ `OLDEST_RESTORABLE_VERSION`) brought to `target`: its
 * state through every migration from `version` on, oldest first; the other fields unchanged.
 * Returns null when a migration is missing (a version older than the oldest restorable one, or
 * newer than `target`).
 *
 * @example
 * migrateSnapshot({ version: 9, state: {} }, 9) // => { version: 9, state: {} }
 */
export const migrateSnapshot = (value: Json, target: number): Json | null => {
  let version = value.version
  if (typeof version !== 'number' || !Number.isInteger(version) || version < OLDEST_RESTORABLE_VERSION || version > target) return null
  let state = objectOr(value.state)
  for (; version < target; version += 1) {
    const migrate = MIGRATIONS[version]
    if (migrate === undefined) return null
    state = migrate(state)
  }
  return version === value.version ? value : { ...value, version, state: isPlainObject(value.state) ? state : value.state }
}
