/**
 * Tests of the Claude Code session importer on the real sessions in `fixtures/sessions/claude-code`
 * (compared with the conformance recordings made from them) and on small inline edge cases.
 */
import { readFixture } from '../../support/fixtures.js'
import { toRecordedUsage } from '../../../src/core/meter/usage.js'
import { describe, expect, test } from 'vitest'
import type { Message } from '../../../src/core/messages/message.js'
import { DEFAULT_REPLAY_NOW } from '../../../src/core/replay/recording.js'
import type { Recording, RecordingOp } from '../../../src/core/replay/recording.js'
import {
  NO_RESULT_RECORDED,
  importClaudeCodeSession,
  toContractUsage,
  toModuleTimestamp,
} from '../../../src/shell/importers/claude-code.js'
import { RecordingFormatError, parseRecordingJsonl } from '../../../src/shell/recording-file.js'
import { historiesAtRequests, recordingPairingProblems } from './pairing.js'

const readSession = (file: string): string => readFixture(`sessions/claude-code/${file}`)
const readConformance = (name: string): Recording =>
  parseRecordingJsonl(readFixture(`conformance/sessions/${name}.recording.jsonl`), name)

const BIG = '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'
const COMPACT = '4d5611e5-agent-acompact-e1f845.jsonl'

const opNames = (recording: Recording): string[] => recording.ops.map((op) => op.op)
const messagesOf = (recording: Recording): Message[] => historiesAtRequests(recording).final
/** Every message the recording stores over time (added or set), in op order. */
const allMessagesOf = (recording: Recording): Message[] =>
  recording.ops.flatMap((op) => (op.op === 'add_message' ? [op.message] : op.op === 'set_messages' ? [...op.messages] : []))

/**
 * Drops budgets and the `cache_creation` breakdown (an addition of this importer) and
 * re-serialises call arguments, so recordings from other writers compare.
 */
const normalise = (op: RecordingOp): RecordingOp => {
  if (op.op === 'get_messages_for_request') return { op: op.op }
  if (op.op === 'llm_response') {
    const { cache_creation: _breakdown, ...usage } = op.usage as Record<string, unknown>
    return { op: op.op, usage }
  }
  if (op.op !== 'add_message' || !Array.isArray(op.message.tool_calls)) return op
  const calls = op.message.tool_calls.map((call: { function: { arguments: string } }) => ({
    ...call,
    function: { ...call.function, arguments: JSON.stringify(JSON.parse(call.function.arguments)) },
  }))
  return { op: 'add_message', message: { ...op.message, tool_calls: calls } }
}

/** Raw conversation lines of a session file (for expectations computed from the source). */
const rawLines = (text: string): Array<Record<string, any>> =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>)

/** Builds one JSONL line of a small inline session. */
const line = (fields: Record<string, unknown>): string => JSON.stringify({ sessionId: 's', isSidechain: false, ...fields })
const user = (content: unknown, timestamp = '2026-02-10T10:00:00.000Z', extra: Record<string, unknown> = {}): string =>
  line({ type: 'user', timestamp, message: { role: 'user', content }, ...extra })
const assistant = (
  id: string,
  content: unknown[],
  timestamp = '2026-02-10T10:00:01.000Z',
  usage: unknown = { input_tokens: 2, output_tokens: 3, cache_read_input_tokens: 10, cache_creation_input_tokens: 4 },
  extra: Record<string, unknown> = {},
): string => line({ type: 'assistant', timestamp, message: { id, role: 'assistant', content, usage }, ...extra })
const toolUse = (id: string, name = 'Bash', input: unknown = { command: 'ls' }) => ({ type: 'tool_use', id, name, input })
const toolResult = (id: string, content: unknown = `out ${id}`) => ({ type: 'tool_result', tool_use_id: id, content })
const importLines = (...lines: string[]): Recording => importClaudeCodeSession(lines.join('\n'), 'inline.jsonl')

