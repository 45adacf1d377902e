/**
 * Recording files (JSON Lines, `docs/recording-format.md`): decoding text into a `Recording` with
 * io-ts codecs and line-numbered errors, and writing a `Recording` back as JSON Lines.
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { DEFAULT_REPLAY_NOW } from '../core/replay/recording.js'
import type { Recording, RecordingOp } from '../core/replay/recording.js'
import { decodeMessage, decodeMessages, describeValue, toProblemText } from '../core/messages/json-value.js'

/**
 * A file that is not a valid recording or recorded session. `message` is
 * `<sourceName>:<line>: <problem>` (1-based line) or `<sourceName>: <problem>` when the problem
 * has no line (an empty file, a JSON document). The parts are also kept as fields.
 *
 * @example
 * const error = new RecordingFormatError('recording.jsonl', 7, 'op "add_message" needs an object "message"')
 * error.message // => 'recording.jsonl:7: op "add_message" needs an object "message"'
 * error.name // => 'RecordingFormatError'
 */
export class RecordingFormatError extends Error {
  override readonly name: string = 'RecordingFormatError'
  /** The file (or other source) name as given by the caller. */
  readonly sourceName: string
  /** The 1-based line of the problem, when it has one. */
  readonly line: number | undefined
  /** The problem alone, without file and line. */
  readonly problem: string

  constructor(sourceName: string, line: number | undefined, problem: string) {
    super(line === undefined ? `${sourceName}: ${problem}` : `${sourceName}:${line}: ${problem}`)
    this.sourceName = sourceName
    this.line = line
    this.problem = problem
  }
}

/**
 * One non-empty line of a JSON Lines text, parsed: its 1-based line number and its value.
 *
 * @example
 * const first: JsonLine = { line: 1, value: { op: 'clear' } }
 */
export interface JsonLine {
  readonly line: number
  readonly value: unknown
}

/**
 * Parses a JSON Lines text lazily, one non-empty line at a time (blank lines are skipped but
 * counted; `\r\n` endings and a leading byte order mark are accepted).
 *
 * Throws `RecordingFormatError` with the line number when a line is not valid JSON, at the
 * moment that line is reached.
 *
 * @example
 * [...iterateJsonLines('{"a":1}\n\n[2]\n', 'x.jsonl')]
 * // [{ line: 1, value: { a: 1 } }, { line: 3, value: [2] }]
 */
export function* iterateJsonLines(text: string, sourceName: string): Generator<JsonLine> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let start = 0
  let lineNumber = 0
  while (start <= body.length) {
    const end = body.indexOf('\n', start)
    const raw = body.slice(start, end === -1 ? body.length : end)
    lineNumber += 1
    start = end === -1 ? body.length + 1 : end + 1
    const trimmed = raw.trim()
    if (trimmed === '') continue
    let value: unknown
    try {
      value = JSON.parse(trimmed)
    } catch (error) {
      throw new RecordingFormatError(sourceName, lineNumber, `not valid JSON (${errorText(error)})`)
    }
    yield { line: lineNumber, value }
  }
}

/**
 * Parses a whole JSON Lines text (see `iterateJsonLines`) into an array of parsed lines.
 *
 * Throws `RecordingFormatError` naming the first line that is not valid JSON.
 *
 * @example
 * readJsonLines('{"op":"clear"}\n', 'r.jsonl') // => [{ line: 1, value: { op: 'clear' } }]
 */
export const readJsonLines = (text: string, sourceName: string): ReadonlyArray<JsonLine> => [
  ...iterateJsonLines(text, sourceName),
]

/** A short rendering of a value for error messages (NaN and Infinity printed as such; core `describeValue`). */
export { describeValue }

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// ---------------------------------------------------------------------------------------------
// Codecs

/** A JSON object (not an array, not null). */
const JsonObjectCodec = t.UnknownRecord

/**
 * The header line: `{"type": "recording", "version": 1, "config": {...}, "now"?: "..."}`, plus this
 * project's optional `session` name and `format` (the recorded manager's message format,
 * docs/formats.md; absent: the contract shape). Other header fields are ignored.
 *
 * @example
 * RecordingHeaderCodec.is({ type: 'recording', version: 1, config: {} }) // => true
 */
export const RecordingHeaderCodec = t.intersection([
  t.type({ type: t.literal('recording') }),
  t.partial({ version: t.number, config: JsonObjectCodec, now: t.string, session: t.string, format: t.keyof({ anthropic: null, 'openai-chat': null, 'openai-responses': null, 'ai-sdk': null }) }),
])

/**
 * The decoded header line (`session` is this project's addition for multi-session sources).
 *
 * @example
 * const header: RecordingHeader = { type: 'recording', version: 1, config: { max_tokens: 3000 } }
 */
export type RecordingHeader = t.TypeOf<typeof RecordingHeaderCodec>

