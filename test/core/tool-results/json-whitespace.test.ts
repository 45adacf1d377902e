// Unit tests for src/core/tool-results/json-whitespace.ts (docs/configuration.md,
// tool_result_json_whitespace): a JSON tool result is stored without the whitespace between its
// tokens when it is added under "strip"; strings, numbers as written and key order are kept;
// anything that is not a JSON object or array, and every message under "keep" (the contract), is
// stored as given; the ingress cap measures the stored form; provider formats send the stripped
// text in their own shape.
import { describe, expect, it } from 'vitest'
import { stripJsonWhitespace } from '../../../src/core/tool-results/json-whitespace.js'
import { fixedClock } from '../../../src/shell/clock.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { silentLogger } from '../../../src/shell/logger.js'
import { added, calls, fold, request, result, stepFor, user } from '../../support/core.js'

const pretty = '{\n  "flight_number": "HAT069",\n  "prices": {"economy": 121, "business": 239},\n  "note": "window seat,  aisle  seat"\n}'
const compact = '{"flight_number":"HAT069","prices":{"economy":121,"business":239},"note":"window seat,  aisle  seat"}'

describe('stripJsonWhitespace', () => {
  it('removes the whitespace between tokens and keeps the text inside strings', () => {
    expect(stripJsonWhitespace(pretty)).toBe(compact)
    expect(stripJsonWhitespace('[ 1 ,\t2 ,\r\n 3 ]')).toBe('[1,2,3]')
    expect(stripJsonWhitespace('  {"a": [ ] , "b": { } }  ')).toBe('{"a":[],"b":{}}')
  })

  it('keeps escapes, quotes inside strings, numbers as written and key order character for character', () => {
    const text = '{"z": "a \\" b \\\\", "big": 12345678901234567890, "f": 1.50, "e": 1E+3, "u": "\\u0020 é", "a": 0}'
    const stripped = stripJsonWhitespace(text)
    expect(stripped).toBe('{"z":"a \\" b \\\\","big":12345678901234567890,"f":1.50,"e":1E+3,"u":"\\u0020 é","a":0}')
    expect(JSON.parse(stripped as string)).toEqual(JSON.parse(text))
  })

  it('null for text that is not a JSON object or array, for invalid JSON and when nothing would change', () => {
    expect(stripJsonWhitespace('total: 3 files, 2 dirs')).toBeNull()
    expect(stripJsonWhitespace('[1] first item, [2] second')).toBeNull()
    expect(stripJsonWhitespace('{ "a": 1, }')).toBeNull()
    expect(stripJsonWhitespace('"a string with spaces"')).toBeNull()
    expect(stripJsonWhitespace(' 42 ')).toBeNull()
    expect(stripJsonWhitespace('{"a":"b c"}')).toBeNull()
    expect(stripJsonWhitespace('')).toBeNull()
    expect(stripJsonWhitespace('{"a": 1}\u00a0')).toBeNull() // a no-break space is not JSON whitespace: not JSON
  })
})

