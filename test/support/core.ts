/**
 * Builders for the core unit tests: decoded configs, messages, events, expected stored/view forms,
 * and a fold of events through the pure reducer (`makeStep`).
 */
import { isLeft } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../src/core/codecs.js'
import { DEFAULT_CONFIG, type Config } from '../../src/core/config.js'
import type { Effect } from '../../src/core/effects.js'
import { estimateOne, makeCachedEstimator } from '../../src/core/meter/estimate.js'
import type { Event, RequestReceived } from '../../src/core/events.js'
import type { Message, Messages } from '../../src/core/messages/message.js'
import { makeStep } from '../../src/core/reducer.js'
import { makeInitialState, type State } from '../../src/core/state.js'
import type { CompactionStats, TokenMeterStats } from '../../src/core/stats.js'
import type { Step } from '../../src/core/step.js'

/** The fixed clock value used by every test (SPEC 1.4 format). */
/**
 * The configuration of SPEC 6.8's worked example: E = 3000 (notice off), threshold 0.5, target
 * 1800 tokens, 50-character truncation, half the messages and the last 4 tool results protected.
 */
export const WORKED_EXAMPLE = {
  max_tokens: 3000,
  compaction_notice_enabled: false,
  compact_threshold: 0.5,
  target_usage: 0.6,
  truncate_chars: 50,
  protected_recent: 0.5,
  protected_tool_results: 4,
}

export const NOW = '2026-01-01T00:00:00.000+00:00'

/** A second clock value, for telling timestamps apart. */
export const LATER = '2026-02-06T10:00:00.123+00:00'

/** Decode a raw config (contract keys) and fail the test on a ConfigError. */
export const configOf = (raw: Readonly<Record<string, unknown>> = {}): Config => {
  const decoded = decodeConfig(raw)
  if (isLeft(decoded)) throw decoded.left
  return decoded.right.config
}

/** The warning messages of decoding a raw config (contract keys), failing the test on a ConfigError. */
export const configWarningsOf = (raw: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const decoded = decodeConfig(raw)
  if (isLeft(decoded)) throw decoded.left
  return decoded.right.warnings.map((log) => log.message)
}

/** `makeStep` over a config (raw contract keys, decoded; or an already decoded `Config`) with the cached default estimator. */
export const stepFor = (config: Readonly<Record<string, unknown>> | Config = {}): ((state: State, event: Event) => Step) =>
  makeStep({ config: isDecoded(config) ? config : configOf(config), estimate: makeCachedEstimator() })

const isDecoded = (config: Readonly<Record<string, unknown>> | Config): config is Config =>
  Object.keys(config).length === Object.keys(DEFAULT_CONFIG).length && Object.keys(DEFAULT_CONFIG).every((key) => key in config)

// ------------------------------------------------------------------------------------------------
// Messages
// ------------------------------------------------------------------------------------------------

export const user = (content: unknown, extra: Readonly<Record<string, unknown>> = {}): Message => ({ role: 'user', content, ...extra })

export const assistant = (content: unknown, extra: Readonly<Record<string, unknown>> = {}): Message => ({ role: 'assistant', content, ...extra })

export const system = (content: unknown, extra: Readonly<Record<string, unknown>> = {}): Message => ({ role: 'system', content, ...extra })

/** One OpenAI-style tool call (`function.arguments` only when given). */
export const call = (id: string, name = 'read_file', args?: unknown): Record<string, unknown> => ({
  id,
  type: 'function',
  function: args === undefined ? { name } : { name, arguments: args },
})

/** An assistant message with one tool call per id. */
export const calls = (ids: ReadonlyArray<string>, name = 'read_file', content: unknown = ''): Message => ({
  role: 'assistant',
  content,
  tool_calls: ids.map((id) => call(id, name)),
})

/** A tool result answering call `id`. */
export const result = (id: string, content: unknown, extra: Readonly<Record<string, unknown>> = {}): Message => ({
  role: 'tool',
  tool_call_id: id,
  content,
  ...extra,
})

/** The stored form of an added message (SPEC 1.4): timestamp added when absent, `_seq` last. */
export const stored = (message: Message, seq: number, timestamp: string = NOW): Message => {
  const metadata = message.metadata !== undefined && message.metadata !== null ? (message.metadata as Record<string, unknown>) : {}
  const withTime = Object.prototype.hasOwnProperty.call(metadata, 'timestamp') ? metadata : { ...metadata, timestamp }
  return { ...message, metadata: { ...withTime, _seq: seq } }
}

