/**
 * User-message stubs (SPEC 6.6): a long user message reduced to a short quoted preview.
 */
import type { Message } from '../messages/message.js'
import { codePointLength, codePointSlice, pyStrip } from '../messages/text.js'

/**
 * Content longer than this many characters (code points) can be stubbed (SPEC 6.4, 6.6).
 *
 * @example
 * isStubbable({ role: 'user', content: 'x'.repeat(STUB_MIN_LENGTH) }) // false: 80 is not longer than 80
 */
export const STUB_MIN_LENGTH = 80

/**
 * True when the message content is a string longer than 80 characters (code points).
 *
 * @example
 * isStubbable({ role: 'user', content: 'x'.repeat(81) }) // => true
 */
export const isStubbable = (message: Message): boolean =>
  typeof message.content === 'string' && codePointLength(message.content) > STUB_MIN_LENGTH

/**
 * The stub of a user message (SPEC 6.6): content `[User message compacted - original:
 * "<first 50 chars, line feeds as spaces, stripped>..."]` plus `_stubbed: true` and
 * `_original_length` (code points). Messages that are not stubbable are returned unchanged.
 *
 * @example
 * toStub({ role: 'user', content: 'a'.repeat(100) }).content
 * // '[User message compacted - original: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]'
 */
export const toStub = (message: Message): Message => {
  const content = message.content
  if (typeof content !== 'string') return message
  const length = codePointLength(content)
  if (length <= STUB_MIN_LENGTH) return message
  const preview = pyStrip(codePointSlice(content, 0, 50).replace(/\n/g, ' ')) + '...'
  return { ...message, content: `[User message compacted - original: "${preview}"]`, _stubbed: true, _original_length: length }
}
