// The manager where the runtime has no AsyncLocalStorage (browsers, workers without Node
// compatibility; src/shell/job-context.ts): the shared job context is replaced by the fallback.
// Hook listeners and the prompt factory may call the manager, after their own awaits too, without
// a deadlock; idle() inside a listener resolves; awaited calls keep their order; idle() after a
// background summary waits for its answer. test/browser/runtime-loop.test.ts runs the same in Chromium.
import { describe, expect, it, vi } from 'vitest'

vi.mock('../../src/shell/job-context.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/shell/job-context.js')>()
  return { ...original, JOB_CONTEXT: original.makeJobContext(null) }
})

const { ContextManager } = await import('../../src/shell/context-manager.js')
const { makeMittHooks } = await import('../../src/shell/hooks.js')
const { fixedClock } = await import('../../src/shell/clock.js')
const { silentLogger } = await import('../../src/shell/logger.js')
const { makeMemorySpillWriter } = await import('../../src/shell/spill-fs.js')
const { JOB_CONTEXT } = await import('../../src/shell/job-context.js')

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1))

describe('ContextManager without AsyncLocalStorage', () => {
  it('uses the fallback job context', () => {
    expect(JOB_CONTEXT.followsAsyncCalls).toBe(false)
  })

  it('a hook listener may call the manager before and after its own awaits', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    const manager = new ContextManager({}, { hooks, clock, logger: silentLogger, callTimeoutMs: 2_000 })
    const seen: number[] = []
    hooks.register('context:token_meter', async () => {
      seen.push((await manager.getMessages()).length)
      await tick()
      await manager.addMessage({ role: 'user', content: 'added by a listener' })
      await manager.idle()
      seen.push((await manager.getMessages()).length)
    })
    await manager.addMessage({ role: 'user', content: 'hi' })
    const started = Date.now()
    const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(Date.now() - started).toBeLessThan(1_500) // not released by callTimeoutMs
    expect(view).toHaveLength(1)
    expect(seen).toEqual([1, 2])
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['hi', 'added by a listener'])
  })

  it('a system prompt factory may read the history after an await', async () => {
    const manager = new ContextManager({}, { clock, logger: silentLogger, callTimeoutMs: 2_000 })
    await manager.addMessage({ role: 'user', content: 'hi' })
    await manager.setSystemPromptFactory(async () => {
      await tick()
      return `history has ${(await manager.getMessages()).length} messages`
    })
    const view = await manager.getMessagesForRequest({ tokenBudget: 10_000 })
    expect(view[0]).toEqual({ role: 'system', content: 'history has 1 messages' })
  })

  it('calls not awaited one by one are applied in call order', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    hooks.register('context:token_meter', async () => tick())
    const manager = new ContextManager({ tool_result_spill_dir: '/spill', tool_result_budget_tokens: 20 }, { hooks, clock, logger: silentLogger, spillWriter: makeMemorySpillWriter() })
    const first = manager.addMessage({ role: 'user', content: 'a' })
    const request = manager.getMessagesForRequest({ tokenBudget: 10_000 })
    const rest = [manager.addMessage({ role: 'assistant', content: 'b' }), manager.addMessage({ role: 'user', content: 'c' })]
    await Promise.all([first, request, ...rest])
    expect((await manager.getMessages()).map((message) => message.content)).toEqual(['a', 'b', 'c'])
    expect((await request).map((message) => message.content)).toEqual(['a'])
  })

  it('idle() after a request waits for the background summary and its answer', async () => {
    const hooks = makeMittHooks({ logger: silentLogger })
    hooks.register('context:pre_summarize', async () => tick())
    hooks.register('context:post_summarize', async () => tick())
    const manager = new ContextManager({ compaction_strategy: 'summary', summary_trigger: 0.6, summarization_timeout_s: 10 }, { hooks, clock, logger: silentLogger })
    const provider = {
      complete: async () => {
        await tick()
        return { content: [{ type: 'text', text: '## Current Task State\nmigrating' }] }
      },
    }
    for (let i = 0; i < 12; i += 1) await manager.addMessage({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ${'words '.repeat(40)}` })
    await manager.getMessagesForRequest({ tokenBudget: 1_900, provider })
    expect(manager.state.summary.inFlight).not.toBeNull()
    await manager.idle()
    expect(manager.state.summary.inFlight).toBeNull()
    expect(manager.state.summary.pending).not.toBeNull()
  })
})
