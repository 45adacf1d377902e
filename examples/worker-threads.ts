/**
 * Example: moving a live session between two worker threads through its snapshot. Worker A hosts
 * the session for the first turns; then the host asks A for `snapshot()` (JSON text, what a queue
 * or key-value store would carry), and worker B restores it with `ContextManager.restore` and
 * serves the remaining turns. Every view equals the one an uninterrupted session in this thread
 * gives. See docs/embedding.md, "Hosting many sessions". The workers run
 * `examples/session-worker.mjs`, which loads the built package (`npm run build` first).
 */
import { Worker } from 'node:worker_threads'
import { ContextManager, fixedClock, silentLogger, type Message } from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface WorkerThreadsResult {
  readonly threads: ReadonlyArray<number>
  readonly movedAfterTurn: number
  readonly snapshotBytes: number
  readonly requests: number
  readonly viewsEqualUninterrupted: boolean
  readonly compactionsBeforeMove: number
  readonly compactionsAfterMove: number
}

const CONFIG = { max_tokens: 100_000 }
const BUDGET = 3_000

/** A turn of a coding agent: a question, a tool call, its (long) result, an answer. */
const turn = (i: number): ReadonlyArray<Message> => [
  { role: 'user', content: `Step ${i}: open src/module${i}.ts and explain what it exports.` },
  { role: 'assistant', content: '', tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module${i}.ts` }) } }] },
  { role: 'tool', tool_call_id: `call_${i}`, content: Array.from({ length: 60 }, (_, line) => `export const value${line} = compute(${i}, ${line})`).join('\n') },
  { role: 'assistant', content: `Module ${i} exports sixty computed values.` },
]

/** A worker thread hosting sessions, with a promise per request. */
const startWorker = () => {
  const worker = new Worker(new URL('./session-worker.mjs', import.meta.url))
  let next = 0
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  worker.on('message', (answer: { id: number; ok: boolean; result?: unknown; error?: string }) => {
    const pending = waiting.get(answer.id)
    waiting.delete(answer.id)
    if (answer.ok) pending?.resolve(answer.result)
    else pending?.reject(new Error(answer.error))
  })
  const call = <T>(message: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      next += 1
      waiting.set(next, { resolve: resolve as (value: unknown) => void, reject })
      worker.postMessage({ id: next, ...message })
    })
  return { call, stop: () => worker.terminate() }
}

interface Answer {
  readonly view: ReadonlyArray<Message>
  readonly compaction: { readonly strategy_level: number } | null
}

export async function run(): Promise<WorkerThreadsResult> {
  const turns = 12
  const movedAfterTurn = 6
  const reference = new ContextManager(CONFIG, { logger: silentLogger, clock: fixedClock('2026-12-01T00:00:00.000+00:00') })
  const workerA = startWorker()
  const workerB = startWorker()
  try {
    const threads = [(await workerA.call<{ threadId: number }>({ op: 'start', config: CONFIG })).threadId]
    let host = workerA
    let equal = true
    let requests = 0
    let snapshotBytes = 0
    const compactions = [0, 0]
    let lastStats: string | null = null
    for (let i = 0; i < turns; i += 1) {
      if (i === movedAfterTurn) {
        // The move: A hands over its session as JSON text; B restores it and takes over.
        const snapshot = await workerA.call<string>({ op: 'snapshot' })
        snapshotBytes = snapshot.length
        threads.push((await workerB.call<{ threadId: number }>({ op: 'restore', snapshot })).threadId)
        host = workerB
      }
      for (const message of turn(i)) {
        await host.call({ op: 'add', message })
        await reference.addMessage(message)
      }
      const answer = await host.call<Answer>({ op: 'request', tokenBudget: BUDGET })
      const expected = await reference.getMessagesForRequest({ tokenBudget: BUDGET })
      requests += 1
      equal &&= JSON.stringify(answer.view) === JSON.stringify(expected) && JSON.stringify(answer.compaction) === JSON.stringify(reference.lastCompactionStats)
      const stats = JSON.stringify(answer.compaction)
      if (answer.compaction !== null && stats !== lastStats) compactions[i < movedAfterTurn ? 0 : 1] += 1
      lastStats = stats
    }
    return {
      threads,
      movedAfterTurn,
      snapshotBytes,
      requests,
      viewsEqualUninterrupted: equal,
      compactionsBeforeMove: compactions[0],
      compactionsAfterMove: compactions[1],
    }
  } finally {
    await workerA.stop()
    await workerB.stop()
  }
}
