/**
 * The hook bus the manager emits on (SPEC 9, 17.7) and a mitt-based implementation in which every
 * handler is isolated: a throwing or rejecting handler is logged and never reaches the caller.
 */
import mittImport from 'mitt'
import type { Emitter, EventType } from 'mitt'
import type { HookEventMap, HookEventName } from '../core/hook-events.js'
import type { Logger } from './logger.js'
import { consoleLogger } from './logger.js'
import { TimeoutError } from '../core/errors.js'
import { DEFAULT_CALL_TIMEOUT_MS, withTimeLimit } from './time-limit.js'

/**
 * A hook handler: called with the event name and its payload (typed by the event map); may
 * return a value or a promise (amplifier handlers return a `HookResult` such as
 * `{ action: 'continue' }`).
 *
 * @example
 * const handler: HookHandler<'context:compaction'> = async (_event, stats) => console.log(stats.strategy_level)
 */
export type HookHandler<K extends HookEventName = HookEventName> = (event: K, data: HookEventMap[K]) => unknown

/**
 * Options of `register`: `priority` orders handlers (see `makeMittHooks` for the direction),
 * `name` labels the handler in logs and listings.
 *
 * @example
 * const bus = makeMittHooks()
 * const options: HookRegisterOptions = { priority: 50, name: 'context-simple-meter' }
 * bus.register('llm:response', () => undefined, options)
 */
export interface HookRegisterOptions {
  readonly priority?: number
  readonly name?: string
}

/**
 * The host's hook registry as SPEC 17.7 shapes it: `register` returns a function that
 * unregisters the handler; `emit` delivers a payload to the handlers of an event (possibly
 * asynchronously). This is the loose shape the manager accepts from any host (event names are
 * strings, payloads `unknown`); the bus of `makeMittHooks` is a `TypedHookBus`, on which event
 * names and payloads are checked. Hosts may offer more; the manager only calls these two.
 *
 * @example
 * const bus: HookBus = makeMittHooks()
 * const off = bus.register('context:compaction', (_event, data) => console.log(data), { name: 'log' })
 * off()
 */
export interface HookBus {
  register(event: string, handler: (event: string, data: unknown) => unknown, options?: HookRegisterOptions): () => void
  emit(event: string, data: unknown): Promise<unknown> | unknown
}

/**
 * A hook bus typed by an event map (default `HookEventMap`, the contract's events): `register`
 * and `emit` take only the map's event names and hand each handler its event's payload type, so
 * `register('context:tokenmeter', …)` fails `tsc`. Every `TypedHookBus` is a `HookBus`.
 *
 * @example
 * const bus: TypedHookBus = makeMittHooks()
 * bus.register('context:token_meter', (_event, stats) => console.log(stats.used_tokens))
 */
export interface TypedHookBus<Events extends object = HookEventMap> {
  register<K extends keyof Events & string>(event: K, handler: (event: K, data: Events[K]) => unknown, options?: HookRegisterOptions): () => void
  emit<K extends keyof Events & string>(event: K, data: Events[K]): Promise<unknown> | unknown
}

/**
 * A registered handler as `MittHookBus.list` reports it.
 *
 * @example
 * const bus = makeMittHooks()
 * await mount({ hooks: bus, mount: () => undefined })
 * const registrations: ReadonlyArray<HookRegistration> = bus.list('llm:response')
 * registrations // => [{ event: 'llm:response', name: 'context-simple-meter', priority: 50 }]
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
 * const bus: MittHookBus<{ e: object }> = makeMittHooks()
 * await bus.emit('e', {}) // => []
 */
export interface MittHookBus<Events extends object = HookEventMap> extends TypedHookBus<Events> {
  emit<K extends keyof Events & string>(event: K, data: Events[K]): Promise<ReadonlyArray<unknown>>
  list(event: keyof Events & string): ReadonlyArray<HookRegistration>
}

/**
 * Options of `makeMittHooks`: where handler failures are logged (default `consoleLogger`).
 *
 * @example
 * makeMittHooks({ logger: memoryLogger() })
 */
export interface MittHooksOptions {
  readonly logger?: Logger
  /**
   * Time limit of each handler call in milliseconds (default 30,000, `DEFAULT_CALL_TIMEOUT_MS`;
   * `Infinity` for none): a handler that has not settled by then is abandoned with a warning and
   * the next one runs (SPEC 17.9).
   */
  readonly timeoutMs?: number
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
/** A handler as the bus stores it: the event map's types are checked at `register`, not here. */
type StoredHandler = (event: string, data: unknown) => unknown

interface Entry {
  readonly event: string
  readonly handler: StoredHandler
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
 * resolves. A handler that has not settled within `options.timeoutMs` (default 30 s) is abandoned
 * the same way (SPEC 17.9). `emit` resolves to the values the successful handlers returned, in
 * call order (a failed handler contributes nothing); it never rejects. Unregistering is idempotent.
 *
 * @example
 * const bus = makeMittHooks<{ e: object }>({ logger: silentLogger })
 * bus.register('e', () => 'second', { priority: 10 })
 * bus.register('e', () => { throw new Error('boom') }, { name: 'bad' }) // logged, skipped
 * bus.register('e', async () => 'first', { priority: -1 })
 * await bus.emit('e', {}) // => ['first', 'second']
 */
export const makeMittHooks = <Events extends object = HookEventMap>(options: MittHooksOptions = {}): MittHookBus<Events> => {
  const logger = options.logger ?? consoleLogger
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
  const emitter = mitt<Record<string, Collector>>()
  const entryOf = new WeakMap<object, Entry>()
  let counter = 0

  const rank = (handler: unknown): Entry => entryOf.get(handler as object) as Entry
  const sortEvent = (event: string): void => {
    const handlers = emitter.all.get(event)
    if (handlers === undefined) return
    handlers.sort((a, b) => rank(a).priority - rank(b).priority || rank(a).order - rank(b).order)
  }

  const register = (event: string, handler: StoredHandler, registerOptions: HookRegisterOptions = {}): (() => void) => {
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
        results.push(await withTimeLimit(() => entry.handler(event, data), timeoutMs, `hook handler ${entry.name ?? '(unnamed)'} for ${event}`))
      } catch (error) {
        if (error instanceof TimeoutError) logger.warning(`${error.message}; abandoned, the next handler runs (the manager option callTimeoutMs sets the limit)`)
        else logger.warning(`hook handler ${entry.name ?? '(unnamed)'} for ${event} failed: ${describe(error)}; the next handler runs and the request goes on`)
      }
    }
    return results
  }

  const list = (event: string): ReadonlyArray<HookRegistration> =>
    (emitter.all.get(event) ?? []).map((handler) => {
      const entry = rank(handler)
      return { event: entry.event, name: entry.name, priority: entry.priority }
    })

  // the event map types the public signatures; the implementation stores any event name
  return { register, emit, list } as unknown as MittHookBus<Events>
}
