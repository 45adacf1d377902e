/**
 * The tail compaction notice (SPEC 8): an ephemeral user message describing the last accepted
 * compaction, derived only from the stored stats so it stays byte-stable between escalations.
 */
import type { Config } from '../config.js'
import type { Message, Messages } from '../messages/message.js'
import type { CompactionStats } from '../stats.js'
import { fmtInt, fmtPct } from '../messages/text.js'
import { isTruthy } from '../messages/values.js'
import { endsInOpenToolGroup } from './tool-pairs.js'
import { endsAwaitingApproval } from '../formats/ai-sdk.js'

const MINIMAL_TEXT =
  '<system-reminder source="context-compaction">\nContext has been compacted to fit within token budget. Some older messages and tool results may be truncated.\n</system-reminder>'

const affectedLines = (level: number, protectedToolResults: number): ReadonlyArray<string> => {
  if (level <= 2) {
    return [
      '- Older tool results are truncated with "[truncated: ~N tokens]" prefix',
      '- You can re-run tools if you need the full output',
    ]
  }
  if (level <= 5) {
    return [
      '- Older tool results are truncated with "[truncated: ~N tokens]" prefix',
      '- Older conversation messages have been removed',
      '- You can re-run tools if you need full output',
    ]
  }
  return [
    `- Most tool results are truncated (except last ${protectedToolResults})`,
    '- Significant conversation history has been removed',
    '- Some user messages may be stubbed as "[User message compacted...]"',
    '- If context is critical, consider asking user to clarify their current goal',
  ]
}

/**
 * The short standing notice of `compaction_notice_repeat: "standing"` (docs/configuration.md, notice hygiene): carried by the
 * requests after the one that carried the full notice, until the next compaction. No figures.
 *
 * @example
 * STANDING_NOTICE_TEXT.includes('compacted') // => true
 */
export const STANDING_NOTICE_TEXT =
  '<system-reminder source="context-compaction">\nEarlier context was compacted: some older messages and tool results are truncated, stubbed or removed. Re-run tools if you need their full output.\n</system-reminder>'

/**
 * The notice text for `stats` in the configured verbosity (SPEC 8): the fixed minimal text for
 * `"minimal"`, the normal template for every other value. With `clean` (notice hygiene, issue
 * 12) the normal text leaves out the estimator's token figures and the claim that the compaction
 * affects only this request.
 *
 * @example
 * const stats: CompactionStats = {
 *   before_tokens: 2444, after_tokens: 1793, before_messages: 24, after_messages: 24, messages_removed: 0,
 *   messages_truncated: 4, user_messages_stubbed: 0, system_messages_preserved: 0, strategy_level: 2,
 *   budget: 3000, target_tokens: 1800, protected_recent: 0.5, protected_tool_results: 4,
 * }
 * toNoticeText(stats, 'minimal').startsWith('<system-reminder source="context-compaction">') // => true
 * toNoticeText(stats, 'normal').includes('- Tool results: 4 truncated') // => true
 */
export const toNoticeText = (stats: CompactionStats, verbosity: string, clean = false): string => {
  if (verbosity === 'minimal') return MINIMAL_TEXT
  const level = stats.strategy_level
  return [
    '<system-reminder source="context-compaction">',
    'Context has been compacted to fit within token budget.',
    '',
    'Compaction summary:',
    `- Strategy level: ${level}/8`,
    `- Messages: ${stats.before_messages} \u2192 ${stats.after_messages} (${stats.messages_removed} removed, ${stats.user_messages_stubbed} stubbed)`,
    `- Tool results: ${stats.messages_truncated} truncated`,
    ...(clean ? [] : [`- Tokens: ${fmtInt(stats.before_tokens)} \u2192 ${fmtInt(stats.after_tokens)} (target: ${fmtInt(stats.target_tokens)})`]),
    '',
    'What was preserved:',
    '- All system messages (your instructions and identity)',
    '- Last user message (current task)',
    `- Recent messages (${fmtPct(stats.protected_recent)} of conversation)`,
    `- Last ${stats.protected_tool_results} tool results (full content)`,
    '',
    'What may be affected:',
    ...affectedLines(level, stats.protected_tool_results),
    '',
    clean
      ? 'Note: The compacted context stays compacted in later requests. Full history is preserved in session transcript.'
      : 'Note: This compaction is ephemeral (affects only this request). Full history is preserved in session transcript.',
    '</system-reminder>',
  ].join('\n')
}

/**
 * True when a view's tail is safe for an appended tail item: the list is empty, or its last
 * message has no truthy `tool_calls` (SPEC 8) and it does not end inside a partly answered tool
 * group (an item appended there would sit between a call and its missing results; SPEC 17.3),
 * and it does not end with an AI SDK approval response whose call has not run (17.12).
 *
 * @example
 * endsOutsideToolCall([{ role: 'assistant', tool_calls: [{ id: 'a' }] }]) // => false
 * endsOutsideToolCall([{ role: 'assistant', tool_calls: [{ id: 'a' }, { id: 'b' }] }, { role: 'tool', tool_call_id: 'a' }]) // => false
 */
export const endsOutsideToolCall = (messages: Messages): boolean =>
  messages.length === 0 || (!isTruthy(messages[messages.length - 1].tool_calls) && !endsInOpenToolGroup(messages) && !endsAwaitingApproval(messages))

const STANDING_NOTICE: Message = { role: 'user', content: STANDING_NOTICE_TEXT, metadata: { source: 'context-compaction', ephemeral: true } }

/**
 * The notice message to append to a compacted list, or null when a condition of SPEC 8 fails
 * (disabled, no stats, unsafe tail, level below `compaction_notice_min_level`). With `memo`, the
 * message object is built once per stats object and shared by later views. `fullSent` says the
 * full notice of these stats already went out: with `compaction_notice_repeat` `"standing"` the
 * short standing notice is returned instead, with `"none"` nothing (`"full"`, the contract,
 * repeats the full text).
 *
 * @example
 * selectNotice(DEFAULT_CONFIG, null, []) // => null
 */
export const selectNotice = (
  config: Config,
  stats: CompactionStats | null,
  list: Messages,
  memo?: WeakMap<object, Message | null>,
  fullSent = false,
): Message | null => {
  if (!config.compaction_notice_enabled || stats === null) return null
  if (!endsOutsideToolCall(list)) return null
  if (stats.strategy_level < config.compaction_notice_min_level) return null
  const repeat = config.compaction_notice_repeat
  if (fullSent && repeat === 'none') return null
  if (fullSent && repeat === 'standing') return STANDING_NOTICE
  // The notice depends only on the stored stats: one message object per stats object.
  const cached = memo?.get(stats)
  if (cached !== undefined) return cached
  const text = toNoticeText(stats, config.compaction_notice_verbosity, repeat !== 'full')
  const notice: Message | null = text === '' ? null : { role: 'user', content: text, metadata: { source: 'context-compaction', ephemeral: true } }
  memo?.set(stats, notice)
  return notice
}
