/**
 * The ingress cap for tool results (`tool_result_ingress_cap_bytes`, docs/configuration.md): a tool result
 * whose text is larger than the cap is cut with a visible marker when it is added, after its whole
 * original has been spilled when a spill directory is set, so nothing is lost. In the provider
 * formats every tool-result piece of the added message is capped and its provider message is sent
 * with the cut text (docs/contract.md 17.15).
 */
import { lastOf, replaceLast, toItemReader, toPlainArray } from '../messages/appendable.js'
import type { Config } from '../config.js'
import type { Effect } from '../effects.js'
import { carrierOf, INGRESS_CUT_KEY } from '../formats/carrier.js'
import type { Message } from '../messages/message.js'
import { seqOf } from '../messages/message.js'
import type { State } from '../state.js'
import { toSpillPath } from './tool-result-budget.js'

/**
 * UTF-8 length in bytes of `text`.
 *
 * @example
 * utf8Length('é😀') // => 6
 */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i += 1
    } else bytes += 3
  }
  return bytes
}

/** The longest prefix of `text` (whole code points) of at most `cap` UTF-8 bytes, and its size. */
const utf8Prefix = (text: string, cap: number): { readonly text: string; readonly bytes: number } => {
  let bytes = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3
    if (bytes + size > cap) break
    bytes += size
    i += pair ? 2 : 1
  }
  return { text: text.slice(0, i), bytes }
}

/**
 * The cut form of `content` at `cap` bytes: the kept prefix, then a marker with the sizes and,
 * when the original was spilled, the file that holds it.
 *
 * @example
 * toIngressCut('x'.repeat(10), 4, null).content // => 'xxxx\n[tool result cut at ingress: 4 of 10 bytes kept (tool_result_ingress_cap_bytes); call the tool again with a narrower request for the rest]'
 */
export const toIngressCut = (content: string, cap: number, spillPath: string | null): { readonly content: string; readonly keptBytes: number; readonly originalBytes: number } => {
  const originalBytes = utf8Length(content)
  const kept = utf8Prefix(content, cap)
  const where = spillPath === null ? 'call the tool again with a narrower request for the rest' : `the full output is in ${spillPath}`
  return {
    content: `${kept.text}\n[tool result cut at ingress: ${kept.bytes} of ${originalBytes} bytes kept (tool_result_ingress_cap_bytes); ${where}]`,
    keptBytes: kept.bytes,
    originalBytes,
  }
}

const isOverCap = (message: Message, cap: number): message is Message & { content: string } =>
  message.role === 'tool' && typeof message.content === 'string' && message.content.length > cap / 4 && utf8Length(message.content) > cap

/**
 * `message` with its cut `content`; a piece of a provider message (one with a carrier,
 * src/core/formats/carrier.ts) also gets `_ingress_cut: true`, so its assembler rebuilds the
 * provider message with the cut text (`isModifiedPiece`) and the meter counts what is sent.
 */
const withCut = (message: Message, content: string): Message =>
  carrierOf(message) === null ? { ...message, content } : { ...message, content, [INGRESS_CUT_KEY]: true }

/**
 * The state with each stored message whose `_seq` is a key of `cuts` given that content: O(1) when
 * only the history's last item changes, else one O(n) copy of references.
 */
const replaceStored = (state: State, cuts: ReadonlyMap<number, string>): State => {
  const last = lastOf(state.history)
  const lastSeq = last === undefined ? undefined : seqOf(last)
  const lastCut = lastSeq === undefined ? undefined : cuts.get(lastSeq)
  if (last !== undefined && lastCut !== undefined && cuts.size === 1) return { ...state, history: replaceLast(state.history, withCut(last, lastCut)) }
  const history = toPlainArray(state.history).map((message) => {
    const seq = seqOf(message)
    const content = seq === undefined ? undefined : cuts.get(seq)
    return content === undefined ? message : withCut(message, content)
  })
  return { ...state, history }
}

const truncatedEvent = (cut: { readonly keptBytes: number; readonly originalBytes: number }, cap: number, spilled: boolean): Effect => ({
  type: 'emit_hook',
  name: 'context:tool_result_ingress_truncated',
  data: { original_bytes: cut.originalBytes, kept_bytes: cut.keptBytes, cap_bytes: cap, spilled },
})

