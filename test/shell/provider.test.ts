/** Tests of readProviderWindow: SPEC 4 step 2 with either naming, the both-truthy rule and exceptions. */
import { describe, expect, it } from 'vitest'
import { readProviderWindow } from '../../src/shell/provider.js'
import type { Provider } from '../../src/shell/provider.js'

const defaults = (value: unknown): Provider => ({ get_info: () => ({ defaults: value }) })

describe('readProviderWindow', () => {
  it('falls back to the snake_case field when the camelCase one is null', async () => {
    const provider: Provider = { getModelInfo: () => ({ contextWindow: null, context_window: 200_000, maxOutputTokens: 64_000 }) as never }
    expect(await readProviderWindow(provider)).toEqual({ context_window: 200_000, max_output_tokens: 64_000 })
  })

  it('reads get_model_info (plain object, snake_case)', async () => {
    await expect(readProviderWindow({ get_model_info: () => ({ context_window: 200_000, max_output_tokens: 64_000 }) })).resolves.toEqual({
      context_window: 200_000,
      max_output_tokens: 64_000,
    })
  })

  it('reads getModelInfo (async, camelCase) and prefers it over get_model_info', async () => {
    const provider: Provider = {
      getModelInfo: async () => ({ contextWindow: 1000, maxOutputTokens: 100 }),
      get_model_info: () => ({ context_window: 5, max_output_tokens: 5 }),
    }
    await expect(readProviderWindow(provider)).resolves.toEqual({ context_window: 1000, max_output_tokens: 100 })
  })

  it('reads attributes of a class instance (getters on the prototype)', async () => {
    class Info {
      get context_window(): number {
        return 8000
      }
      get max_output_tokens(): number {
        return 1000
      }
    }
    await expect(readProviderWindow({ get_model_info: () => new Info() })).resolves.toEqual({ context_window: 8000, max_output_tokens: 1000 })
  })

  it('falls to get_info().defaults when model info is falsy or not both-truthy', async () => {
    const info = () => ({ defaults: { context_window: 128_000, max_output_tokens: 16_384 } })
    const expected = { context_window: 128_000, max_output_tokens: 16_384 }
    await expect(readProviderWindow({ get_model_info: () => null, get_info: info })).resolves.toEqual(expected)
    await expect(readProviderWindow({ get_model_info: () => ({}), get_info: info })).resolves.toEqual(expected)
    await expect(readProviderWindow({ get_model_info: () => ({ context_window: 200_000, max_output_tokens: 0 }), get_info: info })).resolves.toEqual(expected)
    await expect(readProviderWindow({ getInfo: async () => ({ defaults: { contextWindow: 10, maxOutputTokens: 2 } }) })).resolves.toEqual({
      context_window: 10,
      max_output_tokens: 2,
    })
  })

  it('resolves null when neither source gives both limits', async () => {
    await expect(readProviderWindow(defaults({ context_window: 128_000, max_output_tokens: 0 }))).resolves.toBeNull()
    await expect(readProviderWindow(defaults(null))).resolves.toBeNull()
    await expect(readProviderWindow(defaults(undefined))).resolves.toBeNull()
    await expect(readProviderWindow({})).resolves.toBeNull()
  })

  it('an exception anywhere abandons the whole step: a throwing get_model_info skips get_info', async () => {
    const provider: Provider = {
      get_model_info: () => {
        throw new Error('no model info')
      },
      get_info: () => ({ defaults: { context_window: 128_000, max_output_tokens: 16_384 } }),
    }
    await expect(readProviderWindow(provider)).resolves.toBeNull()
    await expect(readProviderWindow({ get_model_info: async () => Promise.reject(new Error('x')) })).resolves.toBeNull()
    await expect(readProviderWindow({ get_info: () => null })).resolves.toBeNull()
    await expect(readProviderWindow({ get_model_info: 5 as unknown as () => unknown })).resolves.toBeNull()
  })

  it('SPEC 17.9: a limit that is not a finite positive number is ignored with a warning, and the next source applies', async () => {
    for (const [contextWindow, maxOutput] of [['1000', 10], [Number.NaN, 10], [Infinity, 10], [1000, -Infinity], [-5, 10]] as const) {
      const warnings: string[] = []
      const provider: Provider = {
        getModelInfo: () => ({ contextWindow, maxOutputTokens: maxOutput }),
        getInfo: () => ({ defaults: { context_window: 9000, max_output_tokens: 1000 } }),
      }
      await expect(readProviderWindow(provider, { warn: (message) => warnings.push(message) })).resolves.toEqual({ context_window: 9000, max_output_tokens: 1000 })
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/^context-simple: provider getModelInfo\(\) gave context window .* tokens; a limit must be a finite positive number/)
    }
    const warnings: string[] = []
    await expect(readProviderWindow(defaults({ context_window: Number.NaN, max_output_tokens: 10 }), { warn: (message) => warnings.push(message) })).resolves.toBeNull()
    expect(warnings[0]).toContain('gave context window NaN and max output 10 tokens')
  })

  it('SPEC 17.9: a read that does not settle within timeoutMs counts as one that threw (max_tokens applies), with a warning', async () => {
    const warnings: string[] = []
    const provider: Provider = {
      getModelInfo: () => new Promise(() => undefined),
      getInfo: () => ({ defaults: { context_window: 9000, max_output_tokens: 1000 } }),
    }
    await expect(readProviderWindow(provider, { warn: (message) => warnings.push(message), timeoutMs: 20 })).resolves.toBeNull()
    expect(warnings).toEqual(['context-simple: provider.getModelInfo() did not settle within 20 ms (callTimeoutMs); reading the budget from max_tokens'])
  })
})
