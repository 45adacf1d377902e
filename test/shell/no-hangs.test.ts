// SPEC 17.9 "No hangs" and typed errors, through the public manager: idle() inside a running job,
// callTimeoutMs on provider reads, the prompt factory and hook listeners, summarizer answers that
// are not a non-empty string, and the typed errors of the issue-8 reproductions.
import { describe, expect, it, vi } from 'vitest'
import { InvalidRequestError, TimeoutError } from '../../src/core/errors.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import { mount } from '../../src/shell/mount.js'
import type { Provider } from '../../src/shell/provider.js'
import { memoryLogger, silentLogger } from '../../src/shell/logger.js'
import { makeMemorySpillWriter, type SpillWriter } from '../../src/shell/spill-fs.js'
import type { Summarizer } from '../../src/shell/summarizer.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const never = <T>(): Promise<T> => new Promise<T>(() => undefined)
const big = (tag: string): string => `${tag} `.repeat(400)

/** A session that compacts on the first request with a 600-token budget. */
const fill = async (manager: ContextManager): Promise<void> => {
  await manager.addMessage({ role: 'user', content: 'start' })
  for (let i = 0; i < 4; i += 1) {
    await manager.addMessage({ role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{}' } }] })
    await manager.addMessage({ role: 'tool', tool_call_id: `c${i}`, content: big(`result ${i}`) })
  }
  await manager.addMessage({ role: 'user', content: 'next' })
}

describe('idle() inside a running job (SPEC 17.9)', () => {
  it('resolves inside a hook listener and inside the prompt factory, and the request completes', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const manager = new ContextManager({}, { clock, hooks, logger: silentLogger })
    const seen: string[] = []
    hooks.register('context:token_meter', async () => {
      await manager.idle()
      seen.push('listener')
    })
    await manager.setSystemPromptFactory(async () => {
      await manager.idle()
      seen.push('factory')
      return 'system'
    })
    await manager.addMessage({ role: 'user', content: 'hi' })
    const view = await manager.getMessagesForRequest({ tokenBudget: 1000 })
    expect(view.map((message) => message.role)).toEqual(['system', 'user'])
    expect(seen).toEqual(['factory', 'listener'])
    await manager.idle()
  })

  it('does not deadlock inside a context:compaction listener while a spill write is pending', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    let release: () => void = () => undefined
    const memory = makeMemorySpillWriter()
    const slowSpill: SpillWriter = {
      write: async (directory, path, content) => {
        await new Promise<void>((resolve) => (release = resolve))
        return memory.write(directory, path, content)
      },
    }
    const manager = new ContextManager(
      { tool_result_spill_dir: '/spill', tool_result_budget_tokens: 20, compaction_notice_enabled: false },
      { clock, hooks, logger: silentLogger, spillWriter: slowSpill },
    )
    let idled = false
    hooks.register('context:compaction', async () => {
      await manager.idle()
      idled = true
    })
    await fill(manager)
    const request = manager.getMessagesForRequest({ tokenBudget: 600 })
    await vi.waitFor(() => expect(idled).toBe(true))
    release()
    await request
    await manager.idle()
  })
})

