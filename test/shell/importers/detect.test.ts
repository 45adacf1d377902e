/**
 * Tests of input format recognition and loading: each real input kind, passed-over lines, and
 * clear errors when nothing matches.
 */
import { readFixture } from '../../support/fixtures.js'
import { describe, expect, test } from 'vitest'
import { thrown } from '../../support/recording-errors.js'
import { detectFormat, loadRecordings } from '../../../src/shell/importers/index.js'



describe('detectFormat', () => {
  test.each([
    ['conformance/sessions/cc-short.recording.jsonl', 'recording'],
    ['conformance/generated/cal-00.recording.jsonl', 'recording'],
    ['sessions/claude-code/short.jsonl', 'claude-code'],
    ['sessions/claude-code/tool_heavy.jsonl', 'claude-code'],
    ['sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 'claude-code'],
    ['sessions/claude-code/4d5611e5-agent-acompact-e1f845.jsonl', 'claude-code'],
    ['sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 'openai-chat'],
  ])('%s is %s', (path, format) => {
    expect(detectFormat(readFixture(path), path)).toBe(format)
  })

  test.each([
    ['{"type":"recording","version":1,"config":{}}\n', 'recording'],
    ['\n{"op":"clear"}\n', 'recording'],
    ['{"type":"summary","summary":"x","leafUuid":"u"}\n{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}', 'claude-code'],
    ['{"type":"file-history-snapshot","snapshot":{}}\n{"type":"queue-operation","sessionId":"s"}', 'claude-code'],
    ['  [\n  {"task_id": 0, "traj": []}\n]', 'openai-chat'],
  ])('%j is %s', (text, format) => {
    expect(detectFormat(text)).toBe(format)
  })

  test.each([
    ['', 'in.txt: empty file: nothing to read'],
    [' \n\n', 'in.txt: empty file: nothing to read'],
  ])('empty input %j', (text, message) => {
    expect(thrown(() => detectFormat(text, 'in.txt')).message).toBe(message)
  })

  test('a line that is not JSON before any deciding line names its line', () => {
    const error = thrown(() => detectFormat('{"type":"file-history-snapshot"}\nhello\n', 'in.txt'))
    expect(error.line).toBe(2)
    expect(error.message).toMatch(/^in\.txt:2: not valid JSON/)
  })

  test.each([
    ['{"hello":"world"}\n', /^in\.txt: not a recognised format: expected a recording .* a Claude Code session .* OpenAI chat trajectories/],
    ['[1, 2]', /^in\.txt: not a recognised format: .*; got a JSON array whose first item is 1$/],
    ['{\n  "name": "pkg",\n  "version": "1.0.0"\n}\n', /^in\.txt: not a recognised format: .*; got one JSON object spread over several lines$/],
    ['[]', /^in\.txt: not a recognised format: .*; got a JSON array whose first item is nothing$/],
    ['[{"task_id": 1,', /^in\.txt: starts like a JSON array but is not valid JSON/],
  ])('no format matches %j', (text, message) => {
    expect(thrown(() => detectFormat(text, 'in.txt')).message).toMatch(message)
  })
})

describe('loadRecordings', () => {
  test('auto reads each kind with its reader', () => {
    const recording = loadRecordings(readFixture('conformance/sessions/cc-short.recording.jsonl'), 'cc-short', 'auto')
    expect(recording.format).toBe('recording')
    expect(recording.recordings).toHaveLength(1)

    const claude = loadRecordings(readFixture('sessions/claude-code/short.jsonl'), 'short.jsonl', 'auto')
    expect(claude.format).toBe('claude-code')
    expect(claude.recordings).toHaveLength(1)
    expect(claude.recordings[0].ops.at(-1)).toEqual({ op: 'get_messages_for_request' })

    const tau = loadRecordings(readFixture('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'), 'tau.json', 'auto')
    expect(tau.format).toBe('openai-chat')
    expect(tau.recordings).toHaveLength(100)
    expect(tau.recordings[3].session).toBe('3-t0')
  })

  test('an explicit format is used as given, and a wrong one fails with that reader\'s error', () => {
    expect(loadRecordings('{"op":"clear"}\n', 'r.jsonl', 'recording')).toEqual({
      format: 'recording',
      recordings: [{ config: {}, now: '2026-01-01T00:00:00.000+00:00', ops: [{ op: 'clear' }] }],
    })
    const error = thrown(() => loadRecordings(readFixture('sessions/claude-code/short.jsonl'), 'short.jsonl', 'recording'))
    expect(error.message).toBe(
      'short.jsonl:1: expected an op line with a string "op", got a line of type "file-history-snapshot" (not a recording? try another --format)',
    )
    expect(thrown(() => loadRecordings('{"op":"clear"}\n', 'r.jsonl', 'openai-chat')).message).toMatch(
      /^r\.jsonl: expected a JSON array of trajectories/,
    )
  })
})
