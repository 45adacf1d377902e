/**
 * Human anchors (guard `human_anchors`, docs/configuration.md): which user-role messages are prompts a human
 * typed, so the first/last-user protections anchor on them and not on injected text.
 */
import type { Config } from '../config.js'
import type { Message, Messages } from '../messages/message.js'
import { isRealUserMessage } from './replay-last-user.js'
import { isPlainObject, isTruthy } from '../messages/values.js'

const MACHINE_SOURCES = new Set(['hook', 'context-compaction', 'context-replay', 'context-summary'])

/**
 * True for a prompt a human typed: a real user message (SPEC 13: role `user`, no
 * `tool_call_id`, no `<system-reminder` envelope) that is not hook-injected
 * (`metadata.source: "hook"`, which the Claude Code importer sets for `isMeta` lines), not
 * ephemeral (`metadata.ephemeral`), not a compaction notice, last-user replay or summary
 * (`metadata.source` `context-*`, `metadata.type: "context_summary"`).
 *
 * @example
 * isHumanPrompt({ role: 'user', content: 'fix the bug' }) // => true
 * isHumanPrompt({ role: 'user', content: 'lint passed', metadata: { source: 'hook' } }) // => false
 */
export const isHumanPrompt = (message: Message): boolean => {
  if (!isRealUserMessage(message)) return false
  const metadata = message.metadata
  if (!isPlainObject(metadata)) return true
  if (typeof metadata.source === 'string' && MACHINE_SOURCES.has(metadata.source)) return false
  if (isTruthy(metadata.ephemeral)) return false
  return metadata.type !== 'context_summary'
}

/**
 * The predicate that picks the messages the first/last-user protections anchor on: any
 * user-role message (the contract), or only human prompts with `human_anchors` on.
 *
 * @example
 * selectAnchorPredicate(DEFAULT_CONFIG)({ role: 'user', content: 'x', metadata: { source: 'hook' } }) // => true
 */
export const selectAnchorPredicate = (config: Config): ((message: Message) => boolean) =>
  config.human_anchors ? isHumanPrompt : (message) => message.role === 'user'

/**
 * Positions of the first and last anchor messages of `messages` (-1 when none).
 *
 * @example
 * toAnchorPositions([{ role: 'user' }, { role: 'assistant' }, { role: 'user' }], (m) => m.role === 'user') // => { first: 0, last: 2 }
 */
export const toAnchorPositions = (messages: Messages, isAnchor: (message: Message) => boolean): { readonly first: number; readonly last: number } => {
  let first = -1
  let last = -1
  for (let i = 0; i < messages.length; i += 1) {
    if (isAnchor(messages[i])) {
      if (first < 0) first = i
      last = i
    }
  }
  return { first, last }
}
