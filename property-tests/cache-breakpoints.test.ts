// Anthropic cache breakpoints held as state (docs/formats.md "Prompt caching",
// src/core/formats/anthropic-cache.ts): for random Anthropic sessions folded through the pure
// reducer with `anthropic_cache_breakpoints: true`, across compactions and system prompt changes,
// every view carries at most 4 `cache_control` blocks counting the caller's own (or only the
// caller's, when they alone are more), and at most 3 when it carries a held mark (the 4th is the
// caller's on its tool definitions); the library's marks are the only difference from the view
// without the option and never sit in the ephemeral tail (notice, replay) or on a thinking block; a
// mark kept from the last view sent has the prefix (system prompt and messages up to it) it was
// written with; the held positions are marks of the view sent; and a session restored from a JSON
// snapshot at any request sends the same views as the uninterrupted one.
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../src/core/codecs.js'
import type { Config } from '../src/core/config.js'
import type { Event } from '../src/core/events.js'
import { makeCachedEstimator } from '../src/core/meter/estimate.js'
import { makeStep } from '../src/core/reducer.js'
import { toProviderView } from '../src/core/request/provider-view.js'
import { decodeSnapshot, toSnapshot } from '../src/core/snapshot/codec.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { runProperty } from './arbitraries.js'
import { render, sessionArb, type Session } from './format-sessions.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 40)
const NOW = '2026-01-01T00:00:00.000+00:00'
const SHAPE = { format: 'anthropic', repair: false } as const
const SYSTEMS = ['You are a careful agent.', 'You are a terse agent.'] as const

type Block = Readonly<Record<string, unknown>>
interface View {
  readonly system?: unknown
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
}

const blocksOf = (content: unknown): ReadonlyArray<Block> => (Array.isArray(content) ? (content as Block[]) : [])
/** Blocks with `cache_control`, those nested in a block's `content` (a `tool_result`'s text) too: the API counts them all. */
const markCount = (content: unknown): number => blocksOf(content).reduce((total, block) => total + (block.cache_control !== undefined ? 1 : 0) + markCount(block.content), 0)
const countMarks = (view: View): number => markCount(view.system) + view.messages.reduce((total, message) => total + markCount(message.content), 0)
/** A view with string contents as one text block and no `cache_control`: what the marks leave unchanged. */
const normalized = (view: View): string => {
  const plain = (content: unknown): unknown =>
    (typeof content === 'string' ? [{ type: 'text', text: content }] : blocksOf(content)).map((block) => {
      const { cache_control: _mark, ...rest } = block as Block
      return rest
    })
  return JSON.stringify({ system: view.system === undefined ? undefined : plain(view.system), messages: view.messages.map((message) => ({ ...message, content: plain(message.content) })) })
}
const textOf = (content: unknown): string => (typeof content === 'string' ? content : String(blocksOf(content)[0]?.text ?? ''))
const isTail = (message: { readonly role: string; readonly content: unknown }): boolean => message.role === 'user' && textOf(message.content).trimStart().startsWith('<system-reminder source="context-')

/** The session as events: its messages, a request after the turns it asks for (the system prompt switching where `switches` says). */
const eventsOf = (session: Session, callerMarks: boolean, switches: ReadonlyArray<boolean>): Event[] => {
  const events: Event[] = []
  let system = 0
  session.turns.forEach((turn, index) => {
    for (const rendered of render('anthropic', turn, index)) {
      // without caller marks: the user turns' own cache_control removed
      const message = callerMarks ? rendered : JSON.parse(JSON.stringify(rendered).replaceAll(',"cache_control":{"type":"ephemeral"}', ''))
      events.push({ type: 'message_added', message, timestamp: NOW })
    }
    if (session.requests[index] === true || index === session.turns.length - 1) {
      if (switches[events.length % switches.length] === true) system = 1 - system
      events.push({ type: 'request_received', tokenBudget: null, provider: null, providerGiven: false, systemPrompt: SYSTEMS[system], now: NOW, shape: SHAPE })
    }
  })
  return events
}

/** Counters over the runs, so the properties are seen to hold non-vacuously. */
const seen = { views: 0, anchors: 0, dropped: 0, compacted: 0, tails: 0 }

