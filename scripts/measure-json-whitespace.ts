// What tool_result_json_whitespace "strip" saves on the tool results of a tau-bench file
// (docs/configuration.md, "JSON tool results without whitespace"): gpt-tokenizer's o200k_base
// count of every `role: "tool"` string content of each trajectory (`traj`), as written and as
// stripJsonWhitespace (src/core/tool-results/json-whitespace.ts) stores it; an independent
// count (the tokenizer, never the meter's estimator). Also the count after
// JSON.stringify(JSON.parse(...)) as a second implementation of "without whitespace".
// Usage: npx tsx scripts/measure-json-whitespace.ts [FILE ...]
//   default FILE: ../shared/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json, or in a clone without
//   ../shared the repository's gzipped copy, fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz
import { existsSync } from 'node:fs'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { stripJsonWhitespace } from '../src/core/tool-results/json-whitespace.js'
import { readTextFile } from '../src/shell/read-text.js'

const SHARED = '../shared/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'
const files = process.argv.length > 2 ? process.argv.slice(2) : [existsSync(SHARED) ? SHARED : 'fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz']

/** JSON.stringify of the parsed value when `text` is a JSON object or array, else `text`. */
const reserialized = (text: string): string => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? JSON.stringify(value) : text
  } catch {
    return text
  }
}

for (const file of files) {
  const trajectories = JSON.parse(readTextFile(file)) as ReadonlyArray<{ readonly traj?: ReadonlyArray<{ readonly role?: unknown; readonly content?: unknown }> }>
  let results = 0
  let written = 0
  let stripped = 0
  let second = 0
  for (const trajectory of trajectories) {
    for (const message of trajectory.traj ?? []) {
      if (message.role !== 'tool' || typeof message.content !== 'string') continue
      results += 1
      written += encode(message.content).length
      stripped += encode(stripJsonWhitespace(message.content) ?? message.content).length
      second += encode(reserialized(message.content)).length
    }
  }
  console.log(JSON.stringify({ file, results, written, stripped, reserialized: second, saved: `${(100 * (1 - stripped / written)).toFixed(1)} %` }))
}
