// A recording's header configuration is the lowest layer (docs/cli.md, "Configuration precedence"):
// a --preset or --config laid over it keeps the header's value of every key it does not set, so
// `--preset reference` on a session recorded under presets.recommended is not the contract's
// defaults. replay and report say so on stderr, compare in its warnings, and report's page names the
// header in its configuration label ('defaults' before, for a run of recommended's values).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config.js'
import { presets } from '../../../src/core/presets.js'
import { fixturePath } from '../../support/fixtures.js'
import { runCli } from '../../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'cs-header-'))

/** A session recorded under `config`, presets.recommended unless given (makeRecorder writes the manager's raw configuration). */
const writeRecording = (config: Readonly<Record<string, unknown>> = presets.recommended, name = 'recommended'): string => {
  const lines: unknown[] = [{ type: 'recording', version: 1, config: { ...config } }]
  lines.push({ op: 'add_message', message: { role: 'user', content: `start ${'word '.repeat(200)}` } })
  lines.push({ op: 'get_messages_for_request', token_budget: 3000 })
  lines.push({ op: 'add_message', message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] } })
  lines.push({ op: 'add_message', message: { role: 'tool', tool_call_id: 'c1', content: 'result '.repeat(300) } })
  lines.push({ op: 'get_messages_for_request', token_budget: 3000 })
  const path = join(dir, `${name}.recording.jsonl`)
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n')
  return path
}

const keys = Object.keys(presets.recommended)
const noteOf = (label: string): string => `its recording header sets ${keys.slice(0, 4).join(', ')} and ${keys.length - 4} more, which configuration "${label}" does not set`

describe('a preset laid over a recording header', () => {
  const file = writeRecording()

  it('compare: a warning for the configuration that keeps header keys (reference), none for recommended, which sets them all', async () => {
    const { code, stderr, stdout } = await runCli(['compare', file, '--preset', 'reference', '--preset', 'recommended', '--model', 'gpt-4o', '--json', '--jobs', '1'])
    expect(code).toBe(0)
    expect(stderr).toContain(`warning: ${file}: ${noteOf('reference')}`)
    expect(stderr).not.toContain('configuration "recommended" does not set')
    // the two runs are the same configuration: what the warning explains
    const rows = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(rows.map((row) => row.config)).toEqual(['reference', 'recommended'])
    expect(rows[0].input_tokens).toBe(rows[1].input_tokens)
  })

  it('replay: a note with --preset reference, none without a preset (the header is what was asked for)', async () => {
    const withPreset = await runCli(['replay', file, '--preset', 'reference', '--no-progress'])
    expect(withPreset.code).toBe(0)
    expect(withPreset.stderr).toContain(`note: ${file}: ${noteOf('reference')}`)
    const plain = await runCli(['replay', file, '--no-progress'])
    expect(plain.stderr).not.toContain('its recording header sets')
    const sets = await runCli(['replay', file, '--set', 'target_usage=0.5', '--no-progress'])
    expect(sets.stderr).not.toContain('its recording header sets')
  })

  it("report: the page's configuration label names the recording header under the flags", async () => {
    const html = join(dir, 'header.html')
    expect((await runCli(['report', file, '--model', 'gpt-4o', '--html', html, '--no-progress'])).code).toBe(0)
    expect(readFileSync(html, 'utf8')).toContain('configuration <b>recording header</b>')
    const withPreset = await runCli(['report', file, '--model', 'gpt-4o', '--preset', 'reference', '--html', html, '--no-progress'])
    expect(withPreset.stderr).toContain(noteOf('reference'))
    expect(readFileSync(html, 'utf8')).toContain('configuration <b>recording header + reference</b>')
  })

  it("a header at the contract's defaults (makeRecorder({ ...DEFAULT_CONFIG })) keeps no value the preset changes: no note; a key set away from them is the only one named", async () => {
    const defaults = writeRecording({ ...DEFAULT_CONFIG }, 'defaults')
    const replayed = await runCli(['replay', defaults, '--preset', 'reference', '--no-progress'])
    expect(replayed.code).toBe(0)
    expect(replayed.stderr).not.toContain('its recording header sets')
    const changed = writeRecording({ ...DEFAULT_CONFIG, compact_threshold: 0.8, unknown_key: 1 }, 'changed')
    const noted = await runCli(['replay', changed, '--preset', 'reference', '--no-progress'])
    expect(noted.stderr).toContain(`note: ${changed}: its recording header sets compact_threshold, which configuration "reference" does not set`)
  })

  it('an imported session has no header keys: no note, the label as before', async () => {
    const short = fixturePath('sessions/claude-code/short.jsonl')
    const replayed = await runCli(['replay', short, '--preset', 'reference', '--no-progress'])
    expect(replayed.stderr).not.toContain('its recording header sets')
    const html = join(dir, 'short.html')
    await runCli(['report', short, '--preset', 'reference', '--html', html, '--no-progress'])
    expect(readFileSync(html, 'utf8')).toContain('configuration <b>reference</b>')
  })
})
