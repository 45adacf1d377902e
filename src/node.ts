/**
 * `context-simple/node`: everything the main entry exports, plus the pieces that need Node's file
 * system (they also run on Deno and Bun, which provide the same modules): the file spill writer,
 * the plain-or-gzipped text file reader, and the price and window tables read from files. A Node
 * program can import everything from here instead of `context-simple`; nothing else changes
 * (docs/runtimes.md). The CLI (`npx context-simple`) is Node's too.
 */
export * from './index.js'
export { makeFileSpillWriter } from './shell/node/spill-file.js'
export { readTextFile } from './shell/read-text.js'
export { loadPriceTable, loadWindowTable, DEFAULT_PRICES_FILE, DEFAULT_WINDOWS_FILE } from './shell/economics-data.js'
