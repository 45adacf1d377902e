// What tool_result_json_projection "handles" keeps of a tau-bench file's tool results
// (docs/evaluation.md, "JSON tool results by handles"):
//   1. the key names under which the needed facts sit: for every request, each needed fact of
//      toRecallFigures (src/core/economics/recall.ts) counted once per key name whose string
//      value holds it in a JSON tool result of the history before the request (outside the last
//      two messages); the ids and codes the agent names next, by the fields that carry them;
//   2. gpt-tokenizer's o200k_base count of every tool result (JSON stripped of whitespace, as
//      `recommended` stores it) and of its handles form (toJsonHandlesText,
//      src/core/tool-results/json-handles.ts; the result itself when it has none), and of the
//      forms with their key names left out (what the names cost).
// Usage: npx tsx scripts/measure-json-handles.ts [FILE ...]
//   default FILE: ../shared/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json, or in a clone without
//   ../shared the repository's gzipped copy, fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz
import { existsSync } from 'node:fs'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { toRecallFigures } from '../src/core/economics/recall.js'
import type { Message } from '../src/core/messages/message.js'
import { toJsonHandlesText } from '../src/core/tool-results/json-handles.js'
import { stripJsonWhitespace } from '../src/core/tool-results/json-whitespace.js'
import { readTextFile } from '../src/shell/read-text.js'

const SHARED = '../shared/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json'
const files = process.argv.length > 2 ? process.argv.slice(2) : [existsSync(SHARED) ? SHARED : 'fixtures/sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json.gz']
const { readInput } = await import('../src/shell/cli/evaluate.js')

/** Adds to `out` every key name whose string value (any depth) holds `fact`. */
const addKeysHolding = (value: unknown, key: string, fact: string, out: Set<string>, depth: number): void => {
  if (depth > 64) return
  if (typeof value === 'string') {
    if (value.includes(fact)) out.add(key)
  } else if (Array.isArray(value)) for (const item of value) addKeysHolding(item, key, fact, out, depth + 1)
  else if (value !== null && typeof value === 'object') for (const [name, item] of Object.entries(value)) addKeysHolding(item, name, fact, out, depth + 1)
}

const parsed = (message: Message): unknown => {
  if (message.role !== 'tool' || typeof message.content !== 'string') return undefined
  try {
    return JSON.parse(message.content) as unknown
  } catch {
    return undefined
  }
}

for (const file of files) {
  const keys = new Map<string, number>()
  let facts = 0
  for (const recording of readInput(file, 'auto').recordings) {
    const requests = toRecallFigures(recording, []).requests
    const history: Message[] = []
    let at = 0
    recording.ops.forEach((op) => {
      if (op.op === 'add_message') history.push(op.message)
      if (op.op !== 'get_messages_for_request') return
      const request = requests[at]
      at += 1
      for (const fact of request.lost) {
        facts += 1
        const holding = new Set<string>()
        for (const message of history.slice(0, Math.max(0, history.length - 2))) addKeysHolding(parsed(message), '', fact, holding, 0)
        for (const key of holding) keys.set(key, (keys.get(key) ?? 0) + 1)
      }
    })
  }
  const trajectories = JSON.parse(readTextFile(file)) as ReadonlyArray<{ readonly traj?: ReadonlyArray<{ readonly role?: unknown; readonly content?: unknown }> }>
  let results = 0
  let whole = 0
  let form = 0
  let formed = 0
  let formKeys = 0
  let formValues = 0
  for (const trajectory of trajectories) {
    for (const message of trajectory.traj ?? []) {
      if (message.role !== 'tool' || typeof message.content !== 'string') continue
      results += 1
      const stored = stripJsonWhitespace(message.content) ?? message.content
      const handles = toJsonHandlesText(stored)
      whole += encode(stored).length
      form += encode(handles ?? stored).length
      if (handles === null) continue
      formed += 1
      formKeys += encode(handles).length
      formValues += encode(handles.replace(/"(?:[^"\\]|\\.)*":/g, '')).length
    }
  }
  console.log(`${file}: ${facts} needed facts; key names holding them in an older JSON result (a fact once per key name):`)
  console.log([...keys.entries()].sort((x, y) => y[1] - x[1]).map(([key, count]) => `${key} ${count}`).join(', '))
  console.log(`tool results ${results}, o200k tokens stripped ${whole}, with the handles form where there is one ${form} (${results - formed} without a form); the ${formed} forms ${formKeys} tokens, without their key names ${formValues}`)
}
