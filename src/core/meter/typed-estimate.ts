/**
 * The typed estimator (`token_estimator: "typed"`, docs/configuration.md): text is counted as the reference
 * estimator counts it (SPEC 5), but image and document blocks and base64 payloads are never
 * counted as text: each costs a documented per-provider amount instead.
 */
import type { Message } from '../messages/message.js'
import { pyreprLength } from './estimate.js'
import { isPlainObject } from '../messages/values.js'

/**
 * Token costs of media, per provider, from their documentation (docs/configuration.md, "A typed estimator"). Anthropic: an image
 * costs `width × height / 750` after it is scaled to at most 1,568 px on the long edge and
 * 1.15 megapixels, so at most about 1,600; OpenAI: `detail: "low"` costs 85, otherwise 85 + 170
 * per 512-px tile after the image is fitted into 2,048 × 2,048 and its short side scaled to 768
 * (at most 1,445 for 768 × 2,048). When the dimensions cannot be read from the payload (a URL, an
 * unknown format) the conservative ceiling of the provider is used; a document (PDF and others,
 * whose page count is not read) costs `document` per block.
 *
 * @example
 * MEDIA_TOKENS.anthropicImageMax // => 1600
 */
export const MEDIA_TOKENS = Object.freeze({ anthropicImageMax: 1600, openaiLow: 85, openaiHighMax: 1445, document: 1600 })

/** A base64 payload this long (characters) or longer is media, never text. */
const BASE64_MIN_LENGTH = 256
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9=.-]+)*;base64,/i
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** Decode the first `bytes` bytes of a base64 string (no padding or whitespace handling needed). */
const decodePrefix = (base64: string, bytes: number): number[] => {
  const out: number[] = []
  let buffer = 0
  let bits = 0
  for (let i = 0; i < base64.length && out.length < bytes; i += 1) {
    const value = ALPHABET.indexOf(base64[i])
    if (value < 0) break
    buffer = (buffer << 6) | value
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out.push((buffer >> bits) & 0xff)
    }
  }
  return out
}

/**
 * Width and height in pixels of a PNG, GIF or JPEG image given as base64, or null when they
 * cannot be read from its first 64 KiB.
 *
 * @example
 * toImageDimensions('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==') // => { width: 1, height: 1 }
 */
export const toImageDimensions = (base64: string): { readonly width: number; readonly height: number } | null => {
  if (base64.startsWith('iVBORw0KGgo')) {
    const b = decodePrefix(base64, 24)
    if (b.length < 24) return null
    return { width: ((b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19]) >>> 0, height: ((b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23]) >>> 0 }
  }
  if (base64.startsWith('R0lGOD')) {
    const b = decodePrefix(base64, 10)
    return b.length < 10 ? null : { width: b[6] | (b[7] << 8), height: b[8] | (b[9] << 8) }
  }
  if (base64.startsWith('/9j/')) {
    const b = decodePrefix(base64, 65536)
    let i = 2
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null
      const marker = b[i + 1]
      const length = (b[i + 2] << 8) | b[i + 3]
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: (b[i + 7] << 8) | b[i + 8], height: (b[i + 5] << 8) | b[i + 6] }
      }
      i += 2 + length
    }
  }
  return null
}

/**
 * Anthropic's image cost for `width × height` pixels (tokens), after its downscaling.
 *
 * @example
 * toAnthropicImageTokens(1000, 1000) // => 1334
 */
export const toAnthropicImageTokens = (width: number, height: number): number => {
  let w = width
  let h = height
  const edge = Math.max(w, h)
  if (edge > 1568) {
    w = (w * 1568) / edge
    h = (h * 1568) / edge
  }
  const area = w * h
  if (area > 1_150_000) {
    const scale = Math.sqrt(1_150_000 / area)
    w *= scale
    h *= scale
  }
  return Math.min(MEDIA_TOKENS.anthropicImageMax, Math.ceil((w * h) / 750))
}

/**
 * OpenAI's image cost (tokens) for `width × height` pixels at `detail` (`"low"` = 85).
 *
 * @example
 * toOpenAiImageTokens(1024, 1024, 'high') // => 765
 */
