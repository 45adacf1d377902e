// Anthropic cache breakpoint positions as state (docs/formats.md "Prompt caching"): the finish stage
// (src/core/request/finish.ts) keeps the held marks whose prefix is unchanged and writes the
// positions of the view sent to `State.cacheBreakpoints`; clear, setMessages and a new system prompt
// drop them; the snapshot carries them, so a restored session places the marks an uninterrupted one
// places.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import type { Config } from '../../src/core/config.js'
import type { RequestReceived } from '../../src/core/events.js'
import type { Message } from '../../src/core/messages/message.js'
import { NO_CACHE_BREAKPOINTS } from '../../src/core/formats/anthropic-cache.js'
import { toProviderView } from '../../src/core/request/provider-view.js'
import { decodeSnapshot, toSnapshot } from '../../src/core/snapshot/codec.js'
import type { State } from '../../src/core/state.js'
import type { Step } from '../../src/core/step.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { silentLogger } from '../../src/shell/logger.js'
import { added, assistant, calls, configOf, fold, request, result, stepFor, user } from '../support/core.js'

const SHAPE = { format: 'anthropic', repair: false } as const
interface AnthropicView {
  readonly system?: unknown
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
}

/** Indexes of the messages of an Anthropic view that carry a `cache_control` block. */
const markedIndexes = (view: unknown): number[] => (view as AnthropicView).messages.flatMap((message, index) => (JSON.stringify(message.content).includes('"cache_control"') ? [index] : []))
const countMarks = (view: unknown): number => JSON.stringify(view).split('"cache_control"').length - 1
const heldIndexes = (state: State): number[] => state.cacheBreakpoints.marks.map((mark) => mark.index)
/** An Anthropic view as JSON with string contents as one text block and no `cache_control`. */
const normalized = (view: unknown): string => {
  const blocks = (content: unknown): unknown => (typeof content === 'string' ? [{ type: 'text', text: content }] : content)
  const { system, messages } = view as AnthropicView
  return JSON.stringify({ system: blocks(system), messages: messages.map((message) => ({ ...message, content: blocks(message.content) })) }).replaceAll(',"cache_control":{"type":"ephemeral"}', '')
}

/** A session of `count` question / tool call / result / answer turns, `size` characters per result. */
const turns = (count: number, size = 40, from = 0): Message[] =>
  Array.from({ length: count }, (_, n) => {
    const i = n + from
    return [user(`question ${i}`), calls([`c${i}`]), result(`c${i}`, `output ${i} `.padEnd(size, '.')), assistant(`answer ${i}`)]
  }).flat()

const ask = (overrides: Partial<RequestReceived> = {}): RequestReceived => request({ tokenBudget: 100_000, systemPrompt: 'Be terse.', shape: SHAPE, ...overrides })

/** The same request without the option: the view the marks were placed on. */
const unmarked = (config: Config, step: Step, state: State): unknown => toProviderView({ ...config, anthropic_cache_breakpoints: false }, SHAPE, step.view ?? [], state.history).output

