/**
 * The summary strategy (SPEC 12, 17.4): early trigger and span selection, the id-based absorb
 * snapping, the transcript and prompt sent to the summarizer, answers keyed by request id, and
 * the swap with its shrink guard.
 */
import { selectAnchorPredicate, toAnchorPositions } from '../compaction/anchors.js'
import type { Config } from '../config.js'
import type { TokenEstimator } from '../deps.js'
import type { Effect, RequestSummary } from '../effects.js'
import type { Message, Messages } from '../messages/message.js'
import type { PendingSummary, State, SummaryState } from '../state.js'
import { estimateMessages } from '../meter/estimate.js'
import { seqOf } from '../messages/message.js'
import { isToolCallMessage, selectOpenToolGroupStart, selectResultRunEnd } from '../compaction/tool-pairs.js'
import { codePointLength, codePointSlice, pyrepr, pyStrip } from '../messages/text.js'
import { isPlainObject, isPresent, isTruthy } from '../messages/values.js'
import { toPlainArray } from '../messages/appendable.js'

/**
 * Our default summarization prompt: five Markdown sections and guidelines (SPEC 12.3). The
 * wording is ours; only the headings are fixed by the contract. Replaced by the text of
 * `summarization_prompt_path` when that file is readable.
 *
 * @example
 * DEFAULT_SUMMARY_PROMPT.includes('## Current Task State') // => true
 */
export const DEFAULT_SUMMARY_PROMPT = [
  'You compress the early part of a conversation between a user and a coding or tool-using agent into a short briefing that replaces it.',
  'The agent will keep working from your briefing alone, so keep everything it needs and nothing it does not.',
  'Write these sections in Markdown, in this order:',
  '',
  '## User Requests & Decisions',
  'What the user asked for, in their terms, and every decision or constraint that was agreed.',
  '',
  '## Files Examined or Modified',
  'Each file that was read, created or changed, with one line on why it matters.',
  '',
  '## Errors Encountered & Resolutions',
  'Each error or failed attempt, and how it was resolved or that it is still open.',
  '',
  '## Current Task State',
  'What is done, what is in progress, and what remains.',
  '',
  '## Key Technical Details',
  'Constraints, patterns, configuration values and implementation details the work depends on.',
  '',
  '## Guidelines',
  '- State facts from the conversation only; do not guess or speculate.',
  '- Be concise.',
  '- Copy numbers, paths, identifiers, error messages and command output exactly.',
  '- Leave out any section that would be empty.',
].join('\n')

/**
 * Maximum characters (code points) of tool-call arguments in a transcript line (SPEC 12.3);
 * longer arguments are cut to this many and end in `...`.
 *
 * @example
 * TRANSCRIPT_ARGUMENT_LIMIT // => 500
 */
export const TRANSCRIPT_ARGUMENT_LIMIT = 500

const asciiJson = (value: unknown): string =>
  (JSON.stringify(value) ?? 'null').replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))

const contentText = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    const texts: string[] = []
    for (const block of content) if (isPlainObject(block) && isTruthy(block.text)) texts.push(String(block.text))
    return texts.join('\n')
  }
  return pyrepr(content)
}

/** A value as Python's `str()` prints it: strings as is, anything else as its repr (`None`, `5`). */
const asText = (value: unknown): string => (typeof value === 'string' ? value : pyrepr(value))

const callLine = (call: Readonly<Record<string, unknown>>): string => {
  let name: unknown
  let args: unknown
  if (isPresent(call, 'function')) {
    // Defaults apply to missing keys only (SPEC 0: a present null is a value, rendered as None/null).
    const fn = isPlainObject(call.function) ? call.function : {}
    name = isPresent(fn, 'name') ? fn.name : 'unknown_tool'
    args = isPresent(fn, 'arguments') ? fn.arguments : '{}'
  } else {
    name = isTruthy(call.name) ? call.name : isTruthy(call.tool) ? call.tool : 'unknown_tool'
    args = isTruthy(call.input) ? call.input : isTruthy(call.arguments) ? call.arguments : '{}'
  }
  let text = typeof args === 'string' ? args : asciiJson(args)
  if (codePointLength(text) > TRANSCRIPT_ARGUMENT_LIMIT) text = codePointSlice(text, 0, TRANSCRIPT_ARGUMENT_LIMIT) + '...'
  return `  [tool_call: ${asText(name)}(${text})]`
}

