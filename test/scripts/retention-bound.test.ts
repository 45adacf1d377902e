// The oracle bound of scripts/retention-bound.ts on hand-made sessions (no shared sessions needed):
// prices worked out by hand, and on small random sessions the bound never exceeds the least cost
// found by trying every view sequence a class (a) policy could send, under the same assumptions.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/core/messages/message.js'
import type { Recording } from '../../src/core/replay/recording.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { toSessionMetrics } from '../../src/core/economics/metrics.js'
import { toRecallFigures, toViewMessageText } from '../../src/core/economics/recall.js'
import { makeProviderCounter } from '../../src/shell/estimators.js'
import {
  RELATIVE,
  boundCost,
  boundFacts,
  factsFor,
  maxFactsInRoom,
  minCostFor,
  toAnyExcerptPrices,
  toBoundRequests,
  toBudgetBound,
  toMessageStrings,
  toSessionBounds,
  toOracleExclusions,
  toOracleKeeps,
  toOracleMessage,
  toOraclePlan,
  toRunPrices,
  toSegments,
  toWholeOrHeadPrices,
  type BoundRequest,
} from '../../scripts/retention-bound.js'

// one token per character: prefix counts are then plain arithmetic
const chars = (text: string): number => text.length
const charsOfMessage = (message: Message): number => toMessageStrings(message).reduce((sum, text) => sum + text.length, 0)

/** A session of turns: each user message, then a request, then the assistant's answer. */
const toRecording = (turns: ReadonlyArray<readonly [string, string]>, system = 'You are an agent.'): Recording => ({
  config: {},
  now: '2026-01-01T00:00:00Z',
  ops: [
    { op: 'add_message', message: { role: 'system', content: system } },
    ...turns.flatMap(([user, answer]) => [
      { op: 'add_message' as const, message: { role: 'user', content: user } },
      { op: 'get_messages_for_request' as const },
      { op: 'add_message' as const, message: { role: 'assistant', content: answer } },
    ]),
  ],
})

describe('prices of one request', () => {
  it('class (a): a fact costs the head of its message through its first occurrence, shared with the facts before it', () => {
    const source: Message = { role: 'user', content: 'my id is mia_li_3668 and flight HAT076' }
    // mia_li_3668 ends at 20, HAT076 at 38: heads of 20 and 38 characters, the second holding both
    const prices = toWholeOrHeadPrices(['HAT076', 'mia_li_3668'], [source], chars)
    expect(prices).toEqual([19, 19])
    // holding both costs 38 (the head through HAT076); the bound charges 19 + 19 = 38: tight
    const alone = toWholeOrHeadPrices(['mia_li_3668'], [source], chars)
    expect(alone).toEqual([20])
  })

  it('class (a): the cheapest source wins, and a fact no source holds cannot be held', () => {
    const far: Message = { role: 'tool', tool_call_id: 'c1', content: `${'x'.repeat(100)} HAT076` }
    const near: Message = { role: 'assistant', content: 'HAT076 is full' }
    expect(toWholeOrHeadPrices(['HAT076', 'ZZZ999'], [far, near], chars)).toEqual([6, Infinity])
  })

  it('class (b): a fact costs its own tokens, or a share of a needed fact that contains it', () => {
    // '2024-05-20' holds '2024' too: 10 characters for 2 facts
    expect(toAnyExcerptPrices(['2024', '2024-05-20', 'HAT076'], chars)).toEqual([4, 5, 6])
  })
})

