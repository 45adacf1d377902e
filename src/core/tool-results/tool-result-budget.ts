/**
 * Tool-result truncation (SPEC 11): budget resolution (per tool → global tokens → legacy chars),
 * head or head+tail shape, and the content-addressed spill pointer. Pure: a spill is returned as
 * data for the shell to write.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import type { Config, ToolResultShape } from '../config.js'
import type { Message } from '../messages/message.js'
import { codePointLength, codePointSlice, fmtInt } from '../messages/text.js'
import { isPlainObject } from '../messages/values.js'
import { seqOf } from '../messages/message.js'
import { isShortened } from '../compaction/retention.js'

/**
 * Characters (code points) per token when a token budget is converted to characters (SPEC 11.1).
 *
 * @example
 * resolveToolResultBudget({ role: 'tool' }, { ...DEFAULT_CONFIG, tool_result_budget_tokens: 100 }, {}).budgetChars // => 400
 */
export const CHARS_PER_TOKEN = 4

/**
 * A spill the shell must write: the full original content at `path` directly inside `directory`
 * (SPEC 11.5); becomes a `write_spill` effect.
 *
 * @example
 * const spill: SpillRequest = { directory: '/tmp/spill', path: '/tmp/spill/tool-result-000004-ba7816bf8f01cfea.txt', content: 'abc' }
 */
export interface SpillRequest {
  readonly directory: string
  readonly path: string
  readonly content: string
}

/**
 * The outcome of truncating one tool result: the view message and the spill, if any.
 *
 * @example
 * const unchanged: Truncation = { message: { role: 'tool', content: 'ok' }, spill: null }
 */
export interface Truncation {
  readonly message: Message
  readonly spill: SpillRequest | null
}

/**
 * The tool name of a tool result (SPEC 11.4): its `name`, else `metadata.tool_name` (non-empty
 * strings), else the harvested name of its `tool_call_id`, else null.
 *
 * @example
 * toToolName({ role: 'tool', tool_call_id: 'c1' }, { c1: 'grep' }) // => 'grep'
 */
export const toToolName = (message: Message, toolNames: Readonly<Record<string, string>>): string | null => {
  if (typeof message.name === 'string' && message.name !== '') return message.name
  const metadata = message.metadata
  if (isPlainObject(metadata) && typeof metadata.tool_name === 'string' && metadata.tool_name !== '') return metadata.tool_name
  const id = message.tool_call_id
  if (typeof id === 'string' && Object.prototype.hasOwnProperty.call(toolNames, id)) return toolNames[id]
  return null
}

/**
 * True when the result's tool is listed in `tool_result_exempt_tools` (never truncated).
 *
 * @example
 * isExemptToolResult({ role: 'tool', name: 'load_skill' }, { ...DEFAULT_CONFIG, tool_result_exempt_tools: ['load_skill'] }, {}) // => true
 */
export const isExemptToolResult = (message: Message, config: Config, toolNames: Readonly<Record<string, string>>): boolean => {
  if (config.tool_result_exempt_tools.length === 0) return false
  const name = toToolName(message, toolNames)
  return name !== null && config.tool_result_exempt_tools.includes(name)
}

/**
 * The character budget and shape for one result (SPEC 11.1): per-tool tokens × 4, else global
 * tokens × 4 with the configured shape, else `truncate_chars` head-only.
 *
 * @example
 * resolveToolResultBudget({ role: 'tool' }, DEFAULT_CONFIG, {}) // => { budgetChars: 250, shape: 'head' }
 */
