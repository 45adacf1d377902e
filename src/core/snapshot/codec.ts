/**
 * The session snapshot (docs/embedding.md, saving and restoring): a JSON value `{version, config, state}` of a whole manager and
 * its decoder, which rejects a malformed, other-version or inconsistent snapshot as a whole.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { decodeConfig } from '../codecs.js'
import type { Config } from '../config.js'
import type { Log } from '../effects.js'
import { SnapshotError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { State } from '../state.js'
import { isPlainObject } from '../messages/values.js'
import { isProviderFormat, type MessageFormat } from '../formats/carrier.js'
import { findInconsistency } from './consistency.js'
import { sliceFrom } from '../messages/appendable.js'
import { migrateSnapshot, OLDEST_RESTORABLE_VERSION, toSnapshotPath } from './migrations.js'

/**
 * The snapshot format version. Bump it whenever the JSON form of `State` changes (a field added,
 * removed or re-encoded), and add the migration from the version before to
 * src/core/snapshot/migrations.ts: `decodeSnapshot` restores this version and every older one
 * from `OLDEST_RESTORABLE_VERSION` on (docs/embedding.md, "Snapshots across versions").
 *
 * @example
 * SNAPSHOT_VERSION // => 9
 */
export const SNAPSHOT_VERSION = 9

/**
 * The JSON form of a `State`: every field of `State` under the same name, sets as sorted arrays.
 *
 * @example
 * const json: SnapshotState = toSnapshot(DEFAULT_CONFIG, makeInitialState()).state
 */
export type SnapshotState = { readonly [K in keyof State]: unknown }

/**
 * A session snapshot: a JSON value (survives `JSON.stringify` / `JSON.parse`). `version` is
 * `SNAPSHOT_VERSION`, `config` the resolved configuration (SPEC 3 keys), `state` the core state
 * in JSON form. Stored messages are shared with the state, not copied.
 *
 * @example
 * const snapshot: Snapshot = toSnapshot(DEFAULT_CONFIG, makeInitialState())
 * JSON.parse(JSON.stringify(snapshot)).version // => 9
 */
export interface Snapshot {
  readonly version: number
  /** The manager's message format (docs/formats.md); `contract` unless a provider format. */
  readonly format: MessageFormat
  readonly config: Config
  readonly state: SnapshotState
}

/** A whole number ≥ 0 (counts, `_seq`s, levels). */
const Count = t.refinement(t.number, (n) => Number.isInteger(n) && n >= 0, 'a whole number >= 0')
/** A finite number (token figures). */
const Finite = t.refinement(t.number, (n) => Number.isFinite(n), 'a finite number')
const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null], `${codec.name} or null`)

/** A set of values stored as a sorted array (numbers ascending, strings in code-unit order). */
const setOf = <A extends number | string>(item: t.Type<A, A, unknown>, name: string): t.Type<ReadonlySet<A>, ReadonlyArray<A>, unknown> =>
  new t.Type<ReadonlySet<A>, ReadonlyArray<A>, unknown>(
    name,
    (value): value is ReadonlySet<A> => value instanceof Set,
    (value, context) => {
      const items = t.array(item).validate(value, context)
      return E.isLeft(items) ? items : t.success(new Set(items.right))
    },
    (set) => toAscending([...set]),
  )

/**
 * `items` in ascending order (numbers by value, strings in code-unit order): itself when already
 * ascending, as a set the core fills in order usually is (no comparator call per item then), else
 * sorted. The same array `sort` would give: a set holds no two equal items.
 */
const toAscending = <A extends number | string>(items: A[]): A[] => {
  for (let i = 1; i < items.length; i += 1) if (items[i - 1] > items[i]) return items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return items
}

/** A stored message: a JSON object whose `metadata._seq` is a whole number. */
const StoredMessage = new t.Type<Message, Message, unknown>(
  'a message object with metadata._seq (a whole number)',
  (value): value is Message => isPlainObject(value),
  (value, context) => {
    if (!isPlainObject(value) || !isPlainObject(value.metadata)) return t.failure(value, context)
    return Count.is(value.metadata._seq) ? t.success(value as Message) : t.failure(value, context)
  },
  // t.identity: the history's array codec then encodes by returning the array itself (io-ts skips
  // its per-item map); toSnapshot hands it a new plain array already.
  t.identity,
)

