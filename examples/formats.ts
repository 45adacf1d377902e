/**
 * Example: one short agent session in each provider format. The manager is declared with the
 * format of the SDK in use; messages go in as that SDK writes them and views come out ready for
 * its request (no conversion code). `test/examples.test.ts` runs it; docs/formats.md quotes it.
 */
import { ContextManager, findFormatViolations, silentLogger } from '../src/index.js'

/** A tool output long enough that old ones get truncated under the small budget below. */
const listing = (name: string): string => Array.from({ length: 80 }, (_, i) => `${name}:${i + 1}: export const value${i} = compute(${i})`).join('\n')

/** Anthropic Messages: thinking with its signature, parallel tool_use, tool_result blocks. */
export async function anthropicSession() {
  const context = new ContextManager({ max_tokens: 3000, truncate_chars: 400, protected_tool_results: 1 }, { format: 'anthropic', logger: silentLogger })
  await context.addMessage({ role: 'system', content: 'You are a careful coding agent.' })
  await context.addMessage({ role: 'user', content: [{ type: 'text', text: 'Where is the tokenizer built?', cache_control: { type: 'ephemeral' } }] })
  for (let turn = 0; turn < 4; turn += 1) {
    await context.addMessage({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `Read the sources, round ${turn}.`, signature: `sig-${turn}` },
        { type: 'tool_use', id: `toolu_${turn}a`, name: 'read_file', input: { path: `src/a${turn}.ts` } },
        { type: 'tool_use', id: `toolu_${turn}b`, name: 'read_file', input: { path: `src/b${turn}.ts` } },
      ],
    })
    await context.addMessage({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${turn}a`, content: listing(`a${turn}`) },
        { type: 'tool_result', tool_use_id: `toolu_${turn}b`, content: [{ type: 'text', text: listing(`b${turn}`) }], is_error: turn === 0 },
      ],
    })
  }
  // { system, messages }: spreads into client.messages.create({ model, max_tokens, ...view })
  const view = await context.getMessagesForRequest()
  return { view, problems: findFormatViolations('anthropic', view), compacted: context.lastCompactionStats !== null }
}

/** OpenAI Responses: items as the API returns them; a reasoning item stays with its call. */
export async function responsesSession() {
  const context = new ContextManager({ max_tokens: 2500, truncate_chars: 400, protected_tool_results: 1 }, { format: 'openai-responses', logger: silentLogger })
  await context.addMessage({ role: 'developer', content: 'Answer briefly.' })
  await context.addMessage({ role: 'user', content: 'List the exported values.' })
  for (let turn = 0; turn < 4; turn += 1) {
    await context.addMessage({ type: 'reasoning', id: `rs_${turn}`, summary: [], encrypted_content: `opaque-${turn}` })
    await context.addMessage({ type: 'function_call', id: `fc_${turn}`, call_id: `call_${turn}`, name: 'read_file', arguments: JSON.stringify({ path: `src/${turn}.ts` }) })
    await context.addMessage({ type: 'function_call_output', call_id: `call_${turn}`, output: listing(`f${turn}`) })
  }
  // the `input` array of client.responses.create({ model, input: view })
  const view = await context.getMessagesForRequest()
  return { view, problems: findFormatViolations('openai-responses', view) }
}

/** AI SDK ModelMessage: tool-call / tool-result parts, an approval chained by approvalId. */
export async function aiSdkSession() {
  const context = new ContextManager({ max_tokens: 2500, truncate_chars: 400, protected_tool_results: 1 }, { format: 'ai-sdk', logger: silentLogger })
  await context.addMessage({ role: 'system', content: 'You are a careful coding agent.' })
  await context.addMessage({ role: 'user', content: [{ type: 'text', text: 'Delete the build folder, then list src.' }] })
  await context.addMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c0', toolName: 'shell', input: { cmd: 'rm -rf build' } }, { type: 'tool-approval-request', approvalId: 'ap0', toolCallId: 'c0' }] })
  await context.addMessage({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap0', approved: true }] })
  await context.addMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'shell', output: { type: 'text', value: 'removed' } }] })
  for (let turn = 1; turn < 4; turn += 1) {
    await context.addMessage({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'read_file', input: { path: `src/${turn}.ts` } }] })
    await context.addMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'read_file', output: { type: 'json', value: { text: listing(`f${turn}`) } } }] })
  }
  // ModelMessage[]: generateText({ model, messages: view })
  const view = await context.getMessagesForRequest()
  return { view, problems: findFormatViolations('ai-sdk', view) }
}

/** OpenAI Chat: the contract shape plus content-part arrays; any view format per request. */
export async function chatSession() {
  const context = new ContextManager({ max_tokens: 2500, truncate_chars: 400, protected_tool_results: 1 }, { format: 'openai-chat', logger: silentLogger })
  await context.addMessage({ role: 'system', content: 'You are a careful coding agent.' })
  await context.addMessage({ role: 'user', content: [{ type: 'text', text: 'What does src/0.ts export?' }] })
  await context.addMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/0.ts"}' } }] })
  await context.addMessage({ role: 'tool', tool_call_id: 'call_0', content: listing('f0') })
  // client.chat.completions.create({ model, messages: view })
  const view = await context.getMessagesForRequest()
  // the same history as AI SDK messages, for a request through another SDK
  const asAiSdk = await context.getMessagesForRequest({ format: 'ai-sdk' })
  return { view, asAiSdk, problems: findFormatViolations('openai-chat', view) }
}

export async function run() {
  return { anthropic: await anthropicSession(), responses: await responsesSession(), aiSdk: await aiSdkSession(), chat: await chatSession() }
}
