/**
 * Tests of the recording file edge: decoding JSON Lines recordings (all conformance recordings,
 * line-numbered errors) and writing them back.
 */
import { readdirSync } from 'node:fs'
import { readTextFile } from '../../src/shell/read-text.js'
import { FIXTURES } from '../support/fixtures.js'
import { describe, expect, test } from 'vitest'
import { thrown } from '../support/recording-errors.js'
import * as E from 'fp-ts/lib/Either.js'
import { DEFAULT_REPLAY_NOW } from '../../src/core/replay/recording.js'
import type { Recording } from '../../src/core/replay/recording.js'
import {
  decodeRecordingOp,
  iterateJsonLines,
  parseRecordingJsonl,
  serializeRecording,
} from '../../src/shell/recording-file.js'

const conformanceDir = (name: string): string => `${FIXTURES}/conformance/${name}/`

const conformanceRecordings = (): Array<{ name: string; text: string }> =>
  ['generated', 'sessions'].flatMap((dir) =>
    readdirSync(conformanceDir(dir))
      .filter((file) => /\.recording\.jsonl(\.gz)?$/.test(file))
      .map((file) => ({ name: `${dir}/${file}`, text: readTextFile(conformanceDir(dir) + file) })),
  )


describe('parseRecordingJsonl', () => {
  test('reads every conformance recording: header, config and one op per other line, unchanged', () => {
    const files = conformanceRecordings()
    expect(files.length).toBeGreaterThan(50)
    for (const { name, text } of files) {
      const lines = text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
      const recording = parseRecordingJsonl(text, name)
      expect(recording.config).toEqual(lines[0].config)
      expect(recording.now).toBe(lines[0].now ?? DEFAULT_REPLAY_NOW)
      expect(recording.ops).toEqual(lines.slice(1))
    }
  })

  test('the header is optional: defaults are config {} and DEFAULT_REPLAY_NOW', () => {
    const recording = parseRecordingJsonl(
      '{"op":"add_message","message":{"role":"user","content":"hi"}}\n{"op":"get_messages_for_request"}\n',
      'r.jsonl',
    )
    expect(recording).toEqual({
      config: {},
      now: DEFAULT_REPLAY_NOW,
      ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request' }],
    })
  })

  test('reads config and now from the header, skips blank lines, accepts CRLF and a byte order mark', () => {
    const text =
      '\uFEFF{"type":"recording","version":1,"config":{"max_tokens":3000},"now":"2026-03-01T10:00:00.000+00:00"}\r\n' +
      '\r\n' +
      '{"op":"get_messages_for_request","token_budget":1000,"provider":null}\r\n' +
      '{"op":"llm_response","usage":{"input_tokens":5}}\r\n'
    expect(parseRecordingJsonl(text, 'r.jsonl')).toEqual({
      config: { max_tokens: 3000 },
      now: '2026-03-01T10:00:00.000+00:00',
      ops: [
        { op: 'get_messages_for_request', token_budget: 1000, provider: null },
        { op: 'llm_response', usage: { input_tokens: 5 } },
      ],
    })
  })

  test('keeps every op kind with its fields and drops fields an op does not know', () => {
    const text = [
      '{"op":"set_messages","messages":[{"role":"user","content":"a"}],"note":"x"}',
      '{"op":"clear"}',
      '{"op":"set_system_prompt","content":"be brief"}',
      '{"op":"summary_result","text":"sum"}',
      '{"op":"summary_result","error":"boom"}',
      '{"op":"llm_response","usage":null}',
      '{"op":"get_messages_for_request","provider":{"context_window":200000,"max_output_tokens":64000}}',
    ].join('\n')
    expect(parseRecordingJsonl(text, 'r.jsonl').ops).toEqual([
      { op: 'set_messages', messages: [{ role: 'user', content: 'a' }] },
      { op: 'clear' },
      { op: 'set_system_prompt', content: 'be brief' },
      { op: 'summary_result', text: 'sum' },
      { op: 'summary_result', error: 'boom' },
      { op: 'llm_response', usage: null },
      { op: 'get_messages_for_request', provider: { context_window: 200000, max_output_tokens: 64000 } },
    ])
  })

  test('a header alone is a recording with no ops', () => {
    expect(parseRecordingJsonl('{"type":"recording","version":1,"config":{}}\n', 'r.jsonl').ops).toEqual([])
  })

  describe('errors name the file, the 1-based line and the problem', () => {
    const header = '{"type":"recording","version":1,"config":{}}'
    const withLine = (line: string, at = 7): string =>
      [header, ...Array.from({ length: at - 2 }, () => '{"op":"clear"}'), line].join('\n')

    test.each([
      ['{"op":"add_message"}', 'op "add_message" needs an object "message"'],
      ['{"op":"add_message","message":"hi"}', 'op "add_message" needs an object "message", got "hi"'],
      ['{"op":"add_message","message":[1]}', 'op "add_message" needs an object "message", got [1]'],
      ['{"op":"llm_response"}', 'op "llm_response" needs a value "usage"'],
      ['{"op":"set_messages","messages":[1]}', 'op "set_messages" needs an array of objects "messages", got [1]'],
      ['{"op":"set_system_prompt","content":3}', 'op "set_system_prompt" needs a string "content", got 3'],
      ['{"op":"get_messages_for_request","token_budget":"big"}', 'op "get_messages_for_request": "token_budget" must be a number or null, got "big"'],
      ['{"op":"get_messages_for_request","provider":[]}', 'op "get_messages_for_request": "provider" must be an object or null, got []'],
      ['{"op":"summary_result"}', 'op "summary_result" needs a string "text" or a string "error"'],
      ['{"op":"summary_result","text":1}', 'op "summary_result": "text" must be a string, got 1'],
      ['{"op":"compact_now"}', 'unknown op "compact_now" (known ops: add_message, llm_response, get_messages_for_request, set_messages, clear, set_system_prompt, summary_result, spill_result)'],
      ['{"op":"spill_result","path":"/s/a.txt"}', 'op "spill_result" needs a boolean "ok"'],
      ['{"message":{}}', 'expected an op line with a string "op"'],
      ['42', 'expected a JSON object, got 42'],
      [header, 'the header line is only allowed as the first line'],
    ])('%s', (line, problem) => {
      const error = thrown(() => parseRecordingJsonl(withLine(line), 'recording.jsonl'))
      expect(error.message).toBe(`recording.jsonl:7: ${problem}`)
      expect(error.name).toBe('RecordingFormatError')
      expect(error.sourceName).toBe('recording.jsonl')
      expect(error.line).toBe(7)
      expect(error.problem).toBe(problem)
    })

    test('a line that is not JSON, counting blank lines', () => {
      const error = thrown(() => parseRecordingJsonl(`${header}\n\n{"op":"clear"}\n{"op": "clear",\n`, 'bad.jsonl'))
      expect(error.line).toBe(4)
      expect(error.message).toMatch(/^bad\.jsonl:4: not valid JSON \(.+\)$/)
    })

    test('a Claude Code line read as a recording hints at the format', () => {
      const error = thrown(() => parseRecordingJsonl('{"type":"user","sessionId":"s","message":{}}\n', 'cc.jsonl'))
      expect(error.message).toBe(
        'cc.jsonl:1: expected an op line with a string "op", got a line of type "user" (not a recording? try another --format)',
      )
    })

    test.each([
      ['{"type":"recording","version":2,"config":{}}', 'unsupported recording version 2 (this reader knows version 1)'],
      ['{"type":"recording","version":1,"config":[]}', 'header needs an object "config", got []'],
      ['{"type":"recording","version":1,"config":{},"now":5}', 'header: "now" must be a string, got 5'],
    ])('a bad header %s', (line, problem) => {
      expect(thrown(() => parseRecordingJsonl(`${line}\n`, 'h.jsonl')).message).toBe(`h.jsonl:1: ${problem}`)
    })

    test.each([[''], ['\n\n  \n']])('an empty file %j', (text) => {
      const error = thrown(() => parseRecordingJsonl(text, 'empty.jsonl'))
      expect(error.message).toBe('empty.jsonl: empty file: no header and no op lines')
      expect(error.line).toBeUndefined()
    })
  })
})