/** A JSON object (the contract's stats objects, stored as the core computed them). */
const JsonObject = new t.Type<Readonly<Record<string, unknown>>, Readonly<Record<string, unknown>>, unknown>(
  'an object',
  (value): value is Readonly<Record<string, unknown>> => isPlainObject(value),
  (value, context) => (isPlainObject(value) ? t.success(value) : t.failure(value, context)),
  (value) => value,
)

/** A map of whole numbers stored as `[key, value]` pairs, keys ascending. */
const countMap = (name: string): t.Type<ReadonlyMap<number, number>, ReadonlyArray<readonly [number, number]>, unknown> =>
  new t.Type<ReadonlyMap<number, number>, ReadonlyArray<readonly [number, number]>, unknown>(
    name,
    (value): value is ReadonlyMap<number, number> => value instanceof Map,
    (value, context) => {
      const pairs = t.array(t.tuple([Count, Count])).validate(value, context)
      return E.isLeft(pairs) ? pairs : t.success(new Map(pairs.right))
    },
    (map) => [...map].sort((a, b) => a[0] - b[0]),
  )

const StickyCodec = t.intersection([
  t.type({
    removed: setOf(Count, 'an array of _seq numbers'),
    truncated: setOf(Count, 'an array of _seq numbers'),
    stubbed: setOf(Count, 'an array of _seq numbers'),
    cumulativeLevel: t.refinement(Count, (n) => n <= 8, 'a level 0..8'),
  }),
  // Absent unless `compaction_refill_head: "fit"` recorded a head (src/core/compaction/sticky.ts, `StickySets.heads`).
  t.partial({ heads: countMap('an array of [_seq, head length] pairs') }),
])

const MeterCodec = t.type({
  measured: nullable(Finite),
  anchorSeq: nullable(Count),
  anchorEstimate: nullable(Finite),
  lastSentEstimate: nullable(Finite),
  usageEvents: Count,
  usageEventsWithCache: Count,
  cacheReadTotal: Finite,
  cacheWriteTotal: Finite,
  provenanceRefusals: Count,
  provenanceOverrides: Count,
})

const SummaryCodec = t.type({
  providerKnown: t.boolean,
  inFlight: nullable(t.string),
  inFlightSeqs: t.readonlyArray(Count),
  pending: nullable(t.type({ seqs: t.readonlyArray(Count), text: t.string })),
  failures: Count,
  absorbedCount: Count,
  nextRequestNumber: t.refinement(Count, (n) => n >= 1, 'a whole number >= 1'),
})

const SentViewCodec = t.type({ estimate: Finite, tailEstimate: Finite, hashes: t.readonlyArray(Count) })

// Optional (absent outside `token_meter: "calibrated"`), so snapshots without it stay valid.
const CalibrationCodec = t.type({
  points: t.readonlyArray(t.type({ estimate: Finite, reading: Finite })),
  sent: nullable(SentViewCodec),
  anchor: nullable(t.type({ reading: Finite, view: SentViewCodec })),
  lastError: nullable(Finite),
})

const LastBudgetCodec = t.type({
  source: t.keyof({ token_budget: null, provider: null, fallback_window: null, max_tokens: null, cap: null }),
  context_window: nullable(Finite),
  output_reserve: nullable(Finite),
  cap: nullable(Finite),
  effective_budget: Finite,
})

/** The budget's slice (`budget_provenance`). */
const BudgetCodec = t.type({ lastBudget: nullable(LastBudgetCodec) })

const StatsObject = nullable(JsonObject)

/** The meter's slice: the reading state, the last stats, the foreground intake, the calibration (optional). */
const MeterSliceCodec = t.intersection([
  MeterCodec,
  t.type({ stats: StatsObject as unknown as t.Type<State['meter']['stats'], unknown, unknown>, usageStale: t.boolean, usageObservedOnly: Count }),
  // Absent outside `token_meter: "calibrated"`.
  t.partial({ calibration: CalibrationCodec }),
])

/** The summary's slice: the summary state and the cooldown. */
const SummarySliceCodec = t.intersection([SummaryCodec, t.type({ cooldown: Count })])

/** The compaction's slice: sticky decisions, stats, predicate streak, replay marker, floor verdict, breaker, notice, overhead warning. */
const CompactionCodec = t.intersection([
  t.type({
    sticky: StickyCodec,
    stats: StatsObject as unknown as t.Type<State['compaction']['stats'], unknown, unknown>,
    skipStreak: Count,
    replayMarker: nullable(t.string),
    infeasible: t.boolean,
    breaker: t.type({ overBudgetPasses: Count, tripped: t.boolean, budget: nullable(Finite) }),
    noticeSent: t.boolean,
  }),
  // Present once the calibrated meter's overhead warning was logged (docs/contract.md 17.13); an
  // older snapshot without it restores as not warned.
  t.partial({ overheadWarned: t.boolean }),
])

