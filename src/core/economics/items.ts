/**
 * A view as the prompt cache sees it: its messages in provider order, each with a key for what
 * goes on the wire, its estimated tokens and whether it is an ephemeral tail item.
 */
import type { TokenEstimator } from '../meter/estimate.js'
import type { Message } from '../messages/message.js'
import { isPlainObject, isTruthy } from '../messages/values.js'
import type { CacheItem, CacheProvider } from './cache.js'

const keys = new WeakMap<object, string>()

/**
 * The wire identity of a message: its JSON without `metadata` (metadata is never sent), memoised
 * per message object.
 *
 * @example
 * toWireKey({ role: 'user', content: 'hi', metadata: { _seq: 1 } }) // => '{"role":"user","content":"hi"}'
 */
export const toWireKey = (message: Message): string => {
  const known = keys.get(message)
  if (known !== undefined) return known
  const { metadata: _metadata, ...sent } = message as Record<string, unknown>
  const key = JSON.stringify(sent)
  keys.set(message, key)
  return key
}

const isEphemeral = (message: Message): boolean => isPlainObject(message.metadata) && isTruthy(message.metadata.ephemeral)

/**
 * The cache items of `view` in provider order: for Anthropic the system messages first (they
 * travel in the `system` parameter), then the rest; for OpenAI the view's order. Tokens come
 * from `estimate`; `blocks` from `countBlocks`.
 *
 * @example
 * toCacheItems([{ role: 'user', content: 'hi' }, { role: 'system', content: 's' }], 'anthropic', estimateOne).map((item) => item.key)
 * // ['{"role":"system","content":"s"}', '{"role":"user","content":"hi"}']
 */
export const toCacheItems = (view: ReadonlyArray<Message>, provider: CacheProvider, estimate: TokenEstimator): ReadonlyArray<CacheItem> => {
  const ordered = provider === 'anthropic' ? [...view.filter((message) => message.role === 'system'), ...view.filter((message) => message.role !== 'system')] : view
  return ordered.map((message) => ({ key: toWireKey(message), tokens: estimate(message), ephemeral: isEphemeral(message), blocks: countBlocks(message) }))
}

/**
 * The content blocks a message sends (what the Anthropic cache lookback counts): one per content
 * part (a string is one), plus one per tool call; at least 1.
 *
 * @example
 * countBlocks({ role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] }) // => 2
 */
export const countBlocks = (message: Message): number => {
  const content = (message as { readonly content?: unknown }).content
  const parts = Array.isArray(content) ? content.length : typeof content === 'string' && content !== '' ? 1 : 0
  const calls = (message as { readonly tool_calls?: unknown }).tool_calls
  return Math.max(1, parts + (Array.isArray(calls) ? calls.length : 0))
}