describe('prices under compare\'s cache rule', () => {
  it('a head first sent at one request and kept at the next is billed uncached once, then cached', () => {
    const big: Message = { role: 'tool', tool_call_id: 'c1', content: `rows ${'-'.repeat(40)} AB12 ${'-'.repeat(40)}` }
    const filler = (text: string): Message => ({ role: 'user', content: text })
    const system: Message = { role: 'system', content: 'sys' }
    const first = [system, big, filler('one'), filler('two')]
    const second = [...first, filler('three'), filler('four')]
    const fact = { fact: 'AB12', wholeOrHead: 0, anyExcerpt: 0 }
    const requests: BoundRequest[] = [
      { opIndex: 0, mandatoryTokens: 0, freshTokens: 0, historyTokens: 0, history: first, cut: 2, facts: [fact] },
      { opIndex: 1, mandatoryTokens: 0, freshTokens: 0, historyTokens: 0, history: second, cut: 4, facts: [fact] },
    ]
    const head = `rows ${'-'.repeat(40)} AB12`.length
    // the big result was never one of the last two: no whole message to keep on from the cache
    const run = toRunPrices(requests, charsOfMessage, chars, 0.1)
    expect(run.wholeOrHead.map((row) => row[0])).toEqual([(head * 1.1) / 2, (head * 1.1) / 2])
    expect(run.anyExcerpt.map((row) => row[0])).toEqual([(4 * 1.1) / 2, (4 * 1.1) / 2])
    // and the least cost of any view sequence holding it twice is exactly that
    const bounds = toSessionBounds(requests, { uncached: 1, cached: 0.5 }, Infinity, charsOfMessage, chars)
    const previous = bruteForce(requests, 0.1, 'previous')
    expect(previous[2] - previous[0]).toBeCloseTo(head * 1.1, 9)
    expect(boundCost(bounds.relative, 'runA', 2) - boundCost(bounds.relative, 'runA', 0)).toBeCloseTo(head * 1.1, 9)
  })

  it('ties: facts ending at the same place share the head', () => {
    expect(toWholeOrHeadPrices(['QAB12', 'AB12'], [{ role: 'user', content: 'see QAB12' }], chars)).toEqual([4.5, 4.5])
  })
})

describe('requests of a session', () => {
  it('needed facts are the recall measure\'s; mandatory = system + last two; fresh = never in the history before', () => {
    const recording = toRecording([
      ['my user id is mia_li_3668', 'Which flight?'],
      ['flight HAT076 please', 'Booked HAT076 for you'],
      ['thanks', 'Anything else for mia_li_3668 on HAT076?'],
    ])
    const requests = toBoundRequests(recording, charsOfMessage, chars)
    // request 1's answer names HAT076, which is in the last two; request 2's names the id (needed) and HAT076 (in the last two again)
    expect(requests.map((request) => request.facts.map((fact) => fact.fact))).toEqual([[], [], ['mia_li_3668']])
    // request 1: history = system, user 1, assistant 1, user 2; last two = assistant 1, user 2
    // (this counter counts every string of a message, its role too)
    expect(requests[1].mandatoryTokens).toBe('systemYou are an agent.'.length + 'assistantWhich flight?'.length + 'userflight HAT076 please'.length)
    expect(requests[1].freshTokens).toBe('assistantWhich flight?'.length + 'userflight HAT076 please'.length)
    expect(requests[0].freshTokens).toBe(requests[0].mandatoryTokens)
    // the head of user 1 through the id, 25 characters
    expect(requests[2].facts[0].wholeOrHead).toBe('my user id is mia_li_3668'.length)
    expect(requests[2].facts[0].anyExcerpt).toBe('mia_li_3668'.length)
  })
})

describe('budget-capped bound', () => {
  it('counts the cheapest facts that fit beside the mandatory part, none when the mandatory part does not fit', () => {
    expect(maxFactsInRoom([5, 3, 9], 8)).toBe(2)
    expect(maxFactsInRoom([5, 3, 9], 7)).toBe(1)
    expect(maxFactsInRoom([5], -1)).toBe(0)
    const request = (mandatoryTokens: number, heads: number[], excerpts: number[]): BoundRequest => ({
      opIndex: 0,
      mandatoryTokens,
      freshTokens: 0,
      historyTokens: 0,
      history: [],
      cut: 0,
      facts: heads.map((head, index) => ({ fact: `f${index}`, wholeOrHead: head, anyExcerpt: excerpts[index] })),
    })
    const bound = toBudgetBound([request(90, [4, 20], [2, 3]), request(120, [1], [1])], 100)
    expect(bound).toEqual({ needed: 3, wholeOrHead: 1, anyExcerpt: 2, unfit: 1 })
  })
})

/**
 * Every view sequence a class (a) policy can send on a small session, billed with the bound's
 * assumptions taken literally (this file's own arithmetic): a message kept whole or cut after any
 * needed fact's end; per request ratio x its tokens, plus (1 - ratio) x the tokens the previous
 * view did not hold as the identical piece (compare's cache rule), the mandatory part included.
 * Returns the least cost of each recalled count.
 */
