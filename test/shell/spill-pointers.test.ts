// SPEC 17.9 "Spill pointers", through the manager and the real file system: the request that
// spills waits for its writes; a refused write (a symlink planted at the target) leaves no pointer
// to that path in that view or any later one and emits context:spill_failed; the recording carries
// a spill_result line, and its replay gives the same views.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../src/core/codecs.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { toSpillPath } from '../../src/core/tool-results/tool-result-budget.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { parseRecordingJsonl } from '../../src/shell/recording-file.js'
import { silentLogger } from '../../src/shell/logger.js'

const NOW = '2026-02-06T10:00:00.123+00:00'
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const session = async (manager: ContextManager): Promise<void> => {
  await manager.addMessage({ role: 'user', content: 'read both files' })
  await manager.addMessage({ role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read', arguments: '{}' } }, { id: 'b', type: 'function', function: { name: 'read', arguments: '{}' } }] })
  await manager.addMessage({ role: 'tool', tool_call_id: 'a', content: 'A'.repeat(3000) })
  await manager.addMessage({ role: 'tool', tool_call_id: 'b', content: 'B'.repeat(3000) })
  await manager.addMessage({ role: 'user', content: 'thanks' })
}

describe('spill pointers (SPEC 17.9)', () => {
  it('a pointer names a file that already holds the content; a refused write leaves no pointer, now or later', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cs-spill-'))
    dirs.push(root)
    const dir = join(root, 'spill')
    const secret = join(root, 'secret.txt')
    writeFileSync(secret, 'not for the model')
    const config = { tool_result_spill_dir: dir, tool_result_budget_tokens: 25, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1 }
    // The path of result b (_seq 3) is planted with a symlink to a file the model must not read.
    const planted = toSpillPath(dir, 3, 'B'.repeat(3000))
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir)
    symlinkSync(secret, planted)
    const hooks = makeMittHooks({ logger: silentLogger })
    const failures: unknown[] = []
    hooks.register('context:spill_failed', (_event, data) => void failures.push(data))
    const recorder = makeRecorder(config, { now: NOW })
    const manager = new ContextManager(config, { clock: fixedClock(NOW), hooks, logger: silentLogger, recorder })
    await session(manager)
    const first = await manager.getMessagesForRequest({ tokenBudget: 900 })
    const text = JSON.stringify(first)
    const good = toSpillPath(dir, 2, 'A'.repeat(3000))
    // The pointer to a's file is in the view only once the file holds the full content.
    expect(text).toContain(`read ${good} for the full result`)
    expect(readFileSync(good, 'utf8')).toBe('A'.repeat(3000))
    // b's write was refused: no pointer to the planted path, the plain marker instead.
    expect(text).not.toContain(planted)
    expect(first.find((message) => message.tool_call_id === 'b')?.content).toMatch(/^\[truncated: ~750 tokens - call tool again if needed\] B+/)
    expect(failures).toEqual([{ path: planted, error: expect.stringMatching(/symlink|link|refus/i) }])
    expect(readFileSync(secret, 'utf8')).toBe('not for the model')
    const later = await manager.getMessagesForRequest({ tokenBudget: 900 })
    expect(JSON.stringify(later)).not.toContain(planted)
    expect(failures).toHaveLength(1)
    // The recording says which write failed; its replay gives the same views.
    const jsonl = recorder.toJsonLines()
    expect(jsonl).toContain('"op":"spill_result"')
    const recording = parseRecordingJsonl(jsonl, 'live.jsonl')
    const decoded = decodeConfig(recording.config)
    if (E.isLeft(decoded)) throw decoded.left
    const replayed = replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() })
    expect(replayed.lines.map((line) => line.view)).toEqual([first, later])
    expect(replayed.lines[0].events.map((event) => event.name)).toContain('context:spill_failed')
  })

  it('replay with a view shape: the core makes each view in that shape, after the answers to its spill writes, as the manager does', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cs-spill-'))
    dirs.push(root)
    const dir = join(root, 'spill')
    const config = { tool_result_spill_dir: dir, tool_result_budget_tokens: 25, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1 }
    const planted = toSpillPath(dir, 3, 'B'.repeat(3000))
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir)
    symlinkSync(join(root, 'elsewhere.txt'), planted)
    const recorder = makeRecorder(config, { now: NOW })
    const manager = new ContextManager(config, { clock: fixedClock(NOW), logger: silentLogger, recorder })
    await session(manager)
    const first = await manager.getMessagesForRequest({ tokenBudget: 900, format: 'anthropic' })
    const later = await manager.getMessagesForRequest({ tokenBudget: 900, format: 'anthropic' })
    expect(JSON.stringify(first)).not.toContain(planted)
    const recording = parseRecordingJsonl(recorder.toJsonLines(), 'live.jsonl')
    const decoded = decodeConfig(recording.config)
    if (E.isLeft(decoded)) throw decoded.left
    const replayed = replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() }, { shape: { format: 'anthropic', repair: false } })
    expect(replayed.shaped).toEqual([{ view: first, repaired: false }, { view: later, repaired: false }])
    // Without a shape the replay makes no such view.
    expect(replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() }).shaped).toEqual([])
  })

  it('with a writable directory nothing changes: every pointer is there and names a written file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cs-spill-'))
    dirs.push(root)
    const dir = join(root, 'out')
    const manager = new ContextManager({ tool_result_spill_dir: dir, tool_result_budget_tokens: 25, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1 }, { clock: fixedClock(NOW), logger: silentLogger })
    await session(manager)
    const view = await manager.getMessagesForRequest({ tokenBudget: 900 })
    for (const [seq, letter] of [[2, 'A'], [3, 'B']] as const) {
      const path = toSpillPath(dir, seq, letter.repeat(3000))
      expect(JSON.stringify(view)).toContain(`read ${path} for the full result`)
      expect(existsSync(path)).toBe(true)
    }
  })

  it('a directory like missing/../out: the write lands in out/, but the pointer would not resolve, so the view has none', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cs-spill-'))
    dirs.push(root)
    const dir = `${root}/missing/../out`
    const failures: unknown[] = []
    const hooks = makeMittHooks({ logger: silentLogger })
    hooks.register('context:spill_failed', (_event, data) => void failures.push(data))
    const manager = new ContextManager({ tool_result_spill_dir: dir, tool_result_budget_tokens: 25, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1 }, { clock: fixedClock(NOW), hooks, logger: silentLogger })
    await session(manager)
    const view = await manager.getMessagesForRequest({ tokenBudget: 900 })
    expect(JSON.stringify(view)).not.toContain('missing/../out')
    expect(failures).toHaveLength(2)
    expect(failures[0]).toMatchObject({ error: expect.stringContaining('does not lead to the file written') })
    // Once missing/ exists the same kind of directory resolves, and pointers are given.
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(root, 'missing2'))
    const other = new ContextManager({ tool_result_spill_dir: `${root}/missing2/../out2`, tool_result_budget_tokens: 25, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1 }, { clock: fixedClock(NOW), logger: silentLogger })
    await session(other)
    expect(JSON.stringify(await other.getMessagesForRequest({ tokenBudget: 900 }))).toContain('missing2/../out2/tool-result-000002-')
  })
})
