// provider_rules (docs/formats.md "Input a provider refuses"): each input the issue lists, at
// addMessage (what the message alone shows) or at request time (what only the history shows), in
// the three modes; the contract shape keeps the contract's behaviour with a warning.
import { describe, expect, it } from 'vitest'
import { ContextManager, InvalidMessageError } from '../../src/shell/context-manager.js'
import { memoryLogger } from '../../src/shell/logger.js'
import type { MessageFormat } from '../../src/core/formats/carrier.js'
import type { ProviderRulesMode } from '../../src/core/config.js'

const manager = (format: MessageFormat, provider_rules?: ProviderRulesMode) => {
  const logger = memoryLogger()
  return { context: new ContextManager(provider_rules === undefined ? {} : { provider_rules }, { format, logger }), logger }
}

describe('at addMessage: what the message alone shows', () => {
  const cases: Array<[MessageFormat, Record<string, unknown>, string]> = [
    ['anthropic', { role: 'user', content: [{ type: 'text', text: '' }] }, 'message.content[0].text'],
    ['anthropic', { role: 'user', content: [{ type: 'picture', url: 'x' }] }, 'message.content[0].type'],
    ['ai-sdk', { role: 'user', content: [{ type: 'text', text: '' }] }, 'message.content[0].text'],
    ['ai-sdk', { role: 'assistant', content: [{ type: 'tool-input', toolCallId: 'c' }] }, 'message.content[0].type'],
    ['ai-sdk', { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'nope', approved: true }] }, 'message.content[0].approvalId'],
    ['openai-chat', { role: 'assistant', content: 'x', tool_calls: [] }, 'message.tool_calls'],
    ['openai-chat', { role: 'tool', tool_call_id: 'c1', content: { order_id: 'ORD-1' } }, 'message.content'],
    ['openai-chat', { role: 'user', content: 42 }, 'message.content'],
    ['openai-responses', { type: 'teleport_call', id: 't' }, 'message.type'],
  ]
  for (const [format, message, path] of cases) {
    it(`${format}: ${JSON.stringify(message).slice(0, 70)} is refused by default, naming ${path}; history unchanged`, async () => {
      const { context } = manager(format)
      await context.addMessage({ role: 'user', content: 'hi' })
      const error = await context.addMessage(message).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(InvalidMessageError)
      expect((error as InvalidMessageError).field).toBe(path)
      expect((error as Error).message).toContain('fix:')
      expect(await context.getMessages()).toHaveLength(1)
    })
    it(`${format}: under "warn" it is stored as given, with one warning naming the key`, async () => {
      const { context, logger } = manager(format, 'warn')
      await context.addMessage(message)
      expect(await context.getMessages()).toHaveLength(1)
      expect(logger.messages('warning').filter((line) => line.includes('provider_rules'))).toHaveLength(1)
    })
  }
  it('openai-chat: string and part-array contents, and an assistant\'s null beside tool_calls, pass; an object result names the fix', async () => {
    const { context, logger } = manager('openai-chat')
    await context.addMessage({ role: 'user', content: [{ type: 'text', text: 'find ORD-1' }] })
    await context.addMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{}' } }] })
    await context.addMessage({ role: 'tool', tool_call_id: 'c1', content: '{"order_id":"ORD-1"}' })
    expect(await context.getMessages()).toHaveLength(3)
    expect(logger.messages('warning')).toEqual([])
    const error = await context.addMessage({ role: 'tool', tool_call_id: 'c1', content: { order_id: 'ORD-1' } }).catch((caught: unknown) => caught)
    expect((error as Error).message).toContain('JSON.stringify')
    expect((error as Error).message).toContain('an object as the content of a tool message')
  })

  it('the contract shape keeps the contract behaviour: tool_calls: [] is stored, with a warning', async () => {
    const { context, logger } = manager('contract')
    await context.addMessage({ role: 'assistant', content: 'x', tool_calls: [] })
    expect(await context.getMessages()).toHaveLength(1)
    expect(logger.messages('warning').join('\n')).toContain('provider_rules "warn"')
  })
})

describe('at request time: what only the history shows', () => {
  const cases: Array<[MessageFormat, Array<Record<string, unknown>>, string]> = [
    ['anthropic', [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'ghost', content: 'x' }, { type: 'text', text: 'go on' }] }], 'ghost'],
    ['anthropic', [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'searching' }, { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'x' } }] }, { role: 'user', content: 'and?' }], 'srv_1'],
    ['openai-chat', [{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'ghost', content: 'x' }, { role: 'user', content: 'and?' }], 'ghost'],
    ['openai-responses', [{ role: 'user', content: 'q' }, { type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'user', content: 'and?' }], 'rs_1'],
    ['openai-responses', [{ role: 'user', content: 'q' }, { type: 'computer_call_output', call_id: 'cc_ghost', output: { type: 'computer_screenshot', image_url: 'data:' } }, { role: 'user', content: 'and?' }], 'cc_ghost'],
    ['openai-responses', [{ role: 'user', content: 'q' }, { type: 'function_call_output', call_id: 'fc_ghost', output: 'x' }, { role: 'user', content: 'and?' }], 'fc_ghost'],
    ['openai-responses', [{ role: 'user', content: 'q' }, { type: 'custom_tool_call_output', call_id: 'ct_ghost', output: 'x' }, { role: 'user', content: 'and?' }], 'ct_ghost'],
  ]
  for (const [format, messages, id] of cases) {
    it(`${format}: ${id} is left out of the view by default, with a warning; history unchanged`, async () => {
      const { context, logger } = manager(format)
      for (const message of messages) await context.addMessage(message)
      const view = await context.getMessagesForRequest()
      expect(JSON.stringify(view)).not.toContain(id)
      expect(logger.messages('warning').join('\n')).toContain('provider_rules "repair"')
      expect(JSON.stringify(await context.getMessages())).toContain(id)
    })
    it(`${format}: ${id} raises InvalidMessageError under "refuse", and is sent as it is under "warn"`, async () => {
      const refusing = manager(format, 'refuse').context
      for (const message of messages) await refusing.addMessage(message)
      const error = await refusing.getMessagesForRequest().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(InvalidMessageError)
      expect((error as Error).message).toContain(id)
      const warning = manager(format, 'warn')
      for (const message of messages) await warning.context.addMessage(message)
      expect(JSON.stringify(await warning.context.getMessagesForRequest())).toContain(id)
      expect(warning.logger.messages('warning').join('\n')).toContain('provider_rules "warn"')
    })
  }
  it('a valid session raises nothing and warns nothing', async () => {
    const { context, logger } = manager('anthropic')
    await context.addMessage({ role: 'user', content: 'q' })
    await context.addMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] })
    await context.addMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] })
    await context.getMessagesForRequest()
    expect(logger.messages('warning')).toEqual([])
  })
})