describe('tool_result_json_whitespace', () => {
  const events = [added(user('find flights')), added(calls(['a'], 'search')), added(result('a', pretty))]

  it('"keep" (the contract): the tool result is stored and sent as given', () => {
    const { state, steps } = fold(stepFor(), [...events, request()])
    expect(state.history[2].content).toBe(pretty)
    expect(steps[3].view?.[2].content).toBe(pretty)
  })

  it('"strip": the tool result is stored and sent without whitespace, its other keys and metadata kept', () => {
    const { state, steps } = fold(stepFor({ tool_result_json_whitespace: 'strip' }), [...events, request()])
    expect(state.history[2]).toMatchObject({ role: 'tool', tool_call_id: 'a', content: compact, metadata: { _seq: 2 } })
    expect(steps[3].view?.[2].content).toBe(compact)
  })

  it('"strip" leaves other messages and non-JSON or non-string tool results as given', () => {
    const blocks = [{ type: 'text', text: '{ "a": 1 }' }]
    const others = [added(user('{ "a": 1 }')), added(calls(['a'])), added(result('a', 'ls: 2 files,  1 dir')), added(calls(['b'])), added(result('b', blocks))]
    const { state } = fold(stepFor({ tool_result_json_whitespace: 'strip' }), others)
    expect(state.history.map((message) => message.content)).toEqual(['{ "a": 1 }', '', 'ls: 2 files,  1 dir', '', blocks])
  })

  it('"strip" before the ingress cap: the cap measures the stored form', () => {
    const value = { rows: Array.from({ length: 40 }, (_, index) => ({ id: `row_${index}` })) }
    const spaced = JSON.stringify(value, null, 8)
    const cap = JSON.stringify(value).length + 10 // over the stripped form, under the spaced one
    const { state } = fold(stepFor({ tool_result_json_whitespace: 'strip', tool_result_ingress_cap_bytes: cap }), [added(calls(['a'])), added(result('a', spaced))])
    expect(state.history[1].content).toBe(JSON.stringify(value))
    const { state: kept } = fold(stepFor({ tool_result_ingress_cap_bytes: cap }), [added(calls(['a'])), added(result('a', spaced))])
    expect(kept.history[1].content as string).toContain('[tool result cut at ingress')
  })

  it('provider formats send the stripped text in their own shape (OpenAI Chat, Anthropic)', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const chat = new ContextManager(config, { format: 'openai-chat', clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger })
    await chat.addMessage({ role: 'user', content: 'find flights' })
    await chat.addMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }] })
    await chat.addMessage({ role: 'tool', tool_call_id: 'c1', content: pretty })
    expect((await chat.getMessagesForRequest())[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: compact })

    const anthropic = new ContextManager(config, { format: 'anthropic', clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger })
    await anthropic.addMessage({ role: 'user', content: 'find flights' })
    await anthropic.addMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] })
    await anthropic.addMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: pretty }] }] })
    const view = await anthropic.getMessagesForRequest()
    expect(view.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: compact }] })
  })

  it('Anthropic: every tool result of one message is stripped, its other blocks and keys kept; Responses outputs too', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
    const anthropic = new ContextManager(config, { format: 'anthropic', clock, logger: silentLogger })
    await anthropic.addMessage({ role: 'user', content: 'find flights' })
    await anthropic.addMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a', input: {} }, { type: 'tool_use', id: 't2', name: 'b', input: {} }] })
    await anthropic.addMessage({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: '[ 1, 2 ]', is_error: false },
        { type: 'tool_result', tool_use_id: 't2', content: 'plain text,  kept' },
        { type: 'text', text: 'and { "a": 1 } here' },
      ],
    })
    const view = await anthropic.getMessagesForRequest()
    expect(view.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: '[1,2]', is_error: false },
        { type: 'tool_result', tool_use_id: 't2', content: 'plain text,  kept' },
        { type: 'text', text: 'and { "a": 1 } here' },
      ],
    })

    const responses = new ContextManager(config, { format: 'openai-responses', clock, logger: silentLogger })
    await responses.addMessage({ role: 'user', content: 'find flights' })
    await responses.addMessage({ type: 'function_call', call_id: 'c1', name: 'search', arguments: '{}' })
    await responses.addMessage({ type: 'function_call_output', call_id: 'c1', output: pretty })
    const items = await responses.getMessagesForRequest()
    expect(items[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: compact })
    // the native history holds the stored (stripped) output too, as in the other formats
    expect((await responses.getMessages())[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: compact })
  })

  it('Responses: an output of parts keeps its image parts, the stripped text in its text part', async () => {
    const image = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }
    const responses = new ContextManager({ max_tokens: 200_000, tool_result_json_whitespace: 'strip' }, { format: 'openai-responses', clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger })
    await responses.addMessage({ role: 'user', content: 'find flights' })
    await responses.addMessage({ type: 'function_call', call_id: 'c1', name: 'search', arguments: '{}' })
    await responses.addMessage({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: pretty }, image] })
    const items = await responses.getMessagesForRequest()
    expect(items[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: compact }, image] })
    expect((await responses.getMessages())[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: compact }, image] })
  })

  it('Anthropic and AI SDK: a stripped result of parts keeps every other part in place and its text part’s other keys', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }
    const anthropic = new ContextManager(config, { format: 'anthropic', clock, logger: silentLogger })
    await anthropic.addMessage({ role: 'user', content: 'find flights' })
    await anthropic.addMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] })
    await anthropic.addMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [image, { type: 'text', text: pretty, cache_control: { type: 'ephemeral' } }] }] })
    const view = await anthropic.getMessagesForRequest()
    expect(view.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [image, { type: 'text', text: compact, cache_control: { type: 'ephemeral' } }] }] })
    expect((await anthropic.getMessages())[2]).toEqual(view.messages[2])

    const media = { type: 'media', data: 'iVBORw0KGgo=', mediaType: 'image/png' }
    const sdk = new ContextManager(config, { format: 'ai-sdk', clock, logger: silentLogger })
    await sdk.addMessage({ role: 'user', content: 'find flights' })
    await sdk.addMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }] })
    await sdk.addMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'content', value: [media, { type: 'text', text: pretty }] } }] })
    expect((await sdk.getMessagesForRequest())[2]).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'content', value: [media, { type: 'text', text: compact }] } }] })
    expect((await sdk.getMessages())[2]).toEqual((await sdk.getMessagesForRequest())[2])
  })

  it('AI SDK: a text output is sent stripped as a text output; a json output (already compact) as given', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const sdk = new ContextManager(config, { format: 'ai-sdk', clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger })
    await sdk.addMessage({ role: 'user', content: 'find flights' })
    await sdk.addMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }, { type: 'tool-call', toolCallId: 'c2', toolName: 'seats', input: {} }] })
    await sdk.addMessage({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: pretty } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'seats', output: { type: 'json', value: { seats: [1, 2] } } },
      ],
    })
    const view = await sdk.getMessagesForRequest()
    expect(view[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: compact } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'seats', output: { type: 'json', value: { seats: [1, 2] } } },
      ],
    })
  })

  it('a snapshot keeps the stripped form: the restored manager sends the same view', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
    const anthropic = new ContextManager(config, { format: 'anthropic', clock, logger: silentLogger })
    await anthropic.addMessage({ role: 'user', content: 'find flights' })
    await anthropic.addMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] })
    await anthropic.addMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: pretty }] })
    const before = await anthropic.getMessagesForRequest()
    const restored = await ContextManager.restore(JSON.parse(JSON.stringify(await anthropic.snapshot())), { format: 'anthropic', clock, logger: silentLogger })
    expect(await restored.getMessagesForRequest()).toEqual(before)
    expect(before.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: compact }] })
  })

  it('setMessages stores the stripped form too, and setting a stripped view again changes nothing', async () => {
    const config = { max_tokens: 200_000, tool_result_json_whitespace: 'strip' as const }
    const chat = new ContextManager(config, { format: 'openai-chat', clock: fixedClock('2026-02-06T10:00:00.123+00:00'), logger: silentLogger })
    const given = [
      { role: 'user' as const, content: 'find flights' },
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'search', arguments: '{}' } }] },
      { role: 'tool' as const, tool_call_id: 'c1', content: pretty },
    ]
    await chat.setMessages(given)
    const first = await chat.getMessagesForRequest()
    expect(first[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: compact })
    await chat.setMessages(first)
    expect(await chat.getMessagesForRequest()).toEqual(first)
    expect(given[2].content).toBe(pretty) // the caller's objects are never changed
  })
})
