// Model-based test of the shell's summary flow (SPEC 12, 17.4, 17.6): a real ContextManager with
// `compaction_strategy: 'summary'` and small budgets, the real default runner and provider
// summarizer, and a fake provider whose answers (and the summarizer's timeouts) are released by
// fast-check's scheduler in random order. The model is the list of messages the caller added or
// set, plus an epoch counter bumped by clear/setMessages; the system must keep that list (plus
// appended summaries of the current epoch), never split a tool group, and never run two
// summarizations at once. FC_NUM_RUNS sets the number of runs; FC_SEED, FC_PATH and FC_REPLAY_PATH
// (all three printed on failure) replay a counterexample; FC_VERBOSE=1 prints path coverage.
//
// "In flight" (check e) means a summarization started and neither settled nor cancelled. A
// provider call abandoned by a timeout or a cancellation keeps running at the provider (the
// Provider interface has no abort signal), so the raw number of pending provider calls can exceed
// one; it is reported in the coverage line, not asserted.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Effect } from '../src/core/effects.js'
import type { Message, Messages } from '../src/core/messages/message.js'
import type { State } from '../src/core/state.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import { isPlainObject, isTruthy } from '../src/core/messages/values.js'
import { fixedClock } from '../src/shell/clock.js'
import { CompactionSkipLimitError, ContextManager } from '../src/shell/context-manager.js'
import type { CompletionRequest, CompletionResponse, Provider } from '../src/shell/provider.js'
import { makeDefaultRunner, type DefaultRunner } from '../src/shell/runner.js'
import { silentLogger } from '../src/shell/logger.js'
import { makeMemorySpillWriter } from '../src/shell/spill-fs.js'
import { makeProviderSummarizer, type Summarizer, type Timer } from '../src/shell/summarizer.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 50)
const NOW = '2026-02-06T10:00:00.123+00:00'
const SUMMARY_PREFIX = '<system-reminder source="context-summary">\n'
const SUMMARY_SUFFIX = '\n</system-reminder>'

// ---------------------------------------------------------------------------------------------
// Generated inputs
// ---------------------------------------------------------------------------------------------

const WORDS = ['fix', 'the', 'parser', 'src/app.ts', 'error:', 'TypeError', 'é', '日本', '😀', 'ok', 'tests', 'pass', '42', 'refactor', '\n']

/** Free text of 1..`max` words (cheap to generate, mixes non-ASCII and astral characters). */
const wordsArb = (max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: max }).map((words) => words.join(' '))

/** A tool result: short, medium, or huge (a fragment repeated). */
const resultArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: wordsArb(8), weight: 2 },
  { arbitrary: wordsArb(60), weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom('x', 'line\n', 'ab😀 '), fc.integer({ min: 100, max: 700 })).map(([unit, n]) => unit.repeat(n)), weight: 1 },
)

/** One parallel tool call of a turn, before ids are assigned. */
interface CallSpec {
  readonly tool: string
  readonly path: string
  readonly result: string
  readonly order: number
}

/** One turn: a user message, an assistant with 1-4 parallel calls, their results (in any order). */
interface TurnSpec {
  readonly user: string
  readonly narration: string
  readonly calls: ReadonlyArray<CallSpec>
}

const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  user: fc.oneof(wordsArb(6), wordsArb(50)),
  narration: fc.oneof(fc.constant(''), wordsArb(10)),
  calls: fc.array(
    fc.record({ tool: fc.constantFrom('bash', 'read_file', 'grep'), path: wordsArb(2), result: resultArb, order: fc.nat({ max: 9 }) }),
    { minLength: 1, maxLength: 4 },
  ),
})

/** How the fake provider answers its n-th call (cycled). */
type AnswerKind = 'short' | 'long' | 'blank' | 'error'

/** Answers of the fake provider (cycled) and, per summarizer call, whether its timeout may fire. */
interface Plans {
  readonly answers: ReadonlyArray<AnswerKind>
  readonly timeouts: ReadonlyArray<boolean>
}

