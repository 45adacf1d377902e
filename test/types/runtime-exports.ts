// Type tests (checked by `npm run typecheck`, not run): the @example of every export added or
// moved for the runtime-neutral main entry (docs/runtimes.md) compiles as written, through the
// entries a user imports (src/index.ts is `context-simple`, src/node.ts `context-simple/node`).
import { BUNDLED_PRICE_TABLE, BUNDLED_WINDOW_TABLE, decodePriceTable, decodeWindowTable, lookupModel, makeRuntimeSpillWriter, type SpillWriter } from '../../src/index.js'
import { DEFAULT_PRICES_FILE, DEFAULT_WINDOWS_FILE, loadPriceTable, loadWindowTable, makeFileSpillWriter, readTextFile } from '../../src/node.js'

export const runtimeExports = async (): Promise<unknown[]> => {
  // makeRuntimeSpillWriter
  const runtimeWriter: SpillWriter = makeRuntimeSpillWriter()
  await runtimeWriter.write('/tmp/spill', '/tmp/spill/a.txt', 'full text') // 'written' on Node, Deno and Bun
  // makeFileSpillWriter (context-simple/node)
  const writer = makeFileSpillWriter()
  await writer.write('/tmp/spill', '/tmp/spill/tool-result-000001-0123456789abcdef.txt', 'full') // 'written'
  // the tables
  const figures: unknown[] = [
    BUNDLED_PRICE_TABLE.models['gpt-4o'].input, // 2.5
    BUNDLED_WINDOW_TABLE.models['gpt-4o'].context_window, // 128000
    decodePriceTable({ models: { 'my-model': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 4, source: 'our contract' } } }).models['my-model'].output, // 4
    decodeWindowTable({ models: { 'my-model': { context_window: 32000, max_output_tokens: 4096, source: 'model card' } } }).models['my-model'].context_window, // 32000
    lookupModel(BUNDLED_PRICE_TABLE, 'claude-sonnet-4-5-20250929')?.input, // 3
    loadPriceTable().models['gpt-4o'].input, // 2.5
    loadWindowTable().models['gpt-4o'].context_window, // 128000
    DEFAULT_PRICES_FILE.endsWith('data/prices.json'), // true
    DEFAULT_WINDOWS_FILE.endsWith('data/windows.json'), // true
    readTextFile('fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz').length,
  ]
  return figures
}
