// Keys that act only with a companion key: set without it they are accepted and ignored, as
// before, but decoding warns once per key, naming the key, that it is ignored and the companion
// value that makes it act (src/core/codecs.ts toInertKeyWarnings; docs/configuration.md, "Keys
// that act only with another"). A key at its default is never warned about.
import { isLeft } from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig } from '../../src/core/codecs.js'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { presets } from '../../src/core/presets.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { memoryLogger } from '../../src/shell/logger.js'
import { configWarningsOf } from '../support/core.js'

const warningsOf = configWarningsOf

describe('a key set without the companion key it acts under', () => {
  it('tool_result_json_eager_after under tool_result_json_projection "off": one warning naming both and the fix', () => {
    const warnings = warningsOf({ tool_result_json_eager_after: 2 })
    expect(warnings).toHaveLength(1)
    for (const part of ['tool_result_json_eager_after=2', 'ignored', 'tool_result_json_projection is "off"', 'set tool_result_json_projection to "named_keys", "handles" or "handle_values"']) {
      expect(warnings[0]).toContain(part)
    }
  })

  it('tool_result_json_eager_unit without tool_result_json_eager_after, or under projection "off"', () => {
    const alone = warningsOf({ tool_result_json_eager_unit: 'turns', tool_result_json_projection: 'handles' })
    expect(alone).toHaveLength(1)
    for (const part of ['tool_result_json_eager_unit="turns"', 'ignored', 'tool_result_json_eager_after is null', 'set tool_result_json_eager_after']) expect(alone[0]).toContain(part)
    const off = warningsOf({ tool_result_json_eager_unit: 'turns', tool_result_json_eager_after: 1 })
    expect(off).toHaveLength(2)
    expect(off.filter((message) => message.includes('tool_result_json_eager_unit="turns" is ignored while tool_result_json_projection is "off"'))).toHaveLength(1)
  })

  it('the early pass keys: the threshold under projection "off", the target and record share without the threshold', () => {
    expect(warningsOf({ compact_early_threshold: 0.45 })[0]).toContain('compact_early_threshold=0.45 is ignored while tool_result_json_projection is "off"')
    expect(warningsOf({ tool_result_json_projection: 'handle_values', compact_early_target: 0.3, compact_early_record_share: 0.5 })).toHaveLength(2)
    expect(warningsOf({ tool_result_json_projection: 'handle_values', compact_early_record_share: 0.5 })[0]).toContain('compact_early_record_share=0.5 is ignored while compact_early_threshold is null')
    expect(warningsOf({ tool_result_json_projection: 'handle_values', compact_early_threshold: 0.45, compact_early_target: 0.3, tool_result_json_projected_groups: 'early' })).toEqual([])
  })

  it('tool_result_json_projected_groups under projection "off"', () => {
    const warnings = warningsOf({ tool_result_json_projected_groups: 'removable' })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('tool_result_json_projected_groups="removable" is ignored while tool_result_json_projection is "off"')
  })

  it('compaction_refill_head "fit" under compaction_refill other than "history"', () => {
    for (const refill of [undefined, 'none', 'pass']) {
      const warnings = warningsOf({ compaction_refill_head: 'fit', ...(refill === undefined ? {} : { compaction_refill: refill }) })
      expect(warnings).toHaveLength(1)
      for (const part of ['compaction_refill_head="fit"', 'ignored', `compaction_refill is "${refill ?? 'none'}"`, 'set compaction_refill to "history"']) expect(warnings[0]).toContain(part)
    }
  })

  it('is silent when the companion is set, at the defaults, for every preset and for a resolved config decoded again', () => {
    expect(warningsOf({ compaction_refill: 'history', compaction_refill_head: 'fit' })).toEqual([])
    expect(warningsOf({ tool_result_json_projection: 'handle_values', tool_result_json_eager_after: 1, tool_result_json_eager_unit: 'turns', tool_result_json_projected_groups: 'removable' })).toEqual([])
    expect(warningsOf({ tool_result_json_eager_unit: 'answers', tool_result_json_projected_groups: 'kept', compaction_refill_head: 'skeleton' })).toEqual([])
    expect(warningsOf({ ...DEFAULT_CONFIG })).toEqual([])
    for (const preset of Object.values(presets)) expect(warningsOf({ ...preset })).toEqual([])
  })

  it('changes nothing else: the config is as given', () => {
    const decoded = decodeConfig({ tool_result_json_eager_after: 3, compaction_refill_head: 'fit' })
    if (isLeft(decoded)) throw decoded.left
    expect(decoded.right.config).toEqual({ ...DEFAULT_CONFIG, tool_result_json_eager_after: 3, compaction_refill_head: 'fit' })
  })

  it('the manager logs each once at construction', async () => {
    const logger = memoryLogger()
    const manager = new ContextManager({ compaction_refill_head: 'fit', tool_result_json_eager_after: 1 }, { logger })
    await manager.idle()
    const warnings = logger.messages('warning')
    expect(warnings.filter((message) => message.includes('compaction_refill_head="fit" is ignored'))).toHaveLength(1)
    expect(warnings.filter((message) => message.includes('tool_result_json_eager_after=1 is ignored'))).toHaveLength(1)
  })
})
