/**
 * The token estimator a manager or the CLI builds from `token_estimator` (docs/configuration.md): the
 * reference estimator (SPEC 5), the typed one (media at provider cost), or the typed split with
 * text counted by a real tokenizer (the optional `gpt-tokenizer` package), memoised per message.
 */
import type { Config } from '../core/config.js'
import { makeCachedEstimator, type TokenEstimator } from '../core/meter/estimate.js'
import { ConfigError } from '../core/errors.js'
import type { Message } from '../core/messages/message.js'
import { estimateTyped, splitMedia } from '../core/meter/typed-estimate.js'
import { nodeBuiltin } from './runtime.js'

/**
 * Tokens charged per message for its role and framing by the tokenizer estimator (the chat
 * formats add a few tokens per message; 4 is OpenAI's documented figure for gpt-4o-style chat).
 *
 * @example
 * MESSAGE_OVERHEAD_TOKENS // => 4
 */
export const MESSAGE_OVERHEAD_TOKENS = 4

/** Every string of a (media-free) value, joined by line feeds: what the tokenizer counts. */
const collectText = (value: unknown, out: string[]): void => {
  if (typeof value === 'string') {
    if (value !== '') out.push(value)
  } else if (Array.isArray(value)) {
    for (const item of value) collectText(item, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'metadata') continue
      collectText(item, out)
    }
  }
}

/**
 * A tokenizer estimator over `countTokens` (text → tokens): the message's media cost as
 * `estimateTyped` charges it, plus the tokens of its strings (metadata left out: it is never
 * sent), plus `MESSAGE_OVERHEAD_TOKENS`. Pure when `countTokens` is.
 *
 * @example
 * makeTokenizerEstimator((text) => text.split(/\s+/).length)({ role: 'user', content: 'a b c' }) // => 1 + 3 + 4
 */
export const makeTokenizerEstimator =
  (countTokens: (text: string) => number): TokenEstimator =>
  (message: Message): number => {
    const split = splitMedia(message)
    const texts: string[] = []
    collectText(split.text, texts)
    return split.mediaTokens + countTokens(texts.join('\n')) + MESSAGE_OVERHEAD_TOKENS
  }

let tokenizer: ((text: string) => number) | null = null

/**
 * `countTokens` of the optional `gpt-tokenizer` package (o200k_base, the vocabulary of gpt-4o and
 * later OpenAI models; no exact Claude tokenizer exists offline), loaded once with the runtime's
 * `require` (Node, Deno, Bun: found on first use, never imported, so the main entry still bundles
 * for browsers). Throws `ConfigError` naming `token_estimator` when the package is not installed,
 * or in a runtime without `require` (a browser, an edge worker): there, import `countTokens` from
 * `gpt-tokenizer` yourself and pass `estimator: makeTokenizerEstimator(countTokens)`.
 *
 * @example
 * loadTokenizer()('hello world') // => 2
 */
export const loadTokenizer = (): ((text: string) => number) => {
  if (tokenizer !== null) return tokenizer
  const modules = nodeBuiltin<{ readonly createRequire: (from: string) => (id: string) => unknown }>('node:module')
  if (modules === null) {
    throw new ConfigError(
      'token_estimator',
      '"tokenizer" loads gpt-tokenizer with require, which this runtime lacks: import { countTokens } from "gpt-tokenizer" and pass estimator: makeTokenizerEstimator(countTokens) to the manager',
    )
  }
  try {
    const loaded = modules.createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: (text: string) => number }
    tokenizer = (text) => loaded.countTokens(text)
    return tokenizer
  } catch (error) {
    // the loader's own error stays the cause, so a caller that is not the estimator (the CLI's
    // provider model, src/shell/cli/evaluate.ts toProviderCount) can name it without this key
    throw Object.assign(new ConfigError('token_estimator', `"tokenizer" needs the optional package gpt-tokenizer: npm install gpt-tokenizer (${(error as Error).message.split('\n')[0]})`), { cause: error })
  }
}

/**
 * The memoised estimator `config.token_estimator` names: `makeCachedEstimator()` for
 * `"reference"`, over `estimateTyped` for `"typed"`, over `makeTokenizerEstimator(loadTokenizer())`
 * for `"tokenizer"`. Throws `ConfigError` when the tokenizer package is missing.
 *
 * @example
 * makeEstimatorFor({ ...DEFAULT_CONFIG, token_estimator: 'typed' })({ role: 'user', content: 'hi' }) // => 8
 */
export const makeEstimatorFor = (config: Config): TokenEstimator => {
  switch (config.token_estimator) {
    case 'typed':
      return makeCachedEstimator(estimateTyped)
    case 'tokenizer':
      return makeCachedEstimator(makeTokenizerEstimator(loadTokenizer()))
    default:
      return makeCachedEstimator()
  }
}

/**
 * The provider model's counter (docs/evaluation.md, "The provider model"): a measure other than
 * the meter's estimators, so the evaluation never grades the meter against itself: the
 * `gpt-tokenizer` split of `makeTokenizerEstimator` (o200k_base text, media as `estimateTyped`
 * charges them), `load` giving the tokenizer (default `loadTokenizer`). Throws the `ConfigError`
 * of `loadTokenizer` when the optional package is missing (there is no fallback: `estimateTyped`,
 * the one measure left, is what `recommended` meters with). Memoised per message.
 *
 * @example
 * makeProviderCounter().name // 'gpt-tokenizer'
 */
export const makeProviderCounter = (load: () => (text: string) => number = loadTokenizer): { readonly count: TokenEstimator; readonly name: 'gpt-tokenizer' } => ({
  count: makeCachedEstimator(makeTokenizerEstimator(load())),
  name: 'gpt-tokenizer',
})