const plansArb: fc.Arbitrary<Plans> = fc.record({
  answers: fc.array(
    fc.oneof(
      { arbitrary: fc.constant<AnswerKind>('short'), weight: 6 },
      { arbitrary: fc.constantFrom<AnswerKind>('long', 'blank', 'error'), weight: 3 },
    ),
    { minLength: 1, maxLength: 12 },
  ),
  timeouts: fc.array(fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }), { minLength: 1, maxLength: 8 }),
})

/** Summary-strategy configurations with small budgets and small reserves, so summaries trigger. */
const configArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  compaction_strategy: fc.constant('summary'),
  token_meter: fc.constant('estimate'),
  max_tokens: fc.constantFrom(1200, 2500),
  compact_threshold: fc.constantFrom(0.5, 0.6, 0.8),
  target_usage: fc.constantFrom(0.3, 0.5),
  summary_trigger: fc.constantFrom(0.25, 0.4, 0.5),
  protected_recent: fc.constantFrom(0, 0.2, 0.3, 0.5),
  protected_tool_results: fc.constantFrom(0, 1, 3, 5),
  truncate_chars: fc.constantFrom(40, 250),
  compaction_notice_enabled: fc.boolean(),
  compaction_notice_token_reserve: fc.constantFrom(0, 60),
  replay_last_user_on_compaction: fc.boolean(),
  compact_clear_at_least: fc.constantFrom(null, null, 0.1, 200),
  compact_max_consecutive_skips: fc.constantFrom(2, 50),
})

// ---------------------------------------------------------------------------------------------
// The real system: manager, default runner, provider summarizer, fake provider, observations
// ---------------------------------------------------------------------------------------------

/** The observations the harness makes of the summarizer side. */
interface Harness {
  /** Mirror of the model's epoch, read when a summary request is issued. */
  epoch: number
  /** Epoch in which each summary request id was issued (from `request_summary` effects). */
  readonly issued: Map<string, number>
  /** Ids the core cancelled (`cancel_summary` effects). */
  readonly cancelled: Set<string>
  /** Summarizations started and neither settled nor cancelled (aborted). */
  readonly live: Set<string>
  /** How each summarization ended, and the text of the successful ones. */
  readonly outcome: Map<string, 'ok' | 'failed' | 'aborted'>
  readonly texts: Map<string, string>
  /** Violations seen in callbacks (where throwing would be swallowed by the shell). */
  readonly violations: string[]
  /** Statistics for the report. */
  stats: { providerCalls: number; maxLive: number; pendingProviderCalls: number; maxPendingProviderCalls: number }
}

/** The system under test and its fakes. */
interface Real {
  readonly manager: ContextManager
  readonly provider: Provider
  readonly scheduler: fc.Scheduler
  readonly harness: Harness
}

