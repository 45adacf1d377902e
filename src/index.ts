/**
 * context-simple: the public API. Re-exports only: the pure core (reducers, replay, estimator,
 * stats and config types) and the shell (ContextManager, mount, runners, hooks, importers).
 * Runtime-neutral: nothing reachable from here imports a Node built-in (test/runtime checks it),
 * so it runs in browsers, edge workers, Deno, Bun and Node alike; the pieces that need Node's
 * file system are in `context-simple/node` (src/node.ts, docs/runtimes.md).
 */
export * from './core/index.js'
export * from './shell/index.js'
export { loadRecordings, detectFormat, type InputFormat, type InputFormatChoice, type LoadedRecordings } from './shell/importers/index.js'
export { parseRecordingJsonl, serializeRecording, RecordingFormatError } from './shell/recording-file.js'
export { BUNDLED_PRICE_TABLE, BUNDLED_WINDOW_TABLE, decodePriceTable, decodeWindowTable, lookupModel, toCacheProvider, ModelDataError } from './shell/model-tables.js'
