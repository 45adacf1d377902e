/**
 * Output side of the lossless mapping: consecutive pieces of one provider message are joined back
 * into that message. An untouched, complete message comes back as the object that was added
 * (less `metadata` and keys the format forbids); a message with a removed or modified piece is
 * rebuilt from its surviving blocks, in their original order.
 */
import type { Message, Messages } from '../messages/message.js'
import { isTruthy } from '../messages/values.js'
import { carrierOf, INGRESS_CUT_KEY, JSON_STRIPPED_KEY, pickKeys, type NativeCarrier, type ProviderFormat } from './carrier.js'

/**
 * What a format tells the assembler: its name, the message keys it allows, how a modified piece
 * rebuilds its blocks (index into `message.content` and block), how a modified whole-message
 * piece rebuilds its string content, and how a piece that carries nothing of this format (a
 * contract message, the notice, a piece of another format) is converted.
 *
 * @example
 * const codec: AssemblyCodec = { format: 'anthropic', allowedKeys: new Set(['role', 'content']), rebuildBlocks: () => [], fromContract: (piece) => [{ role: piece.role, content: piece.content }] }
 */
export interface AssemblyCodec {
  readonly format: ProviderFormat
  readonly allowedKeys: ReadonlySet<string>
  readonly rebuildBlocks: (piece: Message, carrier: NativeCarrier) => ReadonlyArray<readonly [number, unknown]>
  readonly fromContract: (piece: Message, view: Messages) => ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * True when the piece's text is no longer its provider message's: compaction changed it
 * (truncated tool result or stubbed user text), it was stored without JSON whitespace
 * (`JSON_STRIPPED_KEY`, `tool_result_json_whitespace`), or it was cut at ingress
 * (`INGRESS_CUT_KEY`, `tool_result_ingress_cap_bytes`).
 *
 * @example
 * isModifiedPiece({ role: 'tool', content: 'x', _truncated: true }) // => true
 * isModifiedPiece({ role: 'tool', content: '{"a":1}', _json_stripped: true }) // => true
 * isModifiedPiece({ role: 'tool', content: 'xx\n[tool result cut at ingress: ...]', _ingress_cut: true }) // => true
 * isModifiedPiece({ role: 'tool', content: 'x' }) // => false
 */
export const isModifiedPiece = (piece: Message): boolean => isTruthy(piece._truncated) || isTruthy(piece._stubbed) || isTruthy(piece[JSON_STRIPPED_KEY]) || isTruthy(piece[INGRESS_CUT_KEY])

/**
 * One assembled message and whether it was built from a contract message (`generated`: not one
 * the caller added, so it may be merged with its neighbours, as consecutive result turns are).
 *
 * @example
 * const entry: AssembledMessage = { message: { role: 'user', content: 'hi' }, generated: false }
 */
export interface AssembledMessage {
  readonly message: Readonly<Record<string, unknown>>
  readonly generated: boolean
}

interface Group {
  readonly carrier: NativeCarrier
  readonly blocks: Array<readonly [number, unknown]>
  count: number
  modified: boolean
  stringContent: string | null
}

/**
 * Join the pieces of `view` back into provider messages with `codec` (see the file header).
 * Pure; never throws for odd pieces (they are converted as contract messages).
 *
 * @example
 * const codec: AssemblyCodec = { format: 'anthropic', allowedKeys: new Set(['role', 'content']), rebuildBlocks: () => [], fromContract: (piece) => [{ role: piece.role, content: piece.content }] }
 * assemblePieces([{ role: 'user', content: 'hi' }], codec) // => [{ role: 'user', content: 'hi' }]
 */
export const assemblePieces = (view: Messages, codec: AssemblyCodec): Array<Readonly<Record<string, unknown>>> =>
  assembleEntries(view, codec).map((entry) => entry.message)

/**
 * `assemblePieces` with each message marked `generated` when it was built from a contract message.
 *
 * @example
 * const codec: AssemblyCodec = { format: 'anthropic', allowedKeys: new Set(['role', 'content']), rebuildBlocks: () => [], fromContract: (piece) => [{ role: piece.role, content: piece.content }] }
 * assembleEntries([{ role: 'tool', tool_call_id: 'a', content: 'x' }], codec)[0].generated // => true
 */
export const assembleEntries = (view: Messages, codec: AssemblyCodec): Array<AssembledMessage> => {
  const out: Array<AssembledMessage> = []
  const push = (message: Readonly<Record<string, unknown>>): void => {
    out.push({ message, generated: false })
  }
  let group: Group | null = null
  const flush = (): void => {
    if (group === null) return
    const { carrier } = group
    const message = carrier.message
    if (!group.modified && group.count === carrier.parts) {
      push(pickKeys(message, codec.allowedKeys))
    } else if (carrier.blocks === null || !Array.isArray(message.content)) {
      push(pickKeys(group.stringContent === null ? message : { ...message, content: group.stringContent }, codec.allowedKeys))
    } else {
      const blocks = [...group.blocks].sort((a, b) => a[0] - b[0]).map(([, block]) => block)
      push(pickKeys({ ...message, content: blocks }, codec.allowedKeys))
    }
    group = null
  }
  for (const piece of view) {
    const carrier = carrierOf(piece)
    if (carrier === null || carrier.format !== codec.format) {
      flush()
      for (const message of codec.fromContract(piece, view)) out.push({ message, generated: true })
      continue
    }
    const current: Group | null = group
    if (current === null || current.carrier.origin !== carrier.origin || carrier.origin < 0) {
      flush()
      group = { carrier, blocks: [], count: 0, modified: false, stringContent: null }
    }
    const target = group as unknown as Group
    target.count += 1
    const modified = isModifiedPiece(piece)
    if (modified) target.modified = true
    if (carrier.blocks === null || !Array.isArray(carrier.message.content)) {
      if (modified && typeof piece.content === 'string') target.stringContent = piece.content
      continue
    }
    if (modified) {
      target.blocks.push(...codec.rebuildBlocks(piece, carrier))
    } else {
      const content = carrier.message.content as ReadonlyArray<unknown>
      for (const index of carrier.blocks) target.blocks.push([index, content[index]])
    }
  }
  flush()
  return out
}