/** The tool results' slice: spill paths written and failed, ingress spills pending. */
const ToolResultsCodec = t.type({
  spillWritten: setOf(t.string, 'an array of spill paths'),
  spillFailed: setOf(t.string, 'an array of spill paths'),
  ingressPending: t.record(t.string, Count),
})

/** A SHA-256 digest as 64 lowercase hex digits. */
const Sha256Hex = t.refinement(t.string, (text) => /^[0-9a-f]{64}$/.test(text), 'a SHA-256 fingerprint (64 hex digits)')

/**
 * The Anthropic cache breakpoints' slice (src/core/formats/anthropic-cache.ts): each held mark's
 * message index in the last view sent and its prefix fingerprint, indexes ascending.
 */
const CacheBreakpointsCodec = t.type({
  marks: t.refinement(
    t.readonlyArray(t.type({ index: Count, prefix: Sha256Hex })),
    (marks) => marks.every((mark, i) => i === 0 || marks[i - 1].index < mark.index),
    'marks with ascending indexes',
  ),
})

/**
 * One io-ts codec per `State` slice. The mapped type makes a new `State` field a compile error
 * here until its codec is added (and `SNAPSHOT_VERSION` bumped, with a migration).
 */
const STATE_FIELDS: { readonly [K in keyof State]: t.Type<State[K], unknown, unknown> } = {
  history: t.readonlyArray(StoredMessage),
  nextSeq: Count,
  toolNames: t.record(t.string, t.string),
  budget: BudgetCodec,
  meter: MeterSliceCodec as unknown as t.Type<State['meter'], unknown, unknown>,
  summary: SummarySliceCodec,
  compaction: CompactionCodec,
  toolResults: ToolResultsCodec,
  cacheBreakpoints: CacheBreakpointsCodec,
}

const FIELD_NAMES = Object.keys(STATE_FIELDS) as ReadonlyArray<keyof State>

/**
 * The snapshot of `state` under `config` (pure; linear in the number of stored messages and
 * sticky decisions). Messages are shared, not copied; `state.history` is a new plain array.
 *
 * @example
 * toSnapshot(DEFAULT_CONFIG, makeInitialState()).state.history // => []
 */
export const toSnapshot = (config: Config, state: State, format: MessageFormat = 'contract'): Snapshot => {
  const json: Record<string, unknown> = {}
  // The history as a new plain array (the stored one may be an appendable view, which no
  // structured clone or worker message can carry); the messages themselves are shared.
  const source: State = { ...state, history: sliceFrom(state.history, 0) }
  for (const name of FIELD_NAMES) if (source[name] !== undefined) json[name] = (STATE_FIELDS[name] as t.Type<unknown, unknown, unknown>).encode(source[name])
  return { version: SNAPSHOT_VERSION, format, config, state: json as SnapshotState }
}

