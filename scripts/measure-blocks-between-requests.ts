// Content blocks added between consecutive requests of recorded sessions (what Anthropic's 20-block
// cache lookback counts, `countBlocks` in src/core/economics/items.ts): per session the requests,
// the most blocks one request adds after the previous one, and how many requests add more than 20
// (only those read an earlier entry through a held breakpoint rather than the tail mark alone,
// docs/formats.md "Prompt caching").
// Usage: tsx scripts/measure-blocks-between-requests.ts DIR_OR_FILE...
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ANTHROPIC_LOOKBACK_BLOCKS } from '../src/core/economics/cache.js'
import { countBlocks } from '../src/core/economics/items.js'
import { loadRecordings } from '../src/shell/importers/detect.js'

const files = process.argv.slice(2).flatMap((input) =>
  statSync(input).isDirectory()
    ? readdirSync(input)
        .filter((name) => name.endsWith('.jsonl') || name.endsWith('.json'))
        .sort()
        .map((name) => join(input, name))
    : [input],
)
for (const file of files) {
  for (const recording of loadRecordings(readFileSync(file, 'utf8'), file, 'auto').recordings) {
    let added = 0
    let most = 0
    let over = 0
    let requests = 0
    for (const op of recording.ops) {
      if (op.op === 'add_message') added += countBlocks(op.message)
      if (op.op !== 'get_messages_for_request') continue
      if (requests > 0) {
        most = Math.max(most, added)
        if (added > ANTHROPIC_LOOKBACK_BLOCKS) over += 1
      }
      requests += 1
      added = 0
    }
    console.log(`${basename(file)}: ${requests} requests, at most ${most} blocks added between two, ${over} adding more than ${ANTHROPIC_LOOKBACK_BLOCKS}`)
  }
}
