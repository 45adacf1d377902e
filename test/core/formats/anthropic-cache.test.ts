// Anthropic prompt-cache breakpoints (anthropic_cache_breakpoints) and the cache model's breakpoint
// placements (docs/formats.md "Prompt caching").
import { describe, expect, it } from 'vitest'
import { applyCacheRequest, EMPTY_CACHE, type AnthropicCacheMode, type CacheItem, type CacheState } from '../../../src/core/economics/cache.js'
import { countBlocks } from '../../../src/core/economics/items.js'
import { placeCacheBreakpoints } from '../../../src/core/formats/anthropic-cache.js'
import { toMutableView } from '../../../src/core/formats/mutable.js'
import { toAnthropicView } from '../../../src/core/formats/anthropic.js'
import type { Messages } from '../../../src/core/messages/message.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { memoryLogger } from '../../../src/shell/logger.js'

const ephemeral = { type: 'ephemeral' } as const
/** A caller's own mark on the last tool definition (docs/formats.md advises it), which a view does not contain. */
const TOOL_DEFINITIONS_MARK = 1
const notice = '<system-reminder source="context-compaction">\nContext has been compacted.\n</system-reminder>'

describe('placeCacheBreakpoints', () => {
  it('marks the end of the system prompt and the last stable block before the notice', () => {
    const view = { system: 'Be terse.', messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 't', signature: 's' }] }, { role: 'user', content: notice }] }
    const { view: marked, placed } = placeCacheBreakpoints(view)
    expect(marked.system).toEqual([{ type: 'text', text: 'Be terse.', cache_control: ephemeral }])
    // a thinking block cannot carry cache_control: the text block before it does
    expect(marked.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'a', cache_control: ephemeral }, { type: 'thinking', thinking: 't', signature: 's' }] })
    expect(marked.messages[2]).toBe(view.messages[2])
    expect(placed).toEqual({ system: true, message: 1, anchors: [], caller: 0 })
    expect(view.system).toBe('Be terse.') // the input is not changed
  })
  it('never more than 4 with the caller\'s own', () => {
    const own = (text: string) => ({ role: 'user', content: [{ type: 'text', text, cache_control: ephemeral }] })
    const view = { system: 's', messages: [own('1'), { role: 'assistant', content: 'x' }, own('2'), { role: 'assistant', content: 'y' }, own('3'), { role: 'assistant', content: 'z' }] }
    const { view: marked, placed } = placeCacheBreakpoints(view)
    expect(placed).toEqual({ system: false, message: 5, anchors: [], caller: 3 })
    const count = JSON.stringify(marked).split('cache_control').length - 1
    expect(count).toBe(4)
  })
})

