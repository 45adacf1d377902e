/**
 * Test helper: the tool-pairing rules R1-R3 of `tools/validate_views.py`, checked on a
 * message list, and the history a recording builds at each request.
 */
import type { Message } from '../../../src/core/messages/message.js'
import type { Recording } from '../../../src/core/replay/recording.js'
import { findPairingViolations } from '../../../src/core/formats/tool-pairing.js'

/**
 * The R1-R3 violations of a message list (the core's `findPairingViolations`, the rules of
 * `validate_views.py`).
 *
 * @example
 * pairingProblems([{ role: 'tool', tool_call_id: 'a', content: '' }]) // ['R3 view starts with a tool result', ...]
 */
export const pairingProblems = (view: ReadonlyArray<Message>): string[] => [...findPairingViolations(view)]

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