/**
 * The transcript of messages sent to the summarizer (SPEC 12.3): one entry per message, entries
 * separated by a blank line; tool results as `[tool_result for <id>]: <text>`, others as
 * `[<role>]: <text>`, then one indented `[tool_call: name(args)]` line per call.
 *
 * @example
 * toTranscript([{ role: 'user', content: 'hi' }]) // => '[user]: hi'
 */
export const toTranscript = (messages: Messages): string =>
  messages
    .map((message) => {
      const text = contentText(message.content)
      const first =
        message.role === 'tool'
          ? `[tool_result for ${isPresent(message, 'tool_call_id') ? asText(message.tool_call_id) : ''}]: ${text}`
          : `[${isPresent(message, 'role') ? asText(message.role) : 'unknown'}]: ${text}`
      const lines = [first]
      if (Array.isArray(message.tool_calls)) for (const call of message.tool_calls) if (isPlainObject(call)) lines.push(callLine(call))
      return lines.join('\n')
    })
    .join('\n\n')

/**
 * Snap an absorb boundary to a true fixed point (SPEC 12.5 with 17.3, 17.4): returns `e ≤ limit`
 * such that every assistant with tool calls before `e` has its adjacent results before `e`, or 0.
 *
 * @example
 * const u: Message = { role: 'user', content: 'go' }
 * const call: Message = { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] }
 * const result: Message = { role: 'tool', tool_call_id: 'a', content: 'ok' }
 * snapAbsorbBoundary([u, call, result, u], 2, 4) // => 3
 */
export const snapAbsorbBoundary = (live: Messages, end: number, limit: number): number => {
  let boundary = end
  let ceiling = limit
  for (let round = 0; round <= live.length + 1; round += 1) {
    if (boundary <= 0) return 0
    let changed = false
    for (let i = 0; i < boundary; i += 1) {
      if (!isToolCallMessage(live[i])) continue
      const runEnd = selectResultRunEnd(live, i)
      if (runEnd <= boundary) continue
      if (runEnd <= ceiling) {
        boundary = runEnd
      } else {
        boundary = i
        ceiling = i
      }
      changed = true
      break
    }
    if (!changed) return boundary
  }
  return 0
}

/**
 * Select the span to absorb (SPEC 12.4): the oldest live messages (not system, not removed, not a
 * summary) covering `excess` tokens, below the protected boundary and the last user message,
 * snapped by tool groups. `excess` is in estimator tokens. Returns the `_seq` values (possibly
 * empty).
 *
 * @example
 * const history: Messages = ['first ask', 'an answer', 'a second ask', 'a second answer', 'the latest ask'].map((content, i): Message => ({
 *   role: i % 2 === 0 ? 'user' : 'assistant', content: content.repeat(40), metadata: { _seq: i },
 * }))
 * selectAbsorbSpan(history, new Set(), DEFAULT_CONFIG, 200, estimateOne) // => [0, 1]
 * selectAbsorbSpan(history, new Set([0, 1]), DEFAULT_CONFIG, 200, estimateOne) // => [2, 3]
 */
