// The AI SDK helpers over whole turns, with ai@6's generateText on MockLanguageModelV3: the turn's
// final answer is in the history when generateText returns (makeContextSettings), the system
// prompt goes as `system` (no "System messages in the prompt" warning), and a compacted view that
// ends with a tool-approval-response is left as it is so the SDK executes the approved call
// (docs/contract.md 17.12).
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toAiSdkPrompt } from '../../../src/core/formats/ai-sdk.js'
import { findFormatViolations } from '../../../src/core/formats/dispatch.js'
import { ContextManager } from '../../../src/shell/context-manager.js'
import { makeContextPrepareStep, makeContextSettings } from '../../../src/shell/integrations/ai-sdk.js'
import { memoryLogger } from '../../../src/shell/logger.js'

const usage = (params: LanguageModelV3CallOptions) => {
  const total = Math.ceil(JSON.stringify(params.prompt).length / 4)
  return { inputTokens: { total, noCache: total, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: undefined } }
}
const stop = { unified: 'stop', raw: 'stop' } as const
const toolCalls = { unified: 'tool-calls', raw: 'tool_use' } as const

/** One read_file call per turn (id `call_<turn>`), then a text answer `Answer <turn>.` */
const oneCallPerTurn = () => {
  let n = 0
  return async (params: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    const last = params.prompt[params.prompt.length - 1]
    n += 1
    if (last.role === 'tool') return { content: [{ type: 'text', text: `Answer ${n}.` }], finishReason: stop, usage: usage(params), warnings: [] }
    return { content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'read_file', input: JSON.stringify({ path: `f${n}.ts` }) }], finishReason: toolCalls, usage: usage(params), warnings: [] }
  }
}

