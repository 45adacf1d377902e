/**
 * AI SDK `ModelMessage` (v5/v6 part names): intake into contract pieces (an assistant message is
 * one piece, its `tool-call` parts its calls; each part of a `tool` message is a tool piece, an
 * approval response chained to its call by `approvalId`), provider-ready `ModelMessage[]`
 * output, the rules S1-S5, and the per-format validation of added messages.
 */
import type { Message, Messages } from '../messages/message.js'
import { isPlainObject } from '../messages/values.js'
import { assembleEntries, type AssembledMessage, type AssemblyCodec } from './assemble.js'
import { carrierOf, contentText, isStrippedOnly, joinTexts, parseArguments, pieceMetadata, placeText, toBlocks, toContractCalls, toConvertedText, withStrippedText, type NativeCarrier, type Piece } from './carrier.js'

/**
 * An AI SDK `ModelMessage` as this library reads it: role `system` (string content), `user`,
 * `assistant` or `tool` (content parts), optional `providerOptions`.
 *
 * @example
 * const message: AiSdkMessage = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] }
 */
export interface AiSdkMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool'
  readonly content: string | ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>
  readonly providerOptions?: Readonly<Record<string, unknown>>
}

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'content', 'providerOptions'])

/**
 * The text of a tool-result `output` (v5/v6 `ToolResultOutput`): `text`/`error-text` values,
 * `json`/`error-json` values as JSON, `content` text parts joined, `execution-denied` its
 * reason; a v4-style `result` is read as JSON.
 *
 * @example
 * toOutputText({ type: 'tool-result', output: { type: 'json', value: { ok: true } } }) // => '{"ok":true}'
 */
export const toOutputText = (part: Readonly<Record<string, unknown>>): string => {
  const output = part.output
  if (!isPlainObject(output)) return part.result === undefined ? '' : typeof part.result === 'string' ? part.result : JSON.stringify(part.result)
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? output.value : ''
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value ?? null)
    case 'content':
      return Array.isArray(output.value) ? joinTexts(output.value, ['text']) : ''
    case 'execution-denied':
      return typeof output.reason === 'string' ? output.reason : ''
    default:
      return ''
  }
}

/**
 * The call id an approval response answers: the `toolCallId` of the `tool-approval-request`
 * with the same `approvalId` in `history` (latest first), or null.
 *
 * @example
 * const history = expandMessage('ai-sdk', { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'run', input: {} }, { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'call_1' }] }, []).map((piece) => piece.message)
 * findApprovalCall(history, 'ap1') // => 'call_1'
 * findApprovalCall(history, 'ap2') // => null
 */
export const findApprovalCall = (history: Messages, approvalId: unknown): unknown => {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const carrier = carrierOf(history[i])
    if (carrier === null || carrier.format !== 'ai-sdk' || carrier.message.role !== 'assistant') continue
    for (const part of toBlocks(carrier.message.content)) {
      if (isPlainObject(part) && part.type === 'tool-approval-request' && part.approvalId === approvalId) return part.toolCallId
    }
  }
  return null
}

/**
 * True for the piece of a `tool-approval-response` part (an AI SDK tool message's part answered
 * by an approval, not by a result).
 *
 * @example
 * const request = expandAiSdkMessage({ role: 'assistant', content: [
 *   { type: 'tool-call', toolCallId: 'c1', toolName: 'rm', input: {} },
 *   { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
 * ] }, []).map((piece) => piece.message)
 * const response = expandAiSdkMessage({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] }, request)
 * isApprovalResponsePiece(response[0].message) // => true
 * isApprovalResponsePiece(request[0]) // => false
 */
export const isApprovalResponsePiece = (piece: Message): boolean => {
  if (piece.role !== 'tool') return false
  const carrier = carrierOf(piece)
  if (carrier === null || carrier.format !== 'ai-sdk' || carrier.blocks === null || carrier.blocks.length !== 1 || !Array.isArray(carrier.message.content)) return false
  const part: unknown = carrier.message.content[carrier.blocks[0]]
  return isPlainObject(part) && part.type === 'tool-approval-response'
}

/**
 * True when `messages` ends with an AI SDK tool message holding a `tool-approval-response` whose
 * call has no `tool-result` in that message: the SDK executes the approved call (or records the
 * denial) on the next `generateText` call only when that tool message is the last message, so
 * nothing may be appended after it (docs/contract.md 17.12).
 *
 * @example
 * const request = expandAiSdkMessage({ role: 'assistant', content: [
 *   { type: 'tool-call', toolCallId: 'c1', toolName: 'rm', input: {} },
 *   { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
 * ] }, []).map((piece) => piece.message)
 * const response = expandAiSdkMessage({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] }, request)
 * endsAwaitingApproval([...request, ...response.map((piece) => piece.message)]) // => true
 * endsAwaitingApproval(request) // => false
 */
