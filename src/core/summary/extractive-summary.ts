/**
 * A deterministic local stand-in for the summarizer: keeps the first and last lines of each
 * absorbed message. For measuring compaction boundaries offline, not for quality.
 */
import type { Messages } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .filter((block) => isPlainObject(block) && isTruthy(block.text))
      .map((block) => String((block as { text: unknown }).text))
      .join('\n')
  }
  return ''
}

/**
 * An extractive summary of `messages`: one entry per message, `[role] first line` plus
 * `… last line` when the text has more than one non-empty line.
 *
 * @example
 * toExtractiveSummary([{ role: 'user', content: 'a\nb\nc' }]) // => '[user] a\n  … c'
 */
export const toExtractiveSummary = (messages: Messages): string =>
  messages
    .map((message) => {
      const lines = textOf(message.content)
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
      const role = typeof message.role === 'string' ? message.role : 'unknown'
      if (lines.length === 0) return `[${role}] (no text)`
      return lines.length === 1 ? `[${role}] ${lines[0]}` : `[${role}] ${lines[0]}\n  … ${lines[lines.length - 1]}`
    })
    .join('\n')
