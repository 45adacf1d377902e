/**
 * Provider tool-pairing rules R1–R4 of `tools/validate_views.py`, as a pure check of one view:
 * what OpenAI Chat and Anthropic Messages reject. One walk gives structured problems; the
 * string forms the tools print are derived from them.
 */
import type { Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'

/**
 * One pairing problem of a view: its rule (`R1` a result whose call is not in the assistant right
 * before its run; `R2` calls not answered in the run right after; `R3` the first non-system
 * message is a tool result; `R4` a call id seen twice), the position of the message it is about
 * (0-based, in the view), the call ids it names (none for R3), and its text as
 * `validate_views.py` prints it.
 *
 * @example
 * const problem: PairingProblem = { rule: 'R1', index: 0, callIds: ['a'], text: 'R1 result a at 0 has no call right before it' }
 */
export interface PairingProblem {
  readonly rule: 'R1' | 'R2' | 'R3' | 'R4'
  readonly index: number
  readonly callIds: ReadonlyArray<unknown>
  readonly text: string
}

/**
 * The pairing problems of a view, in the order `validate_views.py` finds them. R4 (a call id
 * twice) only with `duplicates: true`: in the contract shape it repeats what the input did.
 * A view may end on an assistant with calls, or have only ephemeral tail items (notice, replay)
 * after one, without an R2 problem.
 *
 * @example
 * selectPairingProblems([{ role: 'tool', tool_call_id: 'a' }]).map((problem) => problem.rule) // => ['R3', 'R1']
 */
export const selectPairingProblems = (view: Messages, options: { readonly duplicates?: boolean } = {}): ReadonlyArray<PairingProblem> => {
  const problems: PairingProblem[] = []
  const seen = new Set<unknown>()
  const firstConversation = view.findIndex((message) => message.role !== 'system')
  if (firstConversation >= 0 && view[firstConversation].role === 'tool') {
    problems.push({ rule: 'R3', index: firstConversation, callIds: [], text: 'R3 view starts with a tool result' })
  }
  let i = 0
  while (i < view.length) {
    const message = view[i]
    if (message.role === 'assistant' && isTruthy(message.tool_calls) && Array.isArray(message.tool_calls)) {
      const ids = message.tool_calls.map((call: unknown) => (isPlainObject(call) ? call.id : undefined))
      if (options.duplicates === true) {
        for (const id of ids) {
          if (seen.has(id)) problems.push({ rule: 'R4', index: i, callIds: [id], text: `R4 duplicate call id ${String(id)}` })
          seen.add(id)
        }
      }
      let j = i + 1
      const answered = new Set<unknown>()
      while (j < view.length && view[j].role === 'tool') {
        const id = view[j].tool_call_id
        if (!ids.includes(id)) problems.push({ rule: 'R1', index: j, callIds: [id], text: `R1 result ${String(id)} at ${j} is not a call of message ${i}` })
        answered.add(id)
        j += 1
      }
      const missing = ids.filter((id) => !answered.has(id))
      const onlyTail = view.slice(j).every((rest) => isPlainObject(rest.metadata) && isTruthy(rest.metadata.ephemeral))
      if (missing.length > 0 && !(j === view.length || (onlyTail && j === i + 1))) {
        problems.push({ rule: 'R2', index: i, callIds: missing, text: `R2 calls ${missing.map(String).join(', ')} of message ${i} unanswered` })
      }
      i = j
      continue
    }
    if (message.role === 'tool') {
      problems.push({ rule: 'R1', index: i, callIds: [message.tool_call_id], text: `R1 result ${String(message.tool_call_id)} at ${i} has no call right before it` })
    }
    i += 1
  }
  return problems
}

/**
 * The R1–R3 violations of a view as text (empty when valid); see `selectPairingProblems`.
 *
 * @example
 * findPairingViolations([{ role: 'tool', tool_call_id: 'a' }]) // => ['R3 view starts with a tool result', 'R1 result a at 0 has no call right before it']
 */
export const findPairingViolations = (view: Messages): ReadonlyArray<string> => selectPairingProblems(view).map((problem) => problem.text)