const check = (session: Session, callerMarks: boolean, switches: ReadonlyArray<boolean>, cutAt: number): void => {
  const decoded = decodeConfig({ ...session.config, anthropic_cache_breakpoints: true })
  if (E.isLeft(decoded)) throw decoded.left
  const config: Config = decoded.right.config
  const off: Config = { ...config, anthropic_cache_breakpoints: false }
  const deps = { config, estimate: makeCachedEstimator(), format: 'anthropic' as const }
  const step = makeStep(deps)
  const events = eventsOf(session, callerMarks, switches)
  let state: State = makeInitialState()
  let previous: { readonly view: View; readonly held: State['cacheBreakpoints'] } | null = null
  const outputs: string[] = []
  const requests = events.flatMap((event, index) => (event.type === 'request_received' ? [index] : []))
  const cut = requests[cutAt % requests.length]
  let saved: unknown = null
  events.forEach((event, index) => {
    const result = step(state, event)
    state = result.state
    if (event.type === 'request_received' && result.output !== undefined) {
      seen.views += 1
      const marked = result.output as View
      const plain = toProviderView(off, SHAPE, result.view ?? [], state.history).output as View
      const label = `request at event ${index}`
      // the library's marks are the only difference from the view without the option
      expect(normalized(marked), label).toBe(normalized(plain))
      // never more than 4 with the caller's own (when the caller's alone are more, none is added)
      if (countMarks(plain) >= 4) expect(countMarks(marked), label).toBe(countMarks(plain))
      else expect(countMarks(marked), label).toBeLessThanOrEqual(4)
      // never in the ephemeral tail, never on a thinking block
      marked.messages.forEach((message, at) => {
        if (isTail(message)) {
          seen.tails += 1
          expect(JSON.stringify(message), `${label}: tail message ${at}`).toBe(JSON.stringify(plain.messages[at]))
        }
        for (const block of blocksOf(message.content)) if (block.type === 'thinking' || block.type === 'redacted_thinking') expect(block.cache_control, label).toBeUndefined()
      })
      // the held positions are marks of the view sent
      for (const mark of state.cacheBreakpoints.marks) expect(markCount(marked.messages[mark.index]?.content), `${label}: held mark ${mark.index}`).toBeGreaterThan(markCount(plain.messages[mark.index]?.content))
      // a mark before the last stable message is one kept from the last view sent, on the prefix it was written with
      let stable = plain.messages.length - 1
      while (stable >= 0 && isTail(plain.messages[stable])) stable -= 1
      // held marks leave a slot for the caller's mark on its tool definitions, which the view does not contain
      if (state.cacheBreakpoints.marks.some((entry) => entry.index < stable)) expect(countMarks(marked), `${label}: held marks and a tool definitions mark`).toBeLessThanOrEqual(3)
      for (const mark of state.cacheBreakpoints.marks.filter((entry) => entry.index < stable)) {
        seen.anchors += 1
        expect(previous?.held.marks.some((old) => old.index === mark.index && old.prefix === mark.prefix), `${label}: mark ${mark.index} not held`).toBe(true)
        expect(JSON.stringify([plain.system, plain.messages.slice(0, mark.index + 1)]), `${label}: kept mark ${mark.index}`).toBe(JSON.stringify([previous?.view.system, previous?.view.messages.slice(0, mark.index + 1)]))
      }
      if (previous !== null) seen.dropped += previous.held.marks.filter((old) => !state.cacheBreakpoints.marks.some((mark) => mark.prefix === old.prefix)).length
      if (state.compaction.stats !== null) seen.compacted += 1
      previous = { view: plain, held: state.cacheBreakpoints }
      outputs.push(JSON.stringify(marked))
    }
    if (index === cut) saved = JSON.parse(JSON.stringify(toSnapshot(config, state, 'anthropic')))
  })
  // restored from the snapshot after request `cut`, a fresh reducer sends the same views
  const restored = decodeSnapshot(saved)
  if (E.isLeft(restored)) throw restored.left
  const again = makeStep(deps)
  let continued = restored.right.state
  const after: string[] = []
  for (const event of events.slice(cut + 1)) {
    const result = again(continued, event)
    continued = result.state
    if (event.type === 'request_received' && result.output !== undefined) after.push(JSON.stringify(result.output))
  }
  expect(after).toEqual(outputs.slice(outputs.length - after.length))
  expect(JSON.stringify(toSnapshot(config, continued, 'anthropic'))).toBe(JSON.stringify(toSnapshot(config, state, 'anthropic')))
}

describe('Anthropic cache breakpoints held as state', () => {
  it('at most 4 marks with the caller\'s, only marks added, none in the tail, kept marks on an unchanged prefix, restores exactly', () => {
    const arb = fc.tuple(sessionArb, fc.boolean(), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.nat(20))
    runProperty('cache breakpoints', fc.property(arb, ([session, callerMarks, switches, cutAt]) => check(session, callerMarks, switches, cutAt)), numRuns)
    if (process.env.FC_PROPERTY === undefined) {
      expect(seen.anchors).toBeGreaterThan(0)
      expect(seen.dropped).toBeGreaterThan(0)
      expect(seen.compacted).toBeGreaterThan(0)
    }
  })
})