const makeReal = (scheduler: fc.Scheduler, config: Record<string, unknown>, plans: Plans): Real => {
  const harness: Harness = {
    epoch: 0,
    issued: new Map(),
    cancelled: new Set(),
    live: new Set(),
    outcome: new Map(),
    texts: new Map(),
    violations: [],
    stats: { providerCalls: 0, maxLive: 0, pendingProviderCalls: 0, maxPendingProviderCalls: 0 },
  }
  // The provider handed to requests: the summarizer must use exactly this object. Its own
  // complete() is never called directly: the wrapping summarizer tags each call with its id.
  const provider: Provider = { name: 'fake-provider' }

  // The summarizer's timeout: fires when the scheduler releases it (only for planned calls).
  let timerCalls = 0
  const timer: Timer = (_ms, signal) =>
    new Promise<void>((resolve, reject) => {
      const n = timerCalls++
      signal.addEventListener('abort', () => reject(new Error('timer cancelled')), { once: true })
      if (plans.timeouts[n % plans.timeouts.length]) void scheduler.schedule(Promise.resolve(), `timeout#${n}`).then(() => resolve())
    })

  const noteLive = (where: string): void => {
    harness.stats.maxLive = Math.max(harness.stats.maxLive, harness.live.size)
    if (harness.live.size > 1) harness.violations.push(`(e) ${harness.live.size} summarizations in flight at ${where}: ${[...harness.live].join(', ')}`)
  }

  const completeFor =
    (id: string) =>
    async (request: CompletionRequest): Promise<CompletionResponse> => {
      const n = harness.stats.providerCalls++
      noteLive(`provider call #${n} for ${id}`)
      if (request.messages.length !== 2 || request.messages[0].role !== 'system' || request.messages[1].role !== 'user') {
        harness.violations.push(`summary request ${id} has an unexpected shape`)
      }
      harness.stats.pendingProviderCalls += 1
      harness.stats.maxPendingProviderCalls = Math.max(harness.stats.maxPendingProviderCalls, harness.stats.pendingProviderCalls)
      try {
        const kind = await scheduler.schedule(Promise.resolve(plans.answers[n % plans.answers.length]), `answer#${n} for ${id}`)
        switch (kind) {
          case 'short':
            return { content: [{ type: 'text', text: `S<${id}> ## Current Task State\n` }, { type: 'text', text: `call ${n} done` }] }
          case 'long':
            return { content: [{ type: 'text', text: `S<${id}> ` + 'a very long summary '.repeat(400) }] }
          case 'blank':
            return { content: [{ type: 'text', text: ' \n ' }, { type: 'thinking' }] }
          case 'error':
            throw new Error(`provider unavailable (call ${n})`)
        }
      } finally {
        harness.stats.pendingProviderCalls -= 1
      }
    }

  const inner = makeProviderSummarizer({ timer, logger: silentLogger })
  const summarizer: Summarizer = {
    summarize: async (request, given, signal) => {
      const { id } = request
      if (given !== provider) harness.violations.push(`summarization ${id} did not use the provider given to the request`)
      if (!harness.issued.has(id)) harness.violations.push(`summarization ${id} was never requested by the core`)
      harness.live.add(id)
      noteLive(`start of ${id}`)
      const onAbort = (): void => {
        harness.live.delete(id)
        harness.outcome.set(id, 'aborted')
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const text = await inner.summarize(request, { complete: completeFor(id) }, signal)
        if (signal?.aborted !== true) {
          harness.outcome.set(id, 'ok')
          harness.texts.set(id, text)
        }
        return text
      } catch (error) {
        if (signal?.aborted !== true) harness.outcome.set(id, 'failed')
        throw error
      } finally {
        harness.live.delete(id)
        signal?.removeEventListener('abort', onAbort)
      }
    },
  }

  const base: DefaultRunner = makeDefaultRunner({ summarizer, logger: silentLogger, spill: makeMemorySpillWriter() })
  const runner: DefaultRunner = {
    ...base,
    run: (effect: Effect, dispatch) => {
      if (effect.type === 'request_summary') {
        if (harness.issued.has(effect.id)) harness.violations.push(`summary id ${effect.id} issued twice`)
        harness.issued.set(effect.id, harness.epoch)
        if (harness.live.size > 0) harness.violations.push(`(e) ${effect.id} requested while ${[...harness.live].join(', ')} is in flight`)
      }
      if (effect.type === 'cancel_summary') harness.cancelled.add(effect.id)
      return base.run(effect, dispatch)
    },
  }
  const manager = new ContextManager(config, { clock: fixedClock(NOW), logger: silentLogger, runner })
  return { manager, provider, scheduler, harness }
}

/** Lets every microtask chain (answers, dispatches, queued jobs) run to its next scheduled wait. */
const flush = async (manager: ContextManager): Promise<void> => {
  for (let i = 0; i < 3; i += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve))
    await manager.getMessages()
  }
}

// ---------------------------------------------------------------------------------------------
// The model and the invariants
// ---------------------------------------------------------------------------------------------

/** The model: what the caller stored, in order (stored form without `_seq`), and the epoch. */
interface Model {
  /** Expected stored messages (metadata without `_seq`) since the last clear/setMessages. */
  expected: Message[]
  /** How many leading messages came from setMessages (their `_seq` is their index). */
  setCount: number
  /** Bumped by clear and setMessages: answers of earlier epochs must never be stored. */
  epoch: number
  /** The history seen by the last check (append-only since then). */
  lastHistory: Messages
  /** Counter for tool call ids (unique over the run). */
  nextCall: number
}

const initialModel = (): Model => ({ expected: [], setCount: 0, epoch: 0, lastHistory: [], nextCall: 0 })