describe('callTimeoutMs (SPEC 17.9)', () => {
  it('a provider read that never settles is treated as one that throws: max_tokens, a warning, later calls proceed', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager({ max_tokens: 5000 }, { clock, logger, callTimeoutMs: 30 })
    const provider: Provider = { getModelInfo: never, getInfo: () => ({ defaults: { context_window: 9000, max_output_tokens: 1000 } }) }
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.getMessagesForRequest({ provider })
    expect(manager.lastTokenMeterStats?.budget).toBe(5000 - 800) // max_tokens minus the notice reserve, not the 9000-token window
    expect(logger.messages('warning').some((line) => line.includes('provider.getModelInfo() did not settle within 30 ms'))).toBe(true)
    await manager.addMessage({ role: 'assistant', content: 'hello' })
    expect(await manager.getMessages()).toHaveLength(2)
  })

  it('a prompt factory that never settles rejects that request with TimeoutError and applies nothing; later calls proceed', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger, callTimeoutMs: 30 })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.setSystemPromptFactory(never)
    const error = await manager.getMessagesForRequest({ tokenBudget: 1000 }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).message).toBe('the system prompt factory did not settle within 30 ms (callTimeoutMs)')
    expect(manager.lastTokenMeterStats).toBeNull()
    await manager.setSystemPromptFactory(() => 'system')
    expect((await manager.getMessagesForRequest({ tokenBudget: 1000 })).map((message) => message.role)).toEqual(['system', 'user'])
  })

  it('a hook listener that never settles is abandoned with a warning; the next listener runs and later calls proceed', async () => {
    const logger = memoryLogger()
    const hooks = makeMittHooks({ logger, timeoutMs: 30 })
    const seen: string[] = []
    hooks.register('context:token_meter', never, { name: 'stuck', priority: 1 })
    hooks.register('context:token_meter', () => void seen.push('after'), { priority: 2 })
    const manager = new ContextManager({}, { clock, hooks, logger: silentLogger })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.getMessagesForRequest({ tokenBudget: 1000 })
    await manager.getMessagesForRequest({ tokenBudget: 1000 })
    expect(seen).toEqual(['after', 'after'])
    expect(logger.messages('warning').filter((line) => line.includes('hook handler stuck for context:token_meter did not settle within 30 ms'))).toHaveLength(2)
  })

  it('the manager bounds a whole hook emit of any bus', async () => {
    const logger = memoryLogger()
    const hooks = { register: () => () => undefined, emit: never }
    const manager = new ContextManager({}, { clock, hooks, logger, callTimeoutMs: 30 })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.getMessagesForRequest({ tokenBudget: 1000 })
    expect(logger.messages('warning').some((line) => line.includes('hook context:token_meter did not settle within 30 ms'))).toBe(true)
  })

  it('callTimeoutMs must be a positive number of milliseconds', () => {
    expect(() => new ContextManager({}, { callTimeoutMs: 0 })).toThrow(/^config\.callTimeoutMs: expected a positive number of milliseconds/)
    expect(() => new ContextManager({}, { callTimeoutMs: Number.NaN })).toThrow(/got NaN/)
    expect(() => new ContextManager({}, { callTimeoutMs: Infinity, logger: silentLogger })).not.toThrow()
  })
})

describe('summarizer answers (SPEC 17.9, 12.7)', () => {
  const history = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ` + 'x'.repeat(200) }))

  it.each([null, undefined, '', 42, { text: 'x' }])('an answer of %j is a failed summary, and summarisation runs again later', async (answer) => {
    const logger = memoryLogger()
    let calls = 0
    const summarizer: Summarizer = {
      summarize: async () => {
        calls += 1
        return (calls === 1 ? answer : '## Current Task State\nok') as string
      },
    }
    const manager = new ContextManager({ compaction_strategy: 'summary', compaction_notice_enabled: false }, { clock, summarizer, logger })
    await manager.setMessages(history)
    await manager.getMessagesForRequest({ tokenBudget: 1000, provider: {} })
    await manager.idle()
    expect(manager.state.summary.inFlight).toBeNull()
    expect(logger.messages('warning').join('\n')).toMatch(/not a non-empty string/)
    await manager.getMessagesForRequest({ tokenBudget: 1000, provider: {} })
    await manager.idle()
    expect(calls).toBe(2)
    expect(manager.state.summary.pending?.text).toBe('## Current Task State\nok')
  })

  it('a summarizer that never settles fails after summarization_timeout_s', async () => {
    const summarizer: Summarizer = { summarize: never }
    const manager = new ContextManager({ compaction_strategy: 'summary', summarization_timeout_s: 0.03 }, { clock, summarizer, logger: silentLogger })
    await manager.setMessages(history)
    await manager.getMessagesForRequest({ tokenBudget: 1000, provider: {} })
    await manager.idle()
    expect(manager.state.summary.inFlight).toBeNull()
  })
})

describe('typed errors for bad arguments (SPEC 17.9)', () => {
  it('getMessagesForRequest(null) and mount(null) reject with InvalidRequestError', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger })
    await expect(manager.getMessagesForRequest(null as never)).rejects.toMatchObject({ name: 'InvalidRequestError', field: 'options' })
    await expect(manager.getMessagesForRequest(5 as never)).rejects.toBeInstanceOf(InvalidRequestError)
    await expect(mount(null as never)).rejects.toMatchObject({ name: 'InvalidRequestError', field: 'coordinator' })
    await expect(mount({ mount: () => undefined, hooks: 'bus' } as never)).rejects.toMatchObject({ field: 'coordinator.hooks' })
  })
})