const bruteForce = (requests: ReadonlyArray<BoundRequest>, ratio: number, rule: 'basic' | 'previous'): number[] => {
  type Piece = string // `${position}:${cut}`
  let states = new Map<string, { pieces: ReadonlySet<Piece>; cost: number; recalled: number }[]>([['', [{ pieces: new Set(), cost: 0, recalled: 0 }]]])
  let seen = new Set<string>()
  requests.forEach((request) => {
    const sources = request.history.map((message, position) => ({ message, position })).filter(({ message, position }) => position < request.cut && message.role !== 'system')
    const options = sources.map(({ message, position }) => {
      const text = typeof message.content === 'string' ? message.content : ''
      const cuts = new Set<number>([text.length])
      for (const { fact } of request.facts) if (text.includes(fact)) cuts.add(text.indexOf(fact) + fact.length)
      // kept whole: the whole message is sent (its role too); cut: at least the head of its content
      return [null, ...[...cuts].map((cut) => (cut === text.length ? { piece: `${position}:whole`, text, tokens: charsOfMessage(message) } : { piece: `${position}:${cut}`, text: text.slice(0, cut), tokens: cut }))]
    })
    const mandatory = request.history.map((message, position) => ({ message, position })).filter(({ message, position }) => message.role === 'system' || position >= request.cut)
    const next = new Map<string, { pieces: ReadonlySet<Piece>; cost: number; recalled: number }[]>()
    const combos: Array<Array<{ piece: string; text: string; tokens: number } | null>> = [[]]
    for (const choices of options) {
      const grown: typeof combos = []
      for (const combo of combos) for (const choice of choices) grown.push([...combo, choice])
      combos.splice(0, combos.length, ...grown)
    }
    for (const [, list] of states) {
      for (const state of list) {
        for (const combo of combos) {
          const pieces = new Set<Piece>()
          let cost = 0
          for (const { message, position } of mandatory) {
            const piece = `${position}:whole`
            pieces.add(piece)
            const tokens = charsOfMessage(message)
            const fresh = rule === 'basic' ? !seen.has(piece) : !state.pieces.has(piece)
            cost += ratio * tokens + (fresh ? (1 - ratio) * tokens : 0)
          }
          const texts: string[] = []
          for (const choice of combo) {
            if (choice === null) continue
            pieces.add(choice.piece)
            texts.push(choice.text)
            const cached = rule === 'basic' || state.pieces.has(choice.piece)
            cost += choice.tokens * (cached ? ratio : 1)
          }
          const recalled = request.facts.filter(({ fact }) => texts.some((text) => text.includes(fact))).length
          const key = [...pieces].sort().join('|')
          const item = { pieces, cost: state.cost + cost, recalled: state.recalled + recalled }
          next.set(key, [...(next.get(key) ?? []), item])
        }
      }
    }
    // keep, per piece set, only the states no other beats on both cost and recall
    for (const [key, list] of next) next.set(key, list.filter((item) => !list.some((other) => other !== item && other.cost <= item.cost && other.recalled >= item.recalled && (other.cost < item.cost || other.recalled > item.recalled))))
    states = next
    seen = new Set([...seen, ...request.history.map((_, position) => `${position}:whole`)])
  })
  const total = requests.reduce((sum, request) => sum + request.facts.length, 0)
  const best = new Array<number>(total + 1).fill(Infinity)
  for (const [, list] of states) for (const item of list) for (let count = 0; count <= item.recalled; count += 1) best[count] = Math.min(best[count], item.cost)
  return best
}

const FACTS = ['AB12', 'QAB12', 'CD34', '2024', '2024-05', 'x_y9']
const word = fc.oneof(fc.constantFrom(...FACTS), fc.constantFrom('the', 'flight', 'is', 'ok', 'and'))
const text = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '))
const session = fc.array(fc.tuple(text, text), { minLength: 2, maxLength: 4 })

