// replay --repair: views of a recording with an interrupted parallel tool turn, repaired before
// conversion and checking exactly as a live manager with `repair: true` repairs them.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { findFormatViolations } from '../../../src/core/formats/dispatch.js'
import { fixedClock } from '../../../src/shell/clock.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { makeRecorder } from '../../../src/shell/recorder.js'
import { silentLogger } from '../../../src/shell/logger.js'
import { makeMemorySpillWriter } from '../../../src/shell/spill-fs.js'
import { runCli } from '../../support/cli.js'

const call = (id: string, path: string) => ({ id, type: 'function', function: { name: 'read', arguments: JSON.stringify({ path }) } })

/** An agent asks for two reads at once; the user interrupts after the first result, the agent answers, the user goes on. */
const SESSION: ReadonlyArray<Record<string, unknown>> = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read both files.' },
  { role: 'assistant', content: '', tool_calls: [call('call_a', 'a.txt'), call('call_b', 'b.txt')] },
  { role: 'tool', tool_call_id: 'call_a', content: 'contents of a' },
  { role: 'user', content: 'Stop, never mind b. What is in a?' },
  { role: 'assistant', content: 'a holds: contents of a' },
  { role: 'user', content: 'Thanks. Now list the directory.' },
]

/** The recording docs/cli.md and docs/formats.md replay: SESSION as recorded below. */
const EXAMPLE = 'examples/interrupted-parallel-turn.recording.jsonl'

/** Record SESSION through a live manager with `repair: true`, requesting an anthropic view after every user message. */
const recordSession = async (): Promise<{ text: string; live: unknown[] }> => {
  const recorder = makeRecorder({ max_tokens: 200_000 })
  const manager = new ContextManager({ max_tokens: 200_000 }, { repair: true, recorder, clock: fixedClock('2026-02-06T10:00:00.000+00:00'), logger: silentLogger, spillWriter: makeMemorySpillWriter() })
  const live: unknown[] = []
  for (const message of SESSION) {
    await manager.addMessage(message)
    if (message.role === 'user') live.push(await manager.getMessagesForRequest({ format: 'anthropic', tokenBudget: 100_000 }))
  }
  return { text: recorder.toJsonLines(), live }
}

const file = EXAMPLE

const parseLines = (text: string): Array<Record<string, unknown>> => text.trim().split('\n').map((line) => JSON.parse(line))

describe('replay --repair', () => {
  it('the example recording is SESSION as a live manager records it', async () => {
    expect(readFileSync(EXAMPLE, 'utf8')).toBe((await recordSession()).text)
  })

  it('without it the anthropic view of the interrupted turn breaks A2; with it every view passes and the repaired ones are counted', async () => {
    const plain = await runCli(['replay', file, '--view-format', 'anthropic'])
    expect(plain.code).toBe(0)
    const broken = Number(/views that break anthropic rules A1-A7: (\d+)/.exec(plain.stdout)?.[1])
    expect(broken).toBeGreaterThan(0)
    expect(plain.stdout).toMatch(/request \d+ breaks pairing: A2 /)
    expect(plain.stdout).not.toContain('views changed by repair')

    const fixed = await runCli(['replay', file, '--view-format', 'anthropic', '--repair'])
    expect(fixed.code).toBe(0)
    expect(fixed.stdout).toContain('views that break anthropic rules A1-A7 after repair: 0')
    const repaired = Number(/views changed by repair: (\d+)/.exec(fixed.stdout)?.[1])
    expect(repaired).toBeGreaterThan(0)
    expect(fixed.stdout).not.toContain('breaks pairing:')
  })

  it('--json: each line says whether repair changed its view, and the views are the live manager views with repair: true', async () => {
    const { live } = await recordSession()
    const plain = parseLines((await runCli(['replay', file, '--view-format', 'anthropic', '--json'])).stdout)
    expect(plain.some((line) => 'view_repaired' in line)).toBe(false)
    expect(plain.filter((line) => findFormatViolations('anthropic', line.view).length > 0).length).toBeGreaterThan(0)

    const { code, stdout } = await runCli(['replay', file, '--view-format', 'anthropic', '--repair', '--json'])
    expect(code).toBe(0)
    const lines = parseLines(stdout)
    expect(lines.map((line) => line.view)).toEqual(live)
    for (const line of lines) expect(findFormatViolations('anthropic', line.view)).toEqual([])
    // The first request's view is [system, user]: nothing to repair.
    expect(lines.map((line) => line.view_repaired)).toEqual([false, true, true])
    expect(JSON.stringify(lines[2].view)).toContain('[no result recorded]')
    expect(lines.map((line) => line.view)).not.toEqual(plain.map((line) => line.view))
  })

  it('--repair without --view-format is a usage error naming both flags', async () => {
    const { code, stdout, stderr } = await runCli(['replay', file, '--repair'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('--repair')
    expect(stderr).toContain('--view-format')
  })
})