describe('decodeRecordingOp', () => {
  test('returns the op or the problem', () => {
    expect(decodeRecordingOp({ op: 'clear', extra: 1 })).toEqual(E.right({ op: 'clear' }))
    expect(decodeRecordingOp({ op: 'add_message' })).toEqual(E.left('op "add_message" needs an object "message"'))
  })

  test('recorded messages follow the stored-message rules of SPEC 17.9', () => {
    expect(decodeRecordingOp({ op: 'add_message', message: { role: 'user', metadata: 'note' } })).toEqual(
      E.left('op "add_message": message.metadata: expected an object (or null) of metadata, got "note" (put the value under a key, e.g. {"note": ...})'),
    )
    expect(decodeRecordingOp({ op: 'set_messages', messages: [{ role: 'user' }, { role: 'user', metadata: [1] }] })).toMatchObject(E.left(expect.stringMatching(/^op "set_messages": messages\[1\]\.metadata: /)))
  })
})

describe('iterateJsonLines', () => {
  test('yields parsed non-empty lines with their numbers, lazily', () => {
    const lines = iterateJsonLines('{"a":1}\n\n[2]\nnot json\n', 'x.jsonl')
    expect(lines.next().value).toEqual({ line: 1, value: { a: 1 } })
    expect(lines.next().value).toEqual({ line: 3, value: [2] })
    expect(() => lines.next()).toThrow(/^x\.jsonl:4: not valid JSON/)
  })
})

describe('serializeRecording', () => {
  test('writes the header and one line per op, each ending in a newline', () => {
    const recording: Recording = {
      config: { max_tokens: 3000 },
      now: DEFAULT_REPLAY_NOW,
      ops: [{ op: 'add_message', message: { role: 'user', content: 'hi' } }, { op: 'get_messages_for_request', token_budget: 100 }],
    }
    expect(serializeRecording(recording)).toBe(
      '{"type":"recording","version":1,"config":{"max_tokens":3000}}\n' +
        '{"op":"add_message","message":{"role":"user","content":"hi"}}\n' +
        '{"op":"get_messages_for_request","token_budget":100}\n',
    )
  })

  test('writes now when it is not the default, and the session name when set', () => {
    const recording: Recording = { config: {}, now: '2026-05-05T05:05:05.005+00:00', ops: [{ op: 'clear' }], session: '3-t1' }
    expect(serializeRecording(recording).split('\n')[0]).toBe(
      '{"type":"recording","version":1,"config":{},"now":"2026-05-05T05:05:05.005+00:00","session":"3-t1"}',
    )
    expect(parseRecordingJsonl(serializeRecording(recording), 'r.jsonl')).toEqual(recording)
  })

  test('round-trips every conformance recording, including control and astral characters', () => {
    for (const { name, text } of conformanceRecordings()) {
      const recording = parseRecordingJsonl(text, name)
      expect(parseRecordingJsonl(serializeRecording(recording), name)).toEqual(recording)
    }
  })
})