export const selectAbsorbSpan = (
  history: Messages,
  removed: ReadonlySet<number>,
  config: Config,
  excess: number,
  estimate: TokenEstimator,
): ReadonlyArray<number> => {
  const live: Message[] = []
  for (const message of toPlainArray(history)) {
    if (message.role === 'system') continue
    const seq = seqOf(message)
    if (seq !== undefined && removed.has(seq)) continue
    if (isPlainObject(message.metadata) && message.metadata.type === 'context_summary') continue
    live.push(message)
  }
  if (live.length === 0) return []
  const lastUser = toAnchorPositions(live, selectAnchorPredicate(config)).last
  // A negative protected_recent protects nothing: the boundary never passes the end of `live`.
  let limit = Math.min(live.length, Math.trunc(live.length * (1 - config.protected_recent)))
  if (lastUser >= 0 && lastUser < limit) limit = lastUser
  // SPEC 17.8: never absorb the open group the live list ends inside (its later results would
  // be left without their call).
  const openStart = selectOpenToolGroupStart(live)
  if (openStart >= 0 && openStart < limit) limit = openStart
  if (limit <= 0) return []
  let end = limit
  let sum = 0
  for (let i = 0; i < limit; i += 1) {
    sum += estimate(live[i])
    if (sum >= excess) {
      end = i + 1
      break
    }
  }
  end = snapAbsorbBoundary(live, end, limit)
  if (end <= 0) return []
  const seqs: number[] = []
  for (const message of live.slice(0, end)) {
    const seq = seqOf(message)
    if (seq !== undefined) seqs.push(seq)
  }
  return seqs
}

/** The estimate (tokens) of the stored messages whose `_seq` is in `seqs`. */
const toSpanTokens = (history: Messages, seqs: ReadonlyArray<number>, estimate: TokenEstimator): number => {
  const wanted = new Set(seqs)
  let total = 0
  for (const message of toPlainArray(history)) {
    const seq = seqOf(message)
    if (seq !== undefined && wanted.has(seq)) total += estimate(message)
  }
  return total
}

/**
 * Where the summary trigger starts and aims, in the units of the `used` it is given: the trigger at
 * `summary_trigger` × E, the target at `(summary_target_usage ?? target_usage)` × E (truncated),
 * as SPEC 12.2 states them on E in tokens.
 *
 * @example
 * // E = 60,000 billed tokens of which an overhead fills 36,000: 0.6 and 0.4 of the 24,000 left
 * const bounds: SummaryBounds = { trigger: 14400, target: 9600 }
 */
export interface SummaryBounds {
  /** A summary may start once `used` reaches this. */
  readonly trigger: number
  /** The absorbed span brings `used` down to this; a summary starts only above it. */
  readonly target: number
}

/**
 * The summary trigger (SPEC 12.2): when nothing is in flight or pending, a provider is known,
 * `used / E ≥ summary_trigger` and `used` exceeds the target, select a span and request its
 * summary (an id from the state's counter). `used` and `effective` (E) are tokens; `bounds` gives
 * the trigger and target in the units of `used` when they are not those of E (the calibrated
 * meter's estimator units, docs/contract.md 17.13), else the contract's. Returns the new
 * summary state and effects. Hysteresis keys (docs/configuration.md): `summary_target_usage` replaces
 * `target_usage` as the post-absorb target; a span under `summary_min_span_tokens` is not sent.
 *
 * @example
 * const config: Config = { ...DEFAULT_CONFIG, compaction_strategy: 'summary' }
 * const history: Messages = ['first ask', 'an answer', 'a second ask', 'a second answer', 'the latest ask'].map((content, i): Message => ({
 *   role: i % 2 === 0 ? 'user' : 'assistant', content: content.repeat(40), metadata: { _seq: i },
 * }))
 * const state: State = { ...makeInitialState(), history, nextSeq: 5 }
 * const summary: SummaryState = { ...state.summary, providerKnown: true }
 * triggerSummary(state, summary, config, 5000, 6000, estimateOne).effects.map((effect) => effect.type) // => ['request_summary']
 * triggerSummary(state, state.summary, config, 5000, 6000, estimateOne).effects // => []
 */
export const triggerSummary = (
  state: State,
  summary: SummaryState,
  config: Config,
  used: number,
  effective: number,
  estimate: TokenEstimator,
  bounds?: SummaryBounds,
): { readonly summary: SummaryState; readonly effects: ReadonlyArray<Effect> } => {
  const idle = { summary, effects: [] }
  if (summary.inFlight !== null || summary.pending !== null || !summary.providerKnown || effective <= 0) return idle
  if (bounds === undefined ? used / effective < config.summary_trigger : used < bounds.trigger) return idle
  const target = bounds?.target ?? Math.trunc(effective * (config.summary_target_usage ?? config.target_usage))
  if (used <= target) return idle
  const seqs = selectAbsorbSpan(state.history, state.compaction.sticky.removed, config, used - target, estimate)
  if (seqs.length === 0) return idle
  if (config.summary_min_span_tokens !== null && toSpanTokens(state.history, seqs, estimate) < config.summary_min_span_tokens) return idle
  const id = `summary-${summary.nextRequestNumber}`
  return {
    summary: { ...summary, inFlight: id, inFlightSeqs: seqs, nextRequestNumber: summary.nextRequestNumber + 1 },
    effects: [toSummaryRequest(config, state.history, id, seqs)],
  }
}

