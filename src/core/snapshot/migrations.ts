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

// Where each field of a version-8 slice came from in version 7 (migrateState7To8), by
// "<slice>.<field>"; a field not named kept its place.
const VERSION_7_PLACES: Readonly<Record<string, ReadonlyArray<string>>> = {
  'budget.lastBudget': ['guards', 'lastBudget'],
  'meter.stats': ['meterStats'],
  'meter.usageStale': ['guards', 'usageStale'],
  'meter.usageObservedOnly': ['guards', 'usageObservedOnly'],
  'meter.calibration': ['calibration'],
  'summary.cooldown': ['guards', 'summaryCooldown'],
  'compaction.sticky': ['sticky'],
  'compaction.stats': ['compactionStats'],
  'compaction.skipStreak': ['skipStreak'],
  'compaction.replayMarker': ['replayMarker'],
  'compaction.infeasible': ['guards', 'infeasible'],
  'compaction.noticeSent': ['guards', 'noticeSent'],
  'compaction.breaker.overBudgetPasses': ['guards', 'overBudgetPasses'],
  'compaction.breaker.tripped': ['guards', 'breakerTripped'],
  'compaction.breaker.budget': ['guards', 'breakerBudget'],
  'toolResults.spillWritten': ['spillWritten'],
  'toolResults.spillFailed': ['spillFailed'],
  'toolResults.ingressPending': ['guards', 'ingressPending'],
}

/**
 * The inverse of `migrateState7To8` on field paths: where the field at `path` of a migrated
 * version-8 state (its keys, outermost first) was in the version-7 state, so an error can name
 * the field the snapshot holds. The longest prefix `VERSION_7_PLACES` names is replaced; a path
 * it does not name (`history`, `nextSeq`, `toolNames`, the meter's and summary's own fields) is
 * unchanged.
 *
 * @example
 * toVersion7Path(['compaction', 'breaker', 'tripped']) // => ['guards', 'breakerTripped']
 * toVersion7Path(['compaction', 'sticky', 'removed', '0']) // => ['sticky', 'removed', '0']
 * toVersion7Path(['history', '3', 'role']) // => ['history', '3', 'role']
 */
export const toVersion7Path = (path: ReadonlyArray<string>): ReadonlyArray<string> => {
  for (let length = Math.min(path.length, 3); length >= 2; length -= 1) {
    const place = VERSION_7_PLACES[path.slice(0, length).join('.')]
    if (place !== undefined) return [...place, ...path.slice(length)]
  }
  return path
}

/**
 * For each migration (by the version it starts from), where a field path of the state it makes
 * was in the state it read: 7 → 8 moved fields (`toVersion7Path`), 8 → 9 only added one.
 *
 * @example
 * MIGRATED_PATHS[8](['meter', 'anchorSeq']) // => ['meter', 'anchorSeq']
 */
export const MIGRATED_PATHS: Readonly<Record<number, (path: ReadonlyArray<string>) => ReadonlyArray<string>>> = {
  7: toVersion7Path,
  8: (path) => path,
}

/**
 * The path in the state of a version-`version` snapshot of the field at `path` (keys, outermost
 * first) in the state migrated to `target`: every migration's `MIGRATED_PATHS` from the newest
 * back. Unchanged for `version` = `target`.
 *
 * @example
 * toSnapshotPath(['summary', 'cooldown'], 7, 9) // => ['guards', 'summaryCooldown']
 * toSnapshotPath(['summary', 'cooldown'], 9, 9) // => ['summary', 'cooldown']
 */
export const toSnapshotPath = (path: ReadonlyArray<string>, version: number, target: number): ReadonlyArray<string> => {
  let found = path
  for (let from = target - 1; from >= version; from -= 1) found = (MIGRATED_PATHS[from] ?? ((same: ReadonlyArray<string>) => same))(found)
  return found
}

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