/**
 * The recording format version this module reads and writes.
 *
 * @example
 * JSON.parse(serializeRecording({ config: {}, now: DEFAULT_REPLAY_NOW, ops: [] })).version === RECORDING_VERSION // => true
 */
export const RECORDING_VERSION = 1

/** How one field of an op is checked: its codec, whether it must be present, and its wording. */
interface FieldRule {
  readonly codec: t.Mixed
  readonly required: boolean
  /** The expected shape with its article, as it appears in error messages ("an object"). */
  readonly expected: string
}

const field = (codec: t.Mixed, required: boolean, expected: string): FieldRule => ({ codec, required, expected })

const MessageListCodec = t.array(JsonObjectCodec)
const NumberOrNullCodec = t.union([t.number, t.null])
const ObjectOrNullCodec = t.union([JsonObjectCodec, t.null])

/**
 * The fields each op accepts (docs/recording-format.md). Other fields are ignored; an op name not listed here
 * is an error.
 */
const OP_FIELDS = {
  add_message: { message: field(JsonObjectCodec, true, 'an object') },
  llm_response: { usage: field(t.unknown, true, 'a value') },
  get_messages_for_request: {
    token_budget: field(NumberOrNullCodec, false, 'a number or null'),
    provider: field(ObjectOrNullCodec, false, 'an object or null'),
  },
  set_messages: { messages: field(MessageListCodec, true, 'an array of objects') },
  clear: {},
  set_system_prompt: { content: field(t.string, true, 'a string') },
  summary_result: {
    text: field(t.string, false, 'a string'),
    error: field(t.string, false, 'a string'),
  },
  spill_result: {
    path: field(t.string, true, 'a string'),
    ok: field(t.boolean, true, 'a boolean'),
    error: field(t.string, false, 'a string'),
  },
} as const satisfies Readonly<Record<RecordingOp['op'], Readonly<Record<string, FieldRule>>>>

/**
 * The op names a recording may use, in docs/recording-format.md order.
 *
 * @example
 * RECORDING_OP_NAMES.includes('summary_result') // => true
 */
export const RECORDING_OP_NAMES: ReadonlyArray<RecordingOp['op']> = Object.keys(OP_FIELDS) as Array<RecordingOp['op']>

const isOpName = (name: string): name is RecordingOp['op'] => Object.prototype.hasOwnProperty.call(OP_FIELDS, name)

/**
 * Checks the fields of one op line and returns the op with only its known fields (absent optional
 * fields stay absent), or the problem as text.
 */
const decodeOpFields = (name: RecordingOp['op'], line: Readonly<Record<string, unknown>>): E.Either<string, RecordingOp> => {
  const rules: Readonly<Record<string, FieldRule>> = OP_FIELDS[name]
  const op: Record<string, unknown> = { op: name }
  for (const [key, rule] of Object.entries(rules)) {
    const present = Object.prototype.hasOwnProperty.call(line, key) && line[key] !== undefined
    if (!present) {
      if (rule.required) return E.left(`op "${name}" needs ${rule.expected} "${key}"`)
      continue
    }
    const decoded = rule.codec.decode(line[key])
    if (E.isLeft(decoded)) {
      return E.left(
        rule.required
          ? `op "${name}" needs ${rule.expected} "${key}", got ${describeValue(line[key])}`
          : `op "${name}": "${key}" must be ${rule.expected}, got ${describeValue(line[key])}`,
      )
    }
    op[key] = decoded.right
  }
  if (name === 'summary_result' && op.text === undefined && op.error === undefined) {
    return E.left('op "summary_result" needs a string "text" or a string "error"')
  }
  // Recorded messages follow the rules addMessage / setMessages apply (SPEC 17.9).
  const messages = name === 'add_message' ? decodeMessage(op.message, 'message') : name === 'set_messages' ? decodeMessages(op.messages, 'messages') : null
  if (messages !== null && E.isLeft(messages)) return E.left(`op "${name}": ${messages.left[0].path}: ${toProblemText(messages.left)}`)
  return E.right(op as unknown as RecordingOp)
}

/**
 * Decodes one op line (already parsed JSON) into a `RecordingOp`. Returns the problem as text on
 * the left, without file or line (the caller adds them).
 *
 * @example
 * decodeRecordingOp({ op: 'clear' }) // right({ op: 'clear' })
 * decodeRecordingOp({ op: 'add_message' }) // left('op "add_message" needs an object "message"')
 */
export const decodeRecordingOp = (value: unknown): E.Either<string, RecordingOp> => {
  if (!JsonObjectCodec.is(value)) return E.left(`expected a JSON object, got ${describeValue(value)}`)
  const name = value.op
  if (typeof name !== 'string') {
    if (typeof value.type === 'string' && value.type !== 'recording') {
      return E.left(
        `expected an op line with a string "op", got a line of type ${describeValue(value.type)} (not a recording? try another --format)`,
      )
    }
    return E.left('expected an op line with a string "op"')
  }
  if (!isOpName(name)) {
    return E.left(`unknown op ${describeValue(name)} (known ops: ${RECORDING_OP_NAMES.join(', ')})`)
  }
  return decodeOpFields(name, value)
}

