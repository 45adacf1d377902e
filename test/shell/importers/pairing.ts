/**
 * Test helper: the tool-pairing rules R1-R3 of `shared/tools/validate_views.py`, checked on a
 * message list, and the history a recording builds at each request.
 */
import type { Message } from '../../../src/core/message.js'
import type { Recording } from '../../../src/core/recording.js'

const metadataOf = (message: Message): Readonly<Record<string, unknown>> =>
  typeof message.metadata === 'object' && message.metadata !== null ? (message.metadata as Record<string, unknown>) : {}

const callIds = (message: Message): unknown[] =>
  Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id?: unknown }) => call?.id) : []

/**
 * The R1-R3 violations of a message list, worded like `validate_views.py` (R4, a call id seen
 * twice, is not checked: it only repeats what the input did).
 *
 * @example
 * pairingProblems([{ role: 'tool', tool_call_id: 'a', content: '' }]) // ['R3 view starts with a tool result', ...]
 */
export const pairingProblems = (view: ReadonlyArray<Message>): string[] => {
  const problems: string[] = []
  const firstConversation = view.find((message) => message.role !== 'system')
  if (firstConversation !== undefined && firstConversation.role === 'tool') problems.push('R3 view starts with a tool result')
  let i = 0
  while (i < view.length) {
    const message = view[i]
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const ids = callIds(message)
      const answered = new Set<unknown>()
      let j = i + 1
      while (j < view.length && view[j].role === 'tool') {
        const id = view[j].tool_call_id
        if (!ids.includes(id)) problems.push(`R1 result ${String(id)} at ${j} is not a call of message ${i}`)
        answered.add(id)
        j += 1
      }
      const missing = ids.filter((id) => !answered.has(id))
      const rest = view.slice(j)
      const onlyTail = rest.every((item) => Boolean(metadataOf(item).ephemeral))
      if (missing.length > 0 && !(j === view.length || (onlyTail && j === i + 1))) {
        problems.push(`R2 calls ${JSON.stringify(missing)} of message ${i} unanswered`)
      }
      i = j
      continue
    }
    if (message.role === 'tool') problems.push(`R1 result ${String(message.tool_call_id)} at ${i} has no call right before it`)
    i += 1
  }
  return problems
}

/**
 * Folds a recording's `add_message` / `set_messages` / `clear` ops into histories and returns the
 * history as it stands at each `get_messages_for_request`, plus the final history.
 */
export const historiesAtRequests = (recording: Recording): { atRequests: Message[][]; final: Message[] } => {
  let history: Message[] = []
  const atRequests: Message[][] = []
  for (const op of recording.ops) {
    if (op.op === 'add_message') history.push(op.message)
    else if (op.op === 'set_messages') history = [...op.messages]
    else if (op.op === 'clear') history = []
    else if (op.op === 'get_messages_for_request') atRequests.push([...history])
  }
  return { atRequests, final: history }
}

/** All R1-R3 problems of a recording's history at every request and at its end, labelled. */
export const recordingPairingProblems = (recording: Recording): string[] => {
  const { atRequests, final } = historiesAtRequests(recording)
  const problems: string[] = []
  atRequests.forEach((history, index) => {
    for (const problem of pairingProblems(history)) problems.push(`request ${index}: ${problem}`)
  })
  for (const problem of pairingProblems(final)) problems.push(`final: ${problem}`)
  return problems
}