describe('importClaudeCodeSession on real sessions', () => {
  test('short.jsonl gives the same ops as the conformance recording cc-short (budgets aside)', () => {
    const recording = importClaudeCodeSession(readSession('short.jsonl'), 'short.jsonl')
    expect(recording.config).toEqual({})
    expect(recording.now).toBe(DEFAULT_REPLAY_NOW)
    expect(recording.ops.map(normalise)).toEqual(readConformance('cc-short').ops.map(normalise))
  })

  test('short.jsonl: the op sequence, the merged assistant message and its usage', () => {
    const recording = importClaudeCodeSession(readSession('short.jsonl'), 'short.jsonl')
    expect(opNames(recording)).toEqual([
      'add_message',
      'get_messages_for_request',
      'llm_response',
      'add_message',
      'add_message',
      'add_message',
      'add_message',
      'get_messages_for_request',
    ])
    // five assistant lines (text, thinking, text, tool_use, tool_use) of msg_01MKH1... make one message
    expect(recording.ops[2]).toEqual({
      op: 'llm_response',
      usage: {
        input_tokens: 3 + 11515,
        output_tokens: 13,
        cache_read_tokens: 11515,
        cache_write_tokens: 13835,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 13835 },
      },
    })
    expect(recording.ops[3]).toEqual({
      op: 'add_message',
      message: {
        role: 'assistant',
        content: '\n\nLet me check the project structure and try running the server to see the error.',
        tool_calls: [
          {
            id: 'toolu_0116Hyi5v8ut7Ffb7d8qV1Sc',
            type: 'function',
            function: { name: 'Bash', arguments: JSON.stringify({ command: 'mix phx.server 2>&1 | head -80', timeout: 30000 }) },
          },
          {
            id: 'toolu_01FdQ8qTyVyZjE3Kw4dguQGx',
            type: 'function',
            function: { name: 'Glob', arguments: JSON.stringify({ pattern: 'mix.exs', path: '/home/user/projects/spotter' }) },
          },
        ],
        metadata: { timestamp: '2026-02-10T21:11:59.186+00:00' },
      },
    })
  })

  test.each([['short.jsonl'], ['tool_heavy.jsonl'], [BIG], [COMPACT]])('%s: every history satisfies R1-R3', (file) => {
    const recording = importClaudeCodeSession(readSession(file), file)
    expect(recordingPairingProblems(recording)).toEqual([])
    expect(recording.ops.at(-1)).toEqual({ op: 'get_messages_for_request' })
  })

  test.each([['short.jsonl'], ['tool_heavy.jsonl'], [BIG]])(
    '%s: one assistant message per main-chain message.id, each after a request and its llm_response with the last line usage',
    (file) => {
      const text = readSession(file)
      const byId = new Map<string, Array<Record<string, any>>>()
      for (const raw of rawLines(text)) {
        if (raw.type !== 'assistant' || raw.isSidechain === true) continue
        byId.set(raw.message.id, [...(byId.get(raw.message.id) ?? []), raw])
      }
      const recording = importClaudeCodeSession(text, file)
      const assistantAt = recording.ops.flatMap((op, index) =>
        op.op === 'add_message' && op.message.role === 'assistant' ? [index] : [],
      )
      expect(assistantAt.length).toBe(byId.size)
      const lastUsages = [...byId.values()].map((group) => toContractUsage(group.at(-1)?.message.usage))
      assistantAt.forEach((index, n) => {
        expect(recording.ops[index - 2]).toEqual({ op: 'get_messages_for_request' })
        expect(recording.ops[index - 1]).toEqual({ op: 'llm_response', usage: lastUsages[n] })
      })
      // every tool_use of the main chain is a call, exactly once
      const callIds = allMessagesOf(recording).flatMap((message) =>
        Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id: string }) => call.id) : [],
      )
      const rawCallIds = [...byId.values()].flatMap((group) =>
        group.flatMap((raw) => raw.message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.id)),
      )
      expect(callIds).toEqual(rawCallIds)
    },
  )

  test('tool_heavy.jsonl: a message whose calls are split over lines is merged, with the final usage', () => {
    const recording = importClaudeCodeSession(readSession('tool_heavy.jsonl'), 'tool_heavy.jsonl')
    const index = recording.ops.findIndex(
      (op) =>
        op.op === 'add_message' &&
        Array.isArray(op.message.tool_calls) &&
        op.message.tool_calls.some((call: { id: string }) => call.id === 'toolu_01VpPeBD2ziigLLpybShAGoU'),
    )
    const op = recording.ops[index]
    if (op.op !== 'add_message') throw new Error('expected add_message')
    expect((op.message.tool_calls as Array<{ id: string }>).map((call) => call.id)).toEqual([
      'toolu_01VpPeBD2ziigLLpybShAGoU',
      'toolu_017Q5Sr8KaSgowYhbKXBnfV2',
    ])
    expect(recording.ops[index - 1]).toEqual({
      op: 'llm_response',
      usage: {
        input_tokens: 26551,
        output_tokens: 173,
        cache_read_tokens: 26504,
        cache_write_tokens: 1115,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1115 },
      },
    })
    expect(recording.ops.slice(index + 1, index + 4).map((next) => (next.op === 'add_message' ? next.message.role : next.op))).toEqual([
      'tool',
      'tool',
      'user',
    ])
  })

  test.each([
    ['tool_heavy.jsonl', 'cc-tool-heavy'],
    [BIG, 'cc-4d5611e5'],
  ])('%s: the same user messages, tool results and calls as the conformance recording %s', (file, name) => {
    // The conformance recordings keep Claude Code's compact summary as a plain message; ours
    // resets the history there, so compare every message stored over time.
    // The conformance recordings predate the isMeta marking (metadata.source "hook"): drop it.
    const unmark = (message: Message): Message => {
      const metadata = message.metadata as Record<string, unknown> | undefined
      if (metadata?.source !== 'hook') return message
      const { source: _source, ...rest } = metadata
      return { ...message, metadata: rest }
    }
    const ours = allMessagesOf(importClaudeCodeSession(readSession(file), file)).map(unmark)
    const theirs = messagesOf(readConformance(name))
    const key = (message: Message): string => JSON.stringify(message)
    const nonAssistant = (messages: Message[]): string[] => messages.filter((message) => message.role !== 'assistant').map(key).sort()
    expect(nonAssistant(ours)).toEqual(nonAssistant(theirs))
    const calls = (messages: Message[]): string[] =>
      messages.flatMap((message) =>
        Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id: string }) => call.id) : [],
      )
    expect(calls(ours)).toEqual(calls(theirs))
    const texts = (messages: Message[]): string =>
      messages.filter((message) => message.role === 'assistant').map((message) => String(message.content)).join('')
    expect(texts(ours)).toBe(texts(theirs))
  })

  test(`${BIG}: the compact boundary becomes set_messages holding the compact summary, and later requests send only what follows it`, () => {
    const text = readSession(BIG)
    const recording = importClaudeCodeSession(text, BIG)
    const sets = recording.ops.flatMap((op, index) => (op.op === 'set_messages' ? [{ op, index }] : []))
    const boundaries = rawLines(text).filter((raw) => raw.type === 'system' && raw.subtype === 'compact_boundary' && raw.isSidechain !== true)
    expect(sets).toHaveLength(boundaries.length)
    expect(sets[0].op.messages).toHaveLength(1)
    expect(String(sets[0].op.messages[0].content).startsWith('This session is being continued')).toBe(true)
    // nothing before the boundary is in the final history
    const final = messagesOf(recording)
    expect(String(final[0].content).startsWith('This session is being continued')).toBe(true)
    const firstRequestAfter = recording.ops.findIndex((op, index) => index > sets[0].index && op.op === 'get_messages_for_request')
    expect(historiesAtRequests({ ...recording, ops: recording.ops.slice(0, firstRequestAfter + 1) }).final[0]).toEqual(sets[0].op.messages[0])
  })

  test(`${BIG}: thinking is dropped and the compact summary stays a user message`, () => {
    const text = readSession(BIG)
    const recording = importClaudeCodeSession(text, BIG)
    const thinking = rawLines(text)
      .filter((raw) => raw.type === 'assistant')
      .flatMap((raw) => raw.message.content.filter((block: any) => block.type === 'thinking' && block.thinking.length > 40))
    expect(thinking.length).toBeGreaterThan(0)
    const serialised = JSON.stringify(recording)
    for (const block of thinking) expect(serialised).not.toContain(JSON.stringify(block.thinking).slice(1, -1))
    const summary = messagesOf(recording).find(
      (message) => typeof message.content === 'string' && message.content.startsWith('This session is being continued'),
    )
    expect(summary?.role).toBe('user')
  })

  test(`${COMPACT}: a transcript made only of side-chain lines imports as its own conversation`, () => {
    const recording = importClaudeCodeSession(readSession(COMPACT), COMPACT)
    expect(opNames(recording)).toEqual([
      'add_message',
      'add_message',
      'add_message',
      'add_message',
      'get_messages_for_request',
      'llm_response',
      'add_message',
      'get_messages_for_request',
    ])
    const messages = messagesOf(recording)
    expect(messages.map((message) => message.role)).toEqual(['user', 'user', 'user', 'user', 'assistant'])
    expect(String(messages[3].content)).toMatch(/^Your task is to create a detailed summary/)
    expect(String(messages[4].content)).toContain('<analysis>')
  })
})

