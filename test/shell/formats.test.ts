/** The manager in each provider format: provider-ready views, untouched messages, typed errors, view-invalid, repair. */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { InvalidMessageError, InvalidRequestError, SnapshotError } from '../../src/core/errors.js'
import type { AnthropicToolResultBlock } from '../../src/core/formats/anthropic.js'
import type { AnthropicRequestView } from '../../src/core/formats/dispatch.js'
import { findFormatViolations } from '../../src/core/formats/dispatch.js'
import { fixedClock } from '../../src/shell/clock.js'
import { ContextManager, type ContextManagerOptions } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import { silentLogger } from '../../src/shell/logger.js'
import { makeMemorySpillWriter } from '../../src/shell/spill-fs.js'
import type { MessageFormat } from '../../src/core/formats/carrier.js'
import { toFormatView } from '../../src/core/formats/dispatch.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { decodeConfig } from '../../src/core/codecs.js'
import { makeRecorder } from '../../src/shell/recorder.js'
import { parseRecordingJsonl } from '../../src/shell/recording-file.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')

const make = <F extends MessageFormat>(format: F, config: Record<string, unknown> = {}, options: Partial<ContextManagerOptions<F>> = {}) => {
  const hooks = makeMittHooks()
  const invalid: Array<unknown> = []
  hooks.register('context:view-invalid', (_event, data) => {
    invalid.push(data)
  })
  const manager = new ContextManager<F>({ max_tokens: 200_000, ...config }, { format, hooks, clock, logger: silentLogger, spillWriter: makeMemorySpillWriter(), ...options })
  return { manager, invalid }
}

const thinking = { type: 'thinking', thinking: 'Let me look at the files first.', signature: 'EqQBCkgIAhABGAIiQ' }
const big = (label: string) => `${label}: ${'lorem ipsum dolor sit amet '.repeat(400)}`

/** An Anthropic session: N rounds of (thinking + tool_use) -> tool_result (+ text), then a final answer. */
const anthropicSession = (rounds: number) => {
  const messages: Array<Record<string, unknown>> = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing test in the repository please, carefully.', cache_control: { type: 'ephemeral' } }] }]
  for (let i = 0; i < rounds; i += 1) {
    messages.push({ role: 'assistant', content: [thinking, { type: 'text', text: `Step ${i}` }, { type: 'tool_use', id: `t${i}a`, name: 'read', input: { path: `f${i}` } }, { type: 'tool_use', id: `t${i}b`, name: 'grep', input: { q: 'x' } }] })
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `t${i}a`, content: [{ type: 'text', text: big(`file ${i}`) }] },
        { type: 'tool_result', tool_use_id: `t${i}b`, content: big(`grep ${i}`), is_error: i % 2 === 0 },
        ...(i % 3 === 0 ? [{ type: 'text', text: `Note ${i}: ${'please keep going with the plan we agreed on '.repeat(3)}` }] : []),
      ],
    })
  }
  messages.push({ role: 'assistant', content: [thinking, { type: 'text', text: 'Done.' }] })
  return messages
}

