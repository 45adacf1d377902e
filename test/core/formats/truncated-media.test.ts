// A truncated tool result made of text and media keeps its media in every provider format
// (docs/formats.md, "Block content"): the ladder shortens the text and sends it as one text part
// before the result's images and files. Anthropic and the AI SDK always did; a Responses
// `function_call_output` whose `output` was a parts array used to be sent as the truncated text
// alone, its image lost. Also for a result cut at ingress (docs/contract.md 17.15), in the view
// and in getMessages().
import { describe, expect, it } from 'vitest'
import type { ProviderFormat } from '../../../src/core/formats/carrier.js'
import { expandResponsesItem, toResponsesView, toStoredItems } from '../../../src/core/formats/openai-responses.js'
import { withOrigin } from '../../../src/core/formats/carrier.js'
import { fixedClock } from '../../../src/shell/clock.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { silentLogger } from '../../../src/shell/logger.js'

const clock = fixedClock('2026-02-06T10:00:00.123+00:00')
const TURNS = 8
/** The worked example of docs/contract.md 6.8 (8 turns, 800-character results, budget 3,000), each result with an image after its text. */
const CONFIG = { max_tokens: 3000, compact_threshold: 0.5, target_usage: 0.6, truncate_chars: 50, protected_recent: 0.5, protected_tool_results: 4, compaction_notice_enabled: false }
const RESPONSES_IMAGE = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' }
const ANTHROPIC_IMAGE = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }
const AI_SDK_MEDIA = { type: 'media', data: 'iVBORw0KGgo=', mediaType: 'image/png' }

const turnOf = (format: ProviderFormat, i: number): ReadonlyArray<Record<string, unknown>> => {
  const text = 'x'.repeat(800)
  if (format === 'openai-responses') {
    return [
      { role: 'user', content: `ask ${i}` },
      { type: 'function_call', call_id: `t${i}`, name: 'read_file', arguments: '{}' },
      { type: 'function_call_output', call_id: `t${i}`, output: [{ type: 'input_text', text }, RESPONSES_IMAGE] },
    ]
  }
  if (format === 'anthropic') {
    return [
      { role: 'user', content: `ask ${i}` },
      { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text }, ANTHROPIC_IMAGE] }] },
    ]
  }
  return [
    { role: 'user', content: `ask ${i}` },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `t${i}`, toolName: 'read_file', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `t${i}`, toolName: 'read_file', output: { type: 'content', value: [{ type: 'text', text }, AI_SDK_MEDIA] } }] },
  ]
}

/** Each tool result of a view as [its text, its media parts], in the format's own shape. */
const resultsOf = (format: ProviderFormat, view: unknown): Array<[string, unknown[]]> => {
  const isText = (part: Record<string, unknown>): boolean => ['text', 'input_text'].includes(String(part.type))
  const split = (parts: unknown): [string, unknown[]] =>
    typeof parts === 'string' ? [parts, []] : [(parts as Array<Record<string, unknown>>).filter(isText).map((part) => part.text).join(''), (parts as Array<Record<string, unknown>>).filter((part) => !isText(part))]
  if (format === 'openai-responses') return (view as Array<Record<string, unknown>>).filter((item) => item.type === 'function_call_output').map((item) => split(item.output))
  const messages = format === 'anthropic' ? (view as { messages: Array<Record<string, unknown>> }).messages : (view as Array<Record<string, unknown>>)
  const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : []))
  if (format === 'anthropic') return blocks.filter((block) => block.type === 'tool_result').map((block) => split(block.content))
  return blocks.filter((part) => part.type === 'tool-result').map((part) => {
    const output = part.output as { type: string; value: unknown }
    return output.type === 'content' ? split(output.value) : [String(output.value), []]
  })
}

describe('a truncated tool result of text and media', () => {
  for (const [format, image] of [['openai-responses', RESPONSES_IMAGE], ['anthropic', ANTHROPIC_IMAGE], ['ai-sdk', AI_SDK_MEDIA]] as const) {
    it(`${format}: the ladder truncates the text and sends the image after it`, async () => {
      const manager = new ContextManager(CONFIG, { format, clock, logger: silentLogger })
      for (let i = 0; i < TURNS; i++) for (const message of turnOf(format, i)) await manager.addMessage(message)
      const results = resultsOf(format, await manager.getMessagesForRequest())
      const truncated = results.filter(([text]) => text.startsWith('[truncated: '))
      expect(results).toHaveLength(TURNS)
      expect(truncated.length).toBeGreaterThan(0)
      for (const [, media] of results) expect(media).toEqual([image])
    })
  }

  it('openai-responses: the rebuilt output is one input_text part before the image, a text-only output stays a string', () => {
    const [piece] = expandResponsesItem({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'a' }, RESPONSES_IMAGE, { type: 'input_text', text: 'b' }] }).map((p) => withOrigin(p.message, 0))
    const truncated = { ...piece, content: '[truncated: ~9 tokens] a', _truncated: true }
    expect(toResponsesView([truncated])).toEqual([{ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: '[truncated: ~9 tokens] a' }, RESPONSES_IMAGE] }])
    const [textOnly] = expandResponsesItem({ type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'a' }] }).map((p) => withOrigin(p.message, 0))
    expect(toResponsesView([{ ...textOnly, content: '[truncated] a', _truncated: true }])).toEqual([{ type: 'function_call_output', call_id: 'c2', output: '[truncated] a' }])
    // cut at ingress: the native history keeps the image too
    expect(toStoredItems({ ...piece, content: 'a\n[tool result cut at ingress: ...]', _ingress_cut: true })).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'a\n[tool result cut at ingress: ...]' }, RESPONSES_IMAGE] },
    ])
  })

  it('openai-responses: a result cut at ingress keeps its image in the view and in getMessages()', async () => {
    const manager = new ContextManager({ max_tokens: 200_000, tool_result_ingress_cap_bytes: 100 }, { format: 'openai-responses', clock, logger: silentLogger })
    for (const item of turnOf('openai-responses', 0)) await manager.addMessage(item)
    const [sent] = resultsOf('openai-responses', await manager.getMessagesForRequest())
    expect(sent[0]).toContain('[tool result cut at ingress: 100 of 800 bytes kept')
    expect(sent[1]).toEqual([RESPONSES_IMAGE])
    expect(resultsOf('openai-responses', await manager.getMessages())).toEqual([sent])
  })
})
