// target_usage above compact_threshold: accepted as given (the contract validates neither key,
// docs/contract.md section 3) but warned about, naming both keys and the fix (src/core/codecs.ts
// toCrossedTargetWarning), through decodeConfig's warnings, which the manager logs.
import { isLeft } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../src/core/codecs.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { memoryLogger } from '../../src/shell/logger.js'
import { configWarningsOf } from '../support/core.js'

const warningsOf = configWarningsOf

describe('target_usage above compact_threshold', () => {
  it('is kept as given, with one warning naming both keys, their values and the fix', () => {
    const decoded = decodeConfig({ target_usage: 0.7, compact_threshold: 0.5 })
    if (isLeft(decoded)) throw decoded.left
    expect(decoded.right.config).toMatchObject({ target_usage: 0.7, compact_threshold: 0.5 })
    expect(decoded.right.warnings).toHaveLength(1)
    const [message] = decoded.right.warnings.map((log) => log.message)
    for (const part of ['target_usage=0.7', 'compact_threshold=0.5', 'the next request fires again', 'set target_usage below compact_threshold']) expect(message).toContain(part)
    expect(decoded.right.warnings[0]).toMatchObject({ type: 'log', level: 'warning' })
  })

  it('against the default of the key not given, and not at all when the target is at or below the threshold', () => {
    expect(warningsOf({ target_usage: 0.95 })[0]).toContain('compact_threshold=0.92')
    expect(warningsOf({ compact_threshold: 0.4 })[0]).toContain('target_usage=0.5')
    expect(warningsOf({})).toEqual([])
    expect(warningsOf({ target_usage: 0.6, compact_threshold: 0.6 })).toEqual([])
    expect(warningsOf({ target_usage: 0.65 })).toEqual([])
  })

  it('the manager logs it once at construction and compacts as the contract does', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager({ target_usage: 0.8, compact_threshold: 0.6 }, { logger })
    await manager.idle()
    expect(logger.messages('warning').filter((message) => message.includes('target_usage=0.8 is above compact_threshold=0.6'))).toHaveLength(1)
    expect(manager.config.target_usage).toBe(0.8)
  })
})

describe('compact_early_target at or above compact_early_threshold', () => {
  const projection = { tool_result_json_projection: 'handle_values' }
  it('is kept as given, with one warning naming both keys, their values and the fix', () => {
    const warnings = warningsOf({ ...projection, compact_early_threshold: 0.3, compact_early_target: 0.45 })
    expect(warnings).toHaveLength(1)
    for (const part of ['compact_early_target=0.45', 'compact_early_threshold=0.3', 'the next request fires again', 'set compact_early_target below compact_early_threshold']) expect(warnings[0]).toContain(part)
    expect(warningsOf({ ...projection, compact_early_threshold: 0.15 })[0]).toContain('compact_early_target=0.15 is not below compact_early_threshold=0.15')
  })

  it('not when the target is below the threshold, nor without the early pass', () => {
    expect(warningsOf({ ...projection, compact_early_threshold: 0.5 })).toEqual([])
    expect(warningsOf({ ...projection, compact_early_threshold: 0.5, compact_early_target: 0.49 })).toEqual([])
    expect(warningsOf({ ...projection, compact_early_threshold: null })).toEqual([])
  })
})