export const endsAwaitingApproval = (messages: Messages): boolean => {
  const last = messages[messages.length - 1]
  if (last === undefined || last.role !== 'tool') return false
  const origin = carrierOf(last)?.origin
  if (origin === undefined) return false
  const approvals = new Set<unknown>()
  const results = new Set<unknown>()
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const piece = messages[i]
    if (piece.role !== 'tool' || carrierOf(piece)?.origin !== origin) break
    ;(isApprovalResponsePiece(piece) ? approvals : results).add(piece.tool_call_id)
  }
  for (const id of approvals) if (!results.has(id)) return true
  return false
}

/**
 * The contract pieces of one (valid) AI SDK message. `history` (the stored pieces) resolves an
 * approval response's call. Assistant: one piece, text parts joined, `tool-call` parts that are
 * not `providerExecuted` as `tool_calls`. Tool: one `tool` piece per part (tool-result: its
 * `toolCallId`; approval response: its request's call). System and user: one piece.
 *
 * @example
 * expandAiSdkMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'text', value: 'ok' } }] }, []).length // => 1
 */
export const expandAiSdkMessage = (message: Readonly<Record<string, unknown>>, history: Messages): ReadonlyArray<Piece> => {
  const content = message.content
  const one = (piece: Record<string, unknown>, blocks: ReadonlyArray<number> | null): ReadonlyArray<Piece> => [
    { message: { ...piece, metadata: pieceMetadata(message, { format: 'ai-sdk', blocks, parts: 1 }) }, blocks },
  ]
  if (!Array.isArray(content)) return one({ role: message.role, content: typeof content === 'string' ? content : '' }, null)
  const all = content.map((_, index) => index)
  if (message.role === 'assistant') {
    const calls = content
      .filter((part): part is Record<string, unknown> => isPlainObject(part) && part.type === 'tool-call' && part.providerExecuted !== true)
      .map((part) => ({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input ?? part.args ?? {}) } }))
    const piece: Record<string, unknown> = { role: 'assistant', content: joinTexts(content, ['text']) }
    if (calls.length > 0) piece.tool_calls = calls
    return one(piece, all)
  }
  if (message.role === 'tool') {
    return content.map((part, index) => {
      const p = isPlainObject(part) ? part : {}
      const callId = p.type === 'tool-approval-response' ? (findApprovalCall(history, p.approvalId) ?? `approval:${String(p.approvalId)}`) : p.toolCallId
      return {
        message: { role: 'tool', tool_call_id: callId, content: toOutputText(p), metadata: pieceMetadata(message, { format: 'ai-sdk', blocks: [index], parts: content.length }) },
        blocks: [index],
      }
    })
  }
  return one({ role: message.role, content: joinTexts(content, ['text']) }, all)
}

/** A modified piece's parts: truncated output as text (error variants stay errors), or the stub. */
const rebuildBlocks = (piece: Message, carrier: NativeCarrier): ReadonlyArray<readonly [number, unknown]> => {
  const content = carrier.message.content as ReadonlyArray<unknown>
  const indices = carrier.blocks ?? []
  const text = typeof piece.content === 'string' ? piece.content : ''
  if (piece.role === 'tool' && indices.length === 1) {
    const part = content[indices[0]] as Record<string, unknown>
    const output = isPlainObject(part.output) ? part.output : {}
    if (isStrippedOnly(piece) && output.type === 'content' && Array.isArray(output.value)) return [[indices[0], { ...part, output: { ...output, value: withStrippedText(output.value, text, ['text']) } }]]
    const isError = output.type === 'error-text' || output.type === 'error-json'
    const media = output.type === 'content' && Array.isArray(output.value) ? output.value.filter((inner) => !(isPlainObject(inner) && inner.type === 'text')) : []
    const next = media.length > 0 ? { type: 'content', value: [{ type: 'text', text }, ...media] } : { type: isError ? 'error-text' : 'text', value: text }
    return [[indices[0], { ...part, output: next }]]
  }
  return placeText(content, indices, text)
}

/** Tool names of the calls in `view`, for tool-result parts built from contract messages. */
const toolNameOf = (view: Messages, id: unknown): string => {
  for (const message of view) for (const call of toContractCalls(message)) if (call.id === id) return call.name
  return ''
}

/**
 * A contract message (or a piece of another format) as AI SDK messages. Never an empty message
 * (a provider package turns one into an empty text block, which Anthropic refuses): an assistant
 * turn with no text and no calls becomes its refusal text or nothing, an empty user turn nothing.
 */
