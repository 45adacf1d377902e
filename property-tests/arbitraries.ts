// Arbitraries and fold helpers shared by the property tests: generated VALID sessions (histories
// with parallel tool calls, interrupted turns, huge results, system messages between groups,
// non-ASCII text, repeated requests with varying budgets, usage readings, summary answers),
// generated configurations, and a hand-written fold of a session through the pure reducer.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../src/core/codecs.js'
import type { CompactionStrategy, Config, TokenMeterMode } from '../src/core/config.js'
import type { Effect } from '../src/core/effects.js'
import { estimateOne, makeCachedEstimator } from '../src/core/meter/estimate.js'
import type { Event } from '../src/core/events.js'
import type { Message, Messages } from '../src/core/messages/message.js'
import { makeStep } from '../src/core/reducer.js'
import { DEFAULT_REPLAY_NOW, type Recording, type RecordingOp, type ReplayEvent } from '../src/core/replay/recording.js'
import { makeInitialState, type State, type StickyState } from '../src/core/state.js'
import type { CompactionStats, TokenMeterStats } from '../src/core/stats.js'
import { toStub } from '../src/core/compaction/stub.js'
import { truncateToolResult } from '../src/core/tool-results/tool-result-budget.js'
import { isPlainObject, isTruthy } from '../src/core/messages/values.js'

// ---------------------------------------------------------------------------------------------
// Running properties: numRuns from the environment, the seed printed on failure.
// ---------------------------------------------------------------------------------------------

/**
 * Check `property` with `numRuns` runs. On failure prints how to reproduce it to stderr (the seed,
 * the shrink path and the property's name) and throws fast-check's report, so the counterexample
 * can be replayed and then kept in `regressions.test.ts`. `FC_PROPERTY=<name>` runs only the
 * property of that name; `FC_SEED` / `FC_PATH` replay a reported failure.
 */