export const toOpenAiImageTokens = (width: number, height: number, detail: unknown): number => {
  if (detail === 'low') return MEDIA_TOKENS.openaiLow
  let w = width
  let h = height
  const fit = Math.min(1, 2048 / Math.max(w, h))
  w *= fit
  h *= fit
  const shortSide = Math.min(w, h)
  if (shortSide > 768) {
    w = (w * 768) / shortSide
    h = (h * 768) / shortSide
  }
  return MEDIA_TOKENS.openaiLow + 170 * Math.ceil(w / 512) * Math.ceil(h / 512)
}

type Provider = 'anthropic' | 'openai'

const payloadOf = (value: unknown): string | null => {
  if (typeof value !== 'string') return null
  const match = DATA_URL.exec(value)
  return match === null ? value : value.slice(match[0].length)
}

const imageCost = (data: unknown, provider: Provider, detail?: unknown): { readonly tokens: number; readonly measured: boolean } => {
  const payload = payloadOf(data)
  const size = payload === null ? null : toImageDimensions(payload)
  if (provider === 'openai') {
    if (detail === 'low') return { tokens: MEDIA_TOKENS.openaiLow, measured: true }
    return size === null ? { tokens: MEDIA_TOKENS.openaiHighMax, measured: false } : { tokens: toOpenAiImageTokens(size.width, size.height, detail), measured: true }
  }
  return size === null ? { tokens: MEDIA_TOKENS.anthropicImageMax, measured: false } : { tokens: toAnthropicImageTokens(size.width, size.height), measured: true }
}

/** The cost of a media block, or null when `block` is not one. */
const mediaBlockCost = (block: Readonly<Record<string, unknown>>): { readonly tokens: number; readonly measured: boolean } | null => {
  const type = block.type
  const source = isPlainObject(block.source) ? block.source : null
  if (type === 'image' && source !== null) return imageCost(source.data ?? source.url, 'anthropic')
  if (type === 'image') return imageCost(block.image, 'anthropic')
  if (type === 'image_url') {
    const url = isPlainObject(block.image_url) ? block.image_url : null
    return imageCost(url?.url, 'openai', url?.detail)
  }
  if (type === 'input_image') return imageCost(block.image_url, 'openai', block.detail)
  if (type === 'document' || type === 'input_file') return { tokens: MEDIA_TOKENS.document, measured: false }
  if (type === 'file') {
    const media = typeof block.mediaType === 'string' ? block.mediaType : typeof block.mimeType === 'string' ? block.mimeType : ''
    return media.startsWith('image/') ? imageCost(block.data, 'anthropic') : { tokens: MEDIA_TOKENS.document, measured: false }
  }
  return null
}

/**
 * True for a string that is a base64 payload or a base64 data URL (media, not text).
 *
 * @example
 * isBase64Payload('data:image/png;base64,iVBORw0KGgo=') // => true
 * isBase64Payload('hello world') // => false
 */
export const isBase64Payload = (value: string): boolean =>
  DATA_URL.test(value) || (value.length >= BASE64_MIN_LENGTH && BASE64.test(value))

/**
 * A message split into its text and its media (docs/configuration.md, `token_estimator`): `text` is the message with every media
 * block and base64 string replaced by an empty string (the value the text estimators count),
 * `mediaTokens` the summed media cost, `media` the number of media items and `unmeasured` how many
 * of them were charged a ceiling because their size could not be read.
 *
 * @example
 * splitMedia({ role: 'user', content: [{ type: 'text', text: 'hi' }] }).mediaTokens // => 0
 */
export interface MediaSplit {
  readonly text: unknown
  readonly mediaTokens: number
  readonly media: number
  readonly unmeasured: number
}

/**
 * Split `message` into text and media (see `MediaSplit`). Pure; returns the same object as `text`
 * when the message holds no media.
 *
 * @example
 * splitMedia({ role: 'user', content: 'data:image/png;base64,iVBORw0KGgo...' }).media // => 1
 */
