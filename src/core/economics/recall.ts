/**
 * Needed-fact recall: a model-free measure of what a compaction lost. For each request of a
 * recorded session, the salient tokens of the real agent's answer to it (identifiers, paths,
 * numbers) that it had read earlier in the history are its needed facts; a needed fact is
 * recalled when the view sent at that request still holds it in original content. See
 * docs/evaluation.md ("Needed-fact recall") for the definition's reasons and limits.
 */
import type { Message } from '../messages/message.js'
import { isPlainObject } from '../messages/values.js'
import type { Recording } from '../replay/recording.js'

/**
 * Candidate tokens: 4 to 120 characters, starting and ending with a letter or digit, with
 * `_ . - / : @ #` allowed inside.
 *
 * @example
 * 'see src/parser.ts.'.match(SALIENT_CANDIDATE) // ['see', 'src/parser.ts'] (then filtered by isSalientToken)
 */
export const SALIENT_CANDIDATE = /[A-Za-z0-9][A-Za-z0-9_.\-/:@#]{2,}[A-Za-z0-9]/g

/**
 * Longest salient token, in characters.
 *
 * @example
 * SALIENT_MAX_LENGTH // 120
 */
export const SALIENT_MAX_LENGTH = 120

/**
 * True when a candidate token is salient: at most 120 characters and it mixes letters and digits
 * (`HAT076`), is all digits (`2024`), holds `_` or `/` next to a letter (`payment_id`,
 * `src/parser.ts`), is camelCase (`getMessages`) or ends in a file extension (`README.md`: a dot,
 * a lowercase letter, then up to four lowercase letters or digits).
 *
 * @example
 * isSalientToken('mia_li_3668') // true
 * isSalientToken('flight') // false
 */
export const isSalientToken = (token: string): boolean => {
  if (token.length < 4 || token.length > SALIENT_MAX_LENGTH) return false
  const letters = /[A-Za-z]/.test(token)
  const digits = /[0-9]/.test(token)
  if (letters && digits) return true
  if (!letters && /^[0-9]+$/.test(token)) return true
  if (/[A-Za-z][_/]|[_/][A-Za-z]/.test(token)) return true
  if (/[a-z][A-Z]/.test(token)) return true
  return /\.[a-z][a-z0-9]{0,4}$/.test(token)
}

/**
 * The distinct salient tokens of `text`, in order of first occurrence.
 *
 * @example
 * toSalientTokens('Booked HAT076 for mia_li_3668 on 2024-05-20 (HAT076)') // ['HAT076', 'mia_li_3668', '2024-05-20']
 */
export const toSalientTokens = (text: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const match of text.matchAll(SALIENT_CANDIDATE)) if (!seen.has(match[0]) && isSalientToken(match[0])) seen.add(match[0])
  return [...seen]
}

/** Keys whose values are never facts: identifiers, names, kinds, roles, signatures, opaque data. */
const SKIPPED_KEYS: ReadonlySet<string> = new Set([
  'id',
  'tool_call_id',
  'call_id',
  'tool_use_id',
  'toolCallId',
  'approvalId',
  'name',
  'tool_name',
  'toolName',
  'type',
  'role',
  'signature',
  'encrypted_content',
  'redacted_thinking',
  'metadata',
  'mediaType',
  'media_type',
])

/** Keys of an answer that are not its text or tool-call arguments (model reasoning). */
const REASONING_KEYS: ReadonlySet<string> = new Set(['thinking', 'reasoning', 'reasoning_content', 'reasoningText', 'summary'])
const REASONING_TYPES: ReadonlySet<string> = new Set(['thinking', 'redacted_thinking', 'reasoning'])

const BARE_BASE64 = /^[A-Za-z0-9+/=\r\n]{200,}$/
const isOpaqueString = (text: string): boolean => (text.startsWith('data:') && text.includes(';base64,')) || BARE_BASE64.test(text)

/** How a string leaf is read: `clean` removes text the library wrote around original content. */
interface WalkRules {
  readonly answer: boolean
  readonly clean: (text: string) => string
}

