// The Anthropic rule check, resumed or not (`findAnthropicViolations`, src/core/formats/anthropic.ts),
// against the check as it was before it could resume (main 6c59b1b: one walk over the whole view,
// kept here verbatim as the reference): for random chains of views, each made from the last by
// appending (new messages, or objects already in the view again), cutting, inserting, removing,
// replacing, shrinking then growing to the same length, punching a hole, copying every message
// (structuredClone: equal, not the same objects) or checking once with `thinkingSource` (the walk
// left alone), one walk carried along finds exactly the reference's problems, in its order. Ids
// include numbers, null and undefined; blocks include non-objects; messages include arrays.
// (property-tests/anthropic-check.test.ts compares the walk with a check from nothing, which is
// itself the resumable code.)
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toBlocks } from '../src/core/formats/carrier.js'
import { canonicalJson, findAnthropicViolations, makeAnthropicCheckWalk } from '../src/core/formats/anthropic.js'
import { isPlainObject } from '../src/core/messages/values.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 300)
const MESSAGE_KEYS = new Set(['role', 'content'])
const blocksOf = (content: unknown): ReadonlyArray<Readonly<Record<string, unknown>>> => toBlocks(content).filter((b): b is Readonly<Record<string, unknown>> => isPlainObject(b))
interface Turn { readonly role: unknown; readonly blocks: Array<Readonly<Record<string, unknown>>> }
/** The check of main 6c59b1b, verbatim but for its doc comment. */
const original = (view: unknown, options: { thinkingSource?: ReadonlySet<string> } = {}): ReadonlyArray<string> => {
  const problems: string[] = []
  const messages = isPlainObject(view) ? view.messages : view
  if (!Array.isArray(messages)) return ['A1 view has no messages list']
  const turns: Turn[] = []
  messages.forEach((message: unknown, index) => {
    const m = isPlainObject(message) ? message : {}
    if (m.role !== 'user' && m.role !== 'assistant') problems.push(`A1 message ${index} role ${JSON.stringify(m.role ?? null)}`)
    const extra = Object.keys(m).filter((key) => !MESSAGE_KEYS.has(key))
    if (extra.length > 0) problems.push(`A7 message ${index} extra keys ${extra.sort().join(', ')}`)
    if (m.content === '' || (Array.isArray(m.content) && m.content.length === 0)) problems.push(`A8 message ${index} has empty content`)
    blocksOf(m.content).forEach((block, b) => {
      if (Array.isArray(m.content) && block.type === 'text' && block.text === '') problems.push(`A8 message ${index} block ${b} is an empty text block`)
    })
    const last = turns[turns.length - 1]
    if (last !== undefined && last.role === m.role) last.blocks.push(...blocksOf(m.content))
    else turns.push({ role: m.role, blocks: [...blocksOf(m.content)] })
  })
  if (turns.length > 0 && turns[0].role !== 'user') problems.push('A5 first turn is not user')
  const seen = new Set<unknown>()
  turns.forEach((turn, t) => {
    if (turn.role === 'assistant') {
      const ids = turn.blocks.filter((block) => block.type === 'tool_use').map((block) => block.id)
      for (const id of ids) {
        if (seen.has(id)) problems.push(`A4 duplicate tool_use id ${String(id)}`)
        seen.add(id)
      }
      if (options.thinkingSource !== undefined) {
        for (const block of turn.blocks) {
          if ((block.type === 'thinking' || block.type === 'redacted_thinking') && !options.thinkingSource.has(canonicalJson(block))) problems.push(`A6 turn ${t} has a thinking block not found verbatim in the source`)
        }
      }
      if (ids.length === 0 || t + 1 >= turns.length) return
      const next = turns[t + 1]
      const answered = new Set(next.blocks.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id))
      const missing = ids.filter((id) => !answered.has(id))
      if (missing.length > 0 && t + 2 < turns.length) problems.push(`A2 tool_use ${missing.slice(0, 3).map(String).join(', ')} of turn ${t} unanswered in the next turn`)
      const kinds = next.blocks.map((block) => block.type === 'tool_result')
      const lastResult = kinds.lastIndexOf(true)
      const firstOther = kinds.indexOf(false)
      if (lastResult >= 0 && firstOther >= 0 && firstOther < lastResult) problems.push(`A2 turn ${t + 1} has other blocks before its tool_result blocks`)
      return
    }
    const previous = t > 0 && turns[t - 1].role === 'assistant' ? new Set(turns[t - 1].blocks.filter((block) => block.type === 'tool_use').map((block) => block.id)) : new Set<unknown>()
    const results = new Set<unknown>()
    for (const block of turn.blocks) {
      if (block.type !== 'tool_result') continue
      if (!previous.has(block.tool_use_id)) problems.push(`A3 tool_result ${String(block.tool_use_id)} in turn ${t} answers no tool_use of the turn before`)
      if (results.has(block.tool_use_id)) problems.push(`A9 tool_use ${String(block.tool_use_id)} answered twice in turn ${t}`)
      results.add(block.tool_use_id)
    }
  })
  return problems
}