/**
 * The `request_summary` effect for summary `id` absorbing the stored messages `seqs` (SPEC 12.3):
 * their transcript, the prompt, model and time limit of `config`. Also used to request an
 * in-flight summary again after a snapshot is restored.
 *
 * @example
 * const history: Messages = [{ role: 'user', content: 'hi', metadata: { _seq: 0 } }, { role: 'assistant', content: 'hello', metadata: { _seq: 1 } }]
 * toSummaryRequest(DEFAULT_CONFIG, history, 'summary-1', [0, 1]).transcript // => '[user]: hi\n\n[assistant]: hello'
 */
export const toSummaryRequest = (config: Config, history: Messages, id: string, seqs: ReadonlyArray<number>): RequestSummary => {
  const wanted = new Set(seqs)
  const messages = toPlainArray(history).filter((message) => {
    const seq = seqOf(message)
    return seq !== undefined && wanted.has(seq)
  })
  return {
    type: 'request_summary',
    id,
    seqs,
    messageCount: messages.length,
    transcript: toTranscript(messages),
    prompt: DEFAULT_SUMMARY_PROMPT,
    promptPath: config.summarization_prompt_path,
    model: config.summarization_model,
    timeoutSeconds: config.summarization_timeout_s,
  }
}

/**
 * The stored summary message (SPEC 12.6): role `user`, the context-summary envelope, metadata
 * `{timestamp, type: "context_summary", _seq}`. Never role `system`, never ephemeral.
 *
 * @example
 * toSummaryMessage('text', '2026-01-01T00:00:00.000+00:00', 7).metadata // { timestamp: …, type: 'context_summary', _seq: 7 }
 */
export const toSummaryMessage = (text: string, now: string, seq: number): Message => ({
  role: 'user',
  content: `<system-reminder source="context-summary">\n${text}\n</system-reminder>`,
  metadata: { timestamp: now, type: 'context_summary', _seq: seq },
})

/**
 * The outcome of trying to swap a pending summary into a pass (SPEC 12.6). `seqConsumed` is true
 * when the summary message took a `_seq`, even if the shrink guard then refused it.
 *
 * @example
 * const outcome: SwapOutcome = { swapped: false, nonSystem: [], absorbed: [], summaryMessage: null, seqConsumed: false, effects: [] }
 */
export interface SwapOutcome {
  readonly swapped: boolean
  readonly nonSystem: Messages
  readonly absorbed: ReadonlyArray<Message>
  readonly summaryMessage: Message | null
  readonly seqConsumed: boolean
  readonly effects: ReadonlyArray<Effect>
}

/**
 * Try the swap of `pending` into the non-system list (SPEC 12.6): stale spans are discarded, a
 * summary not smaller than the span it replaces is refused (the shrink guard; its `_seq` is
 * still consumed), otherwise the summary is appended after the list.
 *
 * @example
 * const nonSystem: Messages = ['first ask', 'an answer', 'the latest ask'].map((content, i): Message => ({
 *   role: i % 2 === 0 ? 'user' : 'assistant', content: content.repeat(40), metadata: { _seq: i },
 * }))
 * const pending: PendingSummary = { seqs: [0, 1], text: 'The user asked twice.' }
 * const outcome = trySwap(pending, nonSystem, new Set(), DEFAULT_REPLAY_NOW, 3, estimateOne)
 * outcome.swapped // => true
 * outcome.absorbed.length // => 2
 * trySwap({ seqs: [7], text: 'stale' }, nonSystem, new Set(), DEFAULT_REPLAY_NOW, 3, estimateOne).swapped // => false
 */
