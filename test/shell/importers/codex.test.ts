/**
 * Tests of the Codex rollout importer: hand-made rollouts for each rule (items, user_message
 * dedup, token_count usage in both orders, windows, instructions, compaction, errors) and the
 * real rollouts in `fixtures/sessions/codex` (0.45 CLI: the older shape with token counts; 0.128
 * desktop: no token counts, no turn_context, prompts only in user_message events).
 */
import { describe, expect, test } from 'vitest'
import type { ModelTable, ModelWindow } from '../../../src/core/economics/prices.js'
import type { Recording, RecordingOp } from '../../../src/core/replay/recording.js'
import { detectFormat, loadRecordings } from '../../../src/shell/importers/detect.js'
import { importCodexRollout, toCodexContractUsage } from '../../../src/shell/importers/codex.js'
import { RecordingFormatError } from '../../../src/shell/recording-file.js'
import { readFixture } from '../../support/fixtures.js'

const OLD = 'sessions/codex/guideai-cli-0.45-rollout-2025-10-06.jsonl'
const DESKTOP = 'sessions/codex/codemie-desktop-0.128-rollout-2026-05-11T13-28-45.jsonl'

const WINDOWS: ModelTable<ModelWindow> = {
  models: { 'gpt-5-codex': { context_window: 400_000, max_output_tokens: 128_000, source: 'test' } },
  aliases: {},
}

let clock = 0
const line = (type: string, payload: unknown): string => {
  clock += 1
  return JSON.stringify({ timestamp: new Date(Date.UTC(2025, 9, 6, 20, 0, clock)).toISOString(), type, payload })
}
const item = (payload: Record<string, unknown>): string => line('response_item', payload)
const user = (text: string): string => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const assistant = (text: string): string => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
const reasoning = (id: string): string => item({ type: 'reasoning', summary: [], content: null, encrypted_content: `enc-${id}` })
const call = (id: string, extra: Record<string, unknown> = {}): string => item({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: id, ...extra })
const output = (id: string, text = 'ok'): string => item({ type: 'function_call_output', call_id: id, output: text })
const userEvent = (message: string): string => line('event_msg', { type: 'user_message', message, images: [] })
const turn = (model = 'gpt-5-codex'): string => line('turn_context', { cwd: '/w', model })
const usage = (total: number, input: number, cached = 0, outputTokens = 10, window = 272_000): string =>
  line('event_msg', {
    type: 'token_count',
    info: {
      total_token_usage: { input_tokens: total, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: total },
      last_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: outputTokens, reasoning_output_tokens: 0, total_tokens: input + outputTokens },
      model_context_window: window,
    },
  })
const nullUsage = (): string => line('event_msg', { type: 'token_count', info: null, rate_limits: {} })
const meta = (payload: Record<string, unknown> = {}): string => line('session_meta', { id: 'sess-1', cli_version: '0.0.0', ...payload })

const load = (lines: ReadonlyArray<string>, options = {}): Recording => importCodexRollout(lines.join('\n'), 'rollout.jsonl', { windows: WINDOWS, ...options })
const ops = (recording: Recording): string[] => recording.ops.map((op) => op.op)
const added = (recording: Recording): Array<Record<string, unknown>> =>
  recording.ops.flatMap((op) => (op.op === 'add_message' ? [op.message as Record<string, unknown>] : []))
const usages = (recording: Recording): unknown[] => recording.ops.flatMap((op) => (op.op === 'llm_response' ? [op.usage] : []))
const requests = (recording: Recording): Array<Extract<RecordingOp, { op: 'get_messages_for_request' }>> =>
  recording.ops.flatMap((op) => (op.op === 'get_messages_for_request' ? [op] : []))
const withoutMetadata = (message: Record<string, unknown>): Record<string, unknown> => {
  const { metadata: _metadata, ...rest } = message
  return rest
}