const walk = (value: unknown, rules: WalkRules, out: string[], depth: number): void => {
  if (depth > 64) return
  if (typeof value === 'string') {
    const text = rules.clean(value)
    if (text === '' || isOpaqueString(text)) return
    const first = text.trimStart()[0]
    if (first === '{' || first === '[') {
      try {
        walk(JSON.parse(text), { answer: rules.answer, clean: identity }, out, depth + 1)
        return
      } catch {
        // not JSON: read as text
      }
    }
    out.push(text)
    return
  }
  if (Array.isArray(value)) {
    for (const item of value) walk(item, rules, out, depth + 1)
    return
  }
  if (!isPlainObject(value)) return
  if (rules.answer && typeof value.type === 'string' && REASONING_TYPES.has(value.type)) return
  // base64 sources: { type: 'base64', data } (Anthropic), { mediaType, data } (AI SDK files)
  const opaqueData = value.type === 'base64' || 'media_type' in value || 'mediaType' in value
  for (const key of Object.keys(value)) {
    if (SKIPPED_KEYS.has(key)) continue
    if (key === 'data' && opaqueData) continue
    if (rules.answer && REASONING_KEYS.has(key)) continue
    walk(value[key], rules, out, depth + 1)
  }
}

const identity = (text: string): string => text

/**
 * The string values of a message (or any JSON value) that can hold facts, as the metric reads
 * them: JSON-looking strings (tool-call arguments, JSON tool results) are parsed and their values
 * read, not their keys; ids, names, `type`, `role`, signatures, encrypted content, metadata and
 * base64 data are skipped. With `answer`, reasoning blocks are skipped too (an answer is its text
 * and tool-call arguments).
 *
 * @example
 * toValueStrings({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_user', arguments: '{"user_id":"mia_li_3668"}' } }] })
 * // ['mia_li_3668']
 */
export const toValueStrings = (value: unknown, answer = false): ReadonlyArray<string> => {
  const out: string[] = []
  walk(value, { answer, clean: identity }, out, 0)
  return out
}

const COMPACTION_NOTICE = '<system-reminder source="context-compaction">'
const LAST_USER_REPLAY_ENVELOPE = /^<system-reminder source="context-replay">\n[^\n]*\n\n([\s\S]*)\n<\/system-reminder>$/
const SUMMARY_ENVELOPE = /^<system-reminder source="context-summary">\n([\s\S]*)\n<\/system-reminder>$/
const TRUNCATION_HEADER = /^\[truncated: ~[0-9,]+ tokens - (?:call tool again if needed|read [\s\S]*? for the full result)\] /
const OMITTED_MIDDLE = /\n\.\.\.\[[0-9,]+ chars omitted\]\.\.\.\n/
const INGRESS_SUFFIX = /\n\[tool result cut at ingress: [^\n]*\]$/
const USER_STUB = /^\[User message compacted - original: "([\s\S]*)\.\.\."\]$/
const LIBRARY_PLACEHOLDERS: ReadonlySet<string> = new Set(['[no result recorded]'])
const LIBRARY_SOURCES: ReadonlySet<string> = new Set(['context-compaction', 'context-repair'])

/**
 * The original content inside one string of a view, without what the library wrote: the
 * compaction notice (dropped), the last-user replay and summary envelopes (their inner text kept), the
 * truncation header with its recovery text and spill path, the omitted-middle marker, the ingress
 * cut note, the user-stub frame (its quoted preview kept), repair placeholders, and the tool-result
 * stub frame of `toolResultStub` (its tool name and arguments kept).
 *
 * @example
 * toOriginalText('[truncated: ~1,250 tokens - read /spill/a.txt for the full result] HAT076 ...') // 'HAT076 ...'
 */
export const toOriginalText = (text: string): string => {
  if (text.startsWith(COMPACTION_NOTICE) || LIBRARY_PLACEHOLDERS.has(text)) return ''
  const lastUserReplay = LAST_USER_REPLAY_ENVELOPE.exec(text)
  if (lastUserReplay !== null) return lastUserReplay[1]
  const summary = SUMMARY_ENVELOPE.exec(text)
  if (summary !== null) return summary[1]
  const stub = USER_STUB.exec(text)
  if (stub !== null) return stub[1]
  const toolStub = TOOL_RESULT_STUB.exec(text)
  if (toolStub !== null) return toolStub[1]
  let out = text
  const header = TRUNCATION_HEADER.exec(out)
  if (header !== null) out = out.slice(header[0].length).replace(OMITTED_MIDDLE, '\n')
  return out.replace(INGRESS_SUFFIX, '')
}

