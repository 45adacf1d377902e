/**
 * How a manager tells a call made from inside its running job (a hook listener, the system prompt
 * factory, a provider read, a spill write) from an outside call, which must wait its turn
 * (SPEC 17.9: a re-entrant call queued behind the job that awaits it would never run).
 *
 * - Where the runtime has `AsyncLocalStorage` (Node, Deno, Bun, and edge runtimes that expose it
 *   as a global), each job runs in a store holding its token, which follows every promise the job
 *   starts: a call is inside exactly when it carries the running job's token.
 * - Elsewhere (browsers, workers without Node compatibility) nothing follows async calls, so the
 *   manager marks the time its job spends awaiting caller code (`callOut`: a hook emit, the
 *   prompt factory, a provider read, a spill write, a custom runner's work), and a call that
 *   arrives meanwhile counts as inside and runs at once. Such a call is that code's own, or an
 *   unrelated call that was not awaited: it is applied whole (the state stays consistent) but
 *   does not wait for the rest of the job, and `idle()` made then resolves at once. A call made
 *   at any other time waits its turn as usual. docs/runtimes.md says so.
 */
import { nodeBuiltin } from './runtime.js'

/** Runs jobs and answers whether the caller is the running job. */
export interface JobContext {
  /** True when the store follows async calls (AsyncLocalStorage); false for the fallback. */
  readonly followsAsyncCalls: boolean
  /** Runs `task` on behalf of the job `token`. */
  readonly run: <T>(token: symbol, task: () => Promise<T>) => Promise<T>
  /** Awaits `call` (caller code) on behalf of the job `running` (null: no job). */
  readonly callOut: <T>(running: symbol | null, call: () => Promise<T>) => Promise<T>
  /** True when called on behalf of `running` (the manager's running job; null when none). */
  readonly isInside: (running: symbol | null) => boolean
}

interface AsyncLocalStorageLike<T> {
  readonly run: <R>(store: T, callback: () => R) => R
  readonly getStore: () => T | undefined
}
type AsyncLocalStorageClass = new <T>() => AsyncLocalStorageLike<T>

/** The runtime's AsyncLocalStorage class: a global (Vercel Edge, Cloudflare), else `node:async_hooks`; null when neither. */
export const findAsyncLocalStorage = (): AsyncLocalStorageClass | null => {
  const global = (globalThis as { readonly AsyncLocalStorage?: AsyncLocalStorageClass }).AsyncLocalStorage
  if (typeof global === 'function') return global
  const hooks = nodeBuiltin<{ readonly AsyncLocalStorage?: AsyncLocalStorageClass }>('node:async_hooks')
  return typeof hooks?.AsyncLocalStorage === 'function' ? hooks.AsyncLocalStorage : null
}

/** A job context over `Storage` (see the module comment), or the fallback when `Storage` is null. */
export const makeJobContext = (Storage: AsyncLocalStorageClass | null): JobContext => {
  if (Storage === null) {
    /** How many calls out each running job is awaiting. */
    const callingOut = new Map<symbol, number>()
    return {
      followsAsyncCalls: false,
      run: (_token, task) => task(),
      callOut: async (running, call) => {
        if (running === null) return call()
        callingOut.set(running, (callingOut.get(running) ?? 0) + 1)
        try {
          return await call()
        } finally {
          const left = (callingOut.get(running) ?? 1) - 1
          if (left === 0) callingOut.delete(running)
          else callingOut.set(running, left)
        }
      },
      isInside: (running) => running !== null && callingOut.has(running),
    }
  }
  const storage = new Storage<symbol>()
  return {
    followsAsyncCalls: true,
    run: (token, task) => storage.run(token, task),
    callOut: (_running, call) => call(),
    isInside: (running) => {
      const caller = storage.getStore()
      return caller !== undefined && caller === running
    },
  }
}

/**
 * The job context every manager of the process shares: Node propagates each AsyncLocalStorage
 * instance into every new promise, so one instance per manager made each promise cost
 * O(managers) (1,000 sessions: `npm run bench`). A manager compares the store with its own
 * running job, so sharing changes nothing else.
 */
export const JOB_CONTEXT: JobContext = makeJobContext(findAsyncLocalStorage())