describe('breakpoint positions as state', () => {
  const turn = (n: number) => [{ role: 'assistant', content: `answer ${n}` }, { role: 'user', content: `question ${n + 1}` }]
  const conversation = (turns: number) => [{ role: 'user', content: 'question 0' }, ...Array.from({ length: turns }, (_, n) => turn(n)).flat()]
  const marksIn = (messages: ReadonlyArray<unknown>) => messages.flatMap((message, i) => (JSON.stringify(message).includes('cache_control') ? [i] : []))

  it('the previous view\'s mark stays while the prefix up to it is unchanged, beside the new tail mark, even 30 blocks back', () => {
    const first = placeCacheBreakpoints({ system: 's', messages: [...conversation(2), { role: 'user', content: notice }] })
    expect(first.placed).toEqual({ system: true, message: 4, anchors: [], caller: 0 })
    expect(first.positions.marks.map((entry) => entry.index)).toEqual([4])
    // 15 more turns (30 one-block messages): past the 20-block lookback from the new tail
    const second = placeCacheBreakpoints({ system: 's', messages: [...conversation(17), { role: 'user', content: notice }] }, undefined, first.positions)
    expect(second.placed).toEqual({ system: true, message: 34, anchors: [4], caller: 0 })
    expect(marksIn(second.view.messages)).toEqual([4, 34])
    expect(second.positions.marks.map((entry) => entry.index)).toEqual([4, 34])
    // the next view keeps the newest mark the slots allow (3 = system + tail + 1 anchor; the 4th is
    // left for a caller's mark on the tool definitions, which the view does not contain)
    const third = placeCacheBreakpoints({ system: 's', messages: conversation(20) }, undefined, second.positions)
    expect(third.placed.anchors).toEqual([34])
    const fourth = placeCacheBreakpoints({ system: 's', messages: conversation(22) }, undefined, third.positions)
    expect(fourth.placed.anchors).toEqual([40])
    expect(JSON.stringify(fourth.view).split('cache_control').length - 1 + TOOL_DEFINITIONS_MARK).toBe(4)
  })

  it('a mark moves only when the view\'s prefix changes: a compacted view drops the marks whose prefix differs', () => {
    const first = placeCacheBreakpoints({ messages: conversation(5) })
    const compacted = [{ role: 'user', content: 'question 0' }, { role: 'user', content: '[User message compacted]' }, ...conversation(8).slice(3)]
    const second = placeCacheBreakpoints({ messages: compacted }, undefined, first.positions)
    expect(second.placed.anchors).toEqual([])
    expect(second.positions.marks.map((entry) => entry.index)).toEqual([compacted.length - 1])
  })

  it('a caller\'s mark nested in a tool_result counts: with the held marks the request still has at most 4', () => {
    // Anthropic counts every block with cache_control, a text block inside a tool_result too (the
    // provider rule of test/support/fake-provider-server.ts counts them so)
    const deep = (value: unknown): number => (Array.isArray(value) ? value.reduce<number>((n, item) => n + deep(item), 0) : typeof value === 'object' && value !== null ? Object.entries(value).reduce((n, [key, item]) => n + (key === 'cache_control' ? 1 : deep(item)), 0) : 0)
    const use = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: {} }] })
    const answer = (id: string, content: unknown) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] })
    let messages: unknown[] = [{ role: 'user', content: 'q' }, use('a'), answer('a', [{ type: 'text', text: 'out', cache_control: ephemeral }])]
    let placed = placeCacheBreakpoints({ system: 's', messages })
    for (const id of ['b', 'c', 'd']) {
      messages = [...messages, use(id), answer(id, 'x')]
      placed = placeCacheBreakpoints({ system: 's', messages }, undefined, placed.positions)
      expect(placed.placed.caller).toBe(1)
      expect(deep(placed.view) + TOOL_DEFINITIONS_MARK).toBeLessThanOrEqual(4)
    }
  })

  it('with the caller\'s own 3 marks there is no slot for an anchor', () => {
    const own = (text: string) => ({ role: 'user', content: [{ type: 'text', text, cache_control: ephemeral }] })
    const messages = [own('1'), { role: 'assistant', content: 'x' }, own('2'), { role: 'assistant', content: 'y' }, own('3'), { role: 'assistant', content: 'z' }]
    const first = placeCacheBreakpoints({ messages })
    const second = placeCacheBreakpoints({ messages: [...messages, { role: 'user', content: 'more' }] }, undefined, first.positions)
    expect(second.placed).toEqual({ system: false, message: 6, anchors: [], caller: 3 })
  })
})