describe('the finish stage holds the breakpoint positions (anthropic_cache_breakpoints)', () => {
  const config = configOf({ anthropic_cache_breakpoints: true })
  const step = stepFor(config)

  it('writes the positions of the view sent and keeps the previous mark in the next view', () => {
    const first = step(fold(step, turns(2).map((message) => added(message))).state, ask())
    expect(markedIndexes(first.output)).toEqual([7])
    expect(heldIndexes(first.state)).toEqual([7])
    expect(first.state.cacheBreakpoints.marks[0].prefix).toMatch(/^[0-9a-f]{64}$/)
    const grown = fold(step, turns(8, 40, 2).map((message) => added(message)), first.state).state
    const second = step(grown, ask())
    // 32 more one-block messages: the previous entry (index 7) is past the 20-block lookback of the new tail mark
    expect(markedIndexes(second.output)).toEqual([7, 39])
    expect(heldIndexes(second.state)).toEqual([7, 39])
    // without the held positions, the same state's view has the tail mark only
    const forgotten = step({ ...grown, cacheBreakpoints: NO_CACHE_BREAKPOINTS }, ask())
    expect(markedIndexes(forgotten.output)).toEqual([39])
    // the marks are the only difference from the view without the option (a marked string is one text block)
    expect(normalized(second.output)).toBe(normalized(unmarked(config, second, second.state)))
    expect(JSON.stringify(second.output)).not.toBe(JSON.stringify(unmarked(config, second, second.state)))
  })

  it('keeps the newest held mark beside the system and tail marks: never more than 4 with a mark on the tool definitions', () => {
    let state = fold(step, turns(1).map((message) => added(message))).state
    const seen: number[][] = []
    for (let round = 1; round <= 4; round += 1) {
      const sent = step(state, ask())
      seen.push(markedIndexes(sent.output))
      // the caller's own mark on its last tool definition (docs/formats.md) is not in the view
      expect(countMarks(sent.output) + 1).toBeLessThanOrEqual(4)
      state = fold(step, turns(1, 40, round).map((message) => added(message)), sent.state).state
    }
    expect(seen).toEqual([[3], [3, 7], [7, 11], [11, 15]])
  })

  it('without the option the slice stays empty and the view carries no mark', () => {
    const plain = stepFor({})
    let state = fold(plain, turns(2).map((message) => added(message))).state
    for (let round = 0; round < 3; round += 1) {
      const sent = plain(state, ask())
      expect(countMarks(sent.output)).toBe(0)
      expect(sent.state.cacheBreakpoints).toBe(NO_CACHE_BREAKPOINTS)
      state = fold(plain, turns(1, 40, 2 + round).map((message) => added(message)), sent.state).state
    }
    // nor in another format with the option
    const chat = step(state, ask({ shape: { format: 'openai-chat', repair: false } }))
    expect(chat.state.cacheBreakpoints).toBe(NO_CACHE_BREAKPOINTS)
  })

  it('a compaction drops the held marks whose prefix changed; every mark kept has the prefix it was written with', () => {
    const compacting = configOf({ anthropic_cache_breakpoints: true, compaction_notice_enabled: true, truncate_chars: 50 })
    const run = stepFor(compacting)
    let state = fold(run, turns(6, 2000).map((message) => added(message))).state
    let previous: { view: unknown; held: State['cacheBreakpoints'] } | null = null
    let dropped = 0
    for (let round = 0; round < 8; round += 1) {
      const sent = run(state, ask({ tokenBudget: 6000 }))
      const view = unmarked(compacting, sent, sent.state) as AnthropicView
      if (previous !== null) {
        const before = previous.view as AnthropicView
        for (const mark of sent.state.cacheBreakpoints.marks) {
          const kept = previous.held.marks.some((old) => old.index === mark.index && old.prefix === mark.prefix)
          // a kept mark: the system prompt and the messages up to it are those of the view it was written on
          if (kept) expect(JSON.stringify([view.system, view.messages.slice(0, mark.index + 1)])).toBe(JSON.stringify([before.system, before.messages.slice(0, mark.index + 1)]))
        }
        dropped += previous.held.marks.filter((old) => !sent.state.cacheBreakpoints.marks.some((mark) => mark.prefix === old.prefix)).length
      }
      previous = { view, held: sent.state.cacheBreakpoints }
      state = fold(run, turns(2, 2000, 6 + 2 * round).map((message) => added(message)), sent.state).state
    }
    // the run does compact and drop marks (the property would hold vacuously otherwise)
    expect(state.compaction.stats).not.toBeNull()
    expect(dropped).toBeGreaterThan(0)
  })

  it('a new system prompt drops the held marks', () => {
    const first = step(fold(step, turns(2).map((message) => added(message))).state, ask())
    const grown = fold(step, turns(1, 40, 2).map((message) => added(message)), first.state).state
    expect(markedIndexes(step(grown, ask()).output)).toEqual([7, 11])
    expect(markedIndexes(step(grown, ask({ systemPrompt: 'Be brief.' })).output)).toEqual([11])
  })

  it('clear and setMessages empty the slice', () => {
    const sent = step(fold(step, turns(2).map((message) => added(message))).state, ask())
    expect(heldIndexes(sent.state)).toEqual([7])
    expect(step(sent.state, { type: 'history_cleared' }).state.cacheBreakpoints).toBe(NO_CACHE_BREAKPOINTS)
    const replaced = step(sent.state, { type: 'messages_replaced', messages: turns(2) })
    expect(replaced.state.cacheBreakpoints).toBe(NO_CACHE_BREAKPOINTS)
    // the same messages again: only the tail mark (the old entries are not assumed)
    expect(markedIndexes(step(replaced.state, ask()).output)).toEqual([7])
  })

  it('a request that spilled: the spills_answered event that makes its view writes the positions', () => {
    const spilling = stepFor({ anthropic_cache_breakpoints: true, tool_result_spill_dir: '/tmp/spill', truncate_chars: 50, compaction_notice_enabled: false })
    const state = fold(spilling, turns(6, 2000).map((message) => added(message))).state
    const first = spilling(state, ask({ tokenBudget: 3000 }))
    const writes = first.effects.filter((effect) => effect.type === 'write_spill')
    expect(writes.length).toBeGreaterThan(0)
    expect('output' in first).toBe(false)
    expect(first.state.cacheBreakpoints).toBe(NO_CACHE_BREAKPOINTS)
    const answers = writes.map((effect) => ({ type: 'spill_written' as const, path: (effect as { path: string }).path }))
    const answered = spilling(first.state, { type: 'spills_answered', answers, view: first.view, shape: SHAPE })
    expect(countMarks(answered.output)).toBeGreaterThan(0)
    expect(heldIndexes(answered.state)).toEqual(markedIndexes(answered.output))
    // the next spilling request's answer resumes the running prefix hashes of this one (the reducer's
    // derivation memo): the same output and positions as a fresh reducer's
    const grown = fold(spilling, turns(6, 2000, 6).map((message) => added(message)), answered.state).state
    const second = spilling(grown, ask({ tokenBudget: 3000 }))
    const event = { type: 'spills_answered' as const, answers: second.effects.flatMap((effect) => (effect.type === 'write_spill' ? [{ type: 'spill_written' as const, path: effect.path }] : [])), view: second.view, shape: SHAPE }
    expect(event.answers.length).toBeGreaterThan(0)
    const resumed = spilling(second.state, event)
    const fresh = stepFor({ anthropic_cache_breakpoints: true, tool_result_spill_dir: '/tmp/spill', truncate_chars: 50, compaction_notice_enabled: false })(second.state, event)
    expect(JSON.stringify(resumed.output)).toBe(JSON.stringify(fresh.output))
    expect(resumed.state.cacheBreakpoints).toEqual(fresh.state.cacheBreakpoints)
  })
})