export const trySwap = (
  pending: PendingSummary,
  nonSystem: Messages,
  removed: ReadonlySet<number>,
  now: string,
  nextSeq: number,
  estimate: TokenEstimator,
): SwapOutcome => {
  const wanted = new Set(pending.seqs.filter((seq) => !removed.has(seq)))
  const absorbed = nonSystem.filter((message) => {
    const seq = seqOf(message)
    return seq !== undefined && wanted.has(seq)
  })
  if (absorbed.length === 0) {
    return { swapped: false, nonSystem, absorbed: [], summaryMessage: null, seqConsumed: false, effects: [] }
  }
  const summaryMessage = toSummaryMessage(pending.text, now, nextSeq)
  const summaryTokens = estimate(summaryMessage)
  const spanTokens = estimateMessages(absorbed, estimate)
  if (summaryTokens >= spanTokens) {
    return {
      swapped: false,
      nonSystem,
      absorbed: [],
      summaryMessage: null,
      seqConsumed: true,
      effects: [
        {
          type: 'log',
          level: 'warning',
          message: `context-simple: summary refused by the shrink guard: ${summaryTokens} tokens is not smaller than the ${spanTokens}-token span it would replace, so it is dropped and this pass compacts progressively. Summaries pay off on longer spans: raise summary_min_span_tokens (with summary_hysteresis: true), or ask for a shorter summary through summarization_prompt_path`,
        },
      ],
    }
  }
  return { swapped: true, nonSystem: [...nonSystem, summaryMessage], absorbed, summaryMessage, seqConsumed: true, effects: [] }
}

/**
 * Reduce a summarizer answer (SPEC 12.3 steps 6–9): only the in-flight id is accepted; empty text
 * is a failure. Success stores the pending summary and emits `context:post_summarize`.
 *
 * @example
 * const summary: SummaryState = { ...EMPTY_SUMMARY, inFlight: 'summary-1', inFlightSeqs: [0, 1] }
 * applySummaryAnswer(summary, 'summary-1', { text: 'done' }).summary.inFlight // => null
 */
export const applySummaryAnswer = (
  summary: SummaryState,
  id: string,
  answer: { readonly text: string } | { readonly error: string },
): { readonly summary: SummaryState; readonly effects: ReadonlyArray<Effect> } => {
  if (summary.inFlight !== id) {
    return { summary, effects: [{ type: 'log', level: 'debug', message: `context-simple: ignored answer for summary request ${id} (not pending)` }] }
  }
  const done = { ...summary, inFlight: null, inFlightSeqs: [] }
  const failure = (why: string) => ({
    summary: { ...done, failures: summary.failures + 1 },
    effects: [{ type: 'log', level: 'warning', message: `context-simple: summarization failed: ${why}; the next pass compacts progressively instead (compaction_strategy "summary"; summarization_timeout_s bounds each call, compaction_strategy: "progressive" stops summarizing)` }] as Effect[],
  })
  if ('error' in answer) return failure(answer.error)
  if (pyStrip(answer.text) === '') return failure('empty summary')
  return {
    summary: { ...done, failures: 0, pending: { seqs: summary.inFlightSeqs, text: answer.text } },
    effects: [{ type: 'emit_hook', name: 'context:post_summarize', data: { summary_length: codePointLength(answer.text) } }],
  }
}

/**
 * Reduce "the summarizer call is starting" (SPEC 12.3 step 4): emits `context:pre_summarize`
 * `{message_count}` for the in-flight id; ignored for any other id.
 *
 * @example
 * const summary: SummaryState = { ...EMPTY_SUMMARY, inFlight: 'summary-1', inFlightSeqs: [0, 1, 2] }
 * applySummaryCallStarted(summary, 'summary-1') // => [{ type: 'emit_hook', name: 'context:pre_summarize', data: { message_count: 3 } }]
 */
export const applySummaryCallStarted = (summary: SummaryState, id: string): ReadonlyArray<Effect> =>
  summary.inFlight === id ? [{ type: 'emit_hook', name: 'context:pre_summarize', data: { message_count: summary.inFlightSeqs.length } }] : []