describe('the manager with anthropic_cache_breakpoints', () => {
  it('the view carries the marks; views are fresh containers of frozen messages; toMutableView copies', async () => {
    const context = new ContextManager({ anthropic_cache_breakpoints: true }, { format: 'anthropic', logger: memoryLogger() })
    await context.addMessage({ role: 'system', content: 'Be terse.' })
    await context.addMessage({ role: 'user', content: 'q' })
    const view = await context.getMessagesForRequest()
    expect(view.system).toEqual([{ type: 'text', text: 'Be terse.', cache_control: ephemeral }])
    expect(view.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'q', cache_control: ephemeral }] })
    view.messages.push({ role: 'assistant', content: 'pushed' })
    expect(view.messages).toHaveLength(2)
    expect(() => {
      ;(view.messages[0] as { content: unknown }).content = 'x'
    }).toThrow(TypeError)
    const copy = toMutableView(view)
    copy.messages[0].content = 'changed'
    expect(copy.messages[0].content).toBe('changed')
    // off by default: only the caller's marks
    const plain = new ContextManager({}, { format: 'anthropic', logger: memoryLogger() })
    await plain.addMessage({ role: 'user', content: 'q' })
    expect(JSON.stringify(await plain.getMessagesForRequest())).not.toContain('cache_control')
  })
})

describe('the cache model per breakpoint placement', () => {
  const item = (key: string, tokens: number, isEphemeral = false): CacheItem => ({ key, tokens, ephemeral: isEphemeral })
  const run = (mode: AnthropicCacheMode, requests: ReadonlyArray<ReadonlyArray<CacheItem>>) => {
    let state: CacheState = EMPTY_CACHE
    return requests.map((items) => {
      const next = applyCacheRequest('anthropic', state, { overheadTokens: 1000, items, timeMs: null, lifetime: '5m' }, mode)
      state = next.state
      return next.split
    })
  }
  // a growing conversation with a changing notice at the tail
  const requests = [
    [item('u1', 500), item('n1', 100, true)],
    [item('u1', 500), item('a1', 300), item('n2', 100, true)],
    [item('u1', 500), item('a1', 300), item('u2', 200), item('n3', 100, true)],
  ]
  it('with the option: each request reads the previous prefix up to the last stable block', () => {
    expect(run('breakpoints', requests).map((split) => split.cache_read_tokens)).toEqual([0, 1500, 1800])
  })
  it('automatic mode: the breakpoint on the changing notice writes what is never read', () => {
    const splits = run('automatic', requests)
    expect(splits.map((split) => split.cache_read_tokens)).toEqual([0, 0, 0])
    expect(splits.map((split) => split.cache_write_tokens)).toEqual([1600, 1900, 2100])
  })
  it('no breakpoint: no read, no write', () => {
    expect(run('none', requests).map((split) => [split.cache_read_tokens, split.cache_write_tokens])).toEqual([[0, 0], [0, 0], [0, 0]])
  })
  it('the hidden overhead varies a little between requests (it is measured): the prefix is still read', () => {
    let state: CacheState = EMPTY_CACHE
    const splits = [1000, 1010].map((overheadTokens, i) => {
      const next = applyCacheRequest('anthropic', state, { overheadTokens, items: requests[i], timeMs: null, lifetime: '5m' }, 'breakpoints')
      state = next.state
      return next.split
    })
    expect(splits[1].cache_read_tokens).toBe(1500)
  })
  it('the lookback counts content blocks, not messages: an entry 18 blocks back is read, one 21 blocks back (7 messages of 3 blocks) is not', () => {
    // messages of 3 blocks each (a text and two tool_use blocks, or three results)
    const turn = (key: string): CacheItem => ({ key, tokens: 100, ephemeral: false, blocks: 3 })
    const first = [item('u1', 500), turn('t0')]
    const grown = (turns: number) => [...first, ...Array.from({ length: turns }, (_, i) => turn(`t${i + 1}`))]
    // the previous request wrote an entry after t0 (and after the overhead)
    expect(run('automatic', [first, grown(6)])[1].cache_read_tokens).toBe(1000 + 500 + 100) // 6 x 3 = 18 blocks back
    expect(run('automatic', [first, grown(7)])[1].cache_read_tokens).toBe(0) // 21 blocks back, though only 7 messages
    // a one-block message counts one
    const plain = (turns: number) => [...first, ...Array.from({ length: turns }, (_, i) => item(`m${i}`, 10))]
    expect(run('automatic', [first, plain(20)])[1].cache_read_tokens).toBe(1600)
    expect(run('automatic', [first, plain(21)])[1].cache_read_tokens).toBe(0)
  })
  it('under breakpoints the model holds the one mark the manager holds beside a mark on the tool definitions', () => {
    const messages = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => item(`${prefix}${i}`, 10))
    const a = [item('u1', 500)]
    const b = [...a, ...messages('m', 25)]
    const c = [...b, ...messages('n', 25)]
    // the 11th message of b changed: the manager held the marks after b and c (not the one after u1),
    // whose prefixes changed, and the entry after u1 is 40 blocks back: only the overhead is read
    const d = [...c.slice(0, 11), item('m10 compacted', 5), ...c.slice(12)]
    const reads = run('breakpoints', [a, b, c, d]).map((split) => split.cache_read_tokens)
    expect(reads).toEqual([0, 1500, 1750, 1000])
  })
  it('countBlocks: one per part, one per tool call, a string one, at least one', () => {
    expect(countBlocks({ role: 'user', content: 'hi' })).toBe(1)
    expect(countBlocks({ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'data:' } }] } as never)).toBe(2)
    expect(countBlocks({ role: 'assistant', content: '', tool_calls: [1, 2, 3].map((n) => ({ id: `c${n}`, type: 'function', function: { name: 'f', arguments: '{}' } })) } as never)).toBe(3)
    expect(countBlocks({ role: 'assistant', content: '' })).toBe(1)
  })
  it('the 20-block lookback: a prefix written more than 20 items before the breakpoint is not found', () => {
    const first = [item('u1', 500)]
    const long = [item('u1', 500), ...Array.from({ length: 25 }, (_, i) => item(`m${i}`, 10))]
    const splits = run('automatic', [first, long])
    expect(splits[1].cache_read_tokens).toBe(0)
    // with the option the previous request's mark is held (State.cacheBreakpoints): its entry is read exactly
    expect(run('breakpoints', [first, long])[1].cache_read_tokens).toBe(1500)
  })
})

