// The provider model's counter per --usage mode (src/shell/cli/evaluate.ts toProviderCount):
// recorded readings need no gpt-tokenizer (replay's default runs in an install without the optional
// package), simulated usage refuses to fall back to the meter's own estimator.
import { describe, expect, it } from 'vitest'
import { toProviderCount } from '../../../src/shell/cli/evaluate.js'
import { UsageError } from '../../../src/shell/cli/options.js'
import { ConfigError } from '../../../src/core/errors.js'

const missing = (): ((text: string) => number) => {
  throw new Error("Cannot find module 'gpt-tokenizer'")
}

describe('toProviderCount', () => {
  it('under --usage recorded, a missing gpt-tokenizer leaves the count to the replay (undefined)', () => {
    expect(toProviderCount('recorded', missing)).toBeUndefined()
  })

  it('under --usage simulated, a missing gpt-tokenizer is a UsageError naming the fix', () => {
    expect(() => toProviderCount('simulated', missing)).toThrow(UsageError)
    expect(() => toProviderCount('simulated', missing)).toThrow(/npm install gpt-tokenizer/)
  })

  it('names the commands and the missing module, not the token_estimator key the loader speaks of', () => {
    // what loadTokenizer (src/shell/estimators.ts) throws when the package is missing
    const asLoaded = (): ((text: string) => number) => {
      throw Object.assign(new ConfigError('token_estimator', '"tokenizer" needs the optional package gpt-tokenizer: npm install gpt-tokenizer (x)'), {
        cause: new Error("Cannot find module 'gpt-tokenizer'\nRequire stack: ..."),
      })
    }
    let message = ''
    try {
      toProviderCount('simulated', asLoaded)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^compare, report, demo and replay --usage simulated .* npm install gpt-tokenizer \(Cannot find module 'gpt-tokenizer'\)$/)
    expect(message).not.toMatch(/token_estimator|Require stack/)
  })

  it('with the tokenizer both modes count with it', () => {
    const split = (text: string): number => text.split(' ').length
    for (const mode of ['recorded', 'simulated'] as const) {
      const count = toProviderCount(mode, () => split)
      expect(count).toBeTypeOf('function')
      expect(count!({ role: 'user', content: 'one two three' })).toBeGreaterThan(0)
    }
  })
})
