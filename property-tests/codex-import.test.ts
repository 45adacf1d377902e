// The Codex rollout importer on generated rollouts (src/shell/importers/codex.ts): whatever the
// order Codex wrote usage in (before its turn's items, as 0.45 does, or after), with repeated
// totals, null infos and prompts carried by a response_item, a user_message event or both in
// either order, the recording holds every item once in file order, each prompt once, one
// llm_response per distinct total right after the request of the turn it describes, and its
// openai-responses views break no pairing rule at any budget.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import { toRequestView } from '../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import { replayRecording } from '../src/core/replay/replay.js'
import { importCodexRollout } from '../src/shell/importers/codex.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

type PromptShape = 'item' | 'event' | 'item-event' | 'event-item' | 'none'
interface Response {
  readonly reasoning: boolean
  readonly calls: number // 0: an assistant message
  readonly usage: boolean
}
interface Turn {
  readonly prompt: PromptShape
  readonly text: string
  readonly responses: ReadonlyArray<Response>
}
interface Rollout {
  readonly leading: boolean
  readonly repeats: boolean
  readonly nulls: boolean
  readonly instructions: boolean
  readonly turns: ReadonlyArray<Turn>
  readonly budget: number
}

// A response without usage has a call: its output separates it from the next response. (Two
// answers with neither an input nor a token count between them are one model turn to any reader.)
const responseArb: fc.Arbitrary<Response> = fc
  .record({ reasoning: fc.boolean(), calls: fc.integer({ min: 0, max: 3 }), usage: fc.boolean() })
  .map((response) => (response.usage || response.calls > 0 ? response : { ...response, calls: 1 }))
const turnArb: fc.Arbitrary<Turn> = fc.record({
  prompt: fc.constantFrom<PromptShape>('item', 'event', 'item-event', 'event-item', 'none'),
  text: fc.string({ minLength: 1, maxLength: 30 }),
  responses: fc.array(responseArb, { minLength: 1, maxLength: 4 }),
})
const rolloutArb: fc.Arbitrary<Rollout> = fc.record({
  leading: fc.boolean(),
  repeats: fc.boolean(),
  nulls: fc.boolean(),
  instructions: fc.boolean(),
  turns: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
  budget: fc.integer({ min: 200, max: 4000 }),
})

interface Built {
  readonly text: string
  /** The items the recording must add, in order (without metadata). */
  readonly items: ReadonlyArray<Record<string, unknown>>
  /** The input_tokens of each response that has usage, in order, and the index of its first item in `items`. */
  readonly usages: ReadonlyArray<{ readonly input: number; readonly firstItem: number }>
}