describe('importClaudeCodeSession on inline sessions', () => {
  test('the user message of an isMeta line is marked metadata.source "hook" (not a human prompt)', () => {
    const recording = importLines(
      user('fix the bug'),
      user('<system-reminder>hook output</system-reminder>', '2026-02-10T10:00:00.500Z', { isMeta: true }),
      user([{ type: 'text', text: 'caveat' }], '2026-02-10T10:00:00.600Z', { isMeta: true }),
    )
    const added = recording.ops.flatMap((op) => (op.op === 'add_message' ? [op.message] : []))
    expect(added.map((message) => message.metadata)).toEqual([
      { timestamp: '2026-02-10T10:00:00.000+00:00' },
      { timestamp: '2026-02-10T10:00:00.500+00:00', source: 'hook' },
      { timestamp: '2026-02-10T10:00:00.600+00:00', source: 'hook' },
    ])
  })

  test('a compact boundary resets the history to the compact summary; an answer right after it starts empty', () => {
    const boundary = line({ type: 'system', subtype: 'compact_boundary', timestamp: '2026-02-10T10:00:02.000Z', content: 'Conversation compacted' })
    const recording = importLines(
      user('first'),
      assistant('m1', [{ type: 'text', text: 'one' }]),
      boundary,
      user('summary of earlier', '2026-02-10T10:00:03.000Z', { isCompactSummary: true }),
      assistant('m2', [{ type: 'text', text: 'two' }], '2026-02-10T10:00:04.000Z'),
      boundary,
      assistant('m3', [{ type: 'text', text: 'three' }], '2026-02-10T10:00:05.000Z'),
    )
    expect(opNames(recording)).toEqual([
      'add_message',
      'get_messages_for_request',
      'llm_response',
      'add_message',
      'set_messages',
      'get_messages_for_request',
      'llm_response',
      'add_message',
      'set_messages',
      'get_messages_for_request',
      'llm_response',
      'add_message',
      'get_messages_for_request',
    ])
    expect(recording.ops[4]).toEqual({ op: 'set_messages', messages: [{ role: 'user', content: 'summary of earlier', metadata: { timestamp: '2026-02-10T10:00:03.000+00:00' } }] })
    expect(recording.ops[8]).toEqual({ op: 'set_messages', messages: [] })
    expect(historiesAtRequests(recording).atRequests.map((history) => history.map((message) => message.content))).toEqual([
      ['first'],
      ['summary of earlier'],
      [],
      ['three'],
    ])
  })

  test('keeps the cache_creation breakdown of the usage', () => {
    const usage = { input_tokens: 2, output_tokens: 3, cache_read_input_tokens: 10, cache_creation_input_tokens: 4, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4 } }
    const recording = importLines(user('hi'), assistant('m1', [{ type: 'text', text: 'x' }], undefined, usage))
    expect(recording.ops[2]).toEqual({
      op: 'llm_response',
      usage: { input_tokens: 12, output_tokens: 3, cache_read_tokens: 10, cache_write_tokens: 4, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4 } },
    })
  })

  test('merges blocks sharing message.id, drops thinking, keeps the first timestamp and the last usage', () => {
    const recording = importLines(
      user('hi', '2026-02-10T10:00:00.000Z'),
      assistant('m1', [{ type: 'thinking', thinking: 'secret', signature: 'x' }], '2026-02-10T10:00:01.500Z', {
        input_tokens: 1,
        output_tokens: 1,
      }),
      assistant('m1', [{ type: 'text', text: 'Hello' }], '2026-02-10T10:00:02.000Z', { input_tokens: 1, output_tokens: 1 }),
      assistant('m1', [{ type: 'text', text: ' there' }], '2026-02-10T10:00:03.000Z', {
        input_tokens: 1,
        output_tokens: 42,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 7,
      }),
    )
    expect(recording.ops).toEqual([
      { op: 'add_message', message: { role: 'user', content: 'hi', metadata: { timestamp: '2026-02-10T10:00:00.000+00:00' } } },
      { op: 'get_messages_for_request' },
      { op: 'llm_response', usage: { input_tokens: 101, output_tokens: 42, cache_read_tokens: 100, cache_write_tokens: 7 } },
      {
        op: 'add_message',
        message: { role: 'assistant', content: 'Hello there', metadata: { timestamp: '2026-02-10T10:00:01.500+00:00' } },
      },
      { op: 'get_messages_for_request' },
    ])
  })

  test('an interrupted call that never gets a result gets a synthetic result right after its message', () => {
    const recording = importLines(
      user('run both'),
      assistant('m1', [toolUse('a')], '2026-02-10T10:00:01.000Z'),
      assistant('m1', [toolUse('b')], '2026-02-10T10:00:02.000Z'),
      user([toolResult('a')], '2026-02-10T10:00:03.000Z'),
      user([{ type: 'text', text: '[Request interrupted by user for tool use]' }], '2026-02-10T10:00:04.000Z'),
      user('go on', '2026-02-10T10:00:05.000Z'),
    )
    const messages = messagesOf(recording)
    expect(messages.slice(1).map((message) => [message.role, message.tool_call_id ?? message.content])).toEqual([
      ['assistant', ''],
      ['tool', 'a'],
      ['tool', 'b'],
      ['user', '[Request interrupted by user for tool use]'],
      ['user', 'go on'],
    ])
    expect(messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'b',
      content: NO_RESULT_RECORDED,
      metadata: { timestamp: '2026-02-10T10:00:02.000+00:00' },
    })
    expect(recordingPairingProblems(recording)).toEqual([])
  })

  test('a user line with tool results and text: the results first, then the text as a separate user message', () => {
    const recording = importLines(
      user('start'),
      assistant('m1', [toolUse('a'), toolUse('b')]),
      user(
        [toolResult('b', 'B'), { type: 'text', text: 'also, hurry' }, toolResult('a', [{ type: 'text', text: 'A1' }, { type: 'text', text: 'A2' }])],
        '2026-02-10T10:00:09.000Z',
      ),
    )
    expect(messagesOf(recording).slice(1)).toEqual([
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'b', content: 'B', metadata: { timestamp: '2026-02-10T10:00:09.000+00:00' } },
      { role: 'tool', tool_call_id: 'a', content: 'A1\nA2', metadata: { timestamp: '2026-02-10T10:00:09.000+00:00' } },
      { role: 'user', content: 'also, hurry', metadata: { timestamp: '2026-02-10T10:00:09.000+00:00' } },
    ])
    expect(recordingPairingProblems(recording)).toEqual([])
  })

  test('results that arrive after later lines are moved right after their assistant message', () => {
    const recording = importLines(
      user('start'),
      assistant('m1', [toolUse('a')]),
      user([toolResult('a')]),
      assistant('m1', [toolUse('b')]),
      user('a text line in between'),
      assistant('m2', [{ type: 'text', text: 'next answer' }]),
      user([toolResult('b')]),
    )
    expect(messagesOf(recording).map((message) => [message.role, message.tool_call_id ?? message.content])).toEqual([
      ['user', 'start'],
      ['assistant', ''],
      ['tool', 'a'],
      ['tool', 'b'],
      ['user', 'a text line in between'],
      ['assistant', 'next answer'],
    ])
    expect(opNames(recording).filter((name) => name === 'get_messages_for_request')).toHaveLength(3)
    expect(recordingPairingProblems(recording)).toEqual([])
  })

  test('skips side-chain lines and lines that are not user/assistant messages', () => {
    const recording = importLines(
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: {} }),
      JSON.stringify({ type: 'summary', summary: 'old', leafUuid: 'u' }),
      line({ type: 'progress', data: { type: 'hook_progress' } }),
      user('main'),
      user('side question', undefined, { isSidechain: true }),
      assistant('s1', [{ type: 'text', text: 'side answer' }], undefined, undefined, { isSidechain: true }),
      line({ type: 'system', subtype: 'turn_duration', content: 'x' }),
      assistant('m1', [{ type: 'text', text: 'main answer' }]),
    )
    expect(messagesOf(recording).map((message) => message.content)).toEqual(['main', 'main answer'])
  })

  test('a result for a call the file never declares becomes a user message; a second result is dropped', () => {
    const recording = importLines(
      user([toolResult('ghost', 'lost output')]),
      assistant('m1', [toolUse('a')]),
      user([toolResult('a', 'first')]),
      user([toolResult('a', 'again')]),
    )
    expect(messagesOf(recording).map((message) => [message.role, message.content])).toEqual([
      ['user', 'lost output'],
      ['assistant', ''],
      ['tool', 'first'],
    ])
    expect(recordingPairingProblems(recording)).toEqual([])
  })

  test('images become placeholders; tool_use input becomes JSON arguments; no calls means no tool_calls key', () => {
    const recording = importLines(
      user([{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', data: 'AAAA' } }]),
      assistant('m1', [{ type: 'text', text: 'ok' }, toolUse('a', 'Read', { file_path: '/x', limit: 5 })]),
      user([toolResult('a', [{ type: 'image', source: {} }])]),
      assistant('m2', [{ type: 'text', text: 'done' }]),
    )
    const messages = messagesOf(recording)
    expect(messages[0].content).toBe('look\n[image]')
    expect(messages[1].tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/x","limit":5}' } },
    ])
    expect(messages[2].content).toBe('[image]')
    expect(Object.keys(messages[3])).toEqual(['role', 'content', 'metadata'])
  })

  test('answers without usable usage (missing, or the <synthetic> model) get a request but no llm_response', () => {
    const recording = importLines(
      user('hi'),
      line({ type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'no usage' }] } }),
      user('again'),
      line({
        type: 'assistant',
        message: {
          id: 'm2',
          model: '<synthetic>',
          role: 'assistant',
          content: [{ type: 'text', text: 'API Error' }],
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    )
    expect(opNames(recording)).toEqual([
      'add_message',
      'get_messages_for_request',
      'add_message',
      'add_message',
      'get_messages_for_request',
      'add_message',
      'get_messages_for_request',
    ])
    expect(messagesOf(recording)[3]).toEqual({ role: 'assistant', content: 'API Error' })
  })

  describe('errors', () => {
    const thrown = (text: string): RecordingFormatError => {
      try {
        importClaudeCodeSession(text, 'session.jsonl')
      } catch (error) {
        expect(error).toBeInstanceOf(RecordingFormatError)
        return error as RecordingFormatError
      }
      throw new Error('expected a RecordingFormatError')
    }

    test('a line that is not JSON names its line', () => {
      const error = thrown([user('hi'), '', '{"type": "assistant", oops'].join('\n'))
      expect(error.message).toMatch(/^session\.jsonl:3: not valid JSON \(/)
      expect(error.line).toBe(3)
    })

    test.each([
      [[user('hi'), '[1,2]'], 'session.jsonl:2: expected a JSON object (a Claude Code event), got [1,2]'],
      [[line({ type: 'user' })], 'session.jsonl:1: user line needs an object "message" with "content" (a string or an array of blocks)'],
      [
        [user('hi'), line({ type: 'assistant', message: { id: 'm', content: 5 } })],
        'session.jsonl:2: assistant line needs an object "message" with "content" (a string or an array of blocks)',
      ],
      [
        [user('hi'), assistant('m', [{ type: 'tool_use', name: 'Bash', input: {} }])],
        'session.jsonl:2: a "tool_use" block needs a string "id" and a string "name", got {"type":"tool_use","name":"Bash","input":{}}',
      ],
      [[user([{ type: 'tool_result', content: 'x' }])], 'session.jsonl:1: a "tool_result" block needs a string "tool_use_id", got {"type":"tool_result","content":"x"}'],
      [[''], 'session.jsonl: empty file: no Claude Code event lines'],
      [
        [JSON.stringify({ type: 'file-history-snapshot', snapshot: {} })],
        'session.jsonl: no "user" or "assistant" lines: nothing to import from this Claude Code session',
      ],
    ])('%j', (lines, message) => {
      expect(thrown(lines.join('\n')).message).toBe(message)
    })
  })
})

describe('toModuleTimestamp and toContractUsage', () => {
  test('timestamps become UTC with milliseconds and +00:00', () => {
    expect(toModuleTimestamp('2026-02-10T21:11:56.846Z')).toBe('2026-02-10T21:11:56.846+00:00')
    expect(toModuleTimestamp('2026-02-10T23:11:56+02:00')).toBe('2026-02-10T21:11:56.000+00:00')
    expect(toModuleTimestamp('not a time')).toBeUndefined()
    expect(toModuleTimestamp(12)).toBeUndefined()
  })

  test('usage maps to the contract; absent cache fields stay absent; no input_tokens means none', () => {
    expect(toContractUsage({ input_tokens: 3, output_tokens: 13, cache_read_input_tokens: 11515, cache_creation_input_tokens: 13835 })).toEqual({
      input_tokens: 11518,
      output_tokens: 13,
      cache_read_tokens: 11515,
      cache_write_tokens: 13835,
    })
    expect(toContractUsage({ input_tokens: 10, output_tokens: 2 })).toEqual({ input_tokens: 10, output_tokens: 2 })
    expect(toContractUsage({ output_tokens: 2 })).toBeUndefined()
    expect(toContractUsage(null)).toBeUndefined()
  })

  test('imported usage equals what a live onLlmResponse records for the same Anthropic usage', () => {
    const usage = { input_tokens: 4, output_tokens: 5, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 } }
    expect(toContractUsage(usage)).toEqual(toRecordedUsage({ usage }))
    expect(toContractUsage(usage)).toMatchObject({ cache_creation: { ephemeral_1h_input_tokens: 300 } })
  })
})