describe('Codex rollout items', () => {
  test('response items are added in file order with every key, unknown item types verbatim, a request before each model turn', () => {
    const recording = load([
      meta(),
      user('list files'),
      turn(),
      reasoning('a'),
      call('c1', { namespace: 'mcp__files' }),
      output('c1'),
      item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'x' } }),
      item({ type: 'ghost_snapshot', ghost_commit: { id: 'abc', parent: null } }),
      assistant('done'),
    ])
    const items = added(recording).map(withoutMetadata)
    expect(items.map((entry) => entry.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output', 'web_search_call', 'ghost_snapshot', 'message'])
    expect(items[2]).toEqual({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1', namespace: 'mcp__files' })
    expect(items[1]).toEqual({ type: 'reasoning', summary: [], content: null, encrypted_content: 'enc-a' })
    expect(items[5]).toEqual({ type: 'ghost_snapshot', ghost_commit: { id: 'abc', parent: null } })
    // requests: before the reasoning+call turn, before the web search turn (after an output), and the last one
    expect(ops(recording)).toEqual([
      'add_message',
      'get_messages_for_request',
      'add_message',
      'add_message',
      'add_message',
      'get_messages_for_request',
      'add_message',
      'add_message',
      'add_message',
      'get_messages_for_request',
    ])
    expect(recording.format).toBe('openai-responses')
    expect(recording.session).toBe('sess-1')
    expect(recording.model).toBe('gpt-5-codex')
    expect(added(recording)[0].metadata).toEqual({ timestamp: expect.stringMatching(/^2025-10-06T20:00:\d\d\.000\+00:00$/) })
  })

  test('the older output shape (a JSON string of {output, metadata}) is kept as the string the model was sent', () => {
    const text = JSON.stringify({ output: 'apps\n', metadata: { exit_code: 0, duration_seconds: 0.1 } })
    const recording = load([user('ls'), call('c1'), output('c1', text)])
    expect(added(recording)[2].output).toBe(text)
  })

  test('a line without a payload, a non-object payload and an empty file are typed errors naming the line', () => {
    expect(() => load([user('hi'), JSON.stringify({ timestamp: 'x', type: 'response_item' })])).toThrow(/rollout\.jsonl:2: .*"payload"/)
    expect(() => load([user('hi'), line('response_item', 'oops')])).toThrow(RecordingFormatError)
    expect(() => importCodexRollout('', 'empty.jsonl')).toThrow(/empty file/)
    expect(() => load([meta(), turn()])).toThrow(/nothing to import/)
  })
})

describe('user prompts', () => {
  test('a prompt only a user_message event carries is added as a user message', () => {
    const recording = load([meta(), userEvent('summarise the transcript'), reasoning('a'), assistant('ok')])
    expect(withoutMetadata(added(recording)[0])).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'summarise the transcript' }] })
  })

  test('an event after its response_item (0.45) and one before it are each counted once; the response_item is kept', () => {
    const after = load([user('fix it'), userEvent('fix it'), assistant('ok')])
    expect(added(after).filter((entry) => entry.role === 'user')).toHaveLength(1)
    const before = load([userEvent('fix it'), item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }], id: 'kept' }), assistant('ok')])
    const users = added(before).filter((entry) => entry.role === 'user')
    expect(users).toHaveLength(1)
    expect(users[0].id).toBe('kept')
    expect(ops(before)).toEqual(['add_message', 'get_messages_for_request', 'add_message', 'get_messages_for_request'])
  })

  test('the same text typed again after a model turn is a new prompt; a different text is not a duplicate', () => {
    const recording = load([user('again'), userEvent('again'), assistant('one'), userEvent('again'), assistant('two'), user('other'), userEvent('different')])
    expect(added(recording).filter((entry) => entry.role === 'user').map((entry) => (entry.content as Array<{ text: string }>)[0].text)).toEqual(['again', 'again', 'other', 'different'])
  })

  test('images of a user_message event become input_image parts', () => {
    const recording = load([line('event_msg', { type: 'user_message', message: 'look', images: ['data:image/png;base64,AAA'] }), assistant('seen')])
    expect(added(recording)[0].content).toEqual([{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:image/png;base64,AAA' }])
  })
})

/** A prompt, a reasoning+call turn with its output, then a reasoning+answer turn, each with its usage. */
const TWO_TURNS_WITH_USAGE = ['add_message', 'get_messages_for_request', 'llm_response', 'add_message', 'add_message', 'add_message', 'get_messages_for_request', 'llm_response', 'add_message', 'add_message', 'get_messages_for_request']

describe('token_count usage', () => {
  test('older order (usage before its turn): info null skipped, a repeated total counted once, each total on the turn after it', () => {
    const recording = load([
      user('go'),
      turn(),
      nullUsage(),
      usage(110, 100, 50),
      reasoning('a'),
      call('c1'),
      output('c1'),
      turn(),
      usage(110, 100, 50), // the repeat Codex writes after the next turn_context
      usage(250, 130, 100),
      reasoning('b'),
      assistant('done'),
    ])
    expect(usages(recording)).toEqual([
      { input_tokens: 100, output_tokens: 10, cache_read_tokens: 50, cache_write_tokens: 0 },
      { input_tokens: 130, output_tokens: 10, cache_read_tokens: 100, cache_write_tokens: 0 },
    ])
    expect(ops(recording)).toEqual(TWO_TURNS_WITH_USAGE)
  })

  test('newer order (usage after its turn) attaches each total to the turn before it', () => {
    const recording = load([user('go'), turn(), reasoning('a'), call('c1'), usage(110, 100), output('c1'), reasoning('b'), assistant('done'), usage(250, 140), usage(250, 140)])
    expect(ops(recording)).toEqual(TWO_TURNS_WITH_USAGE)
    expect(usages(recording).map((entry) => (entry as { input_tokens: number }).input_tokens)).toEqual([100, 140])
  })

  test('older order whose first turn has no usage: the first total still goes to the turn after it', () => {
    const recording = load([user('go'), call('c1'), output('c1'), usage(110, 100), assistant('done')])
    expect(ops(recording)).toEqual(['add_message', 'get_messages_for_request', 'add_message', 'add_message', 'get_messages_for_request', 'llm_response', 'add_message', 'get_messages_for_request'])
  })

  test('a new total between two model items with no input between them starts the next model turn', () => {
    const recording = load([user('go'), usage(110, 100), reasoning('a'), assistant('first'), usage(250, 140), reasoning('b'), assistant('second')])
    expect(requests(recording)).toHaveLength(3)
    expect(usages(recording)).toHaveLength(2)
  })

  test('every distinct total is carried by one request, even one that finds no turn', () => {
    const recording = load([user('go'), usage(110, 100), usage(220, 105), reasoning('a'), assistant('done')])
    expect(usages(recording)).toHaveLength(2)
    expect(ops(recording)).toEqual(['add_message', 'get_messages_for_request', 'llm_response', 'get_messages_for_request', 'llm_response', 'add_message', 'add_message', 'get_messages_for_request'])
  })

  test('toCodexContractUsage: input includes cached input, no cache writes; usage without input_tokens is refused', () => {
    expect(toCodexContractUsage({ input_tokens: 3037, cached_input_tokens: 2048, output_tokens: 73, reasoning_output_tokens: 0, total_tokens: 3110 })).toEqual({
      input_tokens: 3037,
      output_tokens: 73,
      cache_read_tokens: 2048,
      cache_write_tokens: 0,
    })
    expect(toCodexContractUsage({ output_tokens: 3 })).toBeUndefined()
    expect(toCodexContractUsage(null)).toBeUndefined()
  })
})

describe('windows, model and instructions', () => {
  test('model_context_window is the window, the max output comes from the window table row of turn_context.model', () => {
    const recording = load([user('go'), turn(), usage(110, 100, 0, 10, 272_000), reasoning('a'), assistant('done')])
    for (const request of requests(recording)) expect(request.provider).toEqual({ context_window: 272_000, max_output_tokens: 128_000 })
  })

  test('without turn_context the --model option names the row; without a row the requests carry no window and a notice says so', () => {
    const lines = [user('go'), usage(110, 100), reasoning('a'), assistant('done')]
    expect(requests(load(lines, { model: 'gpt-5-codex' }))[0].provider).toEqual({ context_window: 272_000, max_output_tokens: 128_000 })
    const unknown = load(lines)
    expect(requests(unknown).every((request) => request.provider === undefined)).toBe(true)
    expect(unknown.notices?.join(' ')).toMatch(/no window-table row .*give --model/)
    expect(unknown.model).toBeUndefined()
  })

  test('a rollout without token_count has no usage and no window, and says it replays at the configured budget', () => {
    const recording = load([meta(), userEvent('go'), reasoning('a'), call('c1'), output('c1'), assistant('done')], { model: 'gpt-5-codex' })
    expect(usages(recording)).toEqual([])
    expect(requests(recording).every((request) => request.provider === undefined)).toBe(true)
    expect(recording.notices).toEqual([expect.stringMatching(/no token_count events.*configured budget/)])
  })

  test('session_meta instructions are the system prompt: base_instructions.text (newer), instructions (older), none when null', () => {
    const newer = load([meta({ base_instructions: { text: 'You are Codex.' } }), user('go'), assistant('ok')])
    expect(withoutMetadata(added(newer)[0])).toEqual({ type: 'message', role: 'system', content: 'You are Codex.' })
    const older = load([meta({ instructions: 'Be careful.' }), user('go'), assistant('ok')])
    expect(added(older)[0].content).toBe('Be careful.')
    const none = load([meta({ instructions: null }), user('go'), assistant('ok')])
    expect(added(none)[0].role).toBe('user')
  })
})

describe('Codex compaction', () => {
  test('a compacted line with replacement_history becomes set_messages of the system prompt and that history; the replay continues from it', () => {
    const replacement = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the parser' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summary: parser fixed, tests pending.' }] },
    ]
    const recording = load([
      meta({ base_instructions: { text: 'You are Codex.' } }),
      user('fix the parser'),
      reasoning('a'),
      call('c1'),
      output('c1'),
      line('compacted', { message: 'Summary: parser fixed, tests pending.', replacement_history: replacement }),
      reasoning('b'),
      assistant('tests pass'),
    ])
    const set = recording.ops.find((op) => op.op === 'set_messages')
    expect(set).toBeDefined()
    const messages = (set as Extract<RecordingOp, { op: 'set_messages' }>).messages.map((message) => withoutMetadata(message as Record<string, unknown>))
    expect(messages).toEqual([{ type: 'message', role: 'system', content: 'You are Codex.' }, ...replacement])
    const index = recording.ops.indexOf(set as RecordingOp)
    expect(recording.ops[index + 1].op).toBe('get_messages_for_request')
  })

  test('a compacted line without replacement_history keeps the system prompt and the summary message', () => {
    const recording = load([user('go'), assistant('a'), line('compacted', { message: 'The summary.' }), userEvent('next'), assistant('b')])
    const set = recording.ops.find((op) => op.op === 'set_messages') as Extract<RecordingOp, { op: 'set_messages' }>
    expect(set.messages.map((message) => withoutMetadata(message as Record<string, unknown>))).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'The summary.' }] },
    ])
  })
})