/**
 * Frame of a tool-result stub written by the library in place of a cleared result
 * (`tool_result_truncation: "stub"`):
 * `[tool result cleared: <tool>, <N> chars - call the tool again if needed]` (or `read <spill
 * path> for the full result`). Only what identifies the result (the tool name, and arguments when
 * a stub carries them) is original content.
 *
 * @example
 * TOOL_RESULT_STUB.exec('[tool result cleared: get_user({"user_id":"a_1"}), 812 chars - call the tool again if needed]')?.[1] // 'get_user({"user_id":"a_1"})'
 */
export const TOOL_RESULT_STUB = /^\[tool result cleared: ([\s\S]*?), [0-9,]+ chars - (?:call the tool again if needed|read [\s\S]*? for the full result)\]$/

const viewTexts = new WeakMap<object, string>()

/**
 * The original content of one view message as one string (values separated by NUL, so no token
 * spans two values): empty for the library's own messages (notice, repair placeholders).
 *
 * @example
 * toViewMessageText({ role: 'user', content: '<system-reminder source="context-compaction">\n…' }) // ''
 */
export const toViewMessageText = (message: Message): string => {
  const known = viewTexts.get(message)
  if (known !== undefined) return known
  let text = ''
  const source = isPlainObject(message.metadata) ? message.metadata.source : undefined
  if (!(typeof source === 'string' && LIBRARY_SOURCES.has(source))) {
    const out: string[] = []
    walk(message, { answer: false, clean: toOriginalText }, out, 0)
    text = out.join('\u0000')
  }
  viewTexts.set(message, text)
  return text
}

const historyTexts = new WeakMap<object, string>()
const toHistoryText = (message: Message): string => {
  const known = historyTexts.get(message)
  if (known !== undefined) return known
  const text = toValueStrings(message).join('\u0000')
  historyTexts.set(message, text)
  return text
}

const isSystemMessage = (message: Message): boolean => message.role === 'system' || message.role === 'developer'

/** Items of an answer: assistant messages, and Responses output items (which carry no role). */
const ANSWER_ITEM_TYPES: ReadonlySet<string> = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'tool-call'])
const isAnswerMessage = (message: Message): boolean =>
  message.role === 'assistant' || (message.role === undefined && typeof message.type === 'string' && ANSWER_ITEM_TYPES.has(message.type))

/**
 * The recall of one request: `op_index` of its `get_messages_for_request`, its needed facts,
 * how many the view recalled, and the lost ones (in order of appearance in the answer).
 *
 * @example
 * const request: RequestRecall = { op_index: 5, needed: 3, recalled: 2, lost: ['HAT076'] }
 */
export interface RequestRecall {
  readonly op_index: number
  readonly needed: number
  readonly recalled: number
  readonly lost: ReadonlyArray<string>
}

/**
 * The recall of one session: needed and recalled facts summed over its requests, `recall` =
 * recalled / needed (null when nothing was needed), and the per-request figures.
 *
 * @example
 * const figures: RecallFigures = { needed_facts: 10, recalled_facts: 9, recall: 0.9, requests: [] }
 */
export interface RecallFigures {
  readonly needed_facts: number
  readonly recalled_facts: number
  readonly recall: number | null
  readonly requests: ReadonlyArray<RequestRecall>
}

/**
 * Which history texts contain a token, searched incrementally: the eligible part of the history
 * (all but the last two messages, system messages excluded) only grows while the input appends,
 * so a token once found stays found and one not found is only looked for in the texts added since.
 */
class EligibleHistory {
  private texts: string[] = []
  private messages: Message[] = []
  private cache = new Map<string, number>() // texts searched so far; -1 = found
  /** Makes the eligible part the first `count` messages of `history` (system ones skipped). */
  update(history: ReadonlyArray<Message>, count: number): void {
    let same = Math.min(this.messages.length, count)
    for (let index = 0; index < same; index += 1) {
      if (this.messages[index] !== history[index]) {
        same = index
        break
      }
    }
    if (same < this.messages.length) {
      this.messages = []
      this.texts = []
      this.cache = new Map()
      same = 0
    }
    for (let index = same; index < count; index += 1) {
      const message = history[index]
      this.messages.push(message)
      if (!isSystemMessage(message)) this.texts.push(toHistoryText(message))
    }
  }
  has(token: string): boolean {
    const from = this.cache.get(token) ?? 0
    if (from < 0) return true
    for (let index = from; index < this.texts.length; index += 1) {
      if (this.texts[index].includes(token)) {
        this.cache.set(token, -1)
        return true
      }
    }
    this.cache.set(token, this.texts.length)
    return false
  }
}

