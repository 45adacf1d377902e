/**
 * Mounting on an amplifier-style coordinator (SPEC 2.8, 17.7): build the manager on the
 * coordinator's hook bus, register the usage listener, mount at `"context"`, return the cleanup.
 */
import type { ContextConfig } from '../core/config.js'
import type { LlmResponsePayload } from '../core/meter/usage.js'
import { isTruthy } from '../core/messages/values.js'
import type { ContextManagerOptions } from './context-manager.js'
import { ContextManager } from './context-manager.js'
import type { HookBus } from './hooks.js'
import type { Logger } from './logger.js'
import { consoleLogger } from './logger.js'
import { InvalidRequestError } from '../core/errors.js'
import { describeValue } from '../core/messages/json-value.js'

/**
 * The host as SPEC 17.7 shapes it: an optional hook bus and `mount(kind, instance)`, which may
 * return a promise (awaited).
 *
 * @example
 * const mounted: Record<string, unknown> = {}
 * const coordinator: Coordinator = { hooks: makeMittHooks(), mount: (kind, instance) => { mounted[kind] = instance } }
 */
export interface Coordinator {
  readonly hooks?: HookBus | null
  readonly mount: (kind: string, instance: unknown) => unknown
}

/**
 * The async cleanup `mount` resolves to: unregisters the usage listener (idempotent).
 *
 * @example
 * const cleanup: Cleanup = await mount({ hooks: makeMittHooks(), mount: () => undefined })
 * await cleanup()
 */
export type Cleanup = () => Promise<void>

/**
 * Manager collaborators for `mount` (the hook bus always comes from the coordinator).
 *
 * @example
 * const options: MountOptions = { logger: silentLogger, clock: systemClock }
 * await mount({ hooks: makeMittHooks(), mount: () => undefined }, {}, options)
 */
export type MountOptions = Omit<ContextManagerOptions, 'hooks'>

/**
 * The `llm:response` listener's registration (SPEC 2.8 step 4, 10.2).
 *
 * @example
 * METER_LISTENER.priority // => 50
 */
export const METER_LISTENER = { event: 'llm:response', priority: 50, name: 'context-simple-meter' } as const

/** Warn-and-fall-back string keys that `mount` validates itself (SPEC 2.8 step 2, 3). */
const VALIDATED_KEYS = [
  { key: 'token_meter', allowed: ['estimate', 'actual', 'hybrid', 'calibrated'], fallback: 'estimate' },
  { key: 'compaction_strategy', allowed: ['progressive', 'summary'], fallback: 'progressive' },
] as const

/** A value as the warning shows it. */
const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Validates `token_meter` and `compaction_strategy` (SPEC 3): a present value (anything but
 * `undefined`, so `null` included) that is not one of the allowed strings logs one warning containing
 * `unknown token_meter` / `unknown compaction_strategy` and is replaced by the fallback. Returns the
 * corrected copy of a plain-object config; any other value is returned unchanged (the decoder rejects
 * it).
 *
 * @example
 * const logger = memoryLogger()
 * validateMountConfig({ token_meter: 'tokens' }, logger) // => { token_meter: 'estimate' }
 * logger.entries.length // => 1
 */
export const validateMountConfig = (config: unknown, logger: Logger): unknown => {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return config
  const corrected: Record<string, unknown> = { ...(config as Record<string, unknown>) }
  // SPEC 2.8 step 3: mount converts replay_last_user_on_compaction by truthiness.
  if (corrected.replay_last_user_on_compaction !== undefined) corrected.replay_last_user_on_compaction = isTruthy(corrected.replay_last_user_on_compaction)
  for (const { key, allowed, fallback } of VALIDATED_KEYS) {
    const value = corrected[key]
    if (value === undefined || (allowed as ReadonlyArray<unknown>).includes(value)) continue
    logger.warning(`context-simple: unknown ${key} ${show(value)}; falling back to ${JSON.stringify(fallback)}`)
    corrected[key] = fallback
  }
  return corrected
}

/**
 * Mounts a context manager on `coordinator` (SPEC 2.8):
 * 1. validates `token_meter`/`compaction_strategy` (one warning each, the corrected value is passed
 *    on, so the decoder does not warn again); unknown keys are ignored;
 * 2. constructs the manager with `coordinator.hooks` as its bus (throws the decoder's `ConfigError`
 *    on a wrongly typed value);
 * 3. if the coordinator has hooks, registers `llm:response` → `manager.onLlmResponse(data)` with
 *    `{ priority: 50, name: 'context-simple-meter' }` **before** mounting;
 * 4. calls (and awaits) `coordinator.mount('context', manager)`; if that throws, the listener is
 *    unregistered and the error rethrown;
 * 5. resolves to an async cleanup that unregisters the listener (a no-op without hooks).
 *
 * Rejects with `InvalidRequestError` (field `coordinator` or `coordinator.hooks`) when the
 * coordinator is not an object with `mount`, or its hooks are not a bus with `register`.
 *
 * @example
 * const hooks = makeMittHooks()
 * const cleanup = await mount({ hooks, mount: () => undefined }, { token_meter: 'hybrid' })
 * hooks.list('llm:response').length // => 1
 * await cleanup()
 */
export const mount = async (coordinator: Coordinator, config: ContextConfig = {}, options: MountOptions = {}): Promise<Cleanup> => {
  const logger = options.logger ?? consoleLogger
  if (typeof coordinator !== 'object' || coordinator === null || typeof coordinator.mount !== 'function') {
    throw new InvalidRequestError('coordinator', `expected a coordinator object with mount(kind, instance), got ${describeValue(coordinator)}`)
  }
  const hooks = coordinator.hooks ?? null
  if (hooks !== null && (typeof hooks !== 'object' || typeof hooks.register !== 'function')) {
    throw new InvalidRequestError('coordinator.hooks', `expected a hook bus with register(event, handler, options) and emit(event, data), or none, got ${describeValue(hooks)}`)
  }
  // validateMountConfig only corrects values (a JavaScript caller may pass anything; the decoder checks it)
  const manager = new ContextManager(validateMountConfig(config ?? {}, logger) as ContextConfig, { ...options, logger, hooks })
  let unregister: (() => unknown) | null = null
  if (hooks !== null) {
    const returned: unknown = hooks.register(METER_LISTENER.event, (_event, data) =>
      // the host's bus is untyped: the listener checks the payload at run time (SPEC 17.6)
      manager.onLlmResponse(data as LlmResponsePayload), {
      priority: METER_LISTENER.priority,
      name: METER_LISTENER.name,
    })
    if (typeof returned === 'function') unregister = returned as () => unknown
  }
  const cleanup: Cleanup = async () => {
    const pending = unregister
    unregister = null
    if (pending !== null) await pending()
  }
  try {
    await coordinator.mount('context', manager)
  } catch (error) {
    await cleanup()
    throw error
  }
  return cleanup
}
