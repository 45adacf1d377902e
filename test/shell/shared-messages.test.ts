/** The manager hands out frozen, structurally shared messages instead of deep copies. */
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/core/messages/message.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { silentLogger } from '../../src/shell/logger.js'
import { makeMemorySpillWriter } from '../../src/shell/spill-fs.js'

const options = { clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger, spillWriter: makeMemorySpillWriter() }
const isDeepFrozen = (value: unknown): boolean =>
  typeof value !== 'object' || value === null || (Object.isFrozen(value) && Object.values(value).every(isDeepFrozen))

describe('shared messages', () => {
  it('stores a frozen copy: the caller\'s object stays its own and unfrozen', async () => {
    const manager = new ContextManager({}, options)
    const message = { role: 'user', content: [{ type: 'text', text: 'hi' }] }
    await manager.addMessage(message)
    expect(Object.isFrozen(message) || Object.isFrozen(message.content)).toBe(false)
    const [stored] = await manager.getMessages()
    expect(isDeepFrozen(stored)).toBe(true)
    expect((await manager.getMessages())[0]).toBe(stored)
    expect(manager.state.history[0]).toBe(stored)
  })

  it('hands out the same frozen view messages on every request between compactions', async () => {
    const manager = new ContextManager({}, options)
    await manager.addMessage({ role: 'user', content: 'hello' })
    await manager.addMessage({ role: 'assistant', content: 'hi there', metadata: { source: 'model' } })
    const first = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    await manager.addMessage({ role: 'user', content: 'and now?' })
    const second = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(first.every(isDeepFrozen)).toBe(true)
    expect(second.every(isDeepFrozen)).toBe(true)
    expect(second[0]).toBe(first[0])
    expect(second[1]).toBe(first[1])
    expect(second[1]).toEqual({ role: 'assistant', content: 'hi there', metadata: { source: 'model', timestamp: '2026-02-06T10:00:00.123+00:00' } })
    // The view array is the caller's: appending to it changes nothing stored.
    second.push({ role: 'user', content: 'extra' })
    expect(await manager.getMessagesForRequest({ tokenBudget: 10_000 })).toHaveLength(3)
  })

  it('freezes what set_messages and restore store', async () => {
    const manager = new ContextManager({}, options)
    const list = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }]
    await manager.setMessages(list)
    expect(Object.isFrozen(list[0])).toBe(false)
    expect((await manager.getMessages()).every(isDeepFrozen)).toBe(true)
    const restored = await ContextManager.restore(JSON.parse(JSON.stringify(await manager.snapshot())), options)
    expect((await restored.getMessages()).every(isDeepFrozen)).toBe(true)
  })

  it('state: a plain, cloneable history that later adds never change; the core appends without copying', async () => {
    const manager = new ContextManager({}, options)
    await manager.addMessage({ role: 'user', content: 'one' })
    const before = manager.state
    await manager.addMessage({ role: 'assistant', content: 'two' })
    const after = manager.state
    expect(before.history).toHaveLength(1)
    expect(after.history.map((message) => message.content)).toEqual(['one', 'two'])
    expect(after.history[0]).toBe(before.history[0])
    expect(structuredClone(after).history).toEqual(after.history)
    expect(manager.state).toBe(after)
    // The plain history is shared and frozen: changing it throws instead of desynchronizing the session.
    expect(() => (after.history as Message[]).splice(0)).toThrow(TypeError)
    expect(await manager.getMessages()).toHaveLength(2)
  })
})
