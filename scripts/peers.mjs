// The peers `npm run evaluation` runs beside the library's configurations (docs/evaluation.md,
// "Peers"): LangChain.js `trimMessages`, the AI SDK's `pruneMessages` with the options its
// documentation shows for agents, and no compaction. Each is a replay peer
// (src/core/replay/replay.ts, `ReplayPeer`): given the stored history (contract messages) and the
// request's effective budget E, it returns the view to send, or null when it failed (threw, or
// returned something that is not a list of messages). Their packages are dev dependencies only.
//
// The mapping between contract messages and the peers' message types is the smallest one these
// sessions need (system, user, assistant with tool calls, tool results; content as string or
// text blocks): each peer message carries the index of the contract message it came from, and the
// view is those contract messages again (minus what the peer removed), so every peer is measured
// by the same estimator, prompt-cache model and recall as the library.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from '@langchain/core/messages'
import { pruneMessages } from 'ai'

const textOf = (content) => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((block) => (block !== null && typeof block === 'object' && typeof block.text === 'string' ? block.text : '')).join('\n')
  return content === null || content === undefined ? '' : JSON.stringify(content)
}

const parseArguments = (text) => {
  if (typeof text !== 'string') return text !== null && typeof text === 'object' ? text : {}
  try {
    const value = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { value }
  } catch {
    return { input: text }
  }
}

const callsOf = (message) => (Array.isArray(message.tool_calls) ? message.tool_calls.filter((call) => call !== null && typeof call === 'object') : [])

// ---- LangChain.js trimMessages ----------------------------------------------------------

const toLangChain = (message, index) => {
  const id = `m${index}`
  const content = textOf(message.content)
  switch (message.role) {
    case 'system':
    case 'developer':
      return new SystemMessage({ content, id })
    case 'assistant':
      return new AIMessage({
        content,
        id,
        tool_calls: callsOf(message).map((call) => ({ id: String(call.id), name: String(call.function?.name ?? ''), args: parseArguments(call.function?.arguments), type: 'tool_call' })),
      })
    case 'tool':
      return new ToolMessage({ content, id, tool_call_id: String(message.tool_call_id ?? '') })
    default:
      return new HumanMessage({ content, id })
  }
}

/**
 * LangChain.js `trimMessages` (strategy `last`, `includeSystem`, `startOn: 'human'`, no partial
 * messages) to E tokens counted by `estimate` (the library's own estimator on the contract
 * messages: the same token measure).
 */
export const makeTrimMessagesPeer = (estimate) => async (history, budget) => {
  const lc = history.map(toLangChain)
  const byId = new Map(lc.map((message, index) => [message.id, index]))
  const tokenCounter = (messages) => messages.reduce((sum, message) => sum + estimate(history[byId.get(message.id)]), 0)
  const trimmed = await trimMessages(lc, { maxTokens: budget ?? Number.MAX_SAFE_INTEGER, strategy: 'last', tokenCounter, includeSystem: true, startOn: 'human', allowPartial: false })
  if (!Array.isArray(trimmed)) return null
  const view = []
  for (const message of trimmed) {
    const index = message === undefined || message === null ? undefined : byId.get(message.id)
    if (index === undefined) return null
    view.push(history[index])
  }
  return view
}

// ---- AI SDK pruneMessages ----------------------------------------------------------------

const ORIGIN = Symbol('origin')

const toModelMessage = (message, index) => {
  let model
  switch (message.role) {
    case 'system':
    case 'developer':
      model = { role: 'system', content: textOf(message.content) }
      break
    case 'assistant': {
      const text = textOf(message.content)
      const parts = text === '' ? [] : [{ type: 'text', text }]
      for (const call of callsOf(message)) parts.push({ type: 'tool-call', toolCallId: String(call.id), toolName: String(call.function?.name ?? ''), input: parseArguments(call.function?.arguments) })
      model = { role: 'assistant', content: parts }
      break
    }
    case 'tool':
      model = { role: 'tool', content: [{ type: 'tool-result', toolCallId: String(message.tool_call_id ?? ''), toolName: String(message.name ?? ''), output: { type: 'text', value: textOf(message.content) } }] }
      break
    default:
      model = { role: 'user', content: textOf(message.content) }
  }
  return Object.assign(model, { [ORIGIN]: index })
}

/**
 * The AI SDK's `pruneMessages` with the options its reference shows for an agent route
 * (`reasoning: 'before-last-message'`, `toolCalls: 'before-last-2-messages'`,
 * `emptyMessages: 'remove'`). It takes no budget (E is ignored): its overflows are its result.
 * A contract message comes back without the tool calls the peer pruned (and is dropped when the
 * peer dropped its model message).
 */
export const makePruneMessagesPeer = () => (history) => {
  const models = history.map(toModelMessage)
  const pruned = pruneMessages({ messages: models, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' })
  if (!Array.isArray(pruned)) return null
  const view = []
  for (const model of pruned) {
    const index = model?.[ORIGIN]
    if (index === undefined) return null
    const original = history[index]
    if (original.role !== 'assistant' || callsOf(original).length === 0) {
      view.push(original)
      continue
    }
    const kept = new Set(Array.isArray(model.content) ? model.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId) : [])
    const calls = callsOf(original).filter((call) => kept.has(String(call.id)))
    if (calls.length === callsOf(original).length) view.push(original)
    else {
      const { tool_calls: _dropped, ...rest } = original
      view.push(calls.length === 0 ? rest : { ...rest, tool_calls: calls })
    }
  }
  return view
}

/** No compaction: the whole history, every request (ignores the budget). */
export const noCompactionPeer = (history) => history

/**
 * The peers by label, each made for one session's estimator.
 */
export const PEERS = [
  { label: 'peer: no compaction', make: () => noCompactionPeer },
  { label: 'peer: LangChain trimMessages', make: (estimate) => makeTrimMessagesPeer(estimate) },
  { label: 'peer: AI SDK pruneMessages', make: () => makePruneMessagesPeer() },
  // trimMessages told the budget the provider bills: E less the fitted hidden overhead (sessions with readings only)
  { label: 'peer: LangChain trimMessages (honest budget)', honest: true, make: (estimate) => makeTrimMessagesPeer(estimate) },
]
