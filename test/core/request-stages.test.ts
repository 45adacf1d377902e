// The request pipeline's stages (src/core/request/): each stage writes only the slices its
// `writes` names (src/core/request/types.ts), and a request refused under `provider_rules:
// "refuse"` (docs/formats.md) ends with a `raise_error` effect and no view (src/core/effects.ts).
import { describe, expect, it } from 'vitest'
import type { Config } from '../../src/core/config.js'
import type { Event, RequestReceived } from '../../src/core/events.js'
import type { Message } from '../../src/core/messages/message.js'
import { makeDerivationMemo } from '../../src/core/memo/derivation-memo.js'
import { estimateOne } from '../../src/core/meter/estimate.js'
import { applySpillsAnswered } from '../../src/core/reducer.js'
import { REQUEST_STAGES, startDraft } from '../../src/core/request/index.js'
import { toRequestFacts } from '../../src/core/request/facts.js'
import type { RequestDraft } from '../../src/core/request/types.js'
import { makeInitialState, type State } from '../../src/core/state.js'
import { added, calls, configOf, effectsOf, fold, hookNames, request, result, stepFor, user } from '../support/core.js'

const text = (tag: string, length: number): string => `${tag} `.padEnd(length, '.')

/** A session of `turns` tool turns of `size` characters each. */
const turns = (count: number, size: number): Message[] =>
  Array.from({ length: count }, (_, i) => [user(`question ${i}`), calls([`c${i}`]), result(`c${i}`, text(`output ${i}`, size))]).flat()

/** Each stage run over one request as `applyRequest` runs them; the keys of every stage's slices against its `writes`. */
const writtenOutside = (config: Config, state: State, event: RequestReceived): string[] => {
  const memo = makeDerivationMemo()
  const facts = toRequestFacts({ config, estimate: estimateOne }, memo, state, event)
  let draft: RequestDraft = startDraft(state, facts.working)
  const outside: string[] = []
  for (const stage of REQUEST_STAGES) {
    const output = stage.run(facts, draft)
    for (const key of Object.keys(output.slices ?? {})) if (!(stage.writes as ReadonlyArray<string>).includes(key)) outside.push(`${stage.name}: ${key}`)
    if (output.replace !== undefined || output.stop === true) break
    draft = { ...draft, slices: { ...draft.slices, ...output.slices }, list: output.list ?? draft.list }
  }
  return outside
}

describe('each request stage writes only its own slices', () => {
  // [name, config, budget, request fields, whether the first request compacts]
  const cases: Array<[string, Record<string, unknown>, number, Partial<RequestReceived>, boolean]> = [
    ['a plain request', {}, 100_000, {}, false],
    ['a compacting request', { compaction_notice_enabled: true }, 3000, {}, true],
    ['a compacting request under "report" with sticky decisions after', { compaction_floor_guard: 'report', protected_recent_tokens: 500 }, 2000, {}, true],
    ['a summary request', { compaction_strategy: 'summary' }, 3000, {}, true],
    ['strict fit', { strict_fit: true }, 300, {}, false],
    ['the calibrated meter, a provider shape', { token_meter: 'calibrated' }, 3000, { shape: { format: 'anthropic', repair: false } }, true],
  ]
  for (const [name, raw, budget, extra, compacts] of cases) {
    it(name, () => {
      const config = configOf(raw)
      const events: Event[] = turns(12, 800).map((message) => added(message))
      const step = stepFor(config)
      const { state } = fold(step, events)
      const event = request({ tokenBudget: budget, ...extra })
      expect(writtenOutside(config, state, event)).toEqual([])
      // A second request, on the state the first one left (sticky decisions, a pending summary).
      const first = step(state, event)
      expect(hookNames(first.effects).includes('context:compaction')).toBe(compacts)
      const after = first.state
      expect(writtenOutside(config, after, event)).toEqual([])
    })
  }
})

describe('provider_rules "refuse" at request time (docs/formats.md)', () => {
  // A result whose call never appeared: what only the history shows the provider would refuse.
  const messages = [user('q'), result('ghost', 'ok'), user('and?')]
  const shape = { format: 'contract', repair: false } as const

  it('the step raises InvalidMessageError and has no view', () => {
    const step = stepFor({ provider_rules: 'refuse' })
    const { state } = fold(step, messages.map((message) => added(message)))
    const refused = step(state, request({ tokenBudget: 10_000, shape }))
    expect(effectsOf(refused.effects, 'raise_error').map((effect) => effect.name)).toEqual(['InvalidMessageError'])
    expect(refused.view).toBeUndefined()
    expect(refused.output).toBeUndefined()
  })

  it('so does the spills_answered event that makes the view of a request that spilled', () => {
    const config = configOf({ provider_rules: 'refuse' })
    const answered = applySpillsAnswered(config, makeInitialState(), { type: 'spills_answered', answers: [], view: messages, shape })
    expect(effectsOf(answered.effects, 'raise_error').map((effect) => effect.name)).toEqual(['InvalidMessageError'])
    expect(answered.view).toBeUndefined()
    expect(answered.output).toBeUndefined()
  })

  it('under "warn" the same request has its view', () => {
    const step = stepFor({ provider_rules: 'warn' })
    const { state } = fold(step, messages.map((message) => added(message)))
    const sent = step(state, request({ tokenBudget: 10_000, shape }))
    expect(effectsOf(sent.effects, 'raise_error')).toEqual([])
    expect(sent.view?.length).toBe(3)
  })
})
