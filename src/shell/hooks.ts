/**
 * The hook bus the manager emits on (SPEC 9, 17.7) and a mitt-based implementation in which every
 * handler is isolated: a throwing or rejecting handler is logged and never reaches the caller.
 */
import mittImport from 'mitt'
import type { Emitter, EventType } from 'mitt'
import type { Logger } from './runner.js'
import { consoleLogger } from './runner.js'

/**
 * A hook handler: called with the event name and its payload; may return a value or a promise
 * (amplifier handlers return a `HookResult` such as `{ action: 'continue' }`).
 *
 * @example
 * const handler: HookHandler = async (event, data) => ({ action: 'continue' })
 */
export type HookHandler = (event: string, data: unknown) => unknown

/**
 * Options of `register`: `priority` orders handlers (see `makeMittHooks` for the direction),
 * `name` labels the handler in logs and listings.
 *
 * @example
 * bus.register('llm:response', handler, { priority: 50, name: 'context-simple-meter' })
 */
export interface HookRegisterOptions {
  readonly priority?: number
  readonly name?: string
}

/**
 * The host's hook registry as SPEC 17.7 shapes it: `register` returns a function that
 * unregisters the handler; `emit` delivers a payload to the handlers of an event (possibly
 * asynchronously). Hosts may offer more; the manager only calls these two.
 *
 * @example
 * const bus: HookBus = makeMittHooks()
 * const off = bus.register('context:compaction', (_event, data) => console.log(data), { name: 'log' })
 * off()
 */
export interface HookBus {
  readonly register: (event: string, handler: HookHandler, options?: HookRegisterOptions) => () => void
  readonly emit: (event: string, data: unknown) => Promise<unknown> | unknown
}

/**
 * A registered handler as `MittHookBus.list` reports it.
 *
 * @example
 * bus.list('llm:response') // after mount: [{ event: 'llm:response', name: 'context-simple-meter', priority: 50 }]
 */
export interface HookRegistration {
  readonly event: string
  readonly name: string | null
  readonly priority: number
}

/**
 * The mitt-based bus: a `HookBus` whose `emit` resolves to the results of the handlers that did not
 * throw (in call order), plus `list(event)` to inspect registrations in call order.
 *
 * @example
 * const results = await makeMittHooks().emit('e', {}) // [] with no handlers
 */
export interface MittHookBus extends HookBus {
  readonly emit: (event: string, data: unknown) => Promise<ReadonlyArray<unknown>>
  readonly list: (event: string) => ReadonlyArray<HookRegistration>
}

/**
 * Options of `makeMittHooks`: where handler failures are logged (default `consoleLogger`).
 *
 * @example
 * makeMittHooks({ logger: memoryLogger() })
 */
export interface MittHooksOptions {
  readonly logger?: Logger
}

/**
 * mitt's factory. Its typings are read as CommonJS under NodeNext, so the default import is typed as
 * the module object; at run time it is the function (or, through a CommonJS interop, `.default`).
 */
type MittFactory = <Events extends Record<EventType, unknown>>() => Emitter<Events>
const mitt: MittFactory =
  typeof mittImport === 'function'
    ? (mittImport as unknown as MittFactory)
    : (mittImport as unknown as { readonly default: MittFactory }).default

/** One registration; `order` breaks priority ties by registration order. */
interface Entry {
  readonly event: string
  readonly handler: HookHandler
  readonly priority: number
  readonly name: string | null
  readonly order: number
}

/** What mitt carries for one emit: the list the matching registrations append themselves to. */
type Collector = Array<Entry>

/** The text of an unknown thrown value. */
const describe = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))

/**
 * A hook bus built on mitt. Mitt holds the registrations per event; on `emit`, mitt delivers a
 * collector to every registration of the event, and the bus then calls the collected handlers
 * **one after another, awaiting each** (a handler returning a promise finishes before the next
 * starts).
 *
 * Order: **ascending priority** — the lowest number runs first, as in amplifier's hook registry;
 * equal priorities run in registration order. A missing or non-finite priority counts as 0.
 *
 * Isolation: each handler call is wrapped in try/catch; a throw or a rejection is logged as a
 * warning (with the handler's name) and skipped — later handlers still run and `emit` still
 * resolves. `emit` resolves to the values the successful handlers returned, in call order (a
 * failed handler contributes nothing); it never rejects. Unregistering is idempotent.
 *
 * @example
 * const bus = makeMittHooks()
 * bus.register('e', () => 'second', { priority: 10 })
 * bus.register('e', () => { throw new Error('boom') }, { name: 'bad' }) // logged, skipped
 * bus.register('e', async () => 'first', { priority: -1 })
 * await bus.emit('e', {}) // ['first', 'second']
 */
export const makeMittHooks = (options: MittHooksOptions = {}): MittHookBus => {
  const logger = options.logger ?? consoleLogger
  const emitter = mitt<Record<string, Collector>>()
  const entryOf = new WeakMap<object, Entry>()
  let counter = 0

  const rank = (handler: unknown): Entry => entryOf.get(handler as object) as Entry
  const sortEvent = (event: string): void => {
    const handlers = emitter.all.get(event)
    if (handlers === undefined) return
    handlers.sort((a, b) => rank(a).priority - rank(b).priority || rank(a).order - rank(b).order)
  }

  const register = (event: string, handler: HookHandler, registerOptions: HookRegisterOptions = {}): (() => void) => {
    const priority =
      typeof registerOptions.priority === 'number' && Number.isFinite(registerOptions.priority) ? registerOptions.priority : 0
    const entry: Entry = { event, handler, priority, name: registerOptions.name ?? null, order: counter++ }
    const deliver = (collector: Collector): void => {
      collector.push(entry)
    }
    entryOf.set(deliver, entry)
    emitter.on(event, deliver)
    sortEvent(event)
    let registered = true
    return () => {
      if (!registered) return
      registered = false
      emitter.off(event, deliver)
    }
  }

  const emit = async (event: string, data: unknown): Promise<ReadonlyArray<unknown>> => {
    const collected: Collector = []
    emitter.emit(event, collected)
    const results: Array<unknown> = []
    for (const entry of collected) {
      try {
        results.push(await entry.handler(event, data))
      } catch (error) {
        logger.warning(`hook handler ${entry.name ?? '(unnamed)'} for ${event} failed: ${describe(error)}`)
      }
    }
    return results
  }

  const list = (event: string): ReadonlyArray<HookRegistration> =>
    (emitter.all.get(event) ?? []).map((handler) => {
      const entry = rank(handler)
      return { event: entry.event, name: entry.name, priority: entry.priority }
    })

  return { register, emit, list }
}
