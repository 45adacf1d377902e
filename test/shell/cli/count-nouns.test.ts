// Counts the CLI prints take the singular for 1 (src/shell/count-noun.ts): `replay` used to say
// "reads the 1 recorded readings" and "provider model fitted on 1 readings", `report` "1 requests".
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recordedUsageNote } from '../../../src/shell/cli/replay-input.js'
import { countNoun } from '../../../src/shell/count-noun.js'
import { toFrontierPoint } from '../../../src/shell/report/html.js'
import type { ReportSection } from '../../../src/shell/report/model.js'
import { runCli } from '../../support/cli.js'

const metadata = { timestamp: '2026-02-06T10:00:00.000+00:00' }
const add = (message: Record<string, unknown>) => ({ op: 'add_message', message: { ...message, metadata } })

/** A recording of `turns` requests, one recorded reading after the first, 800-character tool results (compacts at max_tokens 3,000 by the third). */
const recording = (turns: number): string => {
  const ops: unknown[] = [{ type: 'recording', version: 1, config: { max_tokens: 3000 } }, add({ role: 'system', content: 'You are a coding agent.' })]
  for (let i = 0; i < turns; i++) {
    ops.push(add({ role: 'user', content: `ask ${i}` }), { op: 'get_messages_for_request' })
    if (i === 0) ops.push({ op: 'llm_response', usage: { input_tokens: 40, output_tokens: 10 } })
    ops.push(add({ role: 'assistant', content: '', tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }] }))
    ops.push(add({ role: 'tool', tool_call_id: `t${i}`, content: 'x'.repeat(800) }))
  }
  const dir = mkdtempSync(join(tmpdir(), 'count-nouns-'))
  const path = join(dir, `turns-${turns}.recording.jsonl`)
  writeFileSync(path, ops.map((op) => JSON.stringify(op)).join('\n') + '\n')
  return path
}

describe('counts printed by the CLI', () => {
  it('countNoun: singular for 1 only', () => {
    expect([0, 1, 2].map((count) => countNoun(count, 'recorded reading'))).toEqual(['0 recorded readings', '1 recorded reading', '2 recorded readings'])
    expect(countNoun(1, 'child', 'children')).toBe('1 child')
    expect(countNoun(3, 'child', 'children')).toBe('3 children')
  })

  it('replay: the recorded-usage note and the provider-model line of one reading say "1 ... reading"', async () => {
    expect(recordedUsageNote({ usage: 'recorded', meter: 'calibrated', readings: 1, firstCompaction: 2 })).toContain('reads the 1 recorded reading (')
    const path = recording(8)
    const recorded = await runCli(['replay', path, '--preset', 'recommended', '--no-views'])
    expect(recorded.code).toBe(0)
    expect(recorded.stderr).toContain('token_meter "calibrated" reads the 1 recorded reading (--usage recorded')
    expect(recorded.stdout).toContain('(recording, 1 session)')
    const simulated = await runCli(['replay', path, '--preset', 'recommended', '--usage', 'simulated', '--no-views'])
    expect(simulated.code).toBe(0)
    expect(simulated.stdout).toContain('provider model fitted on 1 reading: ')
    expect(simulated.stdout).toMatch(/hidden overhead clamped at 0 on \d+ requests?\)/)
    expect(simulated.stdout).not.toMatch(/\b1 (readings|requests|sessions)\b/)
  })

  it('report: one session of one request is "1 session, 1 request"; the page note of one failed request', async () => {
    const html = join(mkdtempSync(join(tmpdir(), 'count-nouns-')), 'report.html')
    const result = await runCli(['report', recording(1), '--html', html, '--no-progress'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\(1 session, 1 request\)\n$/)
    const section = { neededFacts: 0, recalledFacts: 0, failedRequests: 1, costUsd: 0 } as unknown as ReportSection
    expect(toFrontierPoint('x', [section]).note).toBe('1 failed request')
  })
})