const decodeHeader = (value: Readonly<Record<string, unknown>>): E.Either<string, RecordingHeader> =>
  pipe(
    RecordingHeaderCodec.decode(value),
    E.mapLeft(() => {
      if (value.config !== undefined && !JsonObjectCodec.is(value.config)) {
        return `header needs an object "config", got ${describeValue(value.config)}`
      }
      if (value.now !== undefined && typeof value.now !== 'string') {
        return `header: "now" must be a string, got ${describeValue(value.now)}`
      }
      if (value.version !== undefined && typeof value.version !== 'number') {
        return `header: "version" must be a number, got ${describeValue(value.version)}`
      }
      return `header: "session" must be a string, got ${describeValue(value.session)}`
    }),
    E.chain((header) =>
      header.version !== undefined && header.version !== RECORDING_VERSION
        ? E.left(`unsupported recording version ${header.version} (this reader knows version ${RECORDING_VERSION})`)
        : E.right(header),
    ),
  )

const isHeaderLine = (value: unknown): value is Readonly<Record<string, unknown>> =>
  JsonObjectCodec.is(value) && value.type === 'recording' && value.op === undefined

/**
 * Decodes a recording file (JSON Lines, docs/recording-format.md). The first non-empty line may be the header
 * `{"type":"recording","version":1,"config":{...},"now"?:"..."}`; without it the configuration
 * is `{}` and `now` is `DEFAULT_REPLAY_NOW`. Every other non-empty line is one op, checked with
 * io-ts codecs; fields an op does not know are ignored.
 *
 * Throws `RecordingFormatError` (message `<sourceName>:<line>: <problem>`) for a line that is
 * not JSON, not an object, has no string `op`, names an unknown op, lacks a required field or
 * holds a field of the wrong shape, for a header that is not the first line, and for a text with
 * no lines at all.
 *
 * @example
 * const recording = parseRecordingJsonl(
 *   '{"type":"recording","version":1,"config":{"max_tokens":3000}}\n' +
 *     '{"op":"add_message","message":{"role":"user","content":"hi"}}\n' +
 *     '{"op":"get_messages_for_request","token_budget":1000}\n',
 *   'demo.jsonl',
 * )
 * recording.ops.length // => 2
 * recording.config // => { max_tokens: 3000 }
 */
export const parseRecordingJsonl = (text: string, sourceName: string): Recording => {
  let config: Readonly<Record<string, unknown>> = {}
  let now = DEFAULT_REPLAY_NOW
  let session: string | undefined
  let format: Recording['format']
  const ops: RecordingOp[] = []
  let first = true
  for (const { line, value } of iterateJsonLines(text, sourceName)) {
    if (isHeaderLine(value)) {
      if (!first) throw new RecordingFormatError(sourceName, line, 'the header line is only allowed as the first line')
      const header = decodeHeader(value)
      if (E.isLeft(header)) throw new RecordingFormatError(sourceName, line, header.left)
      config = header.right.config ?? {}
      now = header.right.now ?? DEFAULT_REPLAY_NOW
      session = header.right.session
      format = header.right.format
    } else {
      const op = decodeRecordingOp(value)
      if (E.isLeft(op)) throw new RecordingFormatError(sourceName, line, op.left)
      ops.push(op.right)
    }
    first = false
  }
  if (first) throw new RecordingFormatError(sourceName, undefined, 'empty file: no header and no op lines')
  return { config, now, ops, ...(session === undefined ? {} : { session }), ...(format === undefined ? {} : { format }) }
}

/**
 * Writes a recording as JSON Lines: the header (`type`, `version`, `config`, then `now` when it is
 * not `DEFAULT_REPLAY_NOW` and `session` when set), then one line per op, each line ending in
 * `\n`. `parseRecordingJsonl` reads the result back to an equal recording (values `undefined`
 * inside messages are dropped, as `JSON.stringify` does).
 *
 * @example
 * serializeRecording({ config: {}, now: DEFAULT_REPLAY_NOW, ops: [{ op: 'clear' }] })
 * // '{"type":"recording","version":1,"config":{}}\n{"op":"clear"}\n'
 */
export const serializeRecording = (recording: Recording): string => {
  const header: Record<string, unknown> = { type: 'recording', version: RECORDING_VERSION, config: recording.config }
  if (recording.now !== DEFAULT_REPLAY_NOW) header.now = recording.now
  if (recording.session !== undefined) header.session = recording.session
  if (recording.format !== undefined) header.format = recording.format
  const lines = [JSON.stringify(header), ...recording.ops.map((op) => JSON.stringify(op))]
  return `${lines.join('\n')}\n`
}
