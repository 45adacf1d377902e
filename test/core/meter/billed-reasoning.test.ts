// What the provider bills for Responses reasoning (docs/contract.md 17.13, docs/configuration.md "A
// typed estimator"): the typed estimator charges an encrypted reasoning item the reasoning it
// carries, not its characters; the calibrated meter leaves out the reasoning of the turns before
// the last user message (the Responses API drops it), in the fit, the model count and the append
// shape. The provider model of the replay keeps its own count (gpt-tokenizer on the stored pieces).
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import { expandResponsesItem, extendReasoningPrefix, measureUnbilledReasoning, mergeResponsesPieces } from '../../../src/core/formats/openai-responses.js'
import { makeFormatEstimator } from '../../../src/core/formats/dispatch.js'
import { countCalibrated, EMPTY_CALIBRATION, toSentView } from '../../../src/core/meter/calibration.js'
import { estimateOne, makeCachedEstimator } from '../../../src/core/meter/estimate.js'
import { estimateTyped, REASONING_ENVELOPE_BYTES, toEncryptedReasoningTokens } from '../../../src/core/meter/typed-estimate.js'
import type { Message } from '../../../src/core/messages/message.js'
import { makeStep } from '../../../src/core/reducer.js'
import { makeInitialState, type State } from '../../../src/core/state.js'
import type { Event } from '../../../src/core/events.js'
import { makeProviderCounter } from '../../../src/shell/estimators.js'
import { NOW, request } from '../../support/core.js'
import { makePassContext } from '../../../src/core/compaction/context.js'
import { makeDerivationMemo } from '../../../src/core/memo/derivation-memo.js'
import { toBilledEstimator, withBilledEstimator } from '../../../src/core/meter/calibrated-meter.js'
import { recordAppend, selectReasoningPrefix, selectWorking } from '../../../src/core/incremental/working.js'
import { appendTo } from '../../../src/core/messages/appendable.js'

const SEALED = 'gAAAAABo5CPhq6X48IJyv9THtj00Aa06hDhMcl0Smrq0bBBBm-aXGw-3TpbpBS4lg_'.repeat(60) // 3,960 characters
const reasoning = (text = 'Thinking') => ({ type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null, encrypted_content: SEALED })
const piece = (item: Readonly<Record<string, unknown>>): Message => expandResponsesItem(item)[0].message
const turn = (...items: ReadonlyArray<Readonly<Record<string, unknown>>>): Message =>
  items.slice(1).reduce<Message>((last, item) => mergeResponsesPieces(last, piece(item)) ?? last, piece(items[0]))
const typed = makeCachedEstimator(makeFormatEstimator('openai-responses', estimateTyped))
const REASONING = toEncryptedReasoningTokens(SEALED.length)

/** A Responses session through the reducer under `config` (typed estimator): fold events, add an item, ask at 200,000, read a usage. */
const responsesReducer = (config: Config) => {
  const step = makeStep({ config, estimate: makeCachedEstimator(estimateTyped), format: 'openai-responses' })
  return {
    run: (state: State, events: ReadonlyArray<Event>): State => events.reduce((current, event) => step(current, event).state, state),
    add: (message: Readonly<Record<string, unknown>>): Event => ({ type: 'message_added', message, timestamp: NOW }),
    ask: request({ tokenBudget: 200_000 }) as Event,
    read: (input: number): Event => ({ type: 'usage_observed', data: { usage: { input_tokens: input, cache_write_tokens: 0 } } }),
  }
}

