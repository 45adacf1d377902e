/**
 * context-simple: the public API. Re-exports only: the pure core (reducers, replay, estimator,
 * stats and config types) and the shell (ContextManager, mount, runners, hooks, importers).
 */
export * from './core/index.js'
export * from './shell/index.js'
export { loadRecordings, detectFormat } from './shell/importers/index.js'
export { parseRecordingJsonl, serializeRecording, RecordingFormatError } from './shell/recording-file.js'
export { readTextFile } from './shell/read-text.js'
export { loadPriceTable, loadWindowTable, lookupModel, toCacheProvider, ModelDataError, DEFAULT_PRICES_FILE, DEFAULT_WINDOWS_FILE } from './shell/economics-data.js'