const fromContract = (piece: Message, view: Messages): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  if (piece.role === 'tool') {
    return [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: piece.tool_call_id, toolName: toolNameOf(view, piece.tool_call_id), output: { type: 'text', value: contentText(piece.content) } }] }]
  }
  if (piece.role === 'assistant') {
    const calls = toContractCalls(piece)
    const text = toConvertedText(piece)
    if (calls.length === 0) return text === '' ? [] : [{ role: 'assistant', content: text }]
    const parts: unknown[] = text === '' ? [] : [{ type: 'text', text }]
    for (const call of calls) parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: parseArguments(call.arguments) })
    return [{ role: 'assistant', content: parts }]
  }
  if (piece.role === 'system') return [{ role: 'system', content: contentText(piece.content) }]
  const text = contentText(piece.content)
  return text === '' ? [] : [{ role: 'user', content: text }]
}

/**
 * The assembly codec of the AI SDK format.
 *
 * @example
 * aiSdkCodec.allowedKeys.has('providerOptions') // => true
 */
export const aiSdkCodec: AssemblyCodec = { format: 'ai-sdk', allowedKeys: MESSAGE_KEYS, rebuildBlocks, fromContract }

/**
 * The provider-ready AI SDK view: a `ModelMessage[]`, system messages in place as
 * `{role: 'system', content: string}`; untouched messages are the objects that were added;
 * consecutive tool messages built from contract results are merged.
 *
 * @example
 * toAiSdkView([{ role: 'user', content: 'hi' }]) // => [{ role: 'user', content: 'hi' }]
 */
export const toAiSdkView = (view: Messages): ReadonlyArray<AiSdkMessage> => {
  const out: AssembledMessage[] = []
  for (const entry of assembleEntries(view, aiSdkCodec)) {
    const last = out[out.length - 1]
    if (last !== undefined && last.generated && entry.generated && last.message.role === 'tool' && entry.message.role === 'tool') {
      out[out.length - 1] = { message: { role: 'tool', content: [...toBlocks(last.message.content), ...toBlocks(entry.message.content)] }, generated: true }
    } else {
      out.push(entry)
    }
  }
  return out.map((entry) => entry.message) as unknown as ReadonlyArray<AiSdkMessage>
}

/**
 * The `system` and `messages` of an AI SDK call for a view: its system messages, in order, as
 * `system` (absent when there are none, so a call's own `system` stays), the rest as `messages`.
 * Spread it into `generateText({ model, tools, ...toAiSdkPrompt(view) })`: ai@6 warns about
 * system messages in `messages` ("System messages in the prompt ... Use the system option
 * instead") and throws under `allowSystemInMessages: false`.
 *
 * @example
 * toAiSdkPrompt([{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'hi' }])
 * // { system: [{ role: 'system', content: 'Be terse.' }], messages: [{ role: 'user', content: 'hi' }] }
 */
export const toAiSdkPrompt = <M extends { readonly role: string }>(view: ReadonlyArray<M>): AiSdkPrompt<M> => {
  const system = view.filter((message): message is Extract<M, { readonly role: 'system' }> => message.role === 'system')
  const messages = view.filter((message): message is Exclude<M, { readonly role: 'system' }> => message.role !== 'system')
  return system.length > 0 ? { system, messages } : { messages }
}

/**
 * What `toAiSdkPrompt` returns for messages of type `M`: `system` (the system messages) and
 * `messages` (the others), both fresh arrays.
 *
 * @example
 * const prompt: AiSdkPrompt<AiSdkModelMessage> = { messages: [{ role: 'user', content: 'hi' }] }
 */
export interface AiSdkPrompt<M extends { readonly role: string }> {
  system?: Array<Extract<M, { readonly role: 'system' }>>
  messages: Array<Exclude<M, { readonly role: 'system' }>>
}

/**
 * The AI SDK rule violations of a view (`validate_formats.py --format ai-sdk`): S1 roles
 * system/user/assistant/tool; S2 every `tool-call` (not `providerExecuted`) answered by a
 * `tool-result` in the tool messages right after; S3 every `tool-result` answers a call of the
 * assistant right before its run; S4 call ids unique; S5 only `role`, `content`,
 * `providerOptions` on messages; S6 no empty user/assistant content or text part (a provider
 * package sends it as an empty text block, which Anthropic refuses). An open group at the very end is tolerated.
 *
 * @example
 * findAiSdkViolations([{ role: 'tool', content: [] }]) // => ['S3 tool message at 0 has no assistant call right before it']
 */