const build = (rollout: Rollout): Built => {
  const lines: string[] = []
  const items: Array<Record<string, unknown>> = []
  const usages: Array<{ input: number; firstItem: number }> = []
  let n = 0
  let total = 0
  let last: string | null = null
  const emit = (type: string, payload: unknown): void => {
    n += 1
    lines.push(JSON.stringify({ timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(), type, payload }))
  }
  const tokenCount = (input: number): void => {
    total += input + 5
    const info = {
      total_token_usage: { input_tokens: total, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: total },
      last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: input + 5 },
      model_context_window: 272000,
    }
    last = JSON.stringify(info)
    emit('event_msg', { type: 'token_count', info })
  }
  const repeat = (): void => {
    if (rollout.repeats && last !== null) emit('event_msg', { type: 'token_count', info: JSON.parse(last) })
    if (rollout.nulls) emit('event_msg', { type: 'token_count', info: null })
  }
  const add = (payload: Record<string, unknown>): void => {
    items.push(payload)
    emit('response_item', payload)
  }
  emit('session_meta', { id: 'generated', instructions: rollout.instructions ? 'You are Codex.' : null })
  if (rollout.instructions) items.push({ type: 'message', role: 'system', content: 'You are Codex.' })
  let call = 0
  rollout.turns.forEach((turn, t) => {
    emit('turn_context', { model: 'gpt-5-codex' })
    repeat()
    const text = `${turn.text} #${t}`
    const message = { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }
    const event = { type: 'user_message', message: text, images: [] }
    if (turn.prompt === 'item' || turn.prompt === 'item-event') add(message)
    if (turn.prompt === 'event-item') {
      emit('event_msg', event)
      add(message)
    } else if (turn.prompt === 'event' || turn.prompt === 'item-event') {
      emit('event_msg', event)
      if (turn.prompt === 'event') items.push(message)
    }
    turn.responses.forEach((response, r) => {
      const input = 1000 * (t + 1) + r
      if (response.usage && rollout.leading) tokenCount(input)
      const first = items.length
      if (response.usage) usages.push({ input, firstItem: first })
      if (response.reasoning) add({ type: 'reasoning', summary: [], content: null, encrypted_content: `enc-${t}-${r}` })
      const ids: string[] = []
      if (response.calls === 0) add({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${t}.${r}` }] })
      for (let c = 0; c < response.calls; c += 1) {
        call += 1
        ids.push(`call_${call}`)
        add({ type: 'function_call', name: 'shell', arguments: '{}', call_id: `call_${call}`, ...(c % 2 === 1 ? { namespace: 'tools' } : {}) })
      }
      if (response.usage && !rollout.leading) tokenCount(input)
      for (const id of ids) add({ type: 'function_call_output', call_id: id, output: `output of ${id} `.repeat(1 + (call % 5) * 20) })
      repeat()
    })
  })
  return { text: lines.join('\n'), items, usages }
}

const strip = (message: Record<string, unknown>): Record<string, unknown> => {
  const { metadata: _metadata, ...rest } = message
  return rest
}

describe('Codex rollout import (generated rollouts)', () => {
  it('every item once in order, one usage per distinct total on its own turn, and valid Responses views', () => {
    runProperty(
      'codex-import',
      fc.property(rolloutArb, (rollout) => {
        const built = build(rollout)
        const recording = importCodexRollout(built.text, 'generated.jsonl')
        const added: Array<Record<string, unknown>> = []
        const usageAt = new Map<number, number>() // index in `added` of the next added item -> input_tokens
        recording.ops.forEach((op, index) => {
          if (op.op === 'add_message') added.push(strip(op.message as Record<string, unknown>))
          if (op.op === 'llm_response') {
            if (recording.ops[index - 1]?.op !== 'get_messages_for_request') throw new Error(`llm_response at op ${index} does not follow a request`)
            usageAt.set(added.length, (op.usage as { input_tokens: number }).input_tokens)
          }
        })
        if (JSON.stringify(added) !== JSON.stringify(built.items)) throw new Error(`items differ:\n${JSON.stringify(added)}\n${JSON.stringify(built.items)}`)
        const expected = new Map(built.usages.map((usage) => [usage.firstItem, usage.input]))
        if (JSON.stringify([...usageAt]) !== JSON.stringify([...expected])) throw new Error(`usage placement ${JSON.stringify([...usageAt])} != ${JSON.stringify([...expected])}`)
        // replayed in its own format at a tight budget: no pairing rule broken
        const decoded = decodeConfig({})
        if (E.isLeft(decoded)) throw decoded.left
        const tight = { ...recording, ops: recording.ops.map((op) => (op.op === 'get_messages_for_request' ? { op: op.op, token_budget: rollout.budget } : op)) }
        const result = replayRecording(tight, { config: decoded.right.config, estimate: makeCachedEstimator() })
        for (const line of result.lines) {
          if (line.view === null) continue
          const problems = toRequestView('openai-responses', line.view).problems
          if (problems.length > 0) throw new Error(`op ${line.op_index}: ${problems.join('; ')}`)
        }
      }),
      numRuns,
    )
  })
})
