/**
 * JSON tool results without insignificant whitespace (`tool_result_json_whitespace`,
 * docs/configuration.md "JSON tool results without whitespace"): a tool result whose string
 * content is a JSON object or array is stored without the spaces, tabs and line breaks between
 * its tokens when it is added. The text inside strings, numbers as written, key order and
 * escapes are kept character for character, so the parsed value is the same; only the bytes the
 * grammar ignores go. Every later request sends (and every cached read bills) the shorter form.
 */
import type { Config } from '../config.js'
import { carrierOf, JSON_STRIPPED_KEY } from '../formats/carrier.js'
import type { Message } from '../messages/message.js'

/** JSON's insignificant whitespace (RFC 8259 section 2): space, tab, line feed, carriage return. */
const isJsonWhitespace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/** The index of the first character of `text` that is not JSON whitespace (`text.length` when none). */
const firstSignificant = (text: string): number => {
  let i = 0
  while (i < text.length && isJsonWhitespace(text.charCodeAt(i))) i += 1
  return i
}

/** True when `text` parses as JSON (the parse is the validation; its value is not kept). */
const parsesAsJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** `text` with every JSON whitespace character outside string literals removed (no validation). */
const dropOutsideStrings = (text: string): string => {
  let out = ''
  let runStart = 0
  let inString = false
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 0x5c) i += 1 // a backslash: the escaped character is copied with it
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (isJsonWhitespace(code)) {
      out += text.slice(runStart, i)
      runStart = i + 1
    }
  }
  return out + text.slice(runStart)
}

/**
 * `text` without the whitespace between its JSON tokens, when `text` is a JSON document whose
 * value is an object or an array and it has such whitespace; null otherwise (not JSON, a bare
 * string or number, or already without whitespace). Strings, numbers as written (`1.50`, `1e3`,
 * integers beyond 2^53), escapes and key order are kept character for character, so
 * `JSON.parse` of the result equals `JSON.parse(text)`.
 *
 * @example
 * stripJsonWhitespace('{"flight": "HAT069", "seats": [1, 2]}') // => '{"flight":"HAT069","seats":[1,2]}'
 * stripJsonWhitespace('{\n  "note": "two  spaces kept"\n}') // => '{"note":"two  spaces kept"}'
 * stripJsonWhitespace('total: 3 files') // => null
 * stripJsonWhitespace('{"a":1}') // => null
 */
export const stripJsonWhitespace = (text: string): string | null => {
  const start = firstSignificant(text)
  const opener = text.charCodeAt(start)
  if (opener !== 0x7b && opener !== 0x5b) return null
  if (!parsesAsJson(text)) return null
  const stripped = dropOutsideStrings(text)
  return stripped.length < text.length ? stripped : null
}

/**
 * The form of `message` the history stores under `tool_result_json_whitespace` (applied to each
 * message or provider piece as `addMessage` / `setMessages` store it, src/core/history.ts): under
 * `"strip"` a tool result (`role: "tool"`, string content; provider formats map their tool
 * results to such pieces, docs/formats.md) whose content `stripJsonWhitespace` shortens gets the
 * shorter content, and a piece of a provider message also `_json_stripped: true`, so its provider
 * message is rebuilt from that text. Under `"keep"` (the contract's default), for other messages,
 * or when nothing shortens, `message` itself is returned.
 *
 * @example
 * const message = { role: 'tool', tool_call_id: 'c1', content: '{"id": "HAT069"}' }
 * toJsonStripped({ ...DEFAULT_CONFIG, tool_result_json_whitespace: 'strip' }, message).content // => '{"id":"HAT069"}'
 * toJsonStripped(DEFAULT_CONFIG, message) === message // => true
 */
export const toJsonStripped = (config: Config, message: Message): Message => {
  if (config.tool_result_json_whitespace !== 'strip' || message.role !== 'tool' || typeof message.content !== 'string') return message
  const stripped = stripJsonWhitespace(message.content)
  if (stripped === null) return message
  return carrierOf(message) === null ? { ...message, content: stripped } : { ...message, content: stripped, [JSON_STRIPPED_KEY]: true }
}