describe('anthropic format', () => {
  it('returns {system, messages}; untouched messages equal what was added, key for key', async () => {
    const { manager, invalid } = make('anthropic')
    await manager.addMessage({ role: 'system', content: 'You are terse.' })
    const added = anthropicSession(2)
    for (const message of added) await manager.addMessage(message)
    const view = await manager.getMessagesForRequest()
    expectTypeOf(view).toEqualTypeOf<AnthropicRequestView>()
    expect(view.system).toBe('You are terse.')
    expect(JSON.stringify(view.messages)).toBe(JSON.stringify(added))
    expect(invalid).toEqual([])
    expect(await manager.getMessages()).toEqual([{ role: 'system', content: 'You are terse.' }, ...added])
  })

  it('compacts to a valid view: groups atomic, thinking untouched, is_error kept, stubs only text', async () => {
    const { manager, invalid } = make('anthropic', { max_tokens: 12000, protected_tool_results: 1, truncate_chars: 300 })
    const added = anthropicSession(12)
    for (const message of added) await manager.addMessage(message)
    const view = await manager.getMessagesForRequest()
    expect(findFormatViolations('anthropic', view)).toEqual([])
    expect(invalid).toEqual([])
    expect(manager.lastCompactionStats).not.toBeNull()
    const blocks = view.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    for (const block of blocks.filter((b) => b.type === 'thinking')) expect(block).toEqual(thinking)
    const truncated = blocks.filter((b): b is AnthropicToolResultBlock => b.type === 'tool_result' && String(JSON.stringify(b.content)).includes('truncated'))
    expect(truncated.length).toBeGreaterThan(0)
    for (const block of truncated) if (String(block.tool_use_id).endsWith('b')) expect(block).toHaveProperty('is_error')
    expect(view.messages.length).toBeLessThan(added.length)
    // History is never changed by compaction.
    expect(await manager.getMessages()).toEqual(added)
  })

  it('rejects an invalid message with the field path and stores nothing', async () => {
    const { manager } = make('anthropic')
    await expect(manager.addMessage({ role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'tool_result', tool_use_id: 'x' }] })).rejects.toMatchObject({
      name: 'InvalidMessageError',
      field: 'message.content[1]',
    })
    await expect(manager.addMessage({ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'tool_result', content: 'x' }] })).rejects.toMatchObject({ field: 'message.content[1].tool_use_id' })
    await expect(manager.addMessage({ role: 'tool', content: 'x' })).rejects.toBeInstanceOf(InvalidMessageError)
    await expect(manager.setMessages([{ role: 'user', content: 'ok' }, { role: 'user', content: 'ok' }, { role: 'user', content: 'ok' }, { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', name: 'f', input: {} }] }])).rejects.toMatchObject({
      field: 'messages[3].content[1].id',
    })
    expect(await manager.getMessages()).toEqual([])
  })

  it('emits context:view-invalid for an interrupted parallel turn mid-history; repair makes it sendable', async () => {
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }, { type: 'tool_use', id: 'b', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'zzz', content: 'orphan' }, { type: 'text', text: 'next' }] },
      { role: 'assistant', content: 'fine' },
    ]
    const plain = make('anthropic')
    for (const message of history) await plain.manager.addMessage(message)
    const view = await plain.manager.getMessagesForRequest()
    expect(plain.invalid).toHaveLength(1)
    expect(plain.invalid[0]).toMatchObject({ format: 'anthropic' })
    expect((plain.invalid[0] as { problems: string[] }).problems.map((p) => p.slice(0, 2)).sort()).toEqual(['A2', 'A3'])
    expect(findFormatViolations('anthropic', view).length).toBeGreaterThan(0)

    const repaired = make('anthropic', {}, { repair: true })
    for (const message of history) await repaired.manager.addMessage(message)
    const fixed = await repaired.manager.getMessagesForRequest()
    expect(repaired.invalid).toEqual([])
    expect(findFormatViolations('anthropic', fixed)).toEqual([])
    expect(JSON.stringify(fixed)).toContain('[no result recorded]')
    expect(JSON.stringify(fixed)).not.toContain('orphan')
  })

  it('tolerates an open group at the tail and any view format per request', async () => {
    const { manager, invalid } = make('anthropic')
    await manager.addMessage({ role: 'user', content: 'go' })
    await manager.addMessage({ role: 'assistant', content: [thinking, { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } }] })
    await manager.getMessagesForRequest()
    const chat = await manager.getMessagesForRequest({ format: 'openai-chat' })
    expectTypeOf(chat).toEqualTypeOf<Array<Readonly<import('../../src/core/formats/openai-chat.js').OpenAiChatMessage>>>()
    expect(chat).toEqual([{ role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }])
    expect(await manager.getMessagesForRequest({ format: 'contract' })).toHaveLength(2)
    expect(invalid).toEqual([])
  })

  it('a recording carries the format; its replay gives the live views', async () => {
    const recorder = makeRecorder({ max_tokens: 12000, truncate_chars: 300 }, { format: 'anthropic' })
    const { manager } = make('anthropic', { max_tokens: 12000, truncate_chars: 300 }, { recorder })
    const live: unknown[] = []
    for (const message of anthropicSession(6)) {
      await manager.addMessage(message)
      if (message.role === 'user') live.push(await manager.getMessagesForRequest())
    }
    const recording = parseRecordingJsonl(recorder.toJsonLines(), 'live.jsonl')
    expect(recording.format).toBe('anthropic')
    const config = decodeConfig(recording.config)
    if (config._tag === 'Left') throw config.left
    const replayed = replayRecording(recording, { config: config.right.config, estimate: makeCachedEstimator() })
    expect(replayed.lines.map((line) => toFormatView('anthropic', line.view ?? []))).toEqual(live)
  })

  it('a recorder made for another format is refused at construction, naming the fix', () => {
    // docs/recording-and-replay.md's makeRecorder(config) beside an ai-sdk manager wrote a header without
    // a format, and the replay read the ai-sdk messages as contract ones: every view broke pairing
    for (const [format, recorder] of [['ai-sdk', makeRecorder({})], ['anthropic', makeRecorder({}, { format: 'openai-chat' })]] as const) {
      const error = (() => {
        try {
          make(format, {}, { recorder })
        } catch (caught) {
          return caught
        }
        return null
      })()
      expect(error).toBeInstanceOf(InvalidRequestError)
      expect((error as InvalidRequestError).field).toBe('recorder')
      expect((error as Error).message).toContain(`makeRecorder(config, { format: "${format}" })`)
    }
    const contract = new ContextManager({}, { recorder: makeRecorder({}), logger: silentLogger })
    expect(contract.format).toBe('contract')
    expect(() => new ContextManager({}, { recorder: makeRecorder({}, { format: 'ai-sdk' }), logger: silentLogger })).toThrow(InvalidRequestError)
    // a Recorder of your own (no format) is taken as it is
    expect(() => make('ai-sdk', {}, { recorder: { record: () => {} } })).not.toThrow()
  })

  it('snapshots carry the format; restore rejects another one', async () => {
    const { manager } = make('anthropic')
    await manager.addMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
    const saved = JSON.parse(JSON.stringify(await manager.snapshot()))
    expect(saved.format).toBe('anthropic')
    const again = await ContextManager.restore(saved, { format: 'anthropic', clock, logger: silentLogger })
    expect(await again.getMessages()).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }])
    await expect(ContextManager.restore(saved, { format: 'ai-sdk' })).rejects.toBeInstanceOf(SnapshotError)
  })
})