/** A message as a view shows it (SPEC 1.6): `metadata` without `_seq`. */
export const viewed = (message: Message): Message => {
  const metadata = message.metadata
  if (metadata === null || typeof metadata !== 'object' || !('_seq' in metadata)) return message
  const { _seq: _dropped, ...rest } = metadata as Record<string, unknown>
  return { ...message, metadata: rest }
}

/** The estimate of a list with the default estimator (SPEC 5.1). */
export const tokens = (messages: Messages): number => messages.reduce((sum, message) => sum + estimateOne(message), 0)

/**
 * The history of SPEC 6.8: 8 turns of (user `ask <i>`, assistant calling `t<i>` read_file without
 * arguments, tool result of 800 `x`), every message with metadata `{timestamp: NOW}`.
 */
export const workedExampleTurns = (turns = 8, resultLength = 800): Message[] => {
  const messages: Message[] = []
  for (let i = 0; i < turns; i += 1) {
    messages.push({ role: 'user', content: `ask ${i}`, metadata: { timestamp: NOW } })
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'read_file' } }],
      metadata: { timestamp: NOW },
    })
    messages.push({ role: 'tool', tool_call_id: `t${i}`, content: 'x'.repeat(resultLength), metadata: { timestamp: NOW } })
  }
  return messages
}

// ------------------------------------------------------------------------------------------------
// Events
// ------------------------------------------------------------------------------------------------

export const added = (message: Message, timestamp: string = NOW): Event => ({ type: 'message_added', message, timestamp })

export const request = (options: Partial<Omit<RequestReceived, 'type'>> = {}): RequestReceived => ({
  type: 'request_received',
  tokenBudget: null,
  provider: null,
  providerGiven: false,
  systemPrompt: null,
  now: NOW,
  ...options,
})

export const usage = (fields: unknown): Event => ({ type: 'usage_observed', data: { usage: fields } })

// ------------------------------------------------------------------------------------------------
// Folding
// ------------------------------------------------------------------------------------------------

/** Apply `events` in order; returns the final state and every step. */
export const fold = (
  step: (state: State, event: Event) => Step,
  events: ReadonlyArray<Event>,
  initial: State = makeInitialState(),
): { readonly state: State; readonly steps: ReadonlyArray<Step> } => {
  let state = initial
  const steps: Step[] = []
  for (const event of events) {
    const next = step(state, event)
    steps.push(next)
    state = next.state
  }
  return { state, steps }
}

/** The state after adding `messages` (all at `timestamp`) to `initial`. */
export const withMessages = (
  step: (state: State, event: Event) => Step,
  messages: ReadonlyArray<Message>,
  initial: State = makeInitialState(),
  timestamp: string = NOW,
): State => fold(step, messages.map((message) => added(message, timestamp)), initial).state

// ------------------------------------------------------------------------------------------------
// Expected effects
// ------------------------------------------------------------------------------------------------

export const meterEvent = (stats: TokenMeterStats): Effect => ({ type: 'emit_hook', name: 'context:token_meter', data: stats })

export const compactionEvent = (stats: CompactionStats): Effect => ({ type: 'emit_hook', name: 'context:compaction', data: stats })

/** The hook names among a step's effects, in order. */
export const hookNames = (effects: ReadonlyArray<Effect>): string[] =>
  effects.flatMap((effect) => (effect.type === 'emit_hook' ? [effect.name] : []))

/** Effects of one type. */
export const effectsOf = <T extends Effect['type']>(effects: ReadonlyArray<Effect>, type: T): Array<Extract<Effect, { type: T }>> =>
  effects.filter((effect): effect is Extract<Effect, { type: T }> => effect.type === type)

/**
 * The meter stats of an estimate-mode request with no reading (SPEC 10.6), for `estimated` tokens
 * of a non-empty working list against effective budget `budget`.
 */
export const estimateMeterStats = (estimated: number, budget: number, overrides: Partial<TokenMeterStats> = {}): TokenMeterStats => ({
  mode: 'estimate',
  source: 'estimate',
  kind: 'estimated',
  used_tokens: estimated,
  estimated_tokens: estimated,
  measured_tokens: null,
  hybrid_tokens: estimated,
  hybrid_kind: 'estimated',
  anchor_tokens: null,
  anchor_estimate: null,
  anchor_rejected: false,
  tail_estimated_tokens: null,
  tail_messages: null,
  cache_aggregates: null,
  provenance_refusals: 0,
  provenance_overrides: 0,
  budget,
  ratio: budget > 0 ? estimated / budget : null,
  ...overrides,
})

/** The `_seq` values of a list of stored messages. */
export const seqs = (messages: Messages): number[] =>
  messages.map((message) => (message.metadata as { _seq: number })._seq)