export const runProperty = <Ts>(name: string, property: fc.IProperty<Ts>, numRuns: number): void => {
  if (process.env.FC_PROPERTY !== undefined && process.env.FC_PROPERTY !== name) return
  const params: fc.Parameters<Ts> = { numRuns }
  if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED)
  if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH
  const details = fc.check(property, params)
  if (details.failed) {
    const path = details.counterexamplePath !== null ? ` FC_PATH=${details.counterexamplePath}` : ''
    const replay = `FC_PROPERTY='${name}' FC_SEED=${details.seed}${path} FC_NUM_RUNS=${process.env.FC_NUM_RUNS ?? ''} FC_MAX_SEGMENTS=${process.env.FC_MAX_SEGMENTS ?? ''}`
    console.error(`[property] "${name}" failed; reproduce with ${replay}`)
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
    throw new Error(`[property] "${name}" failed (${replay})\n${fc.defaultReportMessage(details)}\nCause: ${cause}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

const PLAIN_UNITS = 'abcdefghijklmnopqrstuvwxyz ABC0123456789.,:;-_/()[]{}'.split('')
const SPECIAL_UNITS = ["'", '"', '\\', '\n', '\t', '\r', ' ', '\x7f', '\xa0', '\xad', '\u200b', '\u2028', '\x85', '\x1c', '\u3000']
const NON_ASCII_UNITS = ['é', 'ü', 'ß', 'ñ', 'Ω', 'ж', '中', '文', '日本', '한', 'ع', '😀', '🚀', '𝔘', '𐍈', '👩‍💻', '\u{1F600}', '\u{10FFFD}']

/** One unit of text: mostly plain ASCII, some quoting/whitespace specials, non-ASCII and astral. */
const textUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PLAIN_UNITS), weight: 12 },
  { arbitrary: fc.constantFrom(...SPECIAL_UNITS), weight: 2 },
  { arbitrary: fc.constantFrom(...NON_ASCII_UNITS), weight: 3 },
  {
    arbitrary: fc
      .integer({ min: 0x20, max: 0x10ffff })
      .filter((cp) => cp < 0xd800 || cp > 0xdfff)
      .map((cp) => String.fromCodePoint(cp)),
    weight: 1,
  },
)

/** A short fragment of text (1-14 units). */
export const fragmentArb: fc.Arbitrary<string> = fc.string({ unit: textUnit, minLength: 1, maxLength: 14 })

/**
 * Text built from a fragment repeated 1..`maxRepeat` times plus a unique-ish tail: cheap to
 * generate even for thousands of characters (huge tool results).
 */
export const textArb = (maxRepeat: number, minRepeat = 1): fc.Arbitrary<string> =>
  fc.tuple(fragmentArb, fc.integer({ min: minRepeat, max: maxRepeat }), fc.string({ unit: textUnit, maxLength: 6 })).map(
    ([fragment, times, tail]) => fragment.repeat(times) + tail,
  )

/** User text: short, medium, or long (more than 80 characters, so stubbable). */
const userTextArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: textArb(4), weight: 3 },
  { arbitrary: textArb(40, 8), weight: 3 },
  { arbitrary: fc.constantFrom('', '   ', '<system-reminder>hook note</system-reminder>'), weight: 1 },
)

/** Tool result text: empty, short, around the legacy 250-character budget, or huge. */
const toolTextArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom('', 'ok', '0'), weight: 1 },
  { arbitrary: textArb(10), weight: 3 },
  { arbitrary: textArb(60, 15), weight: 3 },
  { arbitrary: textArb(600, 150), weight: 2 },
)

// ---------------------------------------------------------------------------------------------
// Message skeletons (no ids yet) and sessions
// ---------------------------------------------------------------------------------------------

/** Tool names used in generated calls; configs name some of them (per-tool budget, exemption). */
export const TOOL_NAMES = ['bash', 'read_file', 'grep', 'load_skill', 'ls'] as const

type MetaChoice = 'none' | 'empty' | 'null' | 'timestamp' | 'null_timestamp' | 'bogus_seq' | 'extra'

const metaChoiceArb: fc.Arbitrary<MetaChoice> = fc.oneof(
  { arbitrary: fc.constant<MetaChoice>('none'), weight: 8 },
  { arbitrary: fc.constantFrom<MetaChoice>('empty', 'null', 'timestamp', 'null_timestamp', 'bogus_seq', 'extra'), weight: 3 },
)

interface CallSkeleton {
  readonly tool: (typeof TOOL_NAMES)[number]
  readonly style: 'openai' | 'anthropic'
  readonly args: string
  readonly result: string | ReadonlyArray<{ readonly type: 'text'; readonly text: string }>
  readonly resultName: 'none' | 'name' | 'metadata'
  readonly order: number
}

/** One step of a conversation before ids are assigned. */
export type SegmentSkeleton =
  | { readonly kind: 'system'; readonly content: string; readonly hook: boolean; readonly meta: MetaChoice }
  | { readonly kind: 'user'; readonly content: string; readonly blocks: boolean; readonly meta: MetaChoice }
  | { readonly kind: 'assistant'; readonly content: string; readonly meta: MetaChoice }
  | { readonly kind: 'tools'; readonly content: string; readonly calls: ReadonlyArray<CallSkeleton>; readonly meta: MetaChoice }

const callArb: fc.Arbitrary<CallSkeleton> = fc.record({
  tool: fc.constantFrom(...TOOL_NAMES),
  style: fc.constantFrom<'openai' | 'anthropic'>('openai', 'openai', 'openai', 'anthropic'),
  args: fc.oneof(fc.constant('{}'), textArb(3).map((text) => JSON.stringify({ path: text }))),
  result: fc.oneof(
    { arbitrary: toolTextArb, weight: 9 },
    { arbitrary: fc.array(textArb(20).map((text) => ({ type: 'text' as const, text })), { minLength: 1, maxLength: 2 }), weight: 1 },
  ),
  resultName: fc.constantFrom<'none' | 'name' | 'metadata'>('none', 'none', 'name', 'metadata'),
  order: fc.nat({ max: 1000 }),
})

const systemSegmentArb: fc.Arbitrary<SegmentSkeleton> = fc.record({
  kind: fc.constant('system' as const),
  content: textArb(30),
  hook: fc.boolean(),
  meta: fc.constant<MetaChoice>('none'),
})

const userSegmentArb: fc.Arbitrary<SegmentSkeleton> = fc.record({
  kind: fc.constant('user' as const),
  content: userTextArb,
  blocks: fc.constant(false),
  meta: metaChoiceArb,
})

const userSegmentWithBlocksArb: fc.Arbitrary<SegmentSkeleton> = fc.record({
  kind: fc.constant('user' as const),
  content: userTextArb,
  blocks: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
  meta: metaChoiceArb,
})

const assistantSegmentArb: fc.Arbitrary<SegmentSkeleton> = fc.record({
  kind: fc.constant('assistant' as const),
  content: fc.oneof(textArb(30), fc.constant('')),
  meta: metaChoiceArb,
})

const toolsSegmentArb = (maxCalls: number): fc.Arbitrary<SegmentSkeleton> =>
  fc.record({
    kind: fc.constant('tools' as const),
    content: fc.oneof(fc.constant(''), textArb(6)),
    calls: fc.array(callArb, { minLength: 1, maxLength: maxCalls }),
    meta: metaChoiceArb,
  })

/**
 * How a usage reading is shaped: without cache fields, with both, with the write field only,
 * with null cache fields, or malformed (ignored by the core, SPEC 17.6).
 */
export type UsageShape = 'none' | 'both' | 'write' | 'null_cache' | 'bad_input' | 'negative_input' | 'bad_cache' | 'no_usage'

/** An action taken between segments (never inside a tool group). */
export type Action =
  | { readonly kind: 'request'; readonly budgetFactor: number | null; readonly provider: boolean }
  | { readonly kind: 'usage'; readonly fraction: number; readonly cache: UsageShape }
  | { readonly kind: 'summary_result'; readonly answer: { readonly text: string } | { readonly error: string } }
  | { readonly kind: 'system_prompt'; readonly content: string }
  | { readonly kind: 'set_messages'; readonly keep: number }
  | { readonly kind: 'clear' }

/** What a generated session may contain (each test picks what its invariant allows). */
export interface SessionOptions {
  /** Maximum number of conversation segments (default FC_MAX_SEGMENTS, else 24). */
  readonly maxSegments?: number
  /** System messages between groups (static mode: kept; factory mode: hook ones kept). */
  readonly midSystems?: boolean
  /**
   * An interrupted turn at the very end (default on): a trailing assistant message whose calls
   * are all unanswered, or whose last calls are unanswered after the first results arrived.
   */
  readonly interrupted?: boolean
  /** Every request passes the base budget explicitly (a provider may be given; the budget wins). */
  readonly constantBudget?: boolean
  /** `set_system_prompt` ops: never, once at the start, or at the start and changing later. */
  readonly factory?: 'never' | 'start' | 'changing'
  /** `llm_response` usage ops. */
  readonly usage?: boolean
  /** `summary_result` ops: true answers often, undefined sometimes, false never. */
  readonly summaries?: boolean
  /** `set_messages` / `clear` ops. */
  readonly resets?: boolean
  /**
   * Requests (and usage readings, summary answers) made while a parallel call is only partly
   * answered, the remaining results arriving afterwards (default on; SPEC 17.8). Never resets:
   * a reset mid-group would make the later results orphans of the history itself.
   */
  readonly midGroup?: boolean
}

const requestArb = (constantBudget: boolean): fc.Arbitrary<Action> =>
  constantBudget
    ? fc.record({ kind: fc.constant('request' as const), budgetFactor: fc.constant(1), provider: fc.boolean() })
    : fc.record({
        kind: fc.constant('request' as const),
        budgetFactor: fc.oneof(
          { arbitrary: fc.constant(1), weight: 6 },
          { arbitrary: fc.constantFrom(0.5, 0.8, 1.25, 2, 4), weight: 3 },
          { arbitrary: fc.constant(null), weight: 1 },
        ),
        provider: fc.boolean(),
      })

const usageArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.constant('usage' as const),
  fraction: fc.oneof(
    fc.double({ min: 0, max: 1.6, noNaN: true }),
    fc.constantFrom(0, 0.5, 0.95, 1, 1.2),
  ),
  cache: fc.oneof(
    { arbitrary: fc.constantFrom<UsageShape>('none', 'both', 'write', 'null_cache'), weight: 8 },
    { arbitrary: fc.constantFrom<UsageShape>('bad_input', 'negative_input', 'bad_cache', 'no_usage'), weight: 1 },
  ),
})

/** Summary answers: a short text (passes the shrink guard), a long one (refused), blank (a failure), or an error. */
export const summaryAnswerArb: fc.Arbitrary<{ readonly text: string } | { readonly error: string }> = fc.oneof(
  { arbitrary: textArb(6).map((text) => ({ text })), weight: 6 },
  { arbitrary: textArb(300, 100).map((text) => ({ text })), weight: 1 },
  { arbitrary: fc.constantFrom('', '  \n ').map((text) => ({ text })), weight: 1 },
  { arbitrary: fc.constant({ error: 'summarizer timed out' }), weight: 1 },
)

const actionsArb = (options: SessionOptions): fc.Arbitrary<ReadonlyArray<Action>> => {
  const choices: Array<fc.WeightedArbitrary<Action>> = [{ arbitrary: requestArb(options.constantBudget === true), weight: 10 }]
  if (options.usage !== false) choices.push({ arbitrary: usageArb, weight: 4 })
  if (options.summaries !== false) {
    choices.push({ arbitrary: summaryAnswerArb.map((answer) => ({ kind: 'summary_result' as const, answer })), weight: options.summaries === true ? 6 : 2 })
  }
  if (options.factory === 'changing') choices.push({ arbitrary: textArb(40).map((content) => ({ kind: 'system_prompt' as const, content })), weight: 1 })
  if (options.resets === true) {
    choices.push({ arbitrary: fc.nat({ max: 30 }).map((keep) => ({ kind: 'set_messages' as const, keep })), weight: 1 })
    choices.push({ arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 })
  }
  return fc.array(fc.oneof(...choices), { maxLength: 3 })
}

/** A session before ids and budgets are assigned. */
export interface SessionSkeleton {
  readonly leading: ReadonlyArray<SegmentSkeleton>
  readonly factoryPrompt: string | null
  readonly body: ReadonlyArray<{
    readonly segment: SegmentSkeleton
    readonly actions: ReadonlyArray<Action>
    /** For a tool segment: actions taken after its first `answered` results, before the rest. */
    readonly midGroup: { readonly answered: number; readonly actions: ReadonlyArray<Action> } | null
  }>
  readonly interrupted: { readonly segment: SegmentSkeleton; readonly answered: number; readonly actions: ReadonlyArray<Action> } | null
  readonly finalRequests: ReadonlyArray<Action>
  readonly budgetRatio: number
}

const sessionSkeletonArb = (options: SessionOptions): fc.Arbitrary<SessionSkeleton> => {
  const maxSegments = options.maxSegments ?? Number(process.env.FC_MAX_SEGMENTS ?? 24)
  const segmentChoices: Array<fc.WeightedArbitrary<SegmentSkeleton>> = [
    { arbitrary: toolsSegmentArb(6), weight: 9 },
    { arbitrary: userSegmentWithBlocksArb, weight: 4 },
    { arbitrary: assistantSegmentArb, weight: 3 },
  ]
  if (options.midSystems !== false) segmentChoices.push({ arbitrary: systemSegmentArb, weight: 1 })
  const midGroup =
    options.midGroup === false
      ? fc.constant(null)
      : fc.option(fc.record({ answered: fc.nat({ max: 5 }), actions: actionsArb({ ...options, resets: false }) }), { nil: null, freq: 3 })
  const step = fc.record({ segment: fc.oneof(...segmentChoices), actions: actionsArb(options), midGroup })
  const first = fc.record({ segment: userSegmentArb, actions: actionsArb(options), midGroup: fc.constant(null) })
  return fc.record({
    leading: fc.array(systemSegmentArb, { maxLength: 2 }),
    factoryPrompt: options.factory === undefined || options.factory === 'never' ? fc.constant(null) : fc.option(textArb(40), { nil: null }),
    body: fc.tuple(first, fc.array(step, { maxLength: maxSegments - 1 })).map(([head, rest]) => [head, ...rest]),
    interrupted:
      options.interrupted === false
        ? fc.constant(null)
        : fc.option(
            fc.record({
              segment: toolsSegmentArb(4),
              answered: fc.oneof(fc.constant(0), fc.nat({ max: 3 })),
              actions: actionsArb(options),
            }),
            { nil: null, freq: 4 },
          ),
    finalRequests: fc.array(requestArb(options.constantBudget === true), { minLength: 1, maxLength: 3 }),
    budgetRatio: fc.oneof(fc.double({ min: 0.15, max: 1.6, noNaN: true }), fc.constantFrom(0.3, 0.5, 0.8, 1, 3)),
  })
}

// ---------------------------------------------------------------------------------------------
// Materializing a skeleton: ids, messages, ops
// ---------------------------------------------------------------------------------------------

const FIXED_TIMESTAMP = '2025-12-31T23:59:59.999+00:00'

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const withMeta = (message: Record<string, unknown>, meta: MetaChoice, extra: Record<string, unknown> = {}): Message => {
  switch (meta) {
    case 'none':
      return Object.keys(extra).length > 0 ? { ...message, metadata: extra } : message
    case 'empty':
      return { ...message, metadata: { ...extra } }
    case 'null':
      return Object.keys(extra).length > 0 ? { ...message, metadata: extra } : { ...message, metadata: null }
    case 'timestamp':
      return { ...message, metadata: { timestamp: FIXED_TIMESTAMP, ...extra } }
    case 'null_timestamp':
      return { ...message, metadata: { ...extra, timestamp: null } }
    case 'bogus_seq':
      return { ...message, metadata: { _seq: 999, note: 'é😀', ...extra } }
    case 'extra':
      return { ...message, metadata: { trace: 'x', ...extra } }
  }
}

interface Counters {
  uid: number
  call: number
}

/**
 * Messages of one segment with fresh unique ids (`uid` field, call ids). A tool segment gets the
 * results of its first `answered` calls (in result order); all of them by default.
 */
const materializeSegment = (segment: SegmentSkeleton, counters: Counters, answered = Number.POSITIVE_INFINITY): Message[] => {
  const uid = (): string => `m${counters.uid++}`
  switch (segment.kind) {
    case 'system':
      return [withMeta({ role: 'system', content: segment.content, uid: uid() }, segment.meta, segment.hook ? { source: 'hook' } : {})]
    case 'user':
      return [
        withMeta(
          { role: 'user', content: segment.blocks ? [{ type: 'text', text: segment.content }, { type: 'image', source: 'data:x' }] : segment.content, uid: uid() },
          segment.meta,
        ),
      ]
    case 'assistant':
      return [withMeta({ role: 'assistant', content: segment.content, uid: uid() }, segment.meta)]
    case 'tools': {
      const ids = segment.calls.map((call) => `${call.style === 'openai' ? 'call_' : 'toolu_'}${counters.call++}`)
      const calls = segment.calls.map((call, index) =>
        call.style === 'openai'
          ? { id: ids[index], type: 'function', function: { name: call.tool, arguments: call.args } }
          : { id: ids[index], name: call.tool, input: { path: call.args } },
      )
      const assistant = withMeta({ role: 'assistant', content: segment.content, tool_calls: calls, uid: uid() }, segment.meta)
      const results = segment.calls
        .map((call, index) => ({ call, index }))
        .sort((a, b) => a.call.order - b.call.order || a.index - b.index)
        .map(({ call, index }) => {
          const base: Record<string, unknown> = { role: 'tool', tool_call_id: ids[index], content: call.result, uid: uid() }
          if (call.resultName === 'name') base.name = call.tool
          return call.resultName === 'metadata' ? { ...base, metadata: { tool_name: call.tool } } : (base as Message)
        })
        .slice(0, answered)
      return [assistant, ...results]
    }
  }
}

/** A generated session: raw and decoded configuration, the base budget, and the ops in order. */
export interface Scenario {
  readonly rawConfig: Readonly<Record<string, unknown>>
  readonly config: Config
  readonly baseBudget: number
  readonly ops: ReadonlyArray<RecordingOp>
}

/** The recording of a scenario (docs/recording-format.md shape) on the default replay clock. */
export const toRecording = (scenario: Scenario): Recording => ({ config: scenario.rawConfig, now: DEFAULT_REPLAY_NOW, ops: scenario.ops })

const actionToOps = (action: Action, baseBudget: number, added: Message[], counters: Counters): RecordingOp[] => {
  switch (action.kind) {
    case 'request': {
      const provider = action.provider ? { context_window: baseBudget + 4096 + 1000, max_output_tokens: 2000 } : null
      if (action.budgetFactor === null) return [{ op: 'get_messages_for_request', token_budget: null, provider }]
      return [{ op: 'get_messages_for_request', token_budget: Math.max(1, Math.trunc(baseBudget * action.budgetFactor)), provider }]
    }
    case 'usage': {
      const input = Math.trunc(baseBudget * action.fraction)
      const usage: Record<string, unknown> = { input_tokens: input, output_tokens: 50 }
      if (action.cache === 'both') {
        usage.cache_read_tokens = Math.trunc(input / 2)
        usage.cache_write_tokens = Math.trunc(input / 10)
      } else if (action.cache === 'write') {
        usage.cache_write_tokens = Math.trunc(input / 10)
      } else if (action.cache === 'null_cache') {
        usage.cache_read_tokens = null
        usage.cache_write_tokens = null
      } else if (action.cache === 'bad_input') {
        return [{ op: 'llm_response', usage: { input_tokens: 'lots', output_tokens: 5 } }]
      } else if (action.cache === 'negative_input') {
        return [{ op: 'llm_response', usage: { input_tokens: -input - 1, output_tokens: 5 } }]
      } else if (action.cache === 'bad_cache') {
        return [{ op: 'llm_response', usage: { input_tokens: input, cache_write_tokens: 'abc' } }]
      } else if (action.cache === 'no_usage') {
        return [{ op: 'llm_response', usage: null }]
      }
      return [{ op: 'llm_response', usage }]
    }
    case 'summary_result':
      return [{ op: 'summary_result', ...action.answer }]
    case 'system_prompt':
      return [{ op: 'set_system_prompt', content: action.content }]
    case 'set_messages': {
      // Session resume from a prefix of what was added (fresh uids so every message stays unique).
      const kept = validPrefix(added.slice(0, Math.min(action.keep, added.length)))
      const messages = kept.map((message) => deepFreeze({ ...message, uid: `m${counters.uid++}` }))
      return [{ op: 'set_messages', messages }]
    }
    case 'clear':
      return [{ op: 'clear' }]
  }
}

/** The longest prefix of `messages` that does not end inside a tool group. */
const validPrefix = (messages: Messages): Messages => {
  let end = messages.length
  while (end > 0) {
    const last = messages[end - 1]
    if (last.role === 'tool' || isTruthy(last.tool_calls)) {
      // Cut back to just before the tool group this message belongs to, unless the group is complete.
      let start = end - 1
      while (start > 0 && messages[start].role === 'tool') start -= 1
      const assistant = messages[start]
      const ids = Array.isArray(assistant.tool_calls) ? assistant.tool_calls.map((call) => (call as { id: string }).id) : []
      const answered = messages.slice(start + 1, end).map((message) => message.tool_call_id)
      if (ids.length > 0 && ids.every((id) => answered.includes(id))) return messages.slice(0, end)
      end = start
      continue
    }
    return messages.slice(0, end)
  }
  return []
}

const materialize = (skeleton: SessionSkeleton, rawConfig: Record<string, unknown>): Scenario => {
  const counters: Counters = { uid: 0, call: 0 }
  const segments: Array<{ messages: Message[]; actions: ReadonlyArray<Action> }> = []
  for (const segment of skeleton.leading) segments.push({ messages: materializeSegment(segment, counters), actions: [] })
  for (const { segment, actions, midGroup } of skeleton.body) {
    const messages = materializeSegment(segment, counters)
    if (midGroup !== null && segment.kind === 'tools' && segment.calls.length > 1) {
      // The assistant and some of its results, the actions, then the remaining results.
      const split = 1 + (midGroup.answered % segment.calls.length)
      segments.push({ messages: messages.slice(0, split), actions: midGroup.actions })
      segments.push({ messages: messages.slice(split), actions })
    } else {
      segments.push({ messages, actions })
    }
  }
  if (skeleton.interrupted !== null) {
    const { segment, answered, actions } = skeleton.interrupted
    const calls = segment.kind === 'tools' ? segment.calls.length : 1
    segments.push({ messages: materializeSegment(segment, counters, answered % calls), actions })
  }
  let total = 0
  for (const { messages } of segments) for (const message of messages) total += estimateOne(message)
  const baseBudget = Math.max(60, Math.trunc(total * skeleton.budgetRatio))
  const config = { ...rawConfig, max_tokens: baseBudget }
  const ops: RecordingOp[] = []
  const added: Message[] = []
  if (skeleton.factoryPrompt !== null) ops.push({ op: 'set_system_prompt', content: skeleton.factoryPrompt })
  for (const { messages, actions } of segments) {
    for (const message of messages) {
      deepFreeze(message)
      added.push(message)
      ops.push({ op: 'add_message', message })
    }
    for (const action of actions) ops.push(...actionToOps(action, baseBudget, added, counters))
  }
  for (const action of skeleton.finalRequests) ops.push(...actionToOps(action, baseBudget, added, counters))
  const decoded = decodeConfig(config)
  if (E.isLeft(decoded)) throw new Error(`generated an invalid config: ${decoded.left.message}`)
  return { rawConfig: config, config: decoded.right.config, baseBudget, ops }
}

// ---------------------------------------------------------------------------------------------
// Configurations
// ---------------------------------------------------------------------------------------------

/** Which configuration knobs a test lets vary. */
export interface ConfigOptions {
  readonly meters?: ReadonlyArray<TokenMeterMode>
  readonly strategies?: ReadonlyArray<CompactionStrategy>
  /** `compact_clear_at_least` (worth-the-rebuild predicate): may be set (default), never, or always. */
  readonly predicate?: boolean | 'always'
  /**
   * Bias towards compaction reaching the tool-result waves: low thresholds, few protected
   * results, and half the time `protected_recent ≥ 1` (nothing removable, so the ladder can only
   * truncate).
   */
  readonly pressure?: boolean
  /** Force a spill directory. */
  readonly spill?: boolean
  /** Force `replay_last_user_on_compaction` on. */
  readonly replay?: boolean
}

/** `compact_clear_at_least`: null, a fraction of the budget, absolute tokens, or a string (numeric or not). */
const clearAtLeastArb = (predicate: boolean | 'always'): fc.Arbitrary<unknown> => {
  if (predicate === false) return fc.constant(null)
  const floors: Array<fc.WeightedArbitrary<unknown>> = [
    { arbitrary: fc.constantFrom(0.05, 0.2, 0.5, 0.9), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 3000 }), weight: 2 },
    { arbitrary: fc.constantFrom('400', ' 1e3 ', 'nonsense', 'inf'), weight: 1 },
  ]
  if (predicate === true) floors.push({ arbitrary: fc.constant(null), weight: 2 })
  return fc.oneof(...floors)
}

/**
 * Typical values most of the time, and now and then an edge value the contract accepts for that
 * key (SPEC 3, 17.6: every finite number of the right JSON type is accepted, out-of-range ones
 * included, and has the effect the arithmetic gives).
 */
const withEdges = <T>(typical: fc.Arbitrary<T>, edges: ReadonlyArray<T>, weight = 1): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: typical, weight: 6 }, { arbitrary: fc.constantFrom(...edges), weight })

/** Finite edge values of a fraction key: zero, negatives, one, above one, tiny and huge (no -0: configurations are JSON, where it reads as 0). */
const FRACTION_EDGES = [0, -0.2, -1, -5, 1, 1.5, 2, 1e-9, 1e9, -1e9] as const

/**
 * A raw configuration object (contract keys, decoded by `decodeConfig` when the scenario is
 * built). Every key draws from every kind of value the contract accepts for it (SPEC 3, 17.6,
 * 17.9): finite numbers in and out of range (`protected_recent` <= 0 and >= 1 included), null
 * flags, unknown enum values and malformed warn-and-fall-back values (which fall back with a
 * warning), numeric strings and booleans for `compact_max_consecutive_skips`. Non-finite numbers
 * are a `ConfigError` (SPEC 17.9) and are checked by their own tests instead.
 */
export const rawConfigArb = (options: ConfigOptions = {}): fc.Arbitrary<Record<string, unknown>> => {
  const meters = options.meters ?? ['estimate', 'actual', 'hybrid', 'calibrated']
  const strategies = options.strategies ?? ['progressive', 'summary']
  return fc
    .record({
      protected_recent: withEdges(
        fc.oneof(
          fc.constantFrom(0.3, 0, 0.1, 0.5, 0.9, 1.2, -0.2),
          fc.double({ min: 0, max: 1, noNaN: true }),
          ...(options.pressure === true ? [fc.constantFrom(1, 1.2)] : []),
        ),
        [...FRACTION_EDGES, -0.5, -0.01],
        2,
      ),
      protected_tool_results: withEdges(
        options.pressure === true ? fc.integer({ min: -1, max: 2 }) : fc.integer({ min: -1, max: 8 }),
        [-100, 0, 1.5, 1e9],
      ),
      target_usage: withEdges(fc.oneof(fc.constantFrom(0.5, 0.3, 0.7), fc.double({ min: 0.1, max: 0.95, noNaN: true })), FRACTION_EDGES),
      compact_threshold: withEdges(
        options.pressure === true
          ? fc.double({ min: 0.2, max: 0.7, noNaN: true })
          : fc.oneof(fc.constantFrom(0.92, 0.5, 0.8, 1), fc.double({ min: 0.2, max: 1.1, noNaN: true })),
        FRACTION_EDGES,
      ),
      truncate_chars: withEdges(fc.oneof(fc.constantFrom(250, 50, 0, 1000, -10), fc.integer({ min: 1, max: 400 })), [0.5, -1e9, 1e9, 12.7]),
      compaction_notice_enabled: fc.oneof(fc.boolean(), fc.constant(null)),
      compaction_notice_verbosity: fc.constantFrom('normal', 'minimal', 'verbose', '', 'LOUD'),
      compaction_notice_token_reserve: withEdges(fc.constantFrom(800, 0, 50, 200), [-800, 0.5, 1e9, -1e9]),
      compaction_notice_min_level: withEdges(fc.constantFrom(1, 0, 2, 4), [-3, 8, 9, 2.5, 100]),
      output_reserve_fraction: withEdges(fc.constant(0.5), [...FRACTION_EDGES, 0.25], 2),
      token_meter: withEdges(fc.constantFrom(...meters), ['bogus', 7, null, 'ESTIMATE'] as unknown as TokenMeterMode[]),
      compaction_strategy: withEdges(fc.constantFrom(...strategies), ['rolling', null] as unknown as CompactionStrategy[]),
      summary_trigger: withEdges(fc.constantFrom(0.6, 0.3, 0.8), [...FRACTION_EDGES]),
      summarization_timeout_s: withEdges(fc.constant(30), [0, -1, 0.001, 1e9]),
      tool_result_budget_tokens: withEdges(fc.option(fc.integer({ min: 1, max: 150 }), { nil: null, freq: 2 }), [0, -5, 2.5, 'many', true] as unknown as Array<number | null>),
      tool_result_shape: withEdges(fc.constantFrom('head', 'head_tail'), ['tail', 3, null] as unknown as string[]),
      tool_result_budget_by_tool: fc.oneof(
        fc.constant({}),
        fc.constant({ grep: 20 }),
        fc.constant({ bash: 5, read_file: 60 }),
        fc.constant({ bash: 0, grep: -1, ls: 'x', '': 5 }),
        fc.constant(null),
        fc.constant('bash'),
      ),
      tool_result_exempt_tools: fc.oneof(fc.constant([]), fc.constant(['load_skill']), fc.constant(['ls', 'grep']), fc.constant(null), fc.constant(['', 'bash', 'bash'])),
      tool_result_spill_dir: options.spill === true ? fc.constantFrom('/tmp/spill', 'spill//dir/', '.') : fc.constantFrom(null, null, '/tmp/spill', 'spill//dir/', ''),
      replay_last_user_on_compaction: options.replay === true ? fc.constant(true) : fc.oneof(fc.boolean(), fc.constant(null)),
      remove_short_user_messages: fc.oneof(fc.constant(false), fc.boolean(), fc.constant(null)),
      hybrid_rejected_anchor_override: fc.oneof(fc.constant(false), fc.boolean(), fc.constant(null)),
      compact_clear_at_least: clearAtLeastArb(options.predicate ?? true),
      compact_max_consecutive_skips: withEdges(fc.integer({ min: 1, max: 6 }), [0, -3, 2.7, ' 4 ', '1_0', true, false] as unknown as number[]),
    })
    .map((config) => config as Record<string, unknown>)
}

/**
 * The optional keys added after the arbitraries above were written (docs/configuration.md: guards, anchors,
 * notice repetition, summary hysteresis), each present or absent, to merge into a raw config.
 */
export const laterKeysArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    compaction_floor_guard: fc.boolean(),
    compaction_breaker_passes: fc.constantFrom(null, 1, 2, 3),
    strict_fit: fc.boolean(),
    human_anchors: fc.boolean(),
    compaction_notice_repeat: fc.constantFrom('full', 'standing', 'none'),
    summary_hysteresis: fc.boolean(),
    summary_cooldown_requests: fc.constantFrom(null, 1, 3),
    summary_min_span_tokens: fc.constantFrom(null, 50),
    summary_target_usage: fc.constantFrom(null, 0.3),
    // the retention keys (src/core/compaction/retention.ts)
    target_basis: fc.constantFrom('budget', 'compactable'),
    tool_result_truncation: fc.constantFrom('head', 'stub', 'mask'),
    protected_recent_tokens: fc.constantFrom(null, 1, 40, 400),
    compaction_order: fc.constantFrom('oldest', 'least_referenced', 'least_referenced_per_token'),
    // the working set (src/core/compaction/working-set.ts)
    working_set_window: fc.constantFrom(null, 1, 2, 4),
    working_set_capacity: fc.constantFrom(0, 0.1, 0.5),
    working_set_payback: fc.constantFrom(0.5, 1, 10),
    // JSON tool results by named fields or handles (src/core/tool-results/json-projection.ts, json-handles.ts)
    tool_result_json_projection: fc.constantFrom('off', 'named_keys', 'handles', 'handle_values'),
    // eager tail projection (src/core/compaction/eager-projection.ts)
    tool_result_json_eager_after: fc.constantFrom(null, 1, 2),
    tool_result_json_eager_unit: fc.constantFrom('answers', 'turns'),
    tool_result_json_projected_groups: fc.constantFrom('kept', 'removable', 'early'),
    // the early pass (src/core/compaction/early-pass.ts)
    compact_early_threshold: fc.constantFrom(null, 0.3, 0.6),
    compact_early_target: fc.constantFrom(0, 0.15, 0.45),
    compact_early_record_share: fc.constantFrom(0, 0.3, 1),
    // refill to the target (src/core/compaction/refill.ts)
    compaction_refill: fc.constantFrom('none', 'pass', 'history'),
    compaction_refill_head: fc.constantFrom('skeleton', 'fit'),
  },
  { requiredKeys: [] },
)

/** A scenario: a configuration and a valid session shaped by `session`. */
export const scenarioArb = (configOptions: ConfigOptions = {}, session: SessionOptions = {}): fc.Arbitrary<Scenario> =>
  fc.tuple(rawConfigArb(configOptions), sessionSkeletonArb(session)).map(([raw, skeleton]) => materialize(skeleton, raw))

// ---------------------------------------------------------------------------------------------
// Folding a scenario by hand through the pure reducer
// ---------------------------------------------------------------------------------------------

/** One applied op: the state before and after, and for requests the view, events and stats. */
export interface OpRecord {
  readonly index: number
  readonly op: RecordingOp
  readonly before: State
  readonly after: State
  /** The system prompt (factory result) in force for this op, null in static mode. */
  readonly systemPrompt: string | null
}

/** One `get_messages_for_request`, as folded by hand. */
export interface RequestRecord extends OpRecord {
  readonly view: Messages | null
  readonly error: string | null
  /** Effects of the request event itself, in order. */
  readonly effects: ReadonlyArray<Effect>
  /** Hook events as replay reports them: those carried from earlier ops, then this request's. */
  readonly events: ReadonlyArray<ReplayEvent>
  readonly meterStats: TokenMeterStats | null
  readonly compactionStats: CompactionStats | null
}

/** The whole fold: every op record (requests carry `view`), the request records, the final state. */
export interface FoldResult {
  readonly ops: ReadonlyArray<OpRecord | RequestRecord>
  readonly requests: ReadonlyArray<RequestRecord>
  readonly final: State
}

/** How the hand fold answers effects: spill writes succeed, fail, or alternate. */
export interface FoldOptions {
  readonly spills?: 'written' | 'failed' | 'alternate'
}

/**
 * Fold `scenario` through `makeStep` by hand, the way the shell would: each op becomes core
 * events; `write_spill` effects are answered (written by default); `summary_result` ops answer
 * the in-flight summary request with `summary_call_started` then `summary_completed` /
 * `summary_failed`; hook events of non-request ops are carried to the next request.
 */
export const foldScenario = (scenario: Scenario, options: FoldOptions = {}): FoldResult => {
  const step = makeStep({ config: scenario.config, estimate: makeCachedEstimator() })
  let state = makeInitialState()
  let systemPrompt: string | null = null
  let carried: ReplayEvent[] = []
  let spillCount = 0
  const records: Array<OpRecord | RequestRecord> = []
  const requests: RequestRecord[] = []

  const apply = (event: Event): { view: Messages | undefined; effects: ReadonlyArray<Effect>; error: string | null } => {
    const result = step(state, event)
    state = result.state
    let error: string | null = null
    const answers: Event[] = []
    for (const effect of result.effects) {
      if (effect.type === 'emit_hook') carried.push({ name: effect.name, data: effect.data })
      else if (effect.type === 'raise_error') error = effect.message
      else if (effect.type === 'write_spill') {
        const fail = options.spills === 'failed' || (options.spills === 'alternate' && spillCount++ % 2 === 1)
        answers.push(fail ? { type: 'spill_failed', path: effect.path, error: 'disk full' } : { type: 'spill_written', path: effect.path })
      }
    }
    for (const answer of answers) apply(answer)
    return { view: result.view, effects: result.effects, error }
  }

  scenario.ops.forEach((op, index) => {
    const before = state
    switch (op.op) {
      case 'add_message':
        apply({ type: 'message_added', message: op.message, timestamp: DEFAULT_REPLAY_NOW })
        break
      case 'llm_response':
        apply({ type: 'usage_observed', data: { usage: op.usage } })
        break
      case 'set_messages':
        apply({ type: 'messages_replaced', messages: op.messages })
        break
      case 'clear':
        apply({ type: 'history_cleared' })
        break
      case 'set_system_prompt':
        systemPrompt = op.content
        break
      case 'summary_result': {
        const id = state.summary.inFlight
        if (id === null) break
        apply({ type: 'summary_call_started', id })
        apply(op.error !== undefined ? { type: 'summary_failed', id, error: op.error } : { type: 'summary_completed', id, text: op.text ?? '' })
        break
      }
      case 'get_messages_for_request': {
        const provider = op.provider ?? null
        const outcome = apply({
          type: 'request_received',
          tokenBudget: op.token_budget ?? null,
          provider,
          providerGiven: provider !== null,
          systemPrompt,
          now: DEFAULT_REPLAY_NOW,
        })
        const record: RequestRecord = {
          index,
          op,
          before,
          after: state,
          systemPrompt,
          view: outcome.error !== null || outcome.view === undefined ? null : outcome.view,
          error: outcome.error,
          effects: outcome.effects,
          events: carried,
          meterStats: state.meter.stats,
          compactionStats: state.compaction.stats,
        }
        carried = []
        records.push(record)
        requests.push(record)
        return
      }
    }
    records.push({ index, op, before, after: state, systemPrompt })
  })
  return { ops: records, requests, final: state }
}

// ---------------------------------------------------------------------------------------------
// Independent models used by the invariants
// ---------------------------------------------------------------------------------------------

/** The `_seq` of a stored message (undefined for view-only messages). */
export const seqOfStored = (message: Message): number | undefined =>
  isPlainObject(message.metadata) && typeof message.metadata._seq === 'number' ? message.metadata._seq : undefined

/** A message as a view carries it: `metadata` without `_seq` (SPEC 1.6). */
export const stripSeq = (message: Message): Message => {
  if (!isPlainObject(message.metadata) || !Object.prototype.hasOwnProperty.call(message.metadata, '_seq')) return message
  const { _seq: _dropped, ...rest } = message.metadata
  return { ...message, metadata: rest }
}

/** True for a view-only tail item (the notice or the replay). */
export const isEphemeral = (message: Message): boolean => isPlainObject(message.metadata) && isTruthy(message.metadata.ephemeral)

/** The view without its trailing ephemeral items. */
export const withoutEphemeralTail = (view: Messages): Messages => {
  let end = view.length
  while (end > 0 && isEphemeral(view[end - 1])) end -= 1
  return view.slice(0, end)
}

/** The working list W of SPEC 2.3 step 4, written independently of the core. */
export const modelWorkingList = (history: Messages, systemPrompt: string | null): Messages => {
  if (systemPrompt === null) return history
  return [
    { role: 'system', content: systemPrompt },
    ...history.filter((message) => message.role !== 'system' || (isPlainObject(message.metadata) && message.metadata.source === 'hook')),
  ]
}

/**
 * What sticky decisions alone make of the history (SPEC 7, 17.1), stripped: system messages
 * first, then the non-system messages with removed ones dropped, truncated ones re-truncated and
 * stubbed ones re-stubbed.
 */
export const modelStickyView = (config: Config, state: State, sticky: StickyState, systemPrompt: string | null): Messages => {
  const working = modelWorkingList(state.history, systemPrompt)
  const system = working.filter((message) => message.role === 'system')
  const rest: Message[] = []
  for (const message of working) {
    if (message.role === 'system') continue
    const seq = seqOfStored(message)
    if (seq !== undefined && sticky.removed.has(seq)) continue
    if (seq !== undefined && sticky.truncated.has(seq)) rest.push(truncateToolResult(message, config, state.toolNames).message)
    else if (seq !== undefined && sticky.stubbed.has(seq)) rest.push(toStub(message))
    else rest.push(message)
  }
  return [...system, ...rest].map(stripSeq)
}

/** The hook events of a request's own effects, by name. */
export const hookNames = (effects: ReadonlyArray<Effect>): ReadonlyArray<string> =>
  effects.flatMap((effect) => (effect.type === 'emit_hook' ? [effect.name] : []))

/** A short description of a scenario's configuration for assertion messages. */
export const describeConfig = (scenario: Scenario): string => JSON.stringify(scenario.rawConfig)

/** A scenario from a fixed configuration and ops (for regression tests of kept counterexamples). */
export const makeScenario = (rawConfig: Readonly<Record<string, unknown>>, ops: ReadonlyArray<RecordingOp>): Scenario => {
  const decoded = decodeConfig(rawConfig)
  if (E.isLeft(decoded)) throw new Error(`invalid config: ${decoded.left.message}`)
  const budget = decoded.right.config.max_tokens
  return { rawConfig, config: decoded.right.config, baseBudget: budget, ops }
}
