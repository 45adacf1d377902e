// Re-entrancy detection (src/shell/job-context.ts): with AsyncLocalStorage a call is inside only
// when it carries the running job's token through awaits; the fallback (no AsyncLocalStorage:
// browsers, plain workers) counts a call as inside only while the running job awaits caller code.
import { AsyncLocalStorage } from 'node:async_hooks'
import { describe, expect, it } from 'vitest'
import { findAsyncLocalStorage, JOB_CONTEXT, makeJobContext } from '../../src/shell/job-context.js'

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1))

describe('job contexts', () => {
  it('Node has AsyncLocalStorage (found through process.getBuiltinModule), and the shared context uses it', () => {
    expect(findAsyncLocalStorage()).toBe(AsyncLocalStorage)
    expect(JOB_CONTEXT.followsAsyncCalls).toBe(true)
  })

  it('AsyncLocalStorage: inside exactly in the job’s own async calls, across awaits', async () => {
    const context = makeJobContext(AsyncLocalStorage)
    const job = Symbol('job')
    const seen: boolean[] = []
    expect(context.isInside(job)).toBe(false)
    const running = context.run(job, async () => {
      seen.push(context.isInside(job))
      await tick()
      seen.push(context.isInside(job), context.isInside(Symbol('other')))
    })
    seen.push(context.isInside(job)) // the caller, after the job's first await
    await running
    expect(seen).toEqual([true, false, true, false])
  })

  it('fallback: inside only while the running job awaits caller code, whoever calls', async () => {
    const context = makeJobContext(null)
    const job = Symbol('job')
    const seen: Array<[string, boolean]> = []
    let release: () => void = () => undefined
    const running = context.run(job, async () => {
      seen.push(['job code', context.isInside(job)])
      await context.callOut(job, async () => {
        seen.push(['caller code', context.isInside(job)])
        await new Promise<void>((resolve) => (release = resolve))
        seen.push(['caller code after an await', context.isInside(job)])
      })
      seen.push(['after the call out', context.isInside(job)])
    })
    seen.push(['elsewhere, during the call out', context.isInside(job)])
    release()
    await running
    expect(seen).toEqual([
      ['job code', false],
      ['caller code', true],
      ['elsewhere, during the call out', true],
      ['caller code after an await', true],
      ['after the call out', false],
    ])
    expect(context.isInside(null)).toBe(false)
    expect(context.followsAsyncCalls).toBe(false)
  })
})