describe('the typed estimator on encrypted reasoning', () => {
  it('charges the decoded reasoning (3 bytes per 4 characters, less the envelope, 4 bytes a token), not the characters', () => {
    expect(REASONING).toBe(Math.ceil((Math.floor((3 * 3960) / 4) - REASONING_ENVELOPE_BYTES) / 4))
    expect(estimateTyped(reasoning())).toBe(REASONING)
    // the reference estimator counts the characters (a quarter each): 1.75 times more here
    expect(estimateOne(reasoning())).toBeGreaterThan(1.7 * REASONING)
    expect(estimateTyped({ type: 'compaction', encrypted_content: SEALED })).toBe(REASONING)
    expect(toEncryptedReasoningTokens(800)).toBe(0)
  })

  it('a reasoning item without encrypted content, and every other item, is text as before', () => {
    const plain = { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking hard' }] }
    expect(estimateTyped(plain)).toBe(estimateOne(plain))
    const call = { type: 'function_call', call_id: 'c1', name: 'read', arguments: SEALED }
    expect(estimateTyped(call)).toBe(estimateOne(call))
  })

  it('a Responses piece costs its items: the reasoning at its decoded size', () => {
    const answer = { role: 'assistant', content: 'Done.' }
    expect(typed(turn(reasoning(), answer))).toBe(REASONING + estimateOne(answer))
  })
})

describe('measureUnbilledReasoning', () => {
  const first = piece({ role: 'user', content: 'go' })
  const answered = turn(reasoning(), { role: 'assistant', content: 'Done.' })
  const next = piece({ role: 'user', content: 'and now?' })
  const working = turn(reasoning('again'), { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' })

  it('counts the reasoning before the last user message only', () => {
    expect(measureUnbilledReasoning([first, answered], typed)).toBe(0)
    expect(measureUnbilledReasoning([first, answered, next], typed)).toBe(REASONING)
    expect(measureUnbilledReasoning([first, answered, next, working], typed)).toBe(REASONING)
    expect(measureUnbilledReasoning([first, answered, next, working], typed, 2)).toBe(0)
  })

  it('is 0 for messages of other formats', () => {
    expect(measureUnbilledReasoning([{ role: 'assistant', content: SEALED }, { role: 'user', content: 'hi' }], typed)).toBe(0)
  })
  it('the running sums extended piece by piece give measureUnbilledReasoning of every prefix, and the boundary after the last user message', () => {
    const list = [first, answered, next, working, piece({ role: 'user', content: 'third' }), turn(reasoning('more'), { role: 'assistant', content: 'ok' })]
    for (let split = 0; split <= list.length; split += 1) {
      for (let end = split; end <= list.length; end += 1) {
        const prefix = extendReasoningPrefix(extendReasoningPrefix(null, list.slice(0, split), typed), list.slice(split, end), typed)
        expect(prefix.unbilled, `${split}..${end}`).toBe(measureUnbilledReasoning(list, typed, end))
        expect(prefix.length).toBe(end)
        expect(prefix.lastUser).toBe(list.slice(0, end).map((message) => message.role).lastIndexOf('user'))
      }
    }
  })
})

describe('W\'s reasoning sums are kept per request, not walked again (selectReasoningPrefix)', () => {
  const seq = (message: Message, n: number): Message => ({ ...message, metadata: { ...(message.metadata as object), _seq: n } })
  it('a request on an appended history reads only what was appended, and the billed estimator is the one a walk gives', () => {
    const memo = makeDerivationMemo()
    let reads = 0
    // the first message counts every read of its fields: a walk over W reads it, an extension does not
    const watched = new Proxy(seq(piece({ role: 'user', content: 'go' }), 0), {
      get: (target, key, receiver) => {
        reads += 1
        return Reflect.get(target, key, receiver)
      },
    })
    const items = [watched, seq(turn(reasoning(), { role: 'assistant', content: 'Done.' }), 1), seq(piece({ role: 'user', content: 'next' }), 2)]
    const base = appendTo([], items.slice(0, 2))
    const first = selectWorking(memo, base, null, null, typed)
    expect(selectReasoningPrefix(first, typed).unbilled).toBe(0)
    const history = appendTo(base, items.slice(2))
    recordAppend(memo, history, base)
    const second = selectWorking(memo, history, null, null, typed)
    expect(second.added).toEqual([items[2]])
    reads = 0
    const known = selectReasoningPrefix(second, typed)
    expect(reads).toBe(0)
    expect(known.unbilled).toBe(REASONING)
    expect(known.unbilled).toBe(measureUnbilledReasoning(history, typed))
    const billed = toBilledEstimator(history, typed, known)
    const walked = toBilledEstimator(history, typed)
    expect(billed).not.toBeNull()
    for (const message of history) expect(billed?.(message)).toBe(walked?.(message))
    expect(billed?.(items[1])).toBe(typed(items[1]) - REASONING)
  })
})

describe('the calibrated meter counts what is billed', () => {
  const first = piece({ role: 'user', content: 'go' })
  const answered = turn(reasoning(), { role: 'assistant', content: 'Done.' })
  const next = piece({ role: 'user', content: 'and now?' })
  const model = { scale: 1, overhead: 1000, margin: 0, points: 3 }
  const total = (view: ReadonlyArray<Message>) => view.reduce((sum, message) => sum + typed(message), 0)

  it('the sent view pairs its billed estimate with the reading', () => {
    expect(toSentView([first, answered], typed).estimate).toBe(total([first, answered]))
    expect(toSentView([first, answered, next], typed).estimate).toBe(total([first, answered, next]) - REASONING)
  })

  it('the model count leaves out the dropped reasoning', () => {
    const view = [first, answered, next]
    expect(countCalibrated(EMPTY_CALIBRATION, model, view, total(view), typed).model_tokens).toBe(1000 + total(view) - REASONING)
  })

  it('the append shape: a user message appended stops billing the reasoning before it', () => {
    const sent = toSentView([first, answered], typed)
    const anchored = { ...EMPTY_CALIBRATION, anchor: { reading: 5000, view: sent } }
    const view = [first, answered, next]
    const count = countCalibrated(anchored, model, view, total(view), typed)
    expect(count.shape).toBe('append')
    expect(count.calibrated_tokens).toBe(5000 + typed(next) - REASONING)
    // without a user message appended nothing before it stops being billed
    const call = turn({ type: 'function_call', call_id: 'c2', name: 'ls', arguments: '{}' })
    expect(countCalibrated(anchored, model, [first, answered, call], total([first, answered, call]), typed).calibrated_tokens).toBe(5000 + typed(call))
  })

  it('a user-role ephemeral tail (notice, replay) that made the current turn’s reasoning unbilled gives it back when the next view has no tail', () => {
    // The provider follows the rule on what it is sent: the notice is the last user message, so
    // the reasoning before it is dropped from that reading; the next view, sent without the
    // notice (compaction_notice_repeat "none"), bills that reasoning again.
    const bill = (view: ReadonlyArray<Message>) => total(view) - measureUnbilledReasoning(view, typed)
    const working = turn(reasoning('again'), { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' })
    const output = piece({ type: 'function_call_output', call_id: 'c1', output: 'ok' })
    const notice: Message = { role: 'user', content: 'Context was compacted.', metadata: { source: 'context-compaction', ephemeral: true } }
    const sentWithNotice = [first, answered, next, working, output, notice]
    const sent = toSentView(sentWithNotice, typed)
    // the pair is still of what was billed
    expect(sent.estimate + sent.tailEstimate).toBe(bill(sentWithNotice))
    const anchored = { ...EMPTY_CALIBRATION, anchor: { reading: bill(sentWithNotice), view: sent } }
    const later = turn({ type: 'function_call', call_id: 'c2', name: 'ls', arguments: '{}' })
    const view = [first, answered, next, working, output, later]
    const count = countCalibrated(anchored, { scale: 1, overhead: 0, margin: 0, points: 3 }, view, total(view), typed)
    expect(count.shape).toBe('append')
    expect(count.calibrated_tokens).toBe(bill(view))
  })

  it('through the reducer: after a reading, the next turn is predicted without the first turn’s reasoning', () => {
    const config: Config = { ...DEFAULT_CONFIG, token_meter: 'calibrated' }
    const { run, add, ask, read } = responsesReducer(config)
    let state = run(makeInitialState(), [add({ role: 'user', content: 'go' }), ask, read(2000)])
    state = run(state, [add(reasoning()), add({ type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' }), add({ type: 'function_call_output', call_id: 'c1', output: 'ok' }), ask])
    // the current turn's reasoning is billed: the append shape adds it
    const inTurn = state.meter.stats
    expect(inTurn?.calibrated_tokens).toBeGreaterThanOrEqual(2000 + REASONING)
    state = run(state, [read(2000 + REASONING + 40), add({ role: 'assistant', content: 'Done.' }), add({ role: 'user', content: 'and now?' }), ask])
    const nextTurn = state.meter.stats
    // the new user message ends the turn: its reasoning leaves the count (append shape and model alike)
    expect(nextTurn?.calibrated_tokens).toBeLessThan(2000 + 60)
    expect(nextTurn?.calibrated_tokens).toBeGreaterThan(2000)
  })
})

describe('calibration_reasoning_context "all_turns": every turn’s reasoning passed back is billed (the GPT-5.6 family’s default)', () => {
  const first = piece({ role: 'user', content: 'go' })
  const answered = turn(reasoning(), { role: 'assistant', content: 'Done.' })
  const next = piece({ role: 'user', content: 'and now?' })
  const total = (view: ReadonlyArray<Message>) => view.reduce((sum, message) => sum + typed(message), 0)

  it('the pair, the model count and the append shape keep the earlier turns’ reasoning', () => {
    const view = [first, answered, next]
    expect(toSentView(view, typed, 'all_turns').estimate).toBe(total(view))
    const model = { scale: 1, overhead: 1000, margin: 0, points: 3 }
    expect(countCalibrated(EMPTY_CALIBRATION, model, view, total(view), typed, 'all_turns').model_tokens).toBe(1000 + total(view))
    const anchored = { ...EMPTY_CALIBRATION, anchor: { reading: 5000, view: toSentView([first, answered], typed, 'all_turns') } }
    // the provider bills the reading plus the new user message: nothing stops being billed
    expect(countCalibrated(anchored, model, view, total(view), typed, 'all_turns').calibrated_tokens).toBe(5000 + typed(next))
    // the default rule would count the first turn's reasoning as dropped: 580 under the bill
    expect(countCalibrated(anchored, model, view, total(view), typed).calibrated_tokens).toBe(5000 + typed(next) - REASONING)
  })

  it('through the reducer: the next turn is predicted with the first turn’s reasoning, and the pass measures with the estimator itself', () => {
    const config: Config = { ...DEFAULT_CONFIG, token_meter: 'calibrated', calibration_reasoning_context: 'all_turns' }
    const { run, add, ask, read } = responsesReducer(config)
    let state = run(makeInitialState(), [add({ role: 'user', content: 'go' }), ask, read(2000)])
    state = run(state, [add(reasoning()), add({ type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' }), add({ type: 'function_call_output', call_id: 'c1', output: 'ok' }), ask])
    state = run(state, [read(2000 + REASONING + 40), add({ role: 'assistant', content: 'Done.' }), add({ role: 'user', content: 'and now?' }), ask])
    expect(state.meter.stats?.calibrated_tokens).toBeGreaterThanOrEqual(2000 + REASONING + 40)
    const context = makePassContext(config, typed, {}, makeDerivationMemo())
    expect(withBilledEstimator(context, state.history)).toBe(context)
    expect(withBilledEstimator(makePassContext({ ...config, calibration_reasoning_context: 'current_turn' }, typed, {}, makeDerivationMemo()), state.history)).not.toBe(context)
  })
})

describe('a calibrated pass sizes its levels as billed', () => {
  // A provider that bills the rule: the typed estimate less the earlier turns' reasoning, plus 500
  // tokens of tools. Turns of a user message, sealed reasoning, a call, its output and an answer.
  const config: Config = { ...DEFAULT_CONFIG, token_meter: 'calibrated', compaction_notice_enabled: false, target_usage: 0.5 }
  const provider = (view: ReadonlyArray<Message>): number => view.reduce((sum, message) => sum + typed(message), 0) - measureUnbilledReasoning(view, typed) + 500

  it('a compaction lands the billed view near the target, not far under it (the earlier turns’ reasoning is not counted as room it frees)', () => {
    const step = makeStep({ config, estimate: makeCachedEstimator(estimateTyped), format: 'openai-responses' })
    let state = makeInitialState()
    const landed: number[] = []
    for (let index = 0; index < 90; index += 1) {
      const items = [
        { role: 'user', content: `step ${index} ` + 'please '.repeat(40) },
        reasoning(`turn ${index}`),
        { type: 'function_call', call_id: `c${index}`, name: 'read', arguments: '{}' },
        { type: 'function_call_output', call_id: `c${index}`, output: 'line '.repeat(60) },
        { role: 'assistant', content: 'ok '.repeat(30) },
      ]
      for (const message of items) state = step(state, { type: 'message_added', message, timestamp: NOW }).state
      const out = step(state, request({ tokenBudget: 8000 }))
      state = out.state
      const billed = provider(out.view ?? [])
      if (out.effects.some((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction')) landed.push(billed)
      state = step(state, { type: 'usage_observed', data: { usage: { input_tokens: billed, cache_write_tokens: 0 } } }).state
      expect(billed).toBeLessThanOrEqual(8000)
    }
    expect(landed.length).toBeGreaterThan(0)
    // the target is 4,000 billed tokens: every compaction lands within 10 % under it (3,938-3,997;
    // sizing the levels with the earlier turns' reasoning inside them, they landed at 2,814-3,320)
    for (const billed of landed) expect(billed).toBeGreaterThan(0.9 * 4000)
  })
})

describe('the provider model keeps its own count', () => {
  it('the replay’s counter is gpt-tokenizer over the text, not the typed estimator’s reasoning figure', () => {
    const counter = makeProviderCounter()
    expect(counter.name).toBe('gpt-tokenizer')
    // a stored Responses piece keeps its reasoning only in metadata, which the counter never reads
    const stored = turn(reasoning(), { role: 'assistant', content: 'Done.' })
    expect(counter.count(stored)).toBe(counter.count({ role: 'assistant', content: 'Done.' }))
    // and a raw reasoning item is counted as the tokenizer counts its strings, not as decoded reasoning
    expect(counter.count(reasoning())).not.toBe(REASONING)
  })

  it('without the tokenizer there is no provider counter: no fallback to the typed estimator recommended meters with', () => {
    expect(() => makeProviderCounter(() => {
      throw new Error('Cannot find module gpt-tokenizer')
    })).toThrow(/gpt-tokenizer/)
  })
})