/** The stored tool results from index `from` on whose text is over `cap`, with their `_seq`. */
const selectOverCap = (state: State, from: number, cap: number): ReadonlyArray<{ readonly seq: number; readonly content: string }> => {
  const reader = toItemReader(state.history)
  const out: Array<{ seq: number; content: string }> = []
  for (let index = Math.max(0, from); index < reader.length; index += 1) {
    const message = reader.at(index)
    const seq = seqOf(message)
    if (seq !== undefined && isOverCap(message, cap)) out.push({ seq, content: message.content })
  }
  return out
}

/**
 * Apply the ingress cap to the messages just stored: every tool result at index `from` or later
 * of `state.history` (the one contract message added, or every tool-result piece of one provider
 * message, e.g. each `tool_result` block of an Anthropic user turn). Without a spill directory
 * each is cut at once (one `context:tool_result_ingress_truncated` per cut); a provider piece is
 * marked `_ingress_cut` so its provider message is sent with the cut text (docs/contract.md
 * 17.15). With one, they stay whole and a `write_spill` of each original is asked for; the cut
 * happens when its write is confirmed (`applyIngressSpillAnswer`). Off (`null`), or for other
 * messages, the state is unchanged.
 *
 * @example
 * applyIngressCap(DEFAULT_CONFIG, makeInitialState(), 0).effects // => []
 */
export const applyIngressCap = (config: Config, state: State, from: number): { readonly state: State; readonly effects: ReadonlyArray<Effect> } => {
  const cap = config.tool_result_ingress_cap_bytes
  if (cap === null) return { state, effects: [] }
  const over = selectOverCap(state, from, cap)
  if (over.length === 0) return { state, effects: [] }
  const directory = config.tool_result_spill_dir
  if (directory === null) {
    const cuts = new Map<number, string>()
    const effects: Effect[] = []
    for (const { seq, content } of over) {
      const cut = toIngressCut(content, cap, null)
      cuts.set(seq, cut.content)
      effects.push(truncatedEvent(cut, cap, false))
    }
    return { state: replaceStored(state, cuts), effects }
  }
  const pending: Record<string, number> = { ...state.toolResults.ingressPending }
  const effects: Effect[] = []
  for (const { seq, content } of over) {
    const path = toSpillPath(directory, seq, content)
    pending[path] = seq
    effects.push({ type: 'write_spill', directory, path, content })
  }
  return { state: { ...state, toolResults: { ...state.toolResults, ingressPending: pending } }, effects }
}

/**
 * The answer to an ingress spill: written → the stored result is cut and points at the file;
 * failed → it stays whole and `context:spill_failed` `{path, error}` is emitted. Null when `path`
 * is not a pending ingress spill.
 *
 * @example
 * const config: Config = { ...DEFAULT_CONFIG, tool_result_ingress_cap_bytes: 100, tool_result_spill_dir: '/tmp/spill' }
 * const step = makeStep({ config, estimate: estimateOne })
 * const added = step(makeInitialState(), { type: 'message_added', message: { role: 'tool', tool_call_id: 'a', content: 'x'.repeat(500) }, timestamp: DEFAULT_REPLAY_NOW })
 * const write = added.effects.find((effect) => effect.type === 'write_spill')
 * const path = write?.type === 'write_spill' ? write.path : ''
 * applyIngressSpillAnswer(config, added.state, path, null)?.state.history[0].content === 'x'.repeat(500) // => false
 * applyIngressSpillAnswer(config, added.state, '/tmp/spill/other.txt', null) // => null
 */
export const applyIngressSpillAnswer = (
  config: Config,
  state: State,
  path: string,
  error: string | null,
): { readonly state: State; readonly effects: ReadonlyArray<Effect> } | null => {
  const seq = state.toolResults.ingressPending[path]
  const cap = config.tool_result_ingress_cap_bytes
  if (seq === undefined || cap === null) return null
  const { [path]: _done, ...pending } = state.toolResults.ingressPending
  const settled: State = { ...state, toolResults: { ...state.toolResults, ingressPending: pending } }
  if (error !== null) return { state: settled, effects: [{ type: 'emit_hook', name: 'context:spill_failed', data: { path, error } }] }
  const message = toPlainArray(state.history).find((candidate) => seqOf(candidate) === seq)
  if (message === undefined || typeof message.content !== 'string') return { state: settled, effects: [] }
  const cut = toIngressCut(message.content, cap, path)
  return { state: replaceStored(settled, new Map([[seq, cut.content]])), effects: [truncatedEvent(cut, cap, true)] }
}