export const splitMedia = (message: unknown): MediaSplit => {
  let mediaTokens = 0
  let media = 0
  let unmeasured = 0
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!isBase64Payload(value)) return value
      const match = DATA_URL.exec(value)
      const cost = match === null || match[1]?.startsWith('image/') === true ? imageCost(value, 'anthropic') : { tokens: MEDIA_TOKENS.document, measured: false }
      mediaTokens += cost.tokens
      media += 1
      if (!cost.measured) unmeasured += 1
      return ''
    }
    if (Array.isArray(value)) {
      let changed = false
      const out = value.map((item) => {
        const next = walk(item)
        if (next !== item) changed = true
        return next
      })
      return changed ? out : value
    }
    if (isPlainObject(value)) {
      const cost = mediaBlockCost(value)
      if (cost !== null) {
        mediaTokens += cost.tokens
        media += 1
        if (!cost.measured) unmeasured += 1
        return ''
      }
      let changed = false
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(value)) {
        const next = walk(item)
        if (next !== item) changed = true
        out[key] = next
      }
      return changed ? out : value
    }
    return value
  }
  const text = walk(message)
  return { text, mediaTokens, media, unmeasured }
}

/**
 * Bytes of an encrypted reasoning payload that are its envelope, not reasoning (version, timestamp,
 * IV, MAC and padding of the sealed token), as openai/codex subtracts them when it estimates a
 * reasoning item (`codex-rs/core/src/context_manager/history.rs`, `estimate_reasoning_length`).
 *
 * @example
 * REASONING_ENVELOPE_BYTES // => 650
 */
export const REASONING_ENVELOPE_BYTES = 650

/**
 * Tokens of the reasoning an encrypted payload of `length` base64 characters carries: the
 * decoded bytes (3 per 4 characters) less `REASONING_ENVELOPE_BYTES`, at 4 bytes per token
 * (rounded up; never negative). What the provider bills for a Responses `reasoning` (or
 * `compaction`) item passed back in the current turn is that reasoning, not the characters of its
 * `encrypted_content` (docs/configuration.md, "A typed estimator").
 *
 * @example
 * toEncryptedReasoningTokens(4000) // => 588
 * toEncryptedReasoningTokens(100) // => 0
 */
export const toEncryptedReasoningTokens = (length: number): number => Math.ceil(Math.max(0, Math.floor((3 * length) / 4) - REASONING_ENVELOPE_BYTES) / 4)

/** True for a Responses item whose `encrypted_content` carries sealed model reasoning. */
const isEncryptedReasoningItem = (message: Readonly<Record<string, unknown>>): message is Readonly<Record<string, unknown>> & { readonly encrypted_content: string } =>
  (message.type === 'reasoning' || message.type === 'compaction') && typeof message.encrypted_content === 'string'

/**
 * The typed estimator: `floor(pyreprLength(text) / 4) + mediaTokens` of `splitMedia(message)`.
 * Equal to the reference estimator (SPEC 5) for a message without media; additive over lists like
 * it (the core sums per message). A Responses `reasoning` or `compaction` item with
 * `encrypted_content` (as the openai-responses format hands its items to the estimator) costs the
 * reasoning it carries (`toEncryptedReasoningTokens`), not its characters: the payload is sealed
 * bytes, never text the model reads, and its summary is not fed back. Pure.
 *
 * @example
 * estimateTyped({ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }) // => 8 + 1600
 * estimateTyped({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Looking' }], encrypted_content: 'gAAAAB'.repeat(700) }) // => 625
 */
export const estimateTyped = (message: Message): number => {
  if (isEncryptedReasoningItem(message)) return toEncryptedReasoningTokens(message.encrypted_content.length)
  const split = splitMedia(message)
  return Math.floor(pyreprLength(split.text) / 4) + split.mediaTokens
}

/**
 * Media in a list of messages (`token_estimator` typed or tokenizer, docs/configuration.md): how many media
 * items the estimate charged, and how many of them a ceiling because their size could not be read.
 * `memo` caches the per-message counts (messages are immutable).
 *
 * @example
 * countMedia([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }], new WeakMap()) // => { media: 1, unmeasured: 1 }
 */
export const countMedia = (
  messages: ReadonlyArray<Message>,
  memo: WeakMap<Message, { readonly media: number; readonly unmeasured: number }>,
): { readonly media: number; readonly unmeasured: number } => {
  let media = 0
  let unmeasured = 0
  for (const message of messages) {
    let counts = memo.get(message)
    if (counts === undefined) {
      const split = splitMedia(message)
      counts = { media: split.media, unmeasured: split.unmeasured }
      memo.set(message, counts)
    }
    media += counts.media
    unmeasured += counts.unmeasured
  }
  return { media, unmeasured }
}