describe('a restored session places the marks an uninterrupted one places', () => {
  /** Anthropic-native turns: a question, a tool_use, its tool_result, an answer. */
  const native = (i: number) => [
    { role: 'user', content: `question ${i}` },
    { role: 'assistant', content: [{ type: 'text', text: `reading ${i}` }, { type: 'tool_use', id: `t${i}`, name: 'read', input: { n: i } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `result ${i} `.padEnd(1500, '.') }] },
    { role: 'assistant', content: `answer ${i}` },
  ]
  const options = { format: 'anthropic' as const, logger: silentLogger }
  const config = { anthropic_cache_breakpoints: true, compaction_notice_enabled: true, truncate_chars: 60 }
  const ROUNDS = 10
  const CUT = 4

  /** The views of rounds `from`..ROUNDS-1 of `manager` (each round adds one turn, then asks for a view). */
  const views = async (manager: ContextManager<'anthropic'>, from: number): Promise<string[]> => {
    const out: string[] = []
    for (let round = from; round < ROUNDS; round += 1) {
      for (const message of native(round)) await manager.addMessage(message as never)
      out.push(JSON.stringify(await manager.getMessagesForRequest({ tokenBudget: 5000 })))
    }
    return out
  }

  it('restored from the JSON snapshot after round 4, the next views are byte-identical to an uninterrupted run', async () => {
    const whole = await views(new ContextManager(config, options), 0)
    // the session compacts after the cut (a notice in the tail, marks dropped and placed again)
    expect(whole.slice(CUT).some((view) => view.includes('context-compaction'))).toBe(true)
    // the first CUT rounds again, then a snapshot
    const cut = new ContextManager(config, options)
    for (let round = 0; round < CUT; round += 1) {
      for (const message of native(round)) await cut.addMessage(message as never)
      await cut.getMessagesForRequest({ tokenBudget: 5000 })
    }
    const saved = JSON.parse(JSON.stringify(await cut.snapshot()))
    expect(saved.state.cacheBreakpoints.marks.length).toBeGreaterThan(0)
    const restored = await ContextManager.restore(saved, options)
    expect(await views(restored, CUT)).toEqual(whole.slice(CUT))
    // the test can fail: a snapshot without the positions (as version 8 had none) gives other views
    const forgotten = await ContextManager.restore({ ...saved, state: { ...saved.state, cacheBreakpoints: { marks: [] } } }, options)
    expect(await views(forgotten, CUT)).not.toEqual(whole.slice(CUT))
  })

  it('the positions survive the codec: a JSON round trip decodes to an equal state', () => {
    const step = stepFor({ anthropic_cache_breakpoints: true })
    const sent = step(fold(step, turns(3).map((message) => added(message))).state, ask())
    const decoded = decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(configOf({ anthropic_cache_breakpoints: true }), sent.state))))
    if (E.isLeft(decoded)) throw decoded.left
    expect(decoded.right.state.cacheBreakpoints).toEqual(sent.state.cacheBreakpoints)
  })
})