describe('the bound never exceeds the least cost of any class (a) view sequence', () => {
  it('hand-made session: tight where a single head holds the fact', () => {
    const recording = toRecording([
      ['code AB12 here', 'noted'],
      ['go on', 'AB12'],
    ])
    const requests = toBoundRequests(recording, charsOfMessage, chars)
    const bounds = toSessionBounds(requests, { uncached: 1, cached: 0.5 }, Infinity, charsOfMessage, chars)
    const basic = bruteForce(requests, 0.1, 'basic')
    const previous = bruteForce(requests, 0.1, 'previous')
    // no fact held: exactly the mandatory cost under either rule
    expect(boundCost(bounds.relative, 'basicA', 0)).toBeCloseTo(basic[0], 9)
    expect(boundCost(bounds.relative, 'runA', 0)).toBeCloseTo(previous[0], 9)
    // the head 'code AB12' (9) at request 1, cached: 0.9
    expect(boundCost(bounds.relative, 'basicA', 1)).toBeCloseTo(basic[1], 9)
    expect(basic[1] - basic[0]).toBeCloseTo(0.9, 9)
    // under compare's rule a new head would be billed uncached (9); keeping user 1 whole from the
    // request where it was one of the last two is cheaper: 0.1 x its 18 characters (role included)
    expect(boundCost(bounds.relative, 'runA', 1)).toBeCloseTo(previous[1], 9)
    expect(previous[1] - previous[0]).toBeCloseTo(1.8, 9)
  })

  it('random small sessions, relative units and a dearer cache (ratio 0.5)', () => {
    fc.assert(
      fc.property(session, (turns) => {
        const requests = toBoundRequests(toRecording(turns), charsOfMessage, chars)
        const bounds = toSessionBounds(requests, { uncached: 1, cached: 0.5 }, Infinity, charsOfMessage, chars)
        for (const [set, ratio] of [[bounds.relative, 0.1], [bounds.usd, 0.5]] as const) {
          const basic = bruteForce(requests, ratio, 'basic')
          const previous = bruteForce(requests, ratio, 'previous')
          basic.forEach((cost, count) => {
            expect(boundCost(set, 'basicA', count)).toBeLessThanOrEqual(cost + 1e-9)
            expect(boundCost(set, 'basicB', count)).toBeLessThanOrEqual(cost + 1e-9)
          })
          previous.forEach((cost, count) => {
            expect(boundCost(set, 'runA', count)).toBeLessThanOrEqual(cost + 1e-9)
            expect(boundCost(set, 'runB', count)).toBeLessThanOrEqual(cost + 1e-9)
          })
          // every fact is reachable by keeping messages whole, so both agree on the maximum
          expect(boundCost(set, 'runA', basic.length - 1)).toBeLessThan(Infinity)
        }
      }),
      { numRuns: 60, seed: 20261202 },
    )
  })
})

