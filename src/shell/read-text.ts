/**
 * Reads an input file as UTF-8 text, gunzipping it first when it is gzip-compressed (recognised
 * by the gzip magic bytes, whatever the file name), so large recorded sessions can be stored
 * compressed and replayed as they are. Node only: exported by `context-simple/node`; in other
 * runtimes read the text yourself and hand it to `loadRecordings` / `parseRecordingJsonl`.
 */
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

const isGzip = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b

/**
 * The text of a file: its bytes decoded as UTF-8, after gunzip when the file starts with the gzip
 * magic bytes (`1f 8b`).
 *
 * Throws what `readFileSync` throws for a missing or unreadable file, and a zlib error for a file
 * that starts like gzip but is not valid gzip data.
 *
 * @example
 * import { readTextFile } from 'context-simple/node'
 * const text = readTextFile('fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz')
 */
export const readTextFile = (path: string): string => {
  const bytes = readFileSync(path)
  return (isGzip(bytes) ? gunzipSync(bytes) : bytes).toString('utf8')
}