describe('the Anthropic view keeps the objects of the last view', () => {
  // Contract pieces are converted once (toAnthropicView memoises per piece), so the prefix
  // fingerprints resume on identity and the manager does not freeze the same messages again.
  const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'bash', arguments: `{"q":"${id}"}` } })
  const pieces: Messages = [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', tool_calls: [call('a'), call('b'), call('c')] },
    { role: 'tool', tool_call_id: 'a', content: 'A' },
    { role: 'tool', tool_call_id: 'b', content: 'B' },
    { role: 'tool', tool_call_id: 'c', content: 'C' },
  ]
  it('converts the same pieces to the same objects, the merged turn of results included', () => {
    const first = toAnthropicView(pieces)
    const again = toAnthropicView([...pieces, { role: 'assistant', content: 'done' }])
    expect(first.messages).toHaveLength(3)
    expect(first.messages[2]).toEqual({ role: 'user', content: ['A', 'B', 'C'].map((text) => ({ type: 'tool_result', tool_use_id: text.toLowerCase(), content: text })) })
    first.messages.forEach((message, index) => expect(again.messages[index]).toBe(message))
    expect(again.messages[3]).toEqual({ role: 'assistant', content: 'done' })
  })
  it('merges a changed result afresh, the results before it as they were', () => {
    const first = toAnthropicView(pieces)
    const changed = toAnthropicView([...pieces.slice(0, 5), { role: 'tool', tool_call_id: 'c', content: 'C, truncated' }])
    expect(changed.messages[1]).toBe(first.messages[1])
    expect(changed.messages[2]).not.toBe(first.messages[2])
    expect((changed.messages[2].content as ReadonlyArray<{ content: unknown }>).map((block) => block.content)).toEqual(['A', 'B', 'C, truncated'])
  })
})