describe('openai-responses format', () => {
  const items = [
    { role: 'developer', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'input_text', text: 'Book a flight' }] },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-opaque' },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'search', arguments: '{"q":"OSL"}' },
    { type: 'function_call', id: 'fc_2', call_id: 'c2', name: 'search', arguments: '{"q":"BER"}' },
    { type: 'function_call_output', call_id: 'c1', output: big('flights OSL') },
    { type: 'function_call_output', call_id: 'c2', output: big('flights BER') },
    { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Found some.', annotations: [] }] },
  ]

  it('merges the items of one model turn and returns them as added', async () => {
    const { manager, invalid } = make('openai-responses')
    for (const item of items) await manager.addMessage(item)
    expect(manager.state.history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant'])
    const view = await manager.getMessagesForRequest()
    expect(view).toEqual(items)
    expect(invalid).toEqual([])
    expect(await manager.getMessages()).toEqual(items)
  })

  it('truncates an output item and never splits reasoning from its calls', async () => {
    const { manager, invalid } = make('openai-responses', { max_tokens: 2500, protected_tool_results: 0 })
    for (const item of items) await manager.addMessage(item)
    await manager.addMessage({ role: 'user', content: 'and now?' })
    const view = await manager.getMessagesForRequest()
    expect(findFormatViolations('openai-responses', view)).toEqual([])
    expect(invalid).toEqual([])
    const reasoning = view.findIndex((item) => item.type === 'reasoning')
    if (reasoning >= 0) expect(view[reasoning + 1]).toMatchObject({ type: 'function_call', call_id: 'c1' })
    else expect(view.some((item) => item.type === 'function_call')).toBe(false)
  })

  it('names the field of an invalid item', async () => {
    const { manager } = make('openai-responses')
    await expect(manager.addMessage({ type: 'function_call_output', output: 'x' })).rejects.toMatchObject({ field: 'message.call_id' })
  })
})