export const findAiSdkViolations = (view: unknown): ReadonlyArray<string> => {
  if (!Array.isArray(view)) return ['S1 view is not a list']
  const problems: string[] = []
  const messages = view.map((m: unknown) => (isPlainObject(m) ? m : {}))
  messages.forEach((m, i) => {
    if (!['system', 'user', 'assistant', 'tool'].includes(String(m.role))) problems.push(`S1 message ${i} role ${JSON.stringify(m.role ?? null)}`)
    const extra = Object.keys(m).filter((key) => !MESSAGE_KEYS.has(key))
    if (extra.length > 0) problems.push(`S5 message ${i} extra keys ${extra.sort().join(', ')}`)
    if ((m.role === 'user' || m.role === 'assistant') && (m.content === '' || (Array.isArray(m.content) && m.content.length === 0))) problems.push(`S6 message ${i} has empty content`)
    toBlocks(m.content).forEach((part, p) => {
      if (Array.isArray(m.content) && isPlainObject(part) && part.type === 'text' && part.text === '') problems.push(`S6 message ${i} part ${p} is an empty text part`)
    })
  })
  const seen = new Set<unknown>()
  let i = 0
  while (i < messages.length) {
    const m = messages[i]
    if (m.role === 'assistant') {
      const ids = toBlocks(m.content)
        .filter((part): part is Record<string, unknown> => isPlainObject(part) && part.type === 'tool-call' && part.providerExecuted !== true)
        .map((part) => part.toolCallId)
      for (const id of ids) {
        if (seen.has(id)) problems.push(`S4 duplicate toolCallId ${String(id)}`)
        seen.add(id)
      }
      let j = i + 1
      const answered = new Set<unknown>()
      while (j < messages.length && messages[j].role === 'tool') {
        for (const part of toBlocks(messages[j].content)) {
          if (isPlainObject(part) && part.type === 'tool-result') {
            if (!ids.includes(part.toolCallId)) problems.push(`S3 tool-result ${String(part.toolCallId)} at ${j} answers no call of message ${i}`)
            answered.add(part.toolCallId)
          }
        }
        j += 1
      }
      const missing = ids.filter((id) => !answered.has(id))
      if (missing.length > 0 && j < messages.length) problems.push(`S2 calls ${missing.slice(0, 3).map(String).join(', ')} of message ${i} unanswered`)
      i = j
      continue
    }
    if (m.role === 'tool') problems.push(`S3 tool message at ${i} has no assistant call right before it`)
    i += 1
  }
  return problems
}

/**
 * A reason an added message is not a valid AI SDK `ModelMessage` (path below the message and
 * detail), or null. Roles system/user/assistant/tool; system content a string; tool content
 * `tool-result` / `tool-approval-response` parts; `tool-call` parts only in assistant messages,
 * each with a `toolCallId`.
 *
 * @example
 * validateAiSdkMessage({ role: 'tool', content: [{ type: 'tool-result', toolName: 'f' }] })
 * // { path: '.content[0].toolCallId', detail: 'a tool-result part needs the non-empty string toolCallId of its call' }
 */
export const validateAiSdkMessage = (message: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | null => {
  const role = message.role
  if (!['system', 'user', 'assistant', 'tool'].includes(String(role)) || typeof role !== 'string') return { path: '.role', detail: `expected "system", "user", "assistant" or "tool", got ${JSON.stringify(role ?? null)}` }
  const content = message.content
  if (role === 'system') return typeof content === 'string' ? null : { path: '.content', detail: 'a system message has string content' }
  if (typeof content === 'string' && role !== 'tool') return null
  if (!Array.isArray(content)) return { path: '.content', detail: role === 'tool' ? 'a tool message has an array of tool-result parts' : 'expected a string or an array of parts' }
  for (let i = 0; i < content.length; i += 1) {
    const part: unknown = content[i]
    const at = `.content[${i}]`
    if (!isPlainObject(part) || typeof part.type !== 'string') return { path: at, detail: 'expected a part object with a string "type"' }
    if (role === 'tool' && part.type !== 'tool-result' && part.type !== 'tool-approval-response') return { path: `${at}.type`, detail: `a tool message holds tool-result or tool-approval-response parts, got ${JSON.stringify(part.type)}` }
    if (part.type === 'tool-call' && role !== 'assistant') return { path: at, detail: `a tool-call part belongs in an assistant message, not in a ${role} message` }
    if ((part.type === 'tool-call' || part.type === 'tool-result') && (typeof part.toolCallId !== 'string' || part.toolCallId === '')) {
      return { path: `${at}.toolCallId`, detail: `a ${part.type} part needs the non-empty string toolCallId of its call` }
    }
    if (part.type === 'tool-result' && role !== 'tool' && part.providerExecuted !== true && role !== 'assistant') return { path: at, detail: 'a tool-result part belongs in a tool message' }
    if ((part.type === 'tool-approval-request' || part.type === 'tool-approval-response') && (typeof part.approvalId !== 'string' || part.approvalId === '')) {
      return { path: `${at}.approvalId`, detail: `a ${part.type} part needs a non-empty string approvalId` }
    }
  }
  return null
}