/**
 * The answer to each request of `recording`: the assistant messages (and Responses output items)
 * the input adds after it and before the next request, by request index.
 */
const toAnswers = (recording: Recording): ReadonlyArray<ReadonlyArray<Message>> => {
  const answers: Message[][] = []
  let current: Message[] | null = null
  let history: Message[] = []
  for (const op of recording.ops) {
    if (op.op === 'get_messages_for_request') {
      current = []
      answers.push(current)
    } else if (op.op === 'add_message') {
      if (current !== null && isAnswerMessage(op.message)) current.push(op.message)
      history.push(op.message)
    } else if (op.op === 'set_messages') {
      if (current !== null) {
        let same = 0
        while (same < history.length && same < op.messages.length && JSON.stringify(history[same]) === JSON.stringify(op.messages[same])) same += 1
        for (const message of op.messages.slice(same)) if (isAnswerMessage(message)) current.push(message)
      }
      history = [...op.messages]
    } else if (op.op === 'clear') history = []
  }
  return answers
}

/**
 * Needed-fact recall of one replayed session. `recording` is the input (its operations give the
 * history the real agent had and its answers); `views[i]` is the view sent at the i-th request
 * (null when the request failed: its needed facts count, none recalled).
 *
 * For request k: the answer's salient tokens (text and tool-call arguments, `toValueStrings`) that
 * occur in the history before k outside system messages and outside the last two messages are
 * needed, once each; a needed token is recalled when it is a substring (case-sensitive) of the
 * view's original content (`toViewMessageText`). Throws nothing; O(answer tokens x view size) per
 * request, the history searched incrementally.
 *
 * @example
 * toRecallFigures({ config: {}, now: '', ops: [{ op: 'add_message', message: { role: 'user', content: 'my id is mia_li_3668' } }, { op: 'add_message', message: { role: 'assistant', content: 'ok' } }, { op: 'add_message', message: { role: 'user', content: 'book it' } }, { op: 'get_messages_for_request' }, { op: 'add_message', message: { role: 'assistant', content: 'Booked for mia_li_3668' } }] }, [[{ role: 'user', content: 'book it' }]]).recall // 0
 */
export const toRecallFigures = (recording: Recording, views: ReadonlyArray<ReadonlyArray<Message> | null>): RecallFigures => {
  const answers = toAnswers(recording)
  const eligible = new EligibleHistory()
  const requests: RequestRecall[] = []
  let history: Message[] = []
  let request = 0
  recording.ops.forEach((op, opIndex) => {
    if (op.op === 'add_message') history.push(op.message)
    else if (op.op === 'set_messages') history = [...op.messages]
    else if (op.op === 'clear') history = []
    if (op.op !== 'get_messages_for_request') return
    const answer = answers[request]
    const view = request < views.length ? views[request] : null
    request += 1
    const cut = Math.max(0, history.length - 2)
    eligible.update(history, cut)
    // What every policy keeps (system messages, the last two messages) is not a needed fact.
    const kept = [...history.filter(isSystemMessage).map(toHistoryText), ...history.slice(cut).map(toHistoryText)]
    const needed: string[] = []
    for (const message of answer)
      for (const text of toValueStrings(message, true))
        for (const token of toSalientTokens(text)) if (!needed.includes(token) && eligible.has(token) && !kept.some((known) => known.includes(token))) needed.push(token)
    if (needed.length === 0) {
      requests.push({ op_index: opIndex, needed: 0, recalled: 0, lost: [] })
      return
    }
    const texts = view === null ? [] : view.map(toViewMessageText)
    const lost = needed.filter((token) => !texts.some((text) => text.includes(token)))
    requests.push({ op_index: opIndex, needed: needed.length, recalled: needed.length - lost.length, lost })
  })
  const needed = requests.reduce((sum, item) => sum + item.needed, 0)
  const recalled = requests.reduce((sum, item) => sum + item.recalled, 0)
  return { needed_facts: needed, recalled_facts: recalled, recall: needed === 0 ? null : recalled / needed, requests }
}
