// Stored messages are JSON values owned by the library (SPEC 17.9), through the public manager:
// the reproductions of SPEC 17.9 (aliasing, deep chains, __proto__ keys, non-JSON values, metadata).
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../src/core/messages/json-value.js'
import type { Message } from '../../src/core/messages/message.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager, InvalidMessageError } from '../../src/shell/context-manager.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { silentLogger } from '../../src/shell/logger.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const makeManager = (config: Record<string, unknown> = {}): ContextManager => new ContextManager(config, { clock, logger: silentLogger })

class Attachment {
  constructor(public name: string) {}
}

const chain = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 'x' }
  for (let i = 1; i < depth; i += 1) value = { next: value }
  return value
}

const rejection = async (promise: Promise<unknown>): Promise<InvalidMessageError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof InvalidMessageError) return error
    throw error
  }
  throw new Error('expected an InvalidMessageError')
}

describe('stored messages are the library\'s own (SPEC 17.9)', () => {
  it('a nested object the caller mutates after addMessage / setMessages does not change the stored history', async () => {
    const manager = makeManager()
    const block = { type: 'text', text: 'original' }
    const args = { path: 'a.txt' }
    await manager.addMessage({ role: 'user', content: [block] })
    await manager.setMessages([{ role: 'user', content: [block] }, { role: 'assistant', content: '', tool_calls: [{ id: 'c1', input: args }] }])
    block.text = 'changed'
    args.path = 'changed'
    const history = await manager.getMessages()
    expect(history[0].content).toEqual([{ type: 'text', text: 'original' }])
    expect(history[1].tool_calls).toEqual([{ id: 'c1', input: { path: 'a.txt' } }])
  })

  it('a class instance below the top level is rejected with its path, not stored by reference', async () => {
    const manager = makeManager()
    const error = await rejection(manager.addMessage({ role: 'user', content: [{ type: 'file', file: new Attachment('a') }] }))
    expect(error.field).toBe('message.content[0].file')
    expect(error.message).toMatch(/^message\.content\[0\]\.file: expected a JSON value, got an Attachment/)
    expect(error.problems.map((problem) => problem.kind)).toEqual(['non_plain_object'])
    expect(await manager.getMessages()).toEqual([])
  })

  it('a deep chain is rejected by addMessage, and every later request still works', async () => {
    const manager = makeManager()
    await manager.addMessage({ role: 'user', content: 'hello' })
    const error = await rejection(manager.addMessage({ role: 'user', content: 'x', metadata: chain(50_000) }))
    expect(error.problems[0].kind).toBe('too_deep')
    expect(await manager.getMessagesForRequest({ tokenBudget: 1000 })).toHaveLength(1)
  })

  it(`a message nested ${MAX_JSON_DEPTH} levels deep is stored, compacted, recorded and snapshotted without a RangeError`, async () => {
    const recorder = makeRecorder({})
    const manager = new ContextManager({ max_tokens: 4000 }, { clock, logger: silentLogger, recorder })
    const deep = { role: 'tool', tool_call_id: 'c1', content: 'r'.repeat(5000), metadata: chain(MAX_JSON_DEPTH - 1) }
    await manager.addMessage({ role: 'user', content: 'go' })
    await manager.addMessage({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] })
    await manager.addMessage(deep)
    await manager.addMessage({ role: 'user', content: 'next' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 1200 })
    expect(view.length).toBeGreaterThan(0)
    expect(JSON.stringify(await manager.snapshot()).length).toBeGreaterThan(0)
    expect(recorder.toJsonLines()).toContain('"leaf":"x"')
  })

  it('a "__proto__" key stays an ordinary key in content blocks, at the top level and in metadata; its text never leaks into the replay', async () => {
    const manager = makeManager({ replay_last_user_on_compaction: true, max_tokens: 2000, compaction_notice_enabled: false, protected_recent: 0 })
    await manager.addMessage({ role: 'user', content: 'first task '.repeat(20) })
    await manager.addMessage({ role: 'assistant', content: 'working '.repeat(2000) })
    const parsed = JSON.parse('{"role":"user","__proto__":{"top":1},"metadata":{"__proto__":{"m":1}},"content":[{"type":"text","text":"visible request"},{"type":"text","__proto__":{"text":"SECRET"}}]}') as Message
    await manager.addMessage(parsed)
    const stored = (await manager.getMessages())[2] as Record<string, unknown>
    expect(Object.keys(stored)).toEqual(['role', '__proto__', 'metadata', 'content'])
    expect(Object.keys(stored.metadata as object)).toEqual(['__proto__', 'timestamp', '_seq'])
    const block = (stored.content as Array<Record<string, unknown>>)[1]
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype)
    expect(block.text).toBeUndefined()
    await manager.addMessage({ role: 'assistant', content: 'done' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 2000 })
    const replay = view.at(-1)
    expect(replay?.metadata).toMatchObject({ source: 'context-replay' })
    expect(String(replay?.content)).toContain('visible request')
    expect(String(replay?.content)).not.toContain('SECRET')
  })

  it('Date, Map and class instances are rejected as messages; a non-object metadata is rejected instead of replaced by {}', async () => {
    const manager = makeManager()
    for (const value of [new Date(0), new Map([['role', 'user']]), new Attachment('a')]) {
      const error = await rejection(manager.addMessage(value as never))
      expect(error.field).toBe('message')
    }
    for (const metadata of ['note', 7, ['a'], true]) {
      const error = await rejection(manager.addMessage({ role: 'user', content: 'x', metadata } as never))
      expect(error.field).toBe('message.metadata')
    }
    expect(await manager.getMessages()).toEqual([])
    await manager.addMessage({ role: 'user', content: 'x', metadata: null })
    expect((await manager.getMessages())[0].metadata).toMatchObject({ _seq: 0 })
  })

  it('untyped errors become InvalidMessageError: sparse arrays, cycles, throwing getters, Proxies', async () => {
    const manager = makeManager()
    await manager.addMessage({ role: 'user', content: 'kept' })
    // eslint-disable-next-line no-sparse-arrays
    expect((await rejection(manager.setMessages([{ role: 'user', content: 'a' }, , { role: 'user', content: 'b' }] as never))).field).toBe('messages[1]')
    const cyclic: Record<string, unknown> = { role: 'user', content: [] }
    ;(cyclic.content as unknown[]).push(cyclic)
    expect((await rejection(manager.addMessage(cyclic as Message))).field).toBe('message.content[0]')
    expect((await rejection(manager.setMessages([{ role: 'user' }, { role: 'user' }, { role: 'user' }, cyclic] as never))).field).toBe('messages[3].content[0]')
    const getter = { role: 'user' }
    Object.defineProperty(getter, 'content', { enumerable: true, get: () => { throw new TypeError('nope') } })
    expect((await rejection(manager.addMessage(getter as Message))).message).toMatch(/^message\.content: could not be read: nope/)
    const trap = new Proxy({ role: 'user', content: 'x' }, { ownKeys: () => { throw new Error('trap') } })
    expect((await rejection(manager.addMessage(trap as Message))).problems[0].kind).toBe('unreadable')
    const messages = new Proxy([{ role: 'user', content: 'x' }], { get: (target, key) => (key === '0' ? (() => { throw new Error('trap') })() : Reflect.get(target, key)) })
    expect((await rejection(manager.setMessages(messages))).field).toBe('messages[0]')
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['kept'])
  })

  it('setMessages(getMessages()) shares the stored (frozen) messages instead of rejecting or copying them again', async () => {
    const manager = makeManager()
    await manager.addMessage({ role: 'user', content: 'a' })
    await manager.addMessage({ role: 'assistant', content: 'b' })
    const history = await manager.getMessages()
    await manager.setMessages(history)
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['a', 'b'])
    const frozenByCaller = Object.freeze({ role: 'user', content: [{ type: 'text', text: 'mutable inside' }] })
    await manager.addMessage(frozenByCaller)
    ;(frozenByCaller.content[0] as { text: string }).text = 'changed'
    expect((await manager.getMessages()).at(-1)?.content).toEqual([{ type: 'text', text: 'mutable inside' }])
  })
})
