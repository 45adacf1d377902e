// Generated histories whose messages share handles (ids, paths, numbers) from a small pool and
// differ in size, for the properties of what reads handles (src/core/compaction/reference-order.ts,
// src/core/compaction/working-set.ts).
import fc from 'fast-check'
import type { Message } from '../src/core/messages/message.js'

/** The pool of handles the generated texts and tool-call arguments draw from. */
export const HANDLES = ['HAT076', 'mia_li_3668', 'src/a.ts', 'pm_42', '2024', 'R_77']

/** Up to three handles of the pool, then up to `maxPadding` dots (so sizes differ). */
export const handleTextArb = (maxPadding: number): fc.Arbitrary<string> =>
  fc.tuple(fc.subarray(HANDLES, { maxLength: 3 }), fc.nat({ max: maxPadding })).map(([handles, padding]) => `${handles.join(' and ')} ${'.'.repeat(padding)}`)

/** A user message, an assistant text, or one to three tool calls with their results (`open`: the results left out when it is the last turn). */
export type HandleTurn = { kind: 'user'; text: string } | { kind: 'say'; text: string } | { kind: 'tools'; args: string[]; results: string[]; open?: boolean }

/** Turns of `handleTextArb(maxPadding)` texts; with `open`, a tools turn may be marked open. */
export const handleTurnArb = (maxPadding: number, open = false): fc.Arbitrary<HandleTurn> => {
  const textArb = handleTextArb(maxPadding)
  return fc.oneof(
    fc.record({ kind: fc.constant('user' as const), text: textArb }),
    fc.record({ kind: fc.constant('say' as const), text: textArb }),
    fc.integer({ min: 1, max: 3 }).chain((count) =>
      fc.record({
        kind: fc.constant('tools' as const),
        args: fc.array(fc.constantFrom(...HANDLES), { minLength: count, maxLength: count }),
        results: fc.array(textArb, { minLength: count, maxLength: count }),
        open: open ? fc.boolean() : fc.constant(false),
      }),
    ),
  )
}

/**
 * A non-system list: a first user message 'start', the turns (a tools turn marked open and last
 * without its results: an open tool group), and with `last` a closing user message 'last'.
 */
export const toHandleMessages = (turns: ReadonlyArray<HandleTurn>, last: boolean): Message[] => {
  const list: Message[] = [{ role: 'user', content: 'start' }]
  turns.forEach((turn, t) => {
    if (turn.kind === 'user') list.push({ role: 'user', content: turn.text })
    else if (turn.kind === 'say') list.push({ role: 'assistant', content: turn.text })
    else {
      const ids = turn.args.map((_, i) => `c${t}_${i}`)
      list.push({ role: 'assistant', content: '', tool_calls: ids.map((id, i) => ({ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ key: turn.args[i] }) } })) })
      if (!(turn.open === true && t === turns.length - 1)) ids.forEach((id, i) => list.push({ role: 'tool', tool_call_id: id, content: turn.results[i] }))
    }
  })
  if (last) list.push({ role: 'user', content: 'last' })
  return list
}