const seqOf = (message: Message): unknown => (isPlainObject(message.metadata) ? message.metadata._seq : undefined)

const withoutSeq = (message: Message): Message => {
  const meta = isPlainObject(message.metadata) ? message.metadata : {}
  const { _seq: _dropped, ...rest } = meta
  return { ...message, metadata: rest }
}

const isSummaryMessage = (message: Message): boolean => isPlainObject(message.metadata) && message.metadata.type === 'context_summary'

const summaryIdOf = (content: unknown): string | null => {
  const match = typeof content === 'string' ? /S<(summary-\d+)>/.exec(content) : null
  return match === null ? null : match[1]
}

/** The tool groups of a list (SPEC 17.3): each assistant with calls and its adjacent results. */
const toolGroups = (messages: Messages): Array<{ readonly at: number; readonly members: ReadonlyArray<Message>; readonly ids: ReadonlyArray<unknown> }> => {
  const groups = []
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i]
    if (message.role !== 'assistant' || !isTruthy(message.tool_calls) || !Array.isArray(message.tool_calls)) continue
    const ids = message.tool_calls.map((call) => (isPlainObject(call) ? call.id : undefined))
    const members: Message[] = [message]
    let j = i + 1
    while (j < messages.length && messages[j].role === 'tool' && ids.includes(messages[j].tool_call_id)) members.push(messages[j++])
    groups.push({ at: i, members, ids })
  }
  return groups
}

/** (b) every tool group of the history is wholly in or wholly out of `seqs`. */
const checkGroupsAtomic = (what: string, history: Messages, seqs: ReadonlySet<unknown>): void => {
  for (const group of toolGroups(history)) {
    const inside = group.members.filter((member) => seqs.has(seqOf(member))).length
    expect(inside === 0 || inside === group.members.length, `(b) ${what} splits the tool group at ${group.at} (${inside} of ${group.members.length})`).toBe(true)
  }
}

/** The invariants checked after every command. */
const checkInvariants = async (model: Model, real: Real): Promise<void> => {
  const { manager, harness } = real
  expect(harness.violations, '(e)/(d) violations seen by the fakes').toEqual([])

  // (b) on one consistent snapshot: removed set, in-flight span and pending span vs. the history.
  const state: State = manager.state
  for (const group of toolGroups(state.history)) {
    // Our histories are valid: every call is answered right after it.
    expect(group.members.length, `history group at ${group.at} is complete`).toBe(group.ids.length + 1)
  }
  checkGroupsAtomic('sticky.removed', state.history, state.compaction.sticky.removed)
  checkGroupsAtomic('the in-flight span', state.history, new Set(state.summary.inFlightSeqs))
  if (state.summary.pending !== null) checkGroupsAtomic('the pending span', state.history, new Set(state.summary.pending.seqs))
  // (d) a pending summary is an answer of this epoch that succeeded.
  if (state.summary.pending !== null) {
    const id = summaryIdOf(state.summary.pending.text)
    expect(id !== null && harness.issued.get(id) === model.epoch && harness.outcome.get(id) === 'ok', `(d) pending summary ${id} belongs to this epoch`).toBe(true)
  }
  // (e) the core never has more than one request in flight, and it is a live one or settling.
  expect(harness.live.size, '(e) live summarizations').toBeLessThanOrEqual(1)
  for (const id of harness.live) expect(state.summary.inFlight, `(e) live summarization ${id} is the core's in-flight request`).toBe(id)

  // (c) the public history: the model's messages in order, plus appended summary messages.
  const history = await manager.getMessages()
  let j = 0
  let previousSeq = -1
  for (let i = 0; i < history.length; i += 1) {
    const message = history[i]
    const seq = seqOf(message)
    expect(typeof seq === 'number' && seq > previousSeq, `(c) _seq of history[${i}] is fresh (${String(seq)} after ${previousSeq})`).toBe(true)
    previousSeq = seq as number
    if (j < model.expected.length && isDeepStrictEqual(withoutSeq(message), model.expected[j])) {
      if (j < model.setCount) expect(seq, `(c) set message ${j} is numbered by its index`).toBe(j)
      j += 1
      continue
    }
    // Not the next caller message: it must be an appended summary message of this epoch.
    expect(isSummaryMessage(message), `(c) history[${i}] is neither the next caller message nor a summary: ${JSON.stringify(message).slice(0, 300)}`).toBe(true)
    expect(message.role).toBe('user')
    expect(Object.keys(message.metadata as object)).toEqual(['timestamp', 'type', '_seq'])
    expect((message.metadata as Record<string, unknown>).timestamp).toBe(NOW)
    const content = message.content as string
    expect(content.startsWith(SUMMARY_PREFIX) && content.endsWith(SUMMARY_SUFFIX), `(c) summary envelope of history[${i}]`).toBe(true)
    const id = summaryIdOf(content)
    expect(id, `(d) summary history[${i}] carries an answer id`).not.toBeNull()
    const sid = id as string
    expect(harness.issued.get(sid), `(d) summary ${sid} was requested in the current epoch ${model.epoch}`).toBe(model.epoch)
    expect(harness.cancelled.has(sid), `(d) summary ${sid} was cancelled`).toBe(false)
    expect(harness.outcome.get(sid), `(d) summary ${sid} succeeded (not failed, timed out or cancelled)`).toBe('ok')
    expect(content).toBe(SUMMARY_PREFIX + harness.texts.get(sid) + SUMMARY_SUFFIX)
  }
  expect(j, `(c) every caller message is in the history (${j} of ${model.expected.length})`).toBe(model.expected.length)
  // (c) append-only since the last check.
  expect(history.length).toBeGreaterThanOrEqual(model.lastHistory.length)
  expect(history.slice(0, model.lastHistory.length), '(c) the history only grew by appending').toEqual(model.lastHistory)
  model.lastHistory = history
}