export const resolveToolResultBudget = (
  message: Message,
  config: Config,
  toolNames: Readonly<Record<string, string>>,
): { readonly budgetChars: number; readonly shape: ToolResultShape } => {
  const byTool = config.tool_result_budget_by_tool
  if (Object.keys(byTool).length > 0) {
    const name = toToolName(message, toolNames)
    if (name !== null && Object.prototype.hasOwnProperty.call(byTool, name)) {
      return { budgetChars: byTool[name] * CHARS_PER_TOKEN, shape: config.tool_result_shape }
    }
  }
  if (config.tool_result_budget_tokens !== null) {
    return { budgetChars: config.tool_result_budget_tokens * CHARS_PER_TOKEN, shape: config.tool_result_shape }
  }
  return { budgetChars: config.truncate_chars, shape: 'head' }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * First 16 lowercase hex digits of SHA-256 over the UTF-8 bytes of `content`, lone surrogates
 * encoded as `?` (SPEC 11.5).
 *
 * @example
 * toContentDigest('abc') // => 'ba7816bf8f01cfea'
 */
export const toContentDigest = (content: string): string => {
  const wellFormed = content.isWellFormed() ? content : content.replace(LONE_SURROGATE, '?')
  return bytesToHex(sha256(utf8ToBytes(wellFormed))).slice(0, 16)
}

/**
 * A directory normalized the way Python's pathlib prints it (SPEC 11.5): repeated separators
 * collapsed (a leading `//` kept), `.` components and a trailing separator removed, `..` kept.
 * Returns `''` for `.`.
 *
 * @example
 * normalizeSpillDirectory('/tmp//spill/./') // => '/tmp/spill'
 */
export const normalizeSpillDirectory = (directory: string): string => {
  let prefix = ''
  let rest = directory
  if (rest.startsWith('//') && !rest.startsWith('///')) {
    prefix = '//'
    rest = rest.slice(2)
  } else if (rest.startsWith('/')) {
    prefix = '/'
    rest = rest.replace(/^\/+/, '')
  }
  const parts = rest.split('/').filter((part) => part !== '' && part !== '.')
  return prefix + parts.join('/')
}

/**
 * The content-addressed spill path of a result (SPEC 11.5):
 * `<dir>/tool-result-<seq padded to 6>-<digest>.txt`, or `tool-result-<digest>.txt` without an
 * integer `_seq`.
 *
 * @example
 * toSpillPath('/tmp/spillx', 42, 'a'.repeat(10)) // => '/tmp/spillx/tool-result-000042-bf2cb58a68f684d9.txt'
 */
export const toSpillPath = (directory: string, seq: unknown, content: string): string => {
  const digest = toContentDigest(content)
  const name =
    typeof seq === 'number' && Number.isInteger(seq)
      ? `tool-result-${String(seq).padStart(6, '0')}-${digest}.txt`
      : `tool-result-${digest}.txt`
  const normalized = normalizeSpillDirectory(directory)
  if (normalized === '') return name
  return normalized.endsWith('/') ? normalized + name : `${normalized}/${name}`
}

const NO_PATHS: ReadonlySet<string> = new Set()

/**
 * The view without pointers to the spill paths in `paths` (SPEC 17.9): a truncated tool result
 * whose marker reads `- read <path> for the full result]` gets the plain
 * `- call tool again if needed]` instead; every other message is returned as it is (same object).
 * Used for the request whose own spill writes failed, after they were answered. Pure.
 *
 * @example
 * withoutSpillPointers([{ role: 'tool', _truncated: true, content: '[truncated: ~9 tokens - read /s/a.txt for the full result] ab...' }], new Set(['/s/a.txt']))[0].content
 * // '[truncated: ~9 tokens - call tool again if needed] ab...'
 */
export const withoutSpillPointers = <M extends Message>(view: ReadonlyArray<M>, paths: ReadonlySet<string>): M[] => {
  if (paths.size === 0) return [...view]
  return view.map((message) => {
    const content = message.content
    if (message.role !== 'tool' || message._truncated !== true || typeof content !== 'string' || !content.startsWith('[truncated: ~')) return message
    const end = content.indexOf(' for the full result] ')
    if (end < 0) return message
    const start = content.lastIndexOf(' tokens - read ', end)
    if (start < 0) return message
    const path = content.slice(start + ' tokens - read '.length, end)
    if (!paths.has(path)) return message
    return { ...message, content: `${content.slice(0, start)} tokens - call tool again if needed]${content.slice(end + ' for the full result]'.length)}` }
  })
}

/**
 * The stub of a cleared tool result (`tool_result_truncation` `"stub"` or `"mask"`):
 * `[tool result cleared: <tool>, <N> chars - call the tool again if needed]`, or with a spill
 * `... - read <path> for the full result]`. `length` in characters (code points); `recovery` the
 * spill's recovery text, null without a spill.
 *
 * @example
 * toolResultStub('get_user_details', 812, null) // => '[tool result cleared: get_user_details, 812 chars - call the tool again if needed]'
 */
export const toolResultStub = (tool: string, length: number, recovery: string | null): string =>
  `[tool result cleared: ${tool}, ${fmtInt(length)} chars - ${recovery ?? 'call the tool again if needed'}]`

/**
 * Truncate one tool result (SPEC 11.2): unchanged when content is not a string, the tool is
 * exempt, or the content fits its budget; otherwise a copy whose content starts with
 * `[truncated: ~<tokens> tokens - <recovery>]` followed by the head (and tail, in `head_tail`),
 * with `_truncated: true` and `_original_tokens` (`length // 4`) added. With a spill directory the
 * recovery text names the spill file and the spill is returned for the shell to write, unless
 * that path is in `failedSpills` (a write refused or failed, SPEC 17.9): then the marker keeps
 * the plain recovery text and nothing is spilled.
 *
 * @example
 * truncateToolResult({ role: 'tool', content: 'A'.repeat(5000) }, DEFAULT_CONFIG, {}).message.content
 * // '[truncated: ~1,250 tokens - call tool again if needed] AAA…A...' (250 A)
 */
export const truncateToolResult = (
  message: Message,
  config: Config,
  toolNames: Readonly<Record<string, string>>,
  failedSpills: ReadonlySet<string> = NO_PATHS,
): Truncation => {
  const raw = message.content === undefined ? '' : message.content
  if (typeof raw !== 'string') return { message, spill: null }
  if (isExemptToolResult(message, config, toolNames)) return { message, spill: null }
  const { budgetChars, shape } = resolveToolResultBudget(message, config, toolNames)
  const length = codePointLength(raw)
  const truncation = config.tool_result_truncation
  const toolOf = (): string => toToolName(message, toolNames) ?? 'a tool'
  // Observation masking (src/core/compaction/retention.ts): every result the ladder reaches
  // becomes its stub when the stub is shorter; otherwise only a result over its budget changes.
  // The stub's length decides only under "mask" for a result within its budget: made only then.
  const stubLength = truncation === 'mask' && length <= budgetChars ? toolResultStub(toolOf(), length, null).length : 0
  if (!isShortened(length, budgetChars, stubLength, truncation)) return { message, spill: null }
  const originalTokens = Math.floor(length / 4)
  let spill: SpillRequest | null = null
  let recovery = 'call tool again if needed'
  if (config.tool_result_spill_dir !== null) {
    const path = toSpillPath(config.tool_result_spill_dir, seqOf(message), raw)
    // SPEC 17.9: a path whose write was refused or failed is never pointed at again.
    if (!failedSpills.has(path)) {
      spill = { directory: config.tool_result_spill_dir, path, content: raw }
      recovery = `read ${path} for the full result`
    }
  }
  if (truncation === 'stub' || truncation === 'mask') {
    // What identifies the result (its tool; the call with its arguments stays right before it)
    // and its size, instead of its head.
    const content = toolResultStub(toolOf(), length, spill === null ? null : recovery)
    return { message: { ...message, content, _truncated: true, _original_tokens: originalTokens }, spill }
  }
  const header = `[truncated: ~${fmtInt(originalTokens)} tokens - ${recovery}]`
  let content: string
  if (shape === 'head_tail') {
    const head = Math.floor(budgetChars / 2)
    const tail = budgetChars - head
    const omitted = length - head - tail
    const tailText = tail > 0 ? codePointSlice(raw, length - tail) : ''
    content = `${header} ${codePointSlice(raw, 0, head)}\n...[${fmtInt(omitted)} chars omitted]...\n${tailText}`
  } else {
    content = `${header} ${codePointSlice(raw, 0, budgetChars)}...`
  }
  return { message: { ...message, content, _truncated: true, _original_tokens: originalTokens }, spill }
}