/** `value` shown in an error message: JSON, shortened. */
const show = (value: unknown): string => {
  let text: string
  try {
    text = value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** The first io-ts error as a SnapshotError: the field path and what it expected. */
const toSnapshotError = (prefix: string, errors: t.Errors): SnapshotError => {
  const error = errors[0]
  // An intersection (a slice made of several codecs) or a union (a nullable field) adds the index
  // of its member: not a field.
  const isMember = (index: number): boolean => index > 0 && (error.context[index - 1].type instanceof t.IntersectionType || error.context[index - 1].type instanceof t.UnionType)
  const path = error.context.filter((entry, index) => entry.key !== '' && !isMember(index)).map((entry) => entry.key)
  const expected = error.context[error.context.length - 1].type.name
  return new SnapshotError([prefix, ...path].join('.'), `expected ${expected}, got ${show(error.value)}`)
}

/**
 * A decoded snapshot: the configuration (decoded as the constructor decodes it, with its warnings)
 * and the state.
 *
 * @example
 * const restored: RestoredSnapshot = { format: 'contract', config: DEFAULT_CONFIG, warnings: [], state: makeInitialState() }
 * restored.state.history.length // => 0
 */
export interface RestoredSnapshot {
  readonly format: MessageFormat
  readonly config: Config
  readonly warnings: ReadonlyArray<Log>
  readonly state: State
}

/**
 * Decode a snapshot (a parsed JSON value). Left: a `SnapshotError` whose `field` names the first
 * problem — not an object, a missing or other `version`, a configuration value of the wrong type
 * (`snapshot.config.<key>`), a state field of the wrong shape (`snapshot.state.<path>`), or an
 * inconsistency between fields (a sticky decision naming a `_seq` that is not stored, `_seq`s out
 * of order, ...). Right: the configuration and a state sharing the value's messages (copy the
 * value first if the caller may mutate it). Nothing is partly decoded: either all of it or an
 * error.
 *
 * @example
 * const state = makeInitialState()
 * decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(DEFAULT_CONFIG, state))))._tag // => 'Right'
 * decodeSnapshot({ version: 0 })._tag // => 'Left'
 */
export const decodeSnapshot = (value: unknown): E.Either<SnapshotError, RestoredSnapshot> => {
  if (!isPlainObject(value)) return E.left(new SnapshotError('snapshot', `expected an object {version, format, config, state} from manager.snapshot(), got ${show(value)}`))
  if (!('version' in value) && !('state' in value)) {
    return E.left(new SnapshotError('snapshot', `expected an object {version, format, config, state} from manager.snapshot(), got one with neither version nor state: ${show(value)}`))
  }
  const migrated = migrateSnapshot(value, SNAPSHOT_VERSION)
  if (migrated === null) {
    return E.left(
      new SnapshotError(
        'snapshot.version',
        `expected ${SNAPSHOT_VERSION}, got ${show(value.version)} (versions ${OLDEST_RESTORABLE_VERSION} to ${SNAPSHOT_VERSION} restore; a snapshot written by another version of context-simple: restore it with that version)`,
      ),
    )
  }
  const decoded = decodeCurrent(migrated)
  return E.isLeft(decoded) && migrated !== value ? E.left(toGivenFieldError(decoded.left, value.version as number)) : decoded
}

const STATE_PREFIX = 'snapshot.state.'

/**
 * An error about a migrated snapshot's state names the field as the snapshot of `version` holds it
 * (`toSnapshotPath`), and the field it became, when they differ: a version-7 snapshot has no
 * `compaction.breaker.tripped`, it has `guards.breakerTripped`.
 */
const toGivenFieldError = (error: SnapshotError, version: number): SnapshotError => {
  if (!error.field.startsWith(STATE_PREFIX)) return error
  const migrated = error.field.slice(STATE_PREFIX.length).split('.')
  const given = toSnapshotPath(migrated, version, SNAPSHOT_VERSION)
  if (given.join('.') === migrated.join('.')) return error
  const detail = error.message.slice(error.field.length + 2)
  return new SnapshotError(`${STATE_PREFIX}${given.join('.')}`, `${detail} (a version-${version} snapshot; migrated to version ${SNAPSHOT_VERSION}, the field is ${error.field})`)
}

/** A snapshot of the current version (migrated already): format, config, state, consistency. */
const decodeCurrent = (value: Readonly<Record<string, unknown>>): E.Either<SnapshotError, RestoredSnapshot> => {
  const format = value.format
  if (format !== 'contract' && !isProviderFormat(format)) {
    return E.left(new SnapshotError('snapshot.format', `expected "contract", "anthropic", "openai-chat", "openai-responses" or "ai-sdk", got ${show(format)}`))
  }
  if (!isPlainObject(value.config)) return E.left(new SnapshotError('snapshot.config', `expected the configuration object, got ${show(value.config)}`))
  const config = decodeConfig(value.config)
  if (E.isLeft(config)) {
    const { key, message } = config.left
    return E.left(new SnapshotError(`snapshot.config.${key}`, message.slice(`config.${key}: `.length)))
  }
  if (!isPlainObject(value.state)) return E.left(new SnapshotError('snapshot.state', `expected the state object, got ${show(value.state)}`))
  const raw = value.state
  const state: Record<string, unknown> = {}
  for (const name of FIELD_NAMES) {
    const decoded = (STATE_FIELDS[name] as t.Type<unknown, unknown, unknown>).decode(raw[name])
    if (E.isLeft(decoded)) return E.left(toSnapshotError(`snapshot.state.${name}`, decoded.left))
    if (decoded.right !== undefined) state[name] = decoded.right
  }
  const inconsistency = findInconsistency(state as unknown as State)
  if (inconsistency !== null) return E.left(new SnapshotError(`snapshot.state.${inconsistency.field}`, inconsistency.detail))
  return E.right({ format, config: config.right.config, warnings: config.right.warnings, state: state as unknown as State })
}