// ---------------------------------------------------------------------------------------------
// Commands (one class each)
// ---------------------------------------------------------------------------------------------

type SummaryCommand = fc.AsyncCommand<Model, Real>

/** How often the interesting paths were reached over all runs (printed with FC_VERBOSE=1). */
const coverage = {
  runs: 0,
  summaryRequests: 0,
  answeredOk: 0,
  answeredFailedOrTimedOut: 0,
  cancelled: 0,
  pendingSwapped: 0,
  pendingDropped: 0,
  pendingKept: 0,
  summariesInFinalHistory: 0,
  maxLiveSummarizations: 0,
  maxProviderCallsPendingIncludingAbandoned: 0,
}

const describeText = (text: string): string => JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…(${text.length})` : text)

/** The messages of a turn with fresh call ids from the model's counter. */
const materializeTurn = (model: Model, turn: TurnSpec): Message[] => {
  const ids = turn.calls.map(() => `call_${model.nextCall++}`)
  const assistant: Message = {
    role: 'assistant',
    content: turn.narration,
    tool_calls: turn.calls.map((call, index) => ({ id: ids[index], type: 'function', function: { name: call.tool, arguments: JSON.stringify({ path: call.path }) } })),
  }
  const results = turn.calls
    .map((call, index) => ({ call, index }))
    .sort((a, b) => a.call.order - b.call.order || a.index - b.index)
    .map(({ call, index }): Message => ({ role: 'tool', tool_call_id: ids[index], content: call.result }))
  return [{ role: 'user', content: turn.user }, assistant, ...results]
}

/** Adds a message and records its expected stored form (timestamp from the fixed clock). */
const add = async (model: Model, real: Real, message: Message): Promise<void> => {
  await real.manager.addMessage(message)
  model.expected.push({ ...message, metadata: { timestamp: NOW } })
}

class AddTurn implements SummaryCommand {
  constructor(readonly turn: TurnSpec) {}
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    for (const message of materializeTurn(model, this.turn)) await add(model, real, message)
    await checkInvariants(model, real)
  }
  toString = (): string => `AddTurn(${describeText(this.turn.user)}, ${this.turn.calls.length} calls: ${this.turn.calls.map((call) => call.result.length).join('/')} chars)`
}

class AddPlainMessage implements SummaryCommand {
  constructor(
    readonly role: 'user' | 'assistant',
    readonly content: string,
  ) {}
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    await add(model, real, { role: this.role, content: this.content })
    await checkInvariants(model, real)
  }
  toString = (): string => `AddPlainMessage(${this.role}, ${describeText(this.content)})`
}

class GetView implements SummaryCommand {
  constructor(
    readonly budget: number | null,
    readonly withProvider: boolean,
  ) {}
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    let view: Messages | null = null
    const hadPending = real.manager.state.summary.pending !== null
    const before = real.manager.state.history.length
    try {
      view = await real.manager.getMessagesForRequest({ tokenBudget: this.budget, provider: this.withProvider ? real.provider : null })
    } catch (error) {
      // The worth-the-rebuild predicate may fail loud (SPEC 14.4): a contract outcome, not a bug.
      if (!(error instanceof CompactionSkipLimitError)) throw error
    }
    if (hadPending) {
      const after = real.manager.state
      if (after.summary.pending !== null) coverage.pendingKept += 1
      else if (after.history.length > before) coverage.pendingSwapped += 1
      else coverage.pendingDropped += 1 // stale span or refused by the shrink guard
    }
    if (view !== null) {
      // (a) no view splits a tool group.
      expect(findPairingViolations(view), '(a) pairing violations in the view').toEqual([])
      // (d) a summary in the view is an answer of this epoch, or one the caller resumed with setMessages.
      const resumed = new Set(model.expected.map((message) => summaryIdOf(message.content)))
      for (const message of view) {
        const id = summaryIdOf(message.content)
        if (id !== null && !resumed.has(id)) expect(real.harness.issued.get(id), `(d) view carries summary ${id} of another epoch`).toBe(model.epoch)
      }
    }
    await checkInvariants(model, real)
  }
  toString = (): string => `GetView(${this.budget ?? 'max_tokens'}${this.withProvider ? ', provider' : ''})`
}

class Clear implements SummaryCommand {
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    model.epoch += 1
    real.harness.epoch += 1
    await real.manager.clear()
    model.expected = []
    model.setCount = 0
    model.lastHistory = []
    await checkInvariants(model, real)
  }
  toString = (): string => 'Clear'
}

class SetMessages implements SummaryCommand {
  /** `resume` keeps the first `keep` stored messages (summaries included), cut at a turn boundary. */
  constructor(
    readonly resume: boolean,
    readonly keep: number,
    readonly turns: ReadonlyArray<TurnSpec>,
  ) {}
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    let kept: Message[] = []
    if (this.resume) {
      const stored = await real.manager.getMessages()
      let end = Math.min(this.keep, stored.length)
      // Cut back to a boundary that does not end inside a tool group.
      const inGroup = (at: number): boolean =>
        stored[at - 1].role === 'tool' || isTruthy(stored[at - 1].tool_calls) || (at < stored.length && stored[at].role === 'tool')
      while (end > 0 && inGroup(end)) end -= 1
      kept = stored.slice(0, end)
    }
    const messages = [...kept]
    for (const turn of this.turns) messages.push(...materializeTurn(model, turn))
    model.epoch += 1
    real.harness.epoch += 1
    await real.manager.setMessages(messages)
    model.expected = messages.map((message) => withoutSeq(message))
    model.setCount = messages.length
    model.lastHistory = []
    await checkInvariants(model, real)
  }
  toString = (): string => `SetMessages(${this.resume ? `resume ${this.keep} + ` : ''}${this.turns.length} turns)`
}

class ResolveSomeSummaries implements SummaryCommand {
  /** Releases `count` scheduled answers/timeouts (all of them when null), in the scheduler's order. */
  constructor(
    readonly count: number | null,
    readonly settle: boolean,
  ) {}
  check = (): boolean => true
  async run(model: Model, real: Real): Promise<void> {
    const { manager, scheduler } = real
    await flush(manager)
    const available = scheduler.count()
    const n = this.count === null ? available : Math.min(this.count, available)
    if (n > 0) await scheduler.waitNext(n)
    if (this.settle) {
      await flush(manager)
      // Liveness: with nothing left to release, no summarization may stay in flight.
      if (scheduler.count() === 0) expect(manager.state.summary.inFlight, 'a summarization is stuck in flight').toBeNull()
    }
    await checkInvariants(model, real)
  }
  toString = (): string => `ResolveSomeSummaries(${this.count ?? 'all'}${this.settle ? '' : ', no settle'})`
}

const budgetArb = fc.oneof(fc.constant(null), fc.integer({ min: 150, max: 2500 }))
const addTurnArb = turnArb.map((turn): SummaryCommand => new AddTurn(turn))
const getViewArb = fc.tuple(budgetArb, fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 })).map(
  ([budget, withProvider]): SummaryCommand => new GetView(budget, withProvider),
)
const resolveArb = fc
  .tuple(fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }))
  .map(([count, settle]): SummaryCommand => new ResolveSomeSummaries(count, settle))

/** Commands, weighted by repeating entries: mostly turns, views and resolutions; resets are rarer. */
const setMessagesArb = fc
  .tuple(fc.boolean(), fc.nat({ max: 40 }), fc.array(turnArb, { maxLength: 4 }))
  .map(([resume, keep, turns]): SummaryCommand => new SetMessages(resume, keep, turns))

const commandsArb = fc.commands(
  [
    addTurnArb,
    addTurnArb,
    addTurnArb,
    addTurnArb,
    fc.tuple(fc.constantFrom<'user' | 'assistant'>('user', 'assistant'), wordsArb(40)).map(([role, content]): SummaryCommand => new AddPlainMessage(role, content)),
    getViewArb,
    getViewArb,
    getViewArb,
    getViewArb,
    getViewArb,
    resolveArb,
    resolveArb,
    resolveArb,
    resolveArb,
    fc.oneof({ arbitrary: fc.constant<SummaryCommand>(new Clear()), weight: 1 }, { arbitrary: setMessagesArb, weight: 1 }),
  ],
  { maxCommands: 60, size: 'max', ...(process.env.FC_REPLAY_PATH !== undefined ? { replayPath: process.env.FC_REPLAY_PATH } : {}) },
)
// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

describe('summary flow (model-based, scheduled summarizer answers)', () => {
  it('keeps tool groups whole, history append-only, cancelled answers out, one summarization at a time', async () => {
    const property = fc.asyncProperty(fc.scheduler(), configArb, plansArb, commandsArb, async (scheduler, config, plans, commands) => {
      let real: Real | null = null
      await fc.asyncModelRun(() => {
        real = makeReal(scheduler, config, plans)
        return { model: initialModel(), real }
      }, commands)
      const done = real as Real | null
      if (done !== null) {
        const { harness } = done
        coverage.runs += 1
        coverage.summaryRequests += harness.issued.size
        coverage.cancelled += harness.cancelled.size
        for (const outcome of harness.outcome.values()) {
          if (outcome === 'ok') coverage.answeredOk += 1
          else if (outcome === 'failed') coverage.answeredFailedOrTimedOut += 1
        }
        coverage.summariesInFinalHistory += done.manager.state.history.filter(isSummaryMessage).length
        coverage.maxLiveSummarizations = Math.max(coverage.maxLiveSummarizations, harness.stats.maxLive)
        coverage.maxProviderCallsPendingIncludingAbandoned = Math.max(coverage.maxProviderCallsPendingIncludingAbandoned, harness.stats.maxPendingProviderCalls)
      }
    })
    const params: fc.Parameters<[fc.Scheduler, Record<string, unknown>, Plans, Iterable<SummaryCommand>]> = { numRuns }
    if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED)
    if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH
    const details = await fc.check(property, params)
    if (details.failed) {
      const report = fc.defaultReportMessage(details) ?? ''
      const replayPath = /replayPath="([^"]*)"/.exec(report)
      const replay = [
        `FC_SEED=${details.seed}`,
        ...(details.counterexamplePath !== null ? [`FC_PATH=${details.counterexamplePath}`] : []),
        ...(replayPath !== null ? [`FC_REPLAY_PATH='${replayPath[1]}'`] : []),
      ].join(' ')
      console.error(`[property] summary model failed; reproduce with ${replay}`)
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
      throw new Error(`[property] summary model failed (${replay})\n${report}\nCause: ${cause}`)
    }
    if (process.env.FC_VERBOSE !== undefined) console.info(`[property] summary model coverage: ${JSON.stringify(coverage)}`)
  })
})