const ID = fc.constantFrom<unknown>('t1', 't2', 't3', 1, null, undefined)
const blockArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.constantFrom('', 'a') }),
  { arbitrary: fc.record({ type: fc.constant('tool_use'), id: ID, name: fc.constant('bash'), input: fc.constant({}) }), weight: 4 },
  { arbitrary: fc.record({ type: fc.constant('tool_result'), tool_use_id: ID, content: fc.constant('ok') }), weight: 4 },
  fc.record({ type: fc.constantFrom('thinking', 'redacted_thinking'), thinking: fc.constantFrom('x', 'y'), signature: fc.constant('s') }),
  fc.constantFrom<unknown>(null, 'str', 3),
)
const freshMessage: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(fc.constantFrom<unknown>('', 'hi', 5, null), fc.array(blockArb, { maxLength: 4 })) }), weight: 12 },
  fc.record({ role: fc.constantFrom<unknown>('system', 'tool', undefined), content: fc.constant('x') }),
  fc.record({ role: fc.constant('user'), content: fc.constant('x'), name: fc.constant('n') }),
  fc.constantFrom<unknown>(null, 'text', 7, ['user']),
)

type Change =
  | { kind: 'append'; messages: unknown[]; reuse: number[] }
  | { kind: 'cut'; at: number }
  | { kind: 'insert'; at: number; message: unknown }
  | { kind: 'remove'; at: number }
  | { kind: 'replace'; at: number; message: unknown }
  | { kind: 'shrinkGrow'; at: number; messages: unknown[] }
  | { kind: 'hole'; at: number }
  | { kind: 'copy' }
  | { kind: 'thinking' }
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(freshMessage, { maxLength: 4 }), reuse: fc.array(fc.nat(), { maxLength: 3 }) }), weight: 6 },
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), message: freshMessage }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), message: freshMessage }),
  { arbitrary: fc.record({ kind: fc.constant('shrinkGrow' as const), at: fc.nat(), messages: fc.array(freshMessage, { minLength: 1, maxLength: 4 }) }), weight: 3 },
  fc.record({ kind: fc.constant('hole' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('copy' as const) }),
  fc.record({ kind: fc.constant('thinking' as const) }),
)

const apply = (prev: unknown[], c: Change): unknown[] => {
  const next = [...prev]
  const i = (at: number): number => at % Math.max(1, next.length)
  switch (c.kind) {
    case 'append': return [...next, ...c.reuse.map((r) => (next.length > 0 ? next[r % next.length] : null)), ...c.messages]
    case 'cut': return next.slice(0, i(c.at))
    case 'insert': next.splice(i(c.at), 0, c.message); return next
    case 'remove': next.splice(i(c.at), 1); return next
    case 'replace': if (next.length > 0) next[i(c.at)] = c.message; return next
    case 'shrinkGrow': { const cut = next.slice(0, Math.max(0, next.length - c.messages.length)); return [...cut, ...c.messages] }
    case 'hole': if (next.length > 0) delete next[i(c.at)]; return next
    case 'copy': return structuredClone(next)
    case 'thinking': return next
  }
}

describe('the Anthropic rule check against the check before it resumed', () => {
  it('finds the same problems in the same order on every view of random chains', () => {
    let problems = 0
    const chainArb = fc.tuple(fc.array(freshMessage, { maxLength: 8 }), fc.array(changeArb, { minLength: 1, maxLength: 30 }), fc.boolean())
    const property = fc.property(chainArb, ([start, changes, wrapped]) => {
      const walk = makeAnthropicCheckWalk()
      let messages: unknown[] = [...start]
      for (const change of changes) {
        messages = apply(messages, change)
        const view = wrapped ? { system: 's', messages } : messages
        const options = change.kind === 'thinking' ? { thinkingSource: new Set<string>() } : {}
        const expected = original(view, options)
        problems += expected.length
        expect(findAnthropicViolations(view, { ...options, anthropicWalk: walk }), `after ${change.kind}`).toEqual(expected)
      }
    })
    runProperty('anthropic check against the reference', property, numRuns)
    if (process.env.FC_PROPERTY === undefined) expect(problems).toBeGreaterThan(numRuns)
  })
})