const bigFile = (path: string) => Array.from({ length: 80 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${i} = compute(${i})`).join('\n')
const readFile = tool({
  description: 'Read a source file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }: { path: string }) => bigFile(path),
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('makeContextSettings: the turn is whole when generateText returns', () => {
  it('after each turn the history holds every message the SDK holds, the final answer included; a snapshot taken then has it', async () => {
    const model = new MockLanguageModelV3({ doGenerate: oneCallPerTurn() })
    const context = new ContextManager({ token_meter: 'hybrid' }, { format: 'ai-sdk', logger: memoryLogger() })
    const settings = makeContextSettings(context)
    let conversation: Array<ModelMessage> = [{ role: 'system', content: 'You are a careful coding agent.' }]
    const sizes: Array<[number, number]> = []
    for (const question of ['Where is the lexer?', 'And the parser?', 'And the printer?']) {
      conversation = [...conversation, { role: 'user', content: question }]
      const result = await generateText({ model, messages: conversation, tools: { read_file: readFile }, stopWhen: stepCountIs(5), allowSystemInMessages: true, ...settings })
      conversation = [...conversation, ...result.response.messages]
      sizes.push([conversation.length, (await context.getMessages()).length])
      const snapshot = JSON.parse(JSON.stringify(await context.snapshot())) as { state: { history: Array<{ content: unknown }> } }
      expect(JSON.stringify(snapshot.state.history.at(-1))).toContain(result.text)
    }
    expect(sizes).toEqual([[5, 5], [9, 9], [13, 13]])
    expect(JSON.parse(JSON.stringify(await context.getMessages()))).toEqual(JSON.parse(JSON.stringify(conversation)))
    // the usage of every step reached the meter once: 6 model calls
    await context.getMessagesForRequest()
    expect(context.lastTokenMeterStats?.cache_aggregates?.events).toBe(6)
  })

  it('prepareStep alone still works, one message behind (the documented difference)', async () => {
    const model = new MockLanguageModelV3({ doGenerate: oneCallPerTurn() })
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const result = await generateText({ model, messages: [{ role: 'user', content: 'q' }], tools: { read_file: readFile }, stopWhen: stepCountIs(5), prepareStep: makeContextPrepareStep(context) })
    expect(result.text).toBe('Answer 2.')
    expect(await context.getMessages()).toHaveLength(3)
  })
})

describe('the system prompt goes as `system`', () => {
  const systemWarnings = (warn: { mock: { calls: Array<Array<unknown>> } }) => warn.mock.calls.filter((call) => String(call[0]).includes('System messages in the prompt')).length

  it('a view passed with toAiSdkPrompt: no SDK warning, the model gets the system prompt first; passed whole, ai@6 warns', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    await context.setMessages([{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'q' }])
    const view = await context.getMessagesForRequest()
    const model = new MockLanguageModelV3({ doGenerate: oneCallPerTurn() })
    await generateText({ model, ...toAiSdkPrompt(view) })
    expect(systemWarnings(warn)).toBe(0)
    expect(model.doGenerateCalls[0].prompt[0]).toEqual({ role: 'system', content: 'Be terse.' })
    await generateText({ model, messages: view })
    expect(systemWarnings(warn)).toBe(1)
  })

  it('prepareStep returns the view\'s system messages as system, never in messages; the call\'s own system stays when the manager has none', async () => {
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const settings = makeContextSettings(context)
    const step = await settings.prepareStep({ stepNumber: 0, steps: [], messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'q' }] })
    expect(step).toEqual({ system: [{ role: 'system', content: 'Be terse.' }], messages: [{ role: 'user', content: 'q' }] })
    const model = new MockLanguageModelV3({ doGenerate: oneCallPerTurn() })
    await generateText({ model, system: 'Be terse.', messages: [{ role: 'user', content: 'q' }], ...makeContextSettings(new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })) })
    expect(model.doGenerateCalls[0].prompt[0]).toEqual({ role: 'system', content: 'Be terse.' })
  })
})

describe('a compacted view that ends with a tool-approval-response (17.12)', () => {
  const deploy = tool({
    description: 'Deploy the build',
    inputSchema: jsonSchema<{ target: string }>({ type: 'object', properties: { target: { type: 'string' } }, required: ['target'] }),
    needsApproval: true,
    execute: async ({ target }: { target: string }) => `deployed to ${target}`,
  })

  it('the notice and the replay wait: the SDK executes the approved call and generateText succeeds', async () => {
    // a long session of file reads, compacted at this budget, then a call that needs approval
    let n = 0
    const model = new MockLanguageModelV3({
      doGenerate: async (params): Promise<LanguageModelV3GenerateResult> => {
        n += 1
        if (n <= 6) return { content: [{ type: 'tool-call', toolCallId: `read_${n}`, toolName: 'read_file', input: JSON.stringify({ path: `f${n}.ts` }) }], finishReason: toolCalls, usage: usage(params), warnings: [] }
        if (n === 7) return { content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'deploy', input: JSON.stringify({ target: 'prod' }) }], finishReason: toolCalls, usage: usage(params), warnings: [] }
        return { content: [{ type: 'text', text: JSON.stringify(params.prompt).includes('deployed to prod') ? 'Deployed.' : 'Hm.' }], finishReason: stop, usage: usage(params), warnings: [] }
      },
    })
    const context = new ContextManager({}, { format: 'ai-sdk', logger: memoryLogger() })
    const tools = { read_file: readFile, deploy }
    const settings = makeContextSettings(context, { tokenBudget: 3_000 })
    const first = await generateText({ model, messages: [{ role: 'user', content: 'Read everything, then deploy to prod.' }], tools, stopWhen: stepCountIs(20), ...settings })
    const request = first.content.find((part) => part.type === 'tool-approval-request')
    expect(request).toBeDefined()
    const conversation: Array<ModelMessage> = [
      { role: 'user', content: 'Read everything, then deploy to prod.' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: (request as { approvalId: string }).approvalId, approved: true }] },
    ]
    // the view for this history is compacted and ends with the approval, not with the notice
    await context.setMessages(conversation)
    const view = await context.getMessagesForRequest({ tokenBudget: 3_000 })
    expect(context.lastCompactionStats).not.toBeNull()
    expect(view.at(-1)).toEqual(conversation.at(-1))
    // the view itself, given to the SDK, has the approved call executed (no AI_MissingToolResultsError)
    const second = await generateText({ model, tools, stopWhen: stepCountIs(5), ...toAiSdkPrompt(view) })
    expect(second.text).toBe('Deployed.')
    expect(JSON.stringify(second.response.messages)).toContain('deployed to prod')
    // through the helpers as well; the request after the result passes the rules
    const third = await generateText({ model, messages: conversation, tools, stopWhen: stepCountIs(5), ...settings })
    expect(third.text).toBe('Deployed.')
    expect(findFormatViolations('ai-sdk', (model.doGenerateCalls.at(-1) as LanguageModelV3CallOptions).prompt)).toEqual([])
  })
})