describe('against compare\'s provider and cache model (gpt-tokenizer, the library\'s replay)', () => {
  it('a never-compacting replay costs at least the bound at its recall, and its input is the bound\'s full-view count', () => {
    const filler = 'The reservation was checked against the policy and nothing else changed. '.repeat(30)
    const recording = toRecording([
      [`my user id is mia_li_3668. ${filler}`, 'Which reservation?'],
      [`reservation ZFA04Y on 2024-05-20. ${filler}`, 'Checking ZFA04Y for mia_li_3668.'],
      [`and flight HAT076 too. ${filler}`, 'Booked HAT076 on 2024-05-20 for mia_li_3668, reservation ZFA04Y.'],
      ['thanks', 'Done: HAT076, ZFA04Y.'],
    ], `# Policy\n${filler}`)
    const counter = makeProviderCounter().count
    const result = replayRecording(recording, { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai', count: counter } })
    const metrics = toSessionMetrics(result, recording, { kind: 'budget' }, { input: 2.5, cached_input: 1.25, cache_write: 0, output: 10, source: 'test' })
    const requests = toBoundRequests(recording, counter, (text) => counter({ role: 'user', content: text }) - 4)
    const bounds = toSessionBounds(requests, { uncached: 2.5e-6, cached: 1.25e-6 }, Infinity, counter, (text) => counter({ role: 'user', content: text }) - 4)
    expect(metrics.needed_facts).toBe(requests.reduce((sum, request) => sum + request.facts.length, 0))
    expect(metrics.needed_facts).toBeGreaterThan(0)
    expect(metrics.recalled_facts).toBe(metrics.needed_facts)
    expect(metrics.input_tokens).toBe(requests.reduce((sum, request) => sum + request.historyTokens, 0))
    expect(metrics.relative_cost).toBeGreaterThanOrEqual(boundCost(bounds.relative, 'runA', metrics.recalled_facts))
    expect(metrics.cost_usd).toBeGreaterThanOrEqual(boundCost(bounds.usd, 'runA', metrics.recalled_facts) - 1e-12)
    // and the caps: the most facts within the measured cost is all of them
    expect(boundFacts(bounds.relative, 'runA', metrics.relative_cost)).toBe(metrics.needed_facts)
    expect(minCostFor(bounds.relative.basicB, 0)).toBeLessThanOrEqual(metrics.relative_cost)
    expect(factsFor(612, 0.85)).toBe(521)
    expect(RELATIVE.cached).toBe(0.1)
  })
})

describe('the oracle (a witness, not a bound)', () => {
  // user asks; the agent calls a tool whose result holds the facts; later answers name them
  const filler = '-'.repeat(200)
  const call = (id: string, args: string): Message => ({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'get', arguments: args } }] })
  const result = (id: string, text: string): Message => ({ role: 'tool', tool_call_id: id, content: text })
  const say = (role: 'user' | 'assistant', text: string): Message => ({ role, content: text })
  const ops: Recording['ops'] = [
    { op: 'add_message', message: { role: 'system', content: 'sys' } },
    { op: 'add_message', message: say('user', 'look up my booking') },
    { op: 'get_messages_for_request' },
    { op: 'add_message', message: call('c1', '{"q":"booking"}') },
    { op: 'add_message', message: result('c1', `booking ZFA04Y flight HAT076 ${filler}`) },
    { op: 'get_messages_for_request' },
    { op: 'add_message', message: say('assistant', 'Found it.') },
    { op: 'add_message', message: say('user', 'which flight?') },
    { op: 'get_messages_for_request' },
    { op: 'add_message', message: say('assistant', 'Flight HAT076.') },
    { op: 'add_message', message: say('user', 'and the booking code?') },
    { op: 'get_messages_for_request' },
    { op: 'add_message', message: say('assistant', 'It is ZFA04Y.') },
  ]
  const recording: Recording = { config: {}, now: '2026-01-01T00:00:00Z', ops }
  const requests = toBoundRequests(recording, charsOfMessage, chars)
  const viewsOf = (keeps: ReadonlyArray<ReadonlySet<number>>, plan: ReturnType<typeof toOraclePlan>): Message[][] =>
    requests.map((request, q) => request.history.flatMap((message, position) => (keeps[q].has(position) ? [position < request.cut ? toOracleMessage(message, plan.cuts.get(position)) : message] : [])))

  it('keeps the tool group of each needed fact (call with result) until its last use, cut after the facts with heads', () => {
    expect(toSegments(requests)).toEqual([[0, 1, 2, 3]])
    const plan = toOraclePlan(requests, toViewMessageText, charsOfMessage, true)
    // the result is cut after HAT076, its last served fact
    expect(plan.cuts.get(3)).toBe('booking ZFA04Y flight HAT076'.length)
    const views = viewsOf(toOracleKeeps(requests, plan, new Set(), 0.1, Infinity), plan)
    expect(toRecallFigures(recording, views).recall).toBe(1)
    // every kept tool result has its call right before it
    for (const view of views) view.forEach((message, index) => message.role === 'tool' && expect(view[index - 1]?.tool_calls).toBeDefined())
    // the last request keeps the group (ZFA04Y is still needed) but not 'Found it.' once it is no longer one of the last two
    expect(views[3].map((message) => message.content)).toEqual(['sys', '', 'booking ZFA04Y flight HAT076', 'Flight HAT076.', 'and the booking code?'])
  })

  it('within a budget it drops serving units, never the mandatory part; a target leaves the dearest units out', () => {
    const plan = toOraclePlan(requests, toViewMessageText, charsOfMessage, false)
    const budgets = requests.map((request) => request.mandatoryTokens)
    const views = viewsOf(toOracleKeeps(requests, plan, new Set(), 0.1, budgets), plan)
    views.forEach((view, q) => expect(view.reduce((sum, message) => sum + charsOfMessage(message), 0)).toBeLessThanOrEqual(budgets[q]))
    expect(toRecallFigures(recording, views).recalled_facts).toBe(0)
    expect(toOracleExclusions([plan], 0)[0].size).toBe(1)
    expect(toOracleExclusions([plan], 1)[0].size).toBe(0)
  })
})