describe('format recognition', () => {
  test('--format auto recognises a rollout by its first line; --format codex reads it too', () => {
    const text = [meta(), user('hi'), assistant('hello')].join('\n')
    expect(detectFormat(text)).toBe('codex')
    expect(loadRecordings(text, 'r.jsonl', 'auto').format).toBe('codex')
    expect(loadRecordings(text, 'r.jsonl', 'codex').recordings[0].format).toBe('openai-responses')
    // a Claude Code line is still Claude Code
    expect(detectFormat('{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}')).toBe('claude-code')
  })
})

describe('the shared rollouts', () => {
  test('0.45 CLI: 169 distinct token_count totals are 169 requests with usage, the first prompt once, every response_item kept', () => {
    const text = readFixture(OLD)
    const recording = importCodexRollout(text, OLD)
    const lines = text.split('\n').filter((entry) => entry.trim() !== '').map((entry) => JSON.parse(entry) as { type: string; payload: Record<string, unknown> })
    const totals = new Set(
      lines.filter((entry) => entry.type === 'event_msg' && entry.payload.type === 'token_count' && entry.payload.info !== null).map((entry) => JSON.stringify((entry.payload.info as Record<string, unknown>).total_token_usage)),
    )
    expect(totals.size).toBe(169)
    expect(usages(recording)).toHaveLength(169)
    // a request carries usage right after it, never elsewhere
    recording.ops.forEach((op, index) => {
      if (op.op === 'llm_response') expect(recording.ops[index - 1].op).toBe('get_messages_for_request')
    })
    const items = lines.filter((entry) => entry.type === 'response_item').map((entry) => entry.payload)
    expect(added(recording).map(withoutMetadata)).toEqual(items)
    const prompt = 'Can you review the apps/desktop - I want to assess if the testing is any good?'
    expect(added(recording).filter((entry) => JSON.stringify(entry.content ?? '').includes(prompt))).toHaveLength(1)
    expect(recording.model).toBe('gpt-5-codex')
    expect(requests(recording)[0].provider).toEqual({ context_window: 272_000, max_output_tokens: 128_000 })
    expect(recording.notices).toBeUndefined()
  })

  test('0.128 desktop: no token_count, no turn_context; prompts from user_message events, namespace kept, instructions as system', () => {
    const recording = importCodexRollout(readFixture(DESKTOP), DESKTOP)
    expect(usages(recording)).toEqual([])
    expect(recording.model).toBeUndefined()
    expect(recording.notices?.[0]).toMatch(/no token_count events/)
    const items = added(recording)
    expect(items[0].role).toBe('system')
    expect(String(items[0].content)).toMatch(/^You are Codex/)
    expect(items.filter((entry) => entry.role === 'user')).toHaveLength(3)
    expect(items.some((entry) => entry.type === 'function_call' && typeof entry.namespace === 'string')).toBe(true)
    expect(items.filter((entry) => entry.type === 'reasoning').every((entry) => typeof entry.encrypted_content === 'string')).toBe(true)
  })
})