describe('ai-sdk format', () => {
  const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'weather', input: { city: 'Oslo' }, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } })
  it('chains approval responses to their call and keeps error outputs as errors when truncated', async () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 'sig' } } }, call('c1'), { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'error-text', value: big('boom') } }] },
      { role: 'assistant', content: [call('c2')] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'weather', output: { type: 'json', value: { text: big('sunny') } } }] },
      { role: 'user', content: 'thanks' },
    ]
    const whole = make('ai-sdk')
    for (const message of messages) await whole.manager.addMessage(message)
    expect(whole.manager.state.history.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['c1', 'c1', 'c2'])
    expect(await whole.manager.getMessagesForRequest()).toEqual(messages)

    const { manager, invalid } = make('ai-sdk', { max_tokens: 3000, protected_tool_results: 0, protected_recent: 0.2, truncate_chars: 300 })
    for (const message of messages) await manager.addMessage(message)
    const view = await manager.getMessagesForRequest()
    expect(findFormatViolations('ai-sdk', view)).toEqual([])
    expect(invalid).toEqual([])
    const parts: ReadonlyArray<{ readonly type: string; readonly output?: unknown }> = view.flatMap((m) => (Array.isArray(m.content) ? (m.content as ReadonlyArray<{ readonly type: string }>) : []))
    const outputs = parts.filter((p) => p.type === 'tool-result').map((p) => p.output as { type: string })
    for (const output of outputs) expect(['error-text', 'text']).toContain(output.type)
    expect(outputs.some((output) => output.type === 'error-text')).toBe(outputs.length > 0 && view.some((m) => JSON.stringify(m).includes('"c1"')))
  })

  it('names the field of an invalid message', async () => {
    const { manager } = make('ai-sdk')
    await expect(manager.addMessage({ role: 'tool', content: [{ type: 'tool-result', toolName: 'f', output: { type: 'text', value: '' } }] })).rejects.toMatchObject({ field: 'message.content[0].toolCallId' })
    await expect(manager.addMessage({ role: 'robot', content: 'x' })).rejects.toMatchObject({ field: 'message.role' })
  })
})

describe('openai-chat format', () => {
  it('keeps content-part arrays and drops metadata; stubs replace only the text parts', async () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }
    const long = { role: 'user', content: [{ type: 'text', text: big('first question') }, image], metadata: { mine: 1 } }
    const { manager, invalid } = make('openai-chat', { max_tokens: 1200 })
    await manager.addMessage(long)
    for (let i = 0; i < 4; i += 1) {
      await manager.addMessage({ role: 'user', content: big(`q${i}`) })
      await manager.addMessage({ role: 'assistant', content: `a${i}` })
    }
    const view = await manager.getMessagesForRequest()
    expect(findFormatViolations('openai-chat', view)).toEqual([])
    expect(invalid).toEqual([])
    const first = view.find((m) => Array.isArray(m.content))
    if (first !== undefined) {
      const parts = first.content as Array<{ type: string; text?: string }>
      expect(parts[1]).toEqual(image)
      expect(parts[0].text?.startsWith('[User message compacted')).toBe(true)
    }
    expect(view.every((m) => !('metadata' in m))).toBe(true)
  })
})
