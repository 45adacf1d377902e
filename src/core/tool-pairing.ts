/**
 * Provider tool-pairing rules R1–R3 of `tools/validate_views.py`, as a pure check of one
 * view: what OpenAI Chat and Anthropic Messages reject.
 */
import type { Messages } from './message.js'
import { isPlainObject, isTruthy } from './values.js'

/**
 * The R1–R3 violations of a view (empty when valid): R1 a tool result whose call is not in the
 * assistant message right before its run of results; R2 a call not answered in the run right
 * after it (a view may end on an assistant with calls, or have only ephemeral tail items after
 * it); R3 the first non-system message is a tool result. R4 (a call id twice) is not checked:
 * it repeats what the input did.
 *
 * @example
 * findPairingViolations([{ role: 'tool', tool_call_id: 'a' }]) // ['R3 view starts with a tool result', 'R1 result a at 0 has no call right before it']
 */
export const findPairingViolations = (view: Messages): ReadonlyArray<string> => {
  const problems: string[] = []
  const firstConversation = view.find((message) => message.role !== 'system')
  if (firstConversation !== undefined && firstConversation.role === 'tool') problems.push('R3 view starts with a tool result')
  let i = 0
  while (i < view.length) {
    const message = view[i]
    if (message.role === 'assistant' && isTruthy(message.tool_calls) && Array.isArray(message.tool_calls)) {
      const ids = message.tool_calls.map((call) => (isPlainObject(call) ? call.id : undefined))
      let j = i + 1
      const answered = new Set<unknown>()
      while (j < view.length && view[j].role === 'tool') {
        const id = view[j].tool_call_id
        if (!ids.includes(id)) problems.push(`R1 result ${String(id)} at ${j} is not a call of message ${i}`)
        answered.add(id)
        j += 1
      }
      const missing = ids.filter((id) => !answered.has(id))
      const onlyTail = view.slice(j).every((rest) => isPlainObject(rest.metadata) && isTruthy(rest.metadata.ephemeral))
      if (missing.length > 0 && !(j === view.length || (onlyTail && j === i + 1))) {
        problems.push(`R2 calls ${missing.map(String).join(', ')} of message ${i} unanswered`)
      }
      i = j
      continue
    }
    if (message.role === 'tool') problems.push(`R1 result ${String(message.tool_call_id)} at ${i} has no call right before it`)
    i += 1
  }
  return problems
}
